import { mkdirSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { launchChromium } from '../setup/browser.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';
import { logIn, problemsOf, VIEWPORTS, watch, watchedContext } from './page-checks.ts';

const SHOTS = '/tmp/shots-accounts';

/** Cuenta corriente in a real browser: the owner's Cuentas corrientes and statement; the cashier's sale on account. */
describe('cuenta corriente in a real browser', () => {
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

  async function shop() {
    const company = await makeCompany(t.container, { name: 'Almacén Don Tito' });
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const cashier = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    const yerba = await makeProduct(t.container, company.id, {
      name: 'Yerba Playadito 1 kg',
      bc: '7790387000011',
      basePrice: 3200,
      stock: 40,
    });
    const asAdmin = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
    return { company, admin, cashier, yerba, asAdmin };
  }

  /**
   * Signs `who` in at the register, opens a shift with `openingCash`, sells one yerba and opens the
   * pay dialog on "Cuenta corriente".
   */
  async function payOnAccount(
    viewport: { width: number; height: number },
    who: { email: string; password: string },
    openingCash: string,
  ) {
    const context = await watchedContext(browser, viewport);
    const page = watch(await context.newPage());
    page.setDefaultTimeout(20_000);
    await logIn(page, base, who.email, who.password, '/caja');
    await page.waitForSelector('#open-cash');
    await page.fill('#open-cash', openingCash);
    await page.click('.register-open button[type=submit]');
    await page.waitForSelector('#register-input');
    await page.waitForFunction(() => document.activeElement?.id === 'register-input');
    await page.keyboard.type('7790387000011');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#register-lines tr[data-line]');
    await page.keyboard.press('F4');
    await page.waitForSelector('#pay-amount');
    await page.click('.pay-methods button:has-text("Cuenta corriente")');
    return { context, page };
  }

  async function customerRow(companyId: number, name: string) {
    const [row] = await t.container.db.query<{ id: number }>(
      `INSERT INTO customers (company_id, id, name, phone, account_enabled, credit_limit)
       VALUES ($1, take_company_ids($1, 'customers', 1), $2, '+5491143215678', true, 50000) RETURNING id`,
      [companyId, name],
    );
    return row!.id;
  }

  it('a customer without an account is refused in the pay dialog, which stays open to pick another way (390 px)', async (ctx) => {
    if (!t.app.hasRoute({ method: 'POST', url: '/api/v1/customers' })) ctx.skip();
    const s = await shop();
    await t.container.db.query(
      `INSERT INTO customers (company_id, id, name, account_enabled, document_type, document)
       VALUES ($1, take_company_ids($1, 'customers', 1), 'Juan Pérez', false, 'cuit', '20284567891')`,
      [s.company.id],
    );
    const { context, page } = await payOnAccount(VIEWPORTS.phone, s.admin, '0');
    // The document reads as on the customer's page: "CUIT 20-28456789-1", not eleven digits in a row.
    await expect(page.locator('.customer-hits button:has-text("Juan Pérez")').textContent()).resolves.toBe(
      'Juan Pérez · CUIT 20-28456789-1',
    );
    await page.click('#pay-confirm');
    await expect(page.locator('.register-pay-dialog p.error[role=alert]').textContent()).resolves.toContain(
      'Elegí o creá el cliente',
    );
    await page.fill('#customer-search', 'Juan');
    await page.click('.customer-hits button:has-text("Juan Pérez")');
    await page.waitForSelector('#customer-picked');
    // Picking a customer clears the earlier "pick a customer"; no credit line for an account that is not enabled.
    await expect(page.locator('.register-pay-dialog p.error[role=alert]').count()).resolves.toBe(0);
    await expect(page.locator('#customer-picked').textContent()).resolves.not.toContain('límite');
    await page.click('#pay-confirm');
    await expect(page.locator('.register-pay-dialog p.error[role=alert]').textContent()).resolves.toContain(
      'Habilitá su cuenta corriente en su ficha',
    );
    await page.screenshot({ path: `${SHOTS}/phone-06-register-no-account.png`, fullPage: true });
    expect(await page.locator('.register-pay-dialog').isVisible()).toBe(true);
    const [{ n }] = (await t.container.db.query<{ n: number }>('SELECT count(*)::int AS n FROM sales WHERE company_id = $1', [
      s.company.id,
    ])) as [{ n: number }];
    expect(n).toBe(0);
    expect(await problemsOf(page)).toMatchObject({ console: [], csp: [], errors: [] });
    await context.close();
  });

  for (const [label, viewport] of Object.entries(VIEWPORTS)) {
    it(`the owner sees who owes, records a payment and prints the statement (${viewport.width} px)`, async () => {
      const s = await shop();
      const customer = await customerRow(s.company.id, 'Kiosco El Trébol');
      const opened = await t.app.inject({
        method: 'POST',
        url: '/api/v1/box-sessions',
        headers: s.asAdmin,
        payload: { box_id: 1, opening_cash: 0 },
      });
      expect(opened.statusCode, opened.body).toBe(201);
      for (const units of [2, 1]) {
        const sold = await t.app.inject({
          method: 'POST',
          url: '/api/v1/sales',
          headers: { ...s.asAdmin, 'x-idempotency-key': randomUUID() },
          payload: {
            box_id: 1,
            items: [{ product_id: s.yerba.id, quantity: units }],
            payments: [{ method: 'cuenta_corriente', amount: units * 3200 }],
            customer: { id: customer },
          },
        });
        expect(sold.statusCode, sold.body).toBe(201);
      }

      const context = await watchedContext(browser, viewport);
      const page = watch(await context.newPage());
      page.setDefaultTimeout(20_000);
      await logIn(page, base, s.admin.email, s.admin.password, '/cuentas-corrientes');
      await page.waitForSelector('#accounts');
      await expect(page.locator('#total-owed').textContent()).resolves.toBe('$\u00a09.600,00');
      await page.screenshot({ path: `${SHOTS}/${label}-01-list.png`, fullPage: true });

      await page.click('#accounts button.link:has-text("Kiosco El Trébol")');
      await page.waitForSelector(`#account-${customer}-balance`);
      await expect(page.locator(`#account-${customer}-balance`).textContent()).resolves.toBe('Debe $\u00a09.600,00');
      // The owner has a shift open: the cash received here goes into it unless they say otherwise.
      const session = opened.json().session.id as number;
      await page.waitForSelector(`#account-${customer}-where`);
      await expect(page.locator(`#account-${customer}-where option:checked`).textContent()).resolves.toContain(
        `tu turno N.º ${session}`,
      );
      await page.fill(`#account-${customer}-amount`, '7.000');
      await page.click(`#account-${customer}-pay`);
      await page.waitForSelector('.account-payment .notice-ok');
      const shift = await t.app.inject({ method: 'GET', url: `/api/v1/box-sessions/${session}`, headers: s.asAdmin });
      expect(shift.json().expected.efectivo).toBe(7000);
      await expect(page.locator('.account-payment .notice-ok').textContent()).resolves.toContain('se aplicó a 2 ventas');
      await page.waitForFunction(
        (id) => document.querySelector(`#account-${id}-balance`)?.textContent === 'Debe $\u00a02.600,00',
        customer,
      );
      await page.waitForFunction(() => document.querySelector('#total-owed')?.textContent === '$\u00a02.600,00');
      await page.click(`#account-${customer}-share`);
      await page.waitForSelector('.account-share a[href^="https://wa.me/5491143215678"]');
      await page.screenshot({ path: `${SHOTS}/${label}-02-paid.png`, fullPage: true });
      const found = await problemsOf(page);
      expect(found).toEqual({ console: [], csp: [], errors: [], overflow: 0 });

      const printout = watch(await context.newPage());
      await printout.goto(`${base}/clientes/${customer}/estado-de-cuenta`);
      await expect(printout.locator('#customer-name').textContent()).resolves.toBe('Kiosco El Trébol');
      await expect(printout.locator('#closing-balance').textContent()).resolves.toBe('$\u00a02.600,00');
      await expect(printout.locator('#aging-total').textContent()).resolves.toBe('$\u00a02.600,00');
      await printout.screenshot({ path: `${SHOTS}/${label}-03-statement.png`, fullPage: true });
      const printProblems = await problemsOf(printout);
      expect({ ...printProblems, overflow: viewport.width < 800 ? printProblems.overflow : 0 }).toEqual({
        console: [],
        csp: [],
        errors: [],
        overflow: 0,
      });

      // Ventas shows the day's payments on account apart from its sales.
      await page.goto(`${base}/ventas`);
      await page.waitForSelector('#sales-account-payments');
      await expect(page.locator('#sales-account-payments').textContent()).resolves.toContain('Efectivo $\u00a07.000,00 (1 pago)');
      await page.screenshot({ path: `${SHOTS}/${label}-05-ventas.png`, fullPage: true });
      expect((await problemsOf(page)).overflow).toBe(0);
      await context.close();
    });

    it(`a cashier sells on account to a new customer created at the register (${viewport.width} px)`, async (ctx) => {
      // The quick-create and the search are the customers API's (another branch): run once it is merged.
      if (!t.app.hasRoute({ method: 'POST', url: '/api/v1/customers' })) ctx.skip();
      const s = await shop();
      const { context, page } = await payOnAccount(viewport, s.cashier, '1.000');
      await page.click('#customer-new');
      await page.fill('#customer-new-name', 'Carlos Gómez');
      await page.fill('#customer-new-document', '28456789');
      await page.click('#customer-create');
      await page.waitForSelector('#customer-picked');
      await expect(page.locator('#customer-picked').textContent()).resolves.toContain('Carlos Gómez');
      await page.screenshot({ path: `${SHOTS}/${label}-04-register-customer.png`, fullPage: true });
      await page.click('#pay-confirm');
      // Sold when the ticket shows (the dialog closes before the server answers).
      await page.waitForSelector('#ticket-new');
      await expect(page.locator('#ticket-customer').textContent()).resolves.toBe('Cliente: Carlos Gómez');
      await page.screenshot({ path: `${SHOTS}/${label}-05-register-sold.png`, fullPage: true });
      const [sale] = await t.container.db.query<{ status: string; customer_id: number; name: string }>(
        `SELECT s.status, s.customer_id, c.name FROM sales s JOIN customers c ON c.company_id = s.company_id AND c.id = s.customer_id
         WHERE s.company_id = $1`,
        [s.company.id],
      );
      expect(sale).toEqual({ status: 'pending', customer_id: expect.any(Number), name: 'Carlos Gómez' });
      // Mis ventas says why the sale (still owed, so pending) has no Devolver: it is cancelled by the owner.
      await page.goto(`${base}/mis-ventas`);
      await page.waitForSelector('#my-sales [data-sale]');
      await expect(page.locator('#my-sales [data-sale] [data-on-account]').textContent()).resolves.toContain(
        'pedile al dueño que la anule',
      );
      expect(await page.locator('#my-sales [data-sale] [data-action="return"]').count()).toBe(0);
      const found = await problemsOf(page);
      expect(found).toMatchObject({ console: [], csp: [], errors: [] });
      await context.close();
    });
  }
});
