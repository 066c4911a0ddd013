import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct } from '../factories.ts';
import { launchChromium } from '../setup/browser.ts';

const SHOTS = '/tmp/shots-issue-12';
const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 800, height: 1280 },
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
];
// 120 characters, the longest name a shop is likely to load.
const LONG_NAME =
  'Queso cremoso artesanal de campo estacionado noventa días con hierbas finas y pimienta negra, horma entera de aprox 4 kg';

/** What the layout tests measure on the result screen. */
interface Measured {
  price: { text: string; scrollWidth: number; clientWidth: number; left: number; right: number; top: number; bottom: number };
  name: { lines: number; clamped: boolean; top: number; resultTop: number; clamp: string };
  alternatives: { scrollHeight: number; clientHeight: number; overflowY: string; count: number };
  viewport: { width: number; height: number };
}

function measure(page: Page): Promise<Measured> {
  return page.evaluate(() => {
    const el = (id: string) => document.getElementById(id)!;
    const price = el('price');
    const name = el('name');
    const alternatives = el('alternatives');
    const p = price.getBoundingClientRect();
    const lineHeight = Number.parseFloat(getComputedStyle(name).lineHeight);
    return {
      price: {
        text: price.textContent ?? '',
        scrollWidth: price.scrollWidth,
        clientWidth: price.clientWidth,
        left: p.left,
        right: p.right,
        top: p.top,
        bottom: p.bottom,
      },
      name: {
        lines: Math.round(name.clientHeight / lineHeight),
        clamped: name.scrollHeight > name.clientHeight,
        top: name.getBoundingClientRect().top,
        resultTop: el('result').getBoundingClientRect().top,
        clamp: getComputedStyle(name).webkitLineClamp,
      },
      alternatives: {
        scrollHeight: alternatives.scrollHeight,
        clientHeight: alternatives.clientHeight,
        overflowY: getComputedStyle(alternatives).overflowY,
        count: alternatives.querySelectorAll('li').length,
      },
      viewport: { width: innerWidth, height: innerHeight },
    };
  });
}

describe('kiosk layout at phone, tablet and desktop sizes', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let token: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    t = await buildTestApp({ env: { SCANNER_RATE_LIMIT_PER_MINUTE: '0', EXCHANGE_RATE_FIXED: '1160.5' } });
    const shop = await makeCompany(t.container, { name: 'Almacén La Esquina' });
    token = shop.scannerToken;
    await makeProduct(t.container, shop.id, {
      id: 1,
      name: LONG_NAME,
      bc: '7790001000019',
      basePrice: '1234567.89',
      mark: 'Estancia La Esperanza',
    });
    for (let id = 2; id <= 6; id++) {
      await makeProduct(t.container, shop.id, {
        id,
        name: `Queso cremoso ${['artesanal', 'de campo', 'estacionado', 'con hierbas', 'horma'][id - 2]} ${LONG_NAME.slice(14, 90)}`,
        basePrice: `${id}234567.89`,
      });
    }
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const open = async (viewport: { width: number; height: number }) => {
    const page = await browser.newPage({ viewport });
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await page.goto(`${base}/scanner?token=${token}`);
    await page.waitForFunction(() => document.getElementById('rate')?.textContent?.includes('1.160,50'));
    return page;
  };
  const lookup = async (page: Page, text: string) => {
    await page.keyboard.type(text, { delay: 2 });
    await page.keyboard.press('Enter');
    await page.waitForSelector('#result:not([hidden])');
    // kiosk.js fits the price right after showing it; give it a frame.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(null))));
  };

  it.each(VIEWPORTS)('shows a $ 1.234.567,89 price whole on one line at $width×$height', async (viewport) => {
    const page = await open(viewport);
    try {
      await lookup(page, '7790001000019');
      const m = await measure(page);
      await page.screenshot({ path: `${SHOTS}/kiosk-barcode-${viewport.width}x${viewport.height}.png` });
      expect(m.price.text).toBe('$ 1.234.567,89');
      // Not clipped: nothing overflows the price element, and the element is inside the screen.
      expect(m.price.scrollWidth).toBe(m.price.clientWidth);
      expect(m.price.left).toBeGreaterThanOrEqual(0);
      expect(m.price.right).toBeLessThanOrEqual(viewport.width);
      expect(m.price.top).toBeGreaterThanOrEqual(0);
      expect(m.price.bottom).toBeLessThanOrEqual(viewport.height);
      // One line: its height is about one line of its own font.
      const oneLine = await page.evaluate(() => {
        const price = document.getElementById('price')!;
        return price.clientHeight < 2 * Number.parseFloat(getComputedStyle(price).fontSize);
      });
      expect(oneLine).toBe(true);
      // The 120-character name: at most three lines, with the ellipsis, and not cut at the top.
      expect(m.name.clamp).toBe('3');
      expect(m.name.lines).toBeLessThanOrEqual(3);
      expect(m.name.top).toBeGreaterThanOrEqual(m.name.resultTop);
    } finally {
      await page.close();
    }
  });

  it.each(VIEWPORTS)('keeps the price whole and scrolls the alternatives at $width×$height', async (viewport) => {
    const page = await open(viewport);
    try {
      await lookup(page, 'queso cremoso artesanal');
      await page.waitForSelector('#alternatives:not([hidden])');
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(null))));
      const m = await measure(page);
      await page.screenshot({ path: `${SHOTS}/kiosk-name-${viewport.width}x${viewport.height}.png` });
      expect(m.alternatives.count).toBe(5);
      expect(m.price.scrollWidth).toBe(m.price.clientWidth);
      expect(m.price.top).toBeGreaterThanOrEqual(0);
      expect(m.price.bottom).toBeLessThanOrEqual(viewport.height);
      expect(m.name.lines).toBeLessThanOrEqual(3);
      expect(m.alternatives.overflowY).toBe('auto');
      // The list never grows past the screen: what does not fit scrolls inside it.
      const listBottom = await page.evaluate(() => document.getElementById('alternatives')!.getBoundingClientRect().bottom);
      expect(listBottom).toBeLessThanOrEqual(viewport.height);
      if (m.alternatives.scrollHeight > m.alternatives.clientHeight) {
        const scrolled = await page.evaluate(() => {
          const list = document.getElementById('alternatives')!;
          list.scrollTop = list.scrollHeight;
          return list.scrollTop;
        });
        expect(scrolled).toBeGreaterThan(0);
      }
    } finally {
      await page.close();
    }
  });

  it('ran without script errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
