import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../setup/browser.ts';
import { KIOSK_IDLE_MS } from '../../src/modules/scanner/kiosk.page.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { type FakeDolarApi, startFakeDolarApi } from '../fakes/dolarapi.fake.ts';
import { makeCompany, makeProduct } from '../factories.ts';

describe('kiosk page in headless Chromium', () => {
  let t: TestApp;
  let fake: FakeDolarApi;
  let browser: Browser;
  let page: Page;
  let base: string;
  let token: string;
  const pageErrors: string[] = [];

  const scanLike = async (text: string) => {
    await page.keyboard.type(text, { delay: 5 });
    await page.keyboard.press('Enter');
  };

  beforeAll(async () => {
    fake = await startFakeDolarApi();
    t = await buildTestApp({ env: { EXCHANGE_SOURCE_URL: `${fake.url}/v1/dolares/oficial` } });
    fake.quote(1160.5, '2026-11-20T15:04:00.000Z');
    await t.container.exchange.refresh();
    const shop = await makeCompany(t.container, { name: 'Almacén La Esquina' });
    token = shop.scannerToken;
    await makeProduct(t.container, shop.id, {
      name: 'Yerba mate suave 1 kg',
      bc: '7790001000019',
      basePrice: '4250.50',
      mark: 'Don Aurelio',
    });
    await makeProduct(t.container, shop.id, { name: 'Yerba mate barbacuá 1 kg', bc: '7790001000026', basePrice: 5100 });
    await makeProduct(t.container, shop.id, { name: 'Yerba mate compuesta 500 g', basePrice: 2300 });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    // The page's timers run on a clock the tests can move on (it keeps real time until they do).
    await page.clock.install();
    page.on('pageerror', (err) => pageErrors.push(err.message));
    // A 404 answer is logged by Chromium as a failed resource; only script errors count here.
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) pageErrors.push(message.text());
    });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await fake?.close();
  });

  it('opens on its idle screen without the token in the page', async () => {
    const res = await page.goto(`${base}/scanner?token=${token}`);
    expect(res?.status()).toBe(200);
    await expect(page.locator('#idle h1').textContent()).resolves.toBe('Consultá el precio');
    expect(await page.locator('#idle').isVisible()).toBe(true);
    expect(await page.content()).not.toContain(token);
    expect(await page.title()).toContain('Almacén La Esquina');
    await page.waitForFunction(() => document.getElementById('rate')?.textContent?.includes('1.160,50'));
    // The source's 15:04 UTC, in the company's time zone (Buenos Aires, UTC−3).
    expect(await page.locator('#rate').textContent()).toContain('12:04');
  });

  it('shows name, peso price and dollar price after a barcode and Enter', async () => {
    await scanLike('7790001000019');
    await page.waitForSelector('#result:not([hidden])');
    expect(await page.locator('#name').textContent()).toBe('Yerba mate suave 1 kg');
    expect(await page.locator('#price').textContent()).toBe('$ 4.250,50');
    expect(await page.locator('#usd').textContent()).toContain('US$ 3,66');
    expect(await page.locator('#mark').textContent()).toBe('Don Aurelio');
    expect(await page.locator('#alternatives').isHidden()).toBe(true);
  });

  it('finds a misspelled name and offers the alternatives', async () => {
    await scanLike('yerva mate suabe');
    await page.waitForFunction(
      () =>
        document.getElementById('name')?.textContent === 'Yerba mate suave 1 kg' &&
        !document.getElementById('alternatives')?.hidden,
    );
    const alternatives = await page.locator('#alternatives-list button').allTextContents();
    expect(alternatives).toEqual(
      expect.arrayContaining(['Yerba mate barbacuá 1 kg — $ 5.100,00', 'Yerba mate compuesta 500 g — $ 2.300,00']),
    );
    await page.locator('#alternatives-list button', { hasText: 'barbacuá' }).click();
    expect(await page.locator('#name').textContent()).toBe('Yerba mate barbacuá 1 kg');
    expect(await page.locator('#price').textContent()).toBe('$ 5.100,00');
  });

  it('says "Producto no encontrado" and goes back to idle after 10 s', async () => {
    await scanLike('7790009999994');
    await page.waitForSelector('#message:not([hidden])');
    expect(await page.locator('#message-title').textContent()).toBe('Producto no encontrado');
    // Still there a second before the 10 s, idle just after them.
    await page.clock.fastForward(KIOSK_IDLE_MS - 1000);
    expect(await page.locator('#message').isVisible()).toBe(true);
    expect(await page.locator('#idle').isHidden()).toBe(true);
    await page.clock.fastForward(2000);
    await page.waitForSelector('#idle:not([hidden])');
    expect(await page.locator('#message').isHidden()).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('query');
  });

  it('explains a wrong token instead of showing the kiosk', async () => {
    const other = await browser.newPage();
    const res = await other.goto(`${base}/scanner?token=mos_scn_wrong`);
    expect(res?.status()).toBe(401);
    expect(await other.locator('h1').textContent()).toBe('Escáner no autorizado');
    await other.close();
  });

  it('looks prices up with the token the page accepted, when the link carries spaces around it', async () => {
    // The page trims the token; its lookups must send that token, not the padded one (401 each).
    const padded = await browser.newPage();
    const res = await padded.goto(`${base}/scanner?token=%20${token}%0A`);
    expect(res?.status()).toBe(200);
    await padded.locator('#query').fill('7790001000019');
    await padded.keyboard.press('Enter');
    await padded.waitForSelector('#result:not([hidden]), #message:not([hidden])');
    expect(await padded.locator('#message').isHidden()).toBe(true);
    expect(await padded.locator('#name').textContent()).toBe('Yerba mate suave 1 kg');
    await padded.close();
  });

  it('ran without script errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
