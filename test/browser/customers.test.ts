import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeArca } from '../../src/modules/arca/fake/fake-arca.ts';
import type { TestApp } from '../app.ts';
import { buildArcaTestApp } from '../arca-app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { launchChromium } from '../setup/browser.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';
import { problemsOf, VIEWPORTS, watch, watchedContext, signedInPage } from './page-checks.ts';

const SHOTS = '/tmp/shots-issue-28-customers';
const ISSUER_CUIT = { desktop: '30-71234567-1', phone: '20-12345678-6' } as const;

/** The merchant CRM in a real browser: Clientes, a customer created with its CUIT checked as typed, and a Factura A from its record. */
describe('customers in a real browser (issue 28)', { timeout: 120_000 }, () => {
  let t: TestApp;
  let fake: FakeArca;
  let browser: Browser;
  let base: string;
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    ({ t, fake } = await buildArcaTestApp());
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await fake?.close();
  });

  const signIn = (context: BrowserContext, user: { email: string; password: string }, next = '/') =>
    signedInPage(context, base, user, next);

  async function configure(page: Page, cuit: string) {
    await page.goto(`${base}/settings/facturacion`);
    await page.waitForSelector('#fiscal-missing');
    await page.fill('#cuit', cuit);
    await page.selectOption('#iva-condition', 'responsable_inscripto');
    await page.fill('#legal-name', 'Almacén Don Tito S.R.L.');
    await page.fill('#address', 'Av. Corrientes 1234, CABA');
    await page.fill('#gross-income', '901-123456-7');
    await page.fill('#points', '1');
    await page.click('#save');
    await page.waitForSelector('#fiscal-ready');
  }

  /** A paid register sale of one product, to the customer when given (the register's own API). */
  async function sell(admin: { email: string; password: string }, productId: number, customer?: { id: number; name: string }) {
    const headers = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
    await t.app.inject({ method: 'POST', url: '/api/v1/box-sessions', headers, payload: { box_id: 1, opening_cash: 0 } });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/sales',
      headers: { ...headers, 'x-idempotency-key': randomUUID() },
      payload: {
        box_id: 1,
        items: [{ product_id: productId, quantity: 2 }],
        payments: [{ method: 'efectivo', amount: 6400 }],
        ...(customer ? { customer } : {}),
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().sale as { id: number };
  }

  for (const [label, viewport] of Object.entries(VIEWPORTS) as [keyof typeof VIEWPORTS, (typeof VIEWPORTS)['desktop']][]) {
    it(`at ${viewport.width} px: creates a customer with a CUIT checked as typed, then issues a Factura A from the customer's record`, async () => {
      const company = await makeCompany(t.container, { name: `Clientes ${label}` });
      const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
      const yerba = await makeProduct(t.container, company.id, { name: 'Yerba Playadito 1 kg', basePrice: 3200, stock: 40 });
      const setupContext = await watchedContext(browser, VIEWPORTS.desktop);
      await configure(await signIn(setupContext, admin, '/settings/facturacion'), ISSUER_CUIT[label]);
      await setupContext.close();

      const context = await watchedContext(browser, viewport);
      const page = await signIn(context, admin, '/clientes');
      await page.waitForSelector('[data-no-customers]');
      await page.click('[data-action="new"]');
      await page.waitForURL(`${base}/clientes/nuevo`);
      await page.fill('#c-name', 'Kiosco El Trébol S.R.L.');
      await page.selectOption('#c-document-type', 'cuit');
      // A mistyped check digit is caught while typing, naming the right one.
      await page.fill('#c-document', '30-50000000-4');
      await page.waitForSelector('[data-document-check="bad"]');
      expect(await page.locator('#c-document-check').textContent()).toContain('el último debería ser 3');
      await page.screenshot({ path: `${SHOTS}/01-new-customer-bad-cuit-${label}.png`, fullPage: true });
      await page.fill('#c-document', '30-50000000-3');
      await page.waitForSelector('[data-document-check="ok"]');
      await page.selectOption('#c-iva', '1');
      await page.fill('#c-street', 'Av. Rivadavia 5200');
      await page.fill('#c-city', 'CABA');
      await page.fill('#c-province', 'Ciudad Autónoma de Buenos Aires');
      await page.fill('#c-postal-code', 'C1424');
      await page.fill('#c-phone', '011 15 4321-5678');
      await page.click('[data-save-customer]');
      await page.waitForSelector('[data-customer-facts]');
      const id = Number(new URL(page.url()).pathname.split('/').at(-1));
      expect(id).toBeGreaterThan(0);
      const facts = await page.locator('[data-customer-facts]').textContent();
      expect(facts).toContain('CUIT 30-50000000-3');
      expect(facts).toContain('IVA Responsable Inscripto');
      expect(facts).toContain('+5491143215678');
      await page.screenshot({ path: `${SHOTS}/02-customer-${label}.png`, fullPage: true });

      // A sale to the customer at the register; its record invoices it with the customer preselected: Factura A.
      const sale = await sell(admin, yerba.id, { id, name: 'Kiosco El Trébol S.R.L.' });
      await page.reload();
      await page.click(`[data-sale-invoicing="${sale.id}"]`);
      await page.click('[data-invoice-open]');
      await page.waitForSelector(`[data-chosen-customer="${id}"] [data-receipt-class="A"]`);
      await page.screenshot({ path: `${SHOTS}/03-invoice-from-customer-${label}.png`, fullPage: true });
      await page.click('[data-issue]');
      await page.waitForSelector('[data-invoice] :text("Factura A 0001-00000001")');
      const receipt = fake.control.receipts().find((r) => r.cuit === ISSUER_CUIT[label].replaceAll('-', ''))!;
      expect(receipt).toMatchObject({ type: 1 });
      // The customer's receipts list it too.
      await page.waitForSelector('#customer-invoices :text("Factura A 0001-00000001")');
      await page.screenshot({ path: `${SHOTS}/04-invoiced-${label}.png`, fullPage: true });
      expect(await problemsOf(page)).toMatchObject({ overflow: 0, console: [], csp: [], errors: [] });

      const invoiceId = Number(await page.locator('[data-invoice]').first().getAttribute('data-invoice'));
      const a4 = watch(await context.newPage());
      await a4.goto(`${base}/facturas/${invoiceId}?formato=a4`);
      const printed = await a4.locator('.receipt').textContent();
      expect(printed).toContain('30-50000000-3');
      expect(printed).toContain('Kiosco El Trébol S.R.L.');
      expect(printed).toContain('Domicilio: Av. Rivadavia 5200, CABA, Ciudad Autónoma de Buenos Aires (C1424)');
      expect(printed).toContain('IVA Responsable Inscripto');
      await a4.screenshot({ path: `${SHOTS}/05-invoice-a4-${label}.png`, fullPage: true });

      // The list finds the customer by its CUIT as typed, and shows its WhatsApp.
      await page.goto(`${base}/clientes`);
      await page.fill('#search', '30-50000000-3');
      await page.waitForSelector(`[data-customer="${id}"]`);
      await page.screenshot({ path: `${SHOTS}/06-customers-${label}.png`, fullPage: true });
      expect(await problemsOf(page)).toMatchObject({ overflow: 0, console: [], csp: [], errors: [] });
      await context.close();
    });
  }

  it('creates a new customer from the invoice form of a sale without one, and invoices it', async () => {
    const company = await makeCompany(t.container, { name: 'Clientes desde Ventas' });
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const yerba = await makeProduct(t.container, company.id, { name: 'Yerba Playadito 1 kg', basePrice: 3200, stock: 40 });
    const context = await watchedContext(browser, VIEWPORTS.phone);
    const page = await signIn(context, admin, '/settings/facturacion');
    await configure(page, '33-70000001-5');
    const sale = await sell(admin, yerba.id);
    await page.goto(`${base}/ventas`);
    // This sale's own row, and its detail open before looking for "Facturar" in it: a failure
    // says what the detail showed instead (still looking for receipts, an error, the fiscal hint).
    await page.click(`#sales button.link:text-is("N.º ${sale.id}")`);
    await page.waitForSelector(`#sale-detail :text("Venta N.º ${sale.id}")`);
    await page.waitForSelector('#sale-detail [data-invoice-open]').catch(async (err: Error) => {
      const shown = await page
        .locator('#sale-detail')
        .textContent()
        .catch(() => '(no detail)');
      throw new Error(
        `${err.message}\nThe sale's detail showed:\n${shown}\nPage problems: ${JSON.stringify(await problemsOf(page))}`,
      );
    });
    await page.click('[data-invoice-open]');
    await page.selectOption('select[id^="buyer-kind-"]', 'customer');
    await page.click('[data-create-customer]');
    await page.fill(`#new-customer-${sale.id}-name`, 'Ferretería Ñandú');
    await page.fill(`#new-customer-${sale.id}-document`, '20404040406');
    await page.selectOption(`#new-customer-${sale.id}-iva`, '6');
    await page.screenshot({ path: `${SHOTS}/07-new-customer-in-invoice-phone.png`, fullPage: true });
    await page.click(`#new-customer-${sale.id}-form [data-save-customer]`);
    await page.waitForSelector('[data-chosen-customer] [data-receipt-class="A"]');
    // Saving the customer did not issue anything by itself.
    expect(fake.control.receipts().filter((r) => r.cuit === '33700000015')).toEqual([]);
    await page.click('[data-issue]');
    await page.waitForSelector('[data-invoice] :text("Factura A 0001-00000001")');
    const found = await t.app.inject({
      method: 'GET',
      url: '/api/v1/customers?q=nandu',
      headers: { cookie: (await login(t.app, admin.email, admin.password)).cookie },
    });
    expect(found.json().customers).toMatchObject([{ name: 'Ferretería Ñandú', document: '20404040406', iva_condition: 6 }]);
    expect(await problemsOf(page)).toMatchObject({ overflow: 0, console: [], csp: [], errors: [] });
    await context.close();
  });
});
