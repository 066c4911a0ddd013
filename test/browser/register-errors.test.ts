import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { launchChromium } from '../setup/browser.ts';

const SHOTS = '/tmp/shots-issue-24';

/** The register words a refusal by its error code, and offers only the payment methods it can use. */
describe('the register says what went wrong in Spanish, by error code', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000', AUTH_LOGIN_LIMIT_PER_ACCOUNT: '1000' } });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it.each([
    { width: 1366, height: 800 },
    { width: 390, height: 844 },
  ])(
    'selling after the shift was closed elsewhere shows the no_open_session text at $width px; "Cuenta corriente" is offered (it asks for the customer)',
    async (viewport) => {
      const company = await makeCompany(t.container, { name: `Kiosco ${viewport.width}` });
      const cashier = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
      await makeProduct(t.container, company.id, { name: 'Alfajor triple', bc: '7790580000016', basePrice: 1200, stock: 10 });
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      await page.goto(`${base}/login?next=%2Fcaja`);
      await page.fill('#email', cashier.email);
      await page.fill('#password', cashier.password);
      await page.click('#login-form button[type=submit]');
      await page.waitForSelector('#open-cash');
      await page.fill('#open-cash', '1000');
      await page.click('.register-open button[type=submit]');
      await page.waitForSelector('.register-head :text("productos")');
      await page.waitForFunction(() => document.activeElement?.id === 'register-input');
      await page.keyboard.type('7790580000016');
      await page.keyboard.press('Enter');
      await page.waitForSelector('#register-lines tr[data-line]');

      // Someone closes this shift from another computer while the sale is loaded.
      const [open] = await t.container.db.query('SELECT id FROM box_sessions WHERE company_id = $1 AND closed_at IS NULL', [
        company.id,
      ]);
      const closed = await page.evaluate(async (id) => {
        const res = await fetch(`/api/v1/box-sessions/${id}/close`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ counted: { efectivo: 1000 } }),
        });
        return res.status;
      }, Number(open!['id']));
      expect(closed).toBe(200);

      await page.keyboard.press('F4');
      await page.waitForSelector('#pay-amount');
      const methods = await page.locator('.pay-methods button').allTextContents();
      expect(methods.map((m) => m.replace(/^\d+\. /, ''))).toEqual([
        'Efectivo',
        'Débito',
        'Crédito',
        'Transferencia',
        'QR',
        'Cuenta corriente',
      ]);
      await page.keyboard.press('Enter');

      // The server answers 422 no_open_session; the screen shows its Spanish text and asks to open the box.
      const expected = 'La caja no tiene un turno abierto: abrila para vender.';
      await page.waitForSelector(`.register-open :text("${expected}")`);
      const text = await page.locator('.register-open').textContent();
      expect(text).toContain(expected);
      expect(text).not.toMatch(/session|open it/);
      await page.screenshot({ path: `${SHOTS}/register-no-open-session-${viewport.width}.png`, fullPage: true });
      // Nothing was sold.
      const sales = await t.container.db.query('SELECT count(*)::int AS n FROM sales WHERE company_id = $1', [company.id]);
      expect(sales[0]).toEqual({ n: 0 });
      await context.close();
    },
    120_000,
  );
});
