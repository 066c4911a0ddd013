import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { launchChromium } from '../setup/browser.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';
import { cutOff, problemsOf, signedInPage, VIEWPORTS, watchedContext } from './page-checks.ts';

/**
 * A shop with one sale of the day, as its owner sees it: counts of one in the singular ("1 venta"),
 * the sale's lines and the activity log whole on a 390 px phone, and the log in Spanish words.
 */
describe('a shop’s first sale, on the owner’s screens', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let admin: { email: string; password: string };
  beforeAll(async () => {
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000', AUTH_LOGIN_LIMIT_PER_ACCOUNT: '1000' } });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
    const company = await makeCompany(t.container, { name: 'Almacén Don Tito' });
    admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const fideos = await makeProduct(t.container, company.id, {
      name: 'Fideos mostachol Lucchetti 500 g',
      bc: '7790387000011',
      basePrice: 11390,
      stock: 40,
    });
    const headers = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
    const opened = await t.app.inject({
      method: 'POST',
      url: '/api/v1/box-sessions',
      headers,
      payload: { box_id: 1, opening_cash: 0 },
    });
    expect(opened.statusCode, opened.body).toBe(201);
    const sold = await t.app.inject({
      method: 'POST',
      url: '/api/v1/sales',
      headers: { ...headers, 'x-idempotency-key': randomUUID() },
      payload: { box_id: 1, items: [{ product_id: fideos.id, quantity: 1 }], payments: [{ method: 'efectivo', amount: 11390 }] },
    });
    expect(sold.statusCode, sold.body).toBe(201);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('Ventas and Inicio say "1 venta", not "1 ventas"', async () => {
    const context = await watchedContext(browser, VIEWPORTS.desktop);
    const page = await signedInPage(context, base, admin, '/ventas');
    await page.waitForSelector('#sales-summary .stat');
    const label = await page.$eval('#sales-summary .stat', (e) =>
      (e.textContent ?? '').slice(e.querySelector('strong')?.textContent?.length ?? 0).trim(),
    );
    expect(label).toBe('1 venta');
    await page.goto(`${base}/inicio`);
    await page.waitForSelector('#home-shifts li');
    await expect(page.locator('#home-shifts li').textContent()).resolves.toMatch(/· 1 venta, \$\u00a011\.390,00$/);
    await context.close();
  });

  it('on a phone, a sale’s lines and the activity log fit, and the log names what happened in Spanish', async () => {
    const context = await watchedContext(browser, VIEWPORTS.phone);
    const page = await signedInPage(context, base, admin, '/ventas');
    await page.click('#sales button.link:text-is("N.º 1")');
    await page.waitForSelector('#sale-detail table td');
    expect(await cutOff(page)).toEqual({ tables: [], brandLines: 1 });
    // The product's name is on one line of its own, not squeezed to a word a line beside the amounts.
    const nameLines = await page.$eval('#sale-detail table td', (td) => {
      const range = document.createRange();
      range.selectNodeContents(td);
      return new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top))).size;
    });
    expect(nameLines).toBe(1);
    await page.goto(`${base}/settings/integrations`);
    await page.waitForSelector('#audit-rows td:has-text("Turno de caja abierto")');
    expect(await page.locator('#audit-rows').textContent()).not.toContain('box_session.opened');
    expect(await cutOff(page)).toEqual({ tables: [], brandLines: 1 });
    expect(await problemsOf(page)).toEqual({ console: [], csp: [], errors: [], overflow: 0 });
    await context.close();
  });
});
