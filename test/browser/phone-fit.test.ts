import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { launchChromium } from '../setup/browser.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';
import { cutOff, problemsOf, signedInPage, VIEWPORTS, watchedContext } from './page-checks.ts';

const SHOTS = '/tmp/shots-phone-fit';

/**
 * The owner's lists on a 390 px phone: every column of stock, customers, cuentas corrientes and people
 * is on screen (each row stacked, each value named by its column), and the brand stays on one line
 * beside the longest section names.
 */
describe('the owner’s lists on a phone show every column', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let admin: { email: string; password: string };
  let customer = 0;
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000', AUTH_LOGIN_LIMIT_PER_ACCOUNT: '1000' } });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
    const company = await makeCompany(t.container, { name: 'Almacén Don Tito' });
    admin = await makeUser(t.container, {
      companyId: company.id,
      role: 'admin',
      email: 'duena.con.un.email.largo@almacen-don-tito.example.com',
    });
    await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    const yerba = await makeProduct(t.container, company.id, {
      name: 'Yerba mate con palo Cruz de Malta 1 kg',
      bc: '7790387000011',
      basePrice: 5390,
      stock: 40,
    });
    const [row] = await t.container.db.query<{ id: number }>(
      `INSERT INTO customers (company_id, id, name, phone, email, document_type, document, account_enabled, credit_limit)
       VALUES ($1, take_company_ids($1, 'customers', 1), 'Kiosco El Trébol', '+5491143215678',
               'compras.kiosco.el.trebol@example.com', 'cuit', '30709123455', true, 300000) RETURNING id`,
      [company.id],
    );
    customer = row!.id;
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
      payload: {
        box_id: 1,
        items: [{ product_id: yerba.id, quantity: 3 }],
        payments: [{ method: 'cuenta_corriente', amount: 3 * 5390 }],
        customer: { id: customer },
      },
    });
    expect(sold.statusCode, sold.body).toBe(201);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('stock, customers, a customer, cuentas corrientes with an account open and people: no column past the edge', async () => {
    const context = await watchedContext(browser, VIEWPORTS.phone);
    const page = await signedInPage(context, base, admin, '/inicio');
    const screens: [string, string, () => Promise<void>][] = [
      ['/stock', '#stock-rows', async () => {}],
      ['/clientes', '#customers', async () => {}],
      [`/clientes/${customer}`, '#customer-sales', async () => {}],
      [
        '/cuentas-corrientes',
        '#accounts',
        async () => {
          await page.click('#accounts button.link:has-text("Kiosco El Trébol")');
          await page.waitForSelector(`#account-${customer}-balance`);
        },
      ],
      ['/settings/people', '#member-rows', async () => {}],
    ];
    for (const [path, table, unfold] of screens) {
      await page.goto(`${base}${path}`);
      await page.waitForSelector(`${table} tbody tr`);
      await unfold();
      await page.screenshot({ path: `${SHOTS}${path.replace(/\W+/g, '_')}.png`, fullPage: true });
      expect([path, await cutOff(page)]).toEqual([path, { tables: [], brandLines: 1 }]);
      expect(await problemsOf(page)).toEqual({ console: [], csp: [], errors: [], overflow: 0 });
    }
    // The values are still named on the phone (the column headings are hidden there).
    await page.goto(`${base}/clientes`);
    await expect(page.locator('#customers td[data-label="Cuenta corriente"]').first().textContent()).resolves.toContain(
      'Sí, hasta $\u00a0300.000,00',
    );
    await context.close();
  });

  it('the brand stays on one line beside every section name of the menu', async () => {
    const context = await watchedContext(browser, VIEWPORTS.phone);
    const page = await signedInPage(context, base, admin, '/inicio');
    const sections = await page.$$eval('.shell-nav a', (links) => links.map((a) => a.getAttribute('href')!));
    expect(sections).toContain('/cuentas-corrientes');
    for (const href of sections.filter((h) => h !== '/docs' && h !== '/caja')) {
      await page.goto(`${base}${href}`);
      await page.waitForSelector('main h1');
      const toggle = await page.locator('[data-menu-toggle]').boundingBox();
      expect([href, (await cutOff(page)).brandLines, toggle!.x + toggle!.width <= VIEWPORTS.phone.width]).toEqual([
        href,
        1,
        true,
      ]);
    }
    await context.close();
  });
});
