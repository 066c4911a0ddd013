import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { launchChromium } from '../setup/browser.ts';
import { logIn, problemsOf, VIEWPORTS, watch, watchedContext } from './page-checks.ts';

const SHOTS = '/tmp/shots-issue-12';

describe('scale-label settings screen', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let admin: { email: string; password: string };
  let token: string;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000', SCANNER_RATE_LIMIT_PER_MINUTE: '0' } });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
    const company = await makeCompany(t.container, { name: 'Almacén Don Tito' });
    token = company.scannerToken;
    await makeProduct(t.container, company.id, {
      id: 1,
      name: 'Queso cremoso La Paulina (por kg)',
      sku: '00107',
      basePrice: 11490,
    });
    admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    it(`${size}: previews the sample label live while the owner picks a layout, then saves it`, async () => {
      const context = await watchedContext(browser, viewport);
      const page = watch(await context.newPage());
      await logIn(page, base, admin.email, admin.password, '/settings/scanner');
      await page.goto(`${base}/settings/scanner`);
      await page.waitForSelector('#preview-product');
      expect(await page.isChecked('#preset-pesos')).toBe(true);
      expect(await page.inputValue('#sample')).toBe('2000107057455');
      expect(await page.textContent('#preview-product')).toBe('Queso cremoso La Paulina (por kg)');
      expect(await page.textContent('#preview-amount')).toBe('$\u00a05.745,00');
      await page.screenshot({ path: `${SHOTS}/settings-scanner-${size}.png`, fullPage: true });

      await page.check('#preset-weight');
      await page.waitForFunction(() => document.getElementById('preview-amount')?.textContent?.startsWith('$\u00a066.010,05'));
      await page.check('#preset-cents');
      await page.waitForFunction(() => document.getElementById('preview-amount')?.textContent === '$\u00a057,45');
      await page.fill('#sample', '2000107057456');
      await page.waitForSelector('#preview-problem');
      expect(await page.textContent('#preview-problem')).toContain('dígito de control');
      await page.screenshot({ path: `${SHOTS}/settings-scanner-problem-${size}.png`, fullPage: true });

      await page.check('#preset-pesos');
      await page.click('#save');
      await page.waitForSelector('.notice-ok');
      expect(await page.textContent('#action-message')).toContain('Listo');
      expect(await problemsOf(page)).toEqual({ console: [], csp: [], errors: [], overflow: 0 });
      await context.close();
    });
  }

  it('the saved layout is what the scanner reads', async () => {
    const res = await t.app.inject({ url: `/api/public/scanner?token=${encodeURIComponent(token)}&query=2000107057455` });
    expect(res.json()).toMatchObject({ label: { price: 5745 } });
  });
});
