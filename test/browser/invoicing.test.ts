import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeArca } from '../../src/modules/arca/fake/fake-arca.ts';
import type { TestApp } from '../app.ts';
import { buildArcaTestApp } from '../arca-app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { launchChromium } from '../setup/browser.ts';
import { problemsOf, VIEWPORTS, watch, watchedContext, signedInPage } from './page-checks.ts';

const SHOTS = '/tmp/shots-issue-15';

/** Electronic invoicing in a real browser: the fiscal setup screen, invoicing from the register and printing, the credit note from Ventas. */
describe('invoicing in a real browser', { timeout: 90_000 }, () => {
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

  async function shop(name: string) {
    const company = await makeCompany(t.container, { name });
    const cashier = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    await makeProduct(t.container, company.id, { name: 'Yerba Playadito 1 kg', bc: '7790387000011', basePrice: 3200, stock: 40 });
    await makeProduct(t.container, company.id, {
      name: 'Azúcar Ledesma 1 kg',
      bc: '7790150000028',
      basePrice: 1150.5,
      stock: 40,
    });
    return { company, cashier, admin };
  }

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
    await page.fill('#activity-start', '2/1/2020');
    await page.click('#save');
    await page.waitForSelector('#fiscal-ready');
    await page.click('#check');
    await page.waitForSelector('#check-result :text("La conexión con ARCA funciona.")');
  }

  it('the fiscal setup screen at desktop and 390 px: delegation steps with the service CUIT, save, "Probar conexión"', async () => {
    for (const [label, viewport] of Object.entries(VIEWPORTS)) {
      const s = await shop(`Fiscal ${label}`);
      const context = await watchedContext(browser, viewport);
      const page = await signIn(context, s.admin, '/settings/facturacion');
      await page.waitForSelector('#fiscal-missing');
      await expect(page.locator('#service-cuit').textContent()).resolves.toBe('20-11111111-2');
      await configure(page, label === 'desktop' ? '30-71234567-1' : '20-12345678-6');
      const steps = await page.locator('#check-result li').allTextContents();
      expect(steps.join(' ')).toContain('Puntos de venta web service en ARCA: 1, 2.');
      // The start of activities was typed d/m/aaaa, is stored as that day and comes back dd/mm/aaaa.
      await page.reload();
      await page.waitForSelector('#fiscal-ready');
      await expect(page.inputValue('#activity-start')).resolves.toBe('02/01/2020');
      // CAEA contingency with a point of sale of its own for the registers' blocks.
      await page.check('#caea-enabled');
      await page.fill('#caea-point', '5');
      await page.fill('#caea-register-point', '6');
      await page.click('#caea-save');
      await page.waitForSelector('#caea :text("Contingencia CAEA activada.")');
      const [stored] = await t.container.db.query<{ caea: number; registers: number }>(
        'SELECT caea_point_of_sale AS caea, caea_register_point_of_sale AS registers FROM company_fiscal WHERE company_id = $1',
        [s.company.id],
      );
      expect(stored).toEqual({ caea: 5, registers: 6 });
      await page.reload();
      await page.waitForSelector('#fiscal-ready');
      // The CAEA panel fills its fields once its own data arrives, which may be after #fiscal-ready.
      await page.waitForFunction(
        () => (document.querySelector('#caea-register-point') as HTMLInputElement | null)?.value === '6',
      );
      await page.screenshot({ path: `${SHOTS}/01-fiscal-${label}.png`, fullPage: true });
      await page.click('input[value="own_certificate"]');
      await page.waitForSelector('#own-certificate');
      await page.screenshot({ path: `${SHOTS}/02-own-certificate-${label}.png`, fullPage: true });
      const problems = await problemsOf(page);
      expect(problems).toMatchObject({ overflow: 0, console: [], csp: [], errors: [] });
      await context.close();
    }
  });

  it('a cashier sells, invoices from the ticket and prints the fiscal ticket; the owner cancels and issues the credit note in Ventas', async () => {
    const s = await shop('Almacén Don Tito');
    const adminContext = await watchedContext(browser, VIEWPORTS.desktop);
    const admin = await signIn(adminContext, s.admin, '/settings/facturacion');
    await configure(admin, '30-50001091-2');

    const context = await watchedContext(browser, VIEWPORTS.desktop);
    await context.addInitScript(() => {
      (window as unknown as { __printed: number }).__printed = 0;
      window.print = () => {
        (window as unknown as { __printed: number }).__printed += 1;
      };
    });
    const page = await signIn(context, s.cashier);
    await page.waitForURL(`${base}/caja`);
    await page.waitForSelector('#open-cash');
    await page.fill('#open-cash', '1000');
    await page.click('.register-open button[type=submit]');
    await page.waitForSelector('.register-head :text("productos")');
    await page.waitForFunction(() => document.activeElement?.id === 'register-input');
    for (const code of ['7790387000011', '7790150000028']) {
      await page.keyboard.type(code);
      await page.keyboard.press('Enter');
    }
    await page.waitForFunction(() => document.querySelectorAll('#register-lines tr[data-line]').length === 2);
    await page.keyboard.press('F4');
    await page.waitForSelector('#pay-amount');
    await page.fill('#pay-amount', '5000');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#ticket :text("Venta N.º")');
    await page.click('[data-invoice-open]');
    // Typing in the buyer form is not the next scan.
    await page.fill('input[id^="buyer-name-"]', 'Juan Pérez');
    await page.click('[data-issue]');
    await page.waitForSelector('[data-invoice] :text("Factura B 0001-00000001")');
    const line = await page.locator('[data-invoice]').textContent();
    const cae = fake.control.receipts().find((r) => r.cuit === '30500010912')!.cae;
    expect(line).toContain(cae);
    await page.screenshot({ path: `${SHOTS}/03-register-invoiced.png`, fullPage: true });

    const [printout] = await Promise.all([context.waitForEvent('page'), page.click('[data-print-ticket]')]);
    await printout.waitForLoadState('load');
    await printout.waitForFunction(() => (window as unknown as { __printed: number }).__printed === 1);
    const text = await printout.locator('.receipt').textContent();
    expect(text).toContain('FACTURA');
    expect(text).toContain(cae);
    expect(text).toContain('Régimen de Transparencia Fiscal al Consumidor (Ley 27.743)');
    expect(text).toContain('$\u00a04.350,50');
    expect(await printout.locator('.qr svg').count()).toBe(1);
    await printout.emulateMedia({ media: 'print' });
    await printout.screenshot({ path: `${SHOTS}/04-fiscal-ticket-print.png`, fullPage: true });
    const a4 = watch(await context.newPage());
    await a4.goto(`${printout.url().replace(/\?.*$/, '')}?formato=a4`);
    await a4.screenshot({ path: `${SHOTS}/05-invoice-a4.png`, fullPage: true });
    expect(await problemsOf(a4)).toMatchObject({ console: [], csp: [], errors: [] });

    // Ventas: the owner opens the sale and cancels it (a refund, confirmed first): the credit note
    // comes with the cancel (issue 29).
    await admin.goto(`${base}/ventas`);
    await admin.click('#sales button.link');
    await admin.waitForSelector('#sale-detail [data-invoice]');
    await admin.fill('#cancel-reason', 'devolución');
    await admin.click('#sale-detail button.danger:has-text("Anular")');
    await admin.click('dialog.confirm [data-confirm]');
    await admin.waitForSelector('[data-invoice] :text("Nota de crédito NC B 0001-00000001")');
    await admin.screenshot({ path: `${SHOTS}/06-credit-note.png`, fullPage: true });
    expect(
      fake.control
        .receipts()
        .filter((r) => r.cuit === '30500010912')
        .map((r) => r.type),
    ).toEqual([6, 8]);
    expect(await problemsOf(admin)).toMatchObject({ console: [], csp: [], errors: [] });
    await context.close();
    await adminContext.close();
  });

  it('at 390 px the register ticket offers "Facturar" and the buyer form fits', async () => {
    const s = await shop('Kiosco 390');
    const adminContext = await watchedContext(browser, VIEWPORTS.desktop);
    await configure(await signIn(adminContext, s.admin, '/settings/facturacion'), '27-22222222-8');
    const context = await watchedContext(browser, VIEWPORTS.phone);
    const page = await signIn(context, s.cashier);
    await page.waitForURL(`${base}/caja`);
    await page.fill('#open-cash', '0');
    await page.click('.register-open button[type=submit]');
    await page.waitForSelector('.register-head :text("productos")');
    await page.waitForFunction(() => document.activeElement?.id === 'register-input');
    await page.keyboard.type('7790387000011');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#register-lines tr[data-line]');
    await page.keyboard.press('F4');
    await page.waitForSelector('#pay-amount');
    await page.fill('#pay-amount', '3200');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-invoice-open]');
    await page.click('[data-invoice-open]');
    await page.selectOption('select[id^="buyer-kind-"]', 'cuit');
    await page.fill('input[id^="buyer-number-"]', '20-12345678-6');
    await page.selectOption('select[id^="buyer-condition-"]', '6');
    await page.screenshot({ path: `${SHOTS}/07-buyer-form-390.png`, fullPage: true });
    await page.click('[data-issue]');
    await page.waitForSelector('[data-invoice] :text("Factura A 0001-00000001")');
    expect(await problemsOf(page)).toMatchObject({ overflow: 0, console: [], csp: [], errors: [] });
    await context.close();
    await adminContext.close();
  });
});
