import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeArca } from '../../src/modules/arca/fake/fake-arca.ts';
import type { TestApp } from '../app.ts';
import { buildArcaTestApp } from '../arca-app.ts';
import { runCliOn } from '../cli/run-cli.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { launchChromium } from '../setup/browser.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';
import { problemsOf, signedInPage, VIEWPORTS, waitShowing, watchedContext } from './page-checks.ts';

const SHOTS = '/tmp/shots-issue-29-shifts';

/** The cashier's own day in a real browser (issue 29): the cart survives a reload, Mis ventas, offline shifts. */
describe("the cashier's own day in a real browser", { timeout: 120_000 }, () => {
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

  async function configureFiscal(page: Page, cuit: string) {
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

  async function scan(page: Page, code: string) {
    await page.keyboard.type(code);
    await page.keyboard.press('Enter');
  }

  const _lines = (page: Page) => page.locator('#register-lines tr[data-line]').count();

  async function payExact(page: Page) {
    await page.keyboard.press('F4');
    await page.waitForSelector('#pay-amount');
    await page.keyboard.press('Enter');
  }

  /** Amounts on one line each: no "$" / "80.239,70" break (the number of rendered line boxes). */
  const wrappedAmounts = (page: Page) =>
    page.evaluate(() =>
      Array.from(document.querySelectorAll('.my-sale .amount'))
        .filter((el) => {
          const range = document.createRange();
          range.selectNodeContents(el);
          const tops = new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top)));
          return tops.size > 1;
        })
        .map((el) => el.textContent),
    );

  const verifyBooks = async (companyId: number) =>
    JSON.parse((await runCliOn(t.container, ['books', 'verify', '--company', String(companyId), '--json'])).out) as {
      ok: boolean;
      checks: { name: string; ok: boolean }[];
    };

  /** The page's problems, without the failed requests the test caused itself by cutting the connection. */
  const problems = async (page: Page) => {
    const found = await problemsOf(page);
    return { ...found, console: found.console.filter((m) => !m.includes('ERR_INTERNET_DISCONNECTED')) };
  };

  const cuits = { desktop: '30-50001091-2', phone: '30-71234567-1' } as const;

  it('a reload keeps the cart; Mis ventas reprints a ticket and invoices a sale made offline, marked when it arrived (1366 and 390 px)', async () => {
    for (const [label, viewport] of Object.entries(VIEWPORTS) as [keyof typeof VIEWPORTS, (typeof VIEWPORTS)['desktop']][]) {
      const s = await shop(`Almacén Mis Ventas ${label}`);
      const adminContext = await watchedContext(browser, VIEWPORTS.desktop);
      await configureFiscal(await signIn(adminContext, s.admin, '/settings/facturacion'), cuits[label]);
      await adminContext.close();

      const context = await watchedContext(browser, viewport);
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

      // A half-built sale survives a reload.
      await scan(page, '7790387000011');
      await scan(page, '7790150000028');
      await page.waitForFunction(() => document.querySelectorAll('#register-lines tr[data-line]').length === 2);
      // The register keeps the cart in IndexedDB just after it shows it: reload once it is kept.
      await page.waitForFunction(async () => {
        const name = (await indexedDB.databases()).find((d) => d.name?.startsWith('mostrador-caja-'))?.name;
        if (!name) return false;
        const db = await new Promise<IDBDatabase>((resolve, reject) => {
          const open = indexedDB.open(name);
          open.onsuccess = () => resolve(open.result);
          open.onerror = () => reject(open.error);
        });
        const cart = await new Promise<{ lines?: unknown[] } | undefined>((resolve, reject) => {
          const read = db.transaction('kv').objectStore('kv').get('cart');
          read.onsuccess = () => resolve(read.result);
          read.onerror = () => reject(read.error);
        });
        db.close();
        return cart?.lines?.length === 2;
      });
      await page.reload();
      await page.waitForSelector('#register-input');
      await page.waitForFunction(() => document.querySelectorAll('#register-lines tr[data-line]').length === 2);
      await expect(page.locator('#register-total').textContent()).resolves.toBe('$\u00a04.350,50');
      await page.screenshot({ path: `${SHOTS}/01-cart-after-reload-${label}.png`, fullPage: true });
      await page.waitForFunction(() => document.activeElement?.id === 'register-input');
      await payExact(page);
      await page.waitForSelector('#ticket :text("Venta N.º")');
      await page.click('#ticket-new');
      // The next sale starts empty (waited for: the screen re-renders after the click).
      await page.waitForFunction(() => document.querySelectorAll('#register-lines tr[data-line]').length === 0);

      // A sale without connection, sent when it is back.
      await page.waitForFunction(() => document.activeElement?.id === 'register-input');
      await context.setOffline(true);
      await scan(page, '7790387000011');
      await page.waitForFunction(() => document.querySelectorAll('#register-lines tr[data-line]').length === 1);
      await payExact(page);
      await page.waitForSelector('#ticket :text("sin conexión")');
      await page.click('#ticket-new');
      await context.setOffline(false);
      await page.waitForFunction(() => !document.querySelector('#register-offline'), undefined, { timeout: 30_000 });

      // Mis ventas: the shift's two sales; the one made offline is marked.
      await page.goto(`${base}/mis-ventas`);
      await page.waitForFunction(() => document.querySelectorAll('#my-sales [data-sale]').length === 2);
      await expect(page.locator('[data-arrived]').count()).resolves.toBe(1);
      const offlineSale = page.locator('#my-sales [data-sale]', { has: page.locator('[data-arrived]') });
      await expect(offlineSale.locator('.amount').textContent()).resolves.toBe('$\u00a03.200,00');
      await page.screenshot({ path: `${SHOTS}/02-mis-ventas-${label}.png`, fullPage: true });
      expect(await wrappedAmounts(page)).toEqual([]);
      expect(await problems(page)).toMatchObject({ overflow: 0, console: [], csp: [], errors: [] });

      // Reprint the first sale's ticket.
      const first = page.locator('#my-sales [data-sale]', { hasNot: page.locator('[data-arrived]') });
      await first.locator('[data-action="reprint"]').click();
      await page.waitForSelector('#ticket');
      await expect(page.locator('#ticket-total').textContent()).resolves.toBe('$\u00a04.350,50');
      await page.click('.ticket-actions button:has-text("Imprimir")');
      await page.waitForFunction(() => (window as unknown as { __printed: number }).__printed === 1);
      await page.screenshot({ path: `${SHOTS}/03-reprint-${label}.png`, fullPage: true });
      expect((await problemsOf(page)).overflow).toBe(0);
      await page.click('#ticket-back');

      // Invoice the sale that was made offline.
      await offlineSale.locator('[data-action="invoice"]').click();
      await offlineSale.locator('[data-invoice-open]').click();
      await offlineSale.locator('input[id^="buyer-name-"]').fill('Juan Pérez');
      await offlineSale.locator('[data-issue]').click();
      await waitShowing(offlineSale.locator('[data-invoice] :text("Factura B 0001-00000001")'), page.locator('#my-sales'));
      // "Devolver" opens the return dialog right here (not Ventas, which is for admins).
      await offlineSale.locator('[data-action="return"]').click();
      await page.waitForSelector('dialog.return-dialog[open]');
      await page.click('dialog.return-dialog button:text-is("Cerrar")');
      await page.waitForSelector('dialog.return-dialog', { state: 'detached' });
      await page.screenshot({ path: `${SHOTS}/04-mis-ventas-invoiced-${label}.png`, fullPage: true });
      expect(await wrappedAmounts(page)).toEqual([]);
      expect(await problems(page)).toMatchObject({ overflow: 0, console: [], csp: [], errors: [] });
      expect((await verifyBooks(s.company.id)).checks.filter((c) => !c.ok)).toEqual([]);
      await context.close();
    }
  });

  it('a shift opened and closed without connection is synced once, with its sale, at 1366 and 390 px', async () => {
    for (const [label, viewport] of Object.entries(VIEWPORTS)) {
      const s = await shop(`Kiosco Sin Señal ${label}`);
      const context = await watchedContext(browser, viewport);
      const page = await signIn(context, s.cashier);
      await page.waitForURL(`${base}/caja`);
      await page.waitForSelector('#open-cash');
      // The catalogue is cached before the connection goes.
      await page.waitForFunction(
        (db) =>
          new Promise<boolean>((resolve) => {
            const open = indexedDB.open(db);
            open.onerror = () => resolve(false);
            open.onsuccess = () => {
              try {
                const get = open.result.transaction('kv', 'readonly').objectStore('kv').get('catalog');
                get.onsuccess = () => resolve(!!get.result);
                get.onerror = () => resolve(false);
              } catch {
                resolve(false);
              }
            };
          }),
        `mostrador-caja-kiosco-sin-senal-${label}`,
      );
      await context.setOffline(true);
      await page.fill('#open-cash', '2000');
      await page.click('.register-open button[type=submit]');
      await page.waitForSelector('.register-head :text("turno sin conexión")');
      await page.waitForSelector('.register-head :text("productos")');
      await page.screenshot({ path: `${SHOTS}/05-offline-shift-open-${label}.png`, fullPage: true });
      await page.waitForFunction(() => document.activeElement?.id === 'register-input');
      await scan(page, '7790387000011');
      await page.waitForFunction(() => document.querySelectorAll('#register-lines tr[data-line]').length === 1);
      await payExact(page);
      await page.waitForSelector('#ticket :text("sin conexión")');
      await page.click('#ticket-new');
      await page.click('#register-close');
      await page.waitForSelector('#close-pending, #close-offline');
      await page.fill('#count-efectivo', '5200');
      await page.screenshot({ path: `${SHOTS}/06-offline-close-${label}.png`, fullPage: true });
      expect((await problemsOf(page)).overflow).toBe(0);
      await page.click('#close-confirm');
      await page.waitForSelector('#open-cash');
      const shiftsNow = () =>
        t.container.db.query<{ status: string; n: number }>(
          `SELECT status, (SELECT count(*)::int FROM register_sales r WHERE r.company_id = s.company_id AND r.box_session_id = s.id) AS n
           FROM box_sessions s WHERE company_id = $1`,
          [s.company.id],
        );
      expect(await shiftsNow()).toEqual([]);

      await context.setOffline(false);
      await expect
        .poll(async () => (await shiftsNow()).map((r) => r.status).join(','), { timeout: 30_000, interval: 250 })
        .toBe('closed');
      const [shift] = await t.container.db.query<{
        user_id: number;
        counted: Record<string, string>;
        expected: Record<string, string>;
      }>('SELECT user_id, counted, expected FROM box_sessions WHERE company_id = $1', [s.company.id]);
      expect(shift).toMatchObject({ user_id: s.cashier.id, counted: { efectivo: '5200.00' }, expected: { efectivo: '5200.00' } });
      expect(await shiftsNow()).toEqual([{ status: 'closed', n: 1 }]);
      // A reload (and its sync) sends nothing again.
      await page.reload();
      await page.waitForSelector('#open-cash');
      await page.waitForFunction(() => !document.querySelector('#register-offline'));
      expect(await shiftsNow()).toEqual([{ status: 'closed', n: 1 }]);
      await page.screenshot({ path: `${SHOTS}/07-after-sync-${label}.png`, fullPage: true });
      expect(await problems(page)).toMatchObject({ overflow: 0, csp: [], errors: [] });
      expect((await verifyBooks(s.company.id)).checks.filter((c) => !c.ok)).toEqual([]);
      await context.close();
    }
  });

  it("a new cashier with a temporary password sets her own first, then takes over the owner's shift with her own count (1366 and 390 px)", async () => {
    for (const [label, viewport] of Object.entries(VIEWPORTS)) {
      const s = await shop(`Almacén Relevo ${label}`);
      const asAdmin = { cookie: (await login(t.app, s.admin.email, s.admin.password)).cookie, ...SAME_ORIGIN };
      const opened = await t.app.inject({
        method: 'POST',
        url: '/api/v1/box-sessions',
        headers: asAdmin,
        payload: { box_id: 1, opening_cash: 45_500 },
      });
      expect(opened.statusCode, opened.body).toBe(201);
      const reset = await t.app.inject({
        method: 'POST',
        url: `/api/settings/members/${s.cashier.memberNo}/reset-password`,
        headers: asAdmin,
      });
      const temporary = reset.json().temporary_password as string;

      const context = await watchedContext(browser, viewport);
      const page = await signIn(context, { email: s.cashier.email, password: temporary });
      // Nothing but "Elegí tu contraseña" until she sets her own.
      await page.waitForSelector('#password-temporary');
      expect(new URL(page.url()).pathname).toBe('/cuenta');
      await page.goto(`${base}/caja`);
      await page.waitForSelector('#password-temporary');
      await page.screenshot({ path: `${SHOTS}/08-temporary-password-${label}.png`, fullPage: true });
      expect(await problems(page)).toMatchObject({ overflow: 0, console: [], csp: [], errors: [] });
      await page.fill('#current-password', temporary);
      await page.fill('#new-password', 'mi-clave-propia-2026');
      await page.fill('#repeat-password', 'mi-clave-propia-2026');
      await page.click('#password-form button[type=submit]');

      // The register: Caja 1 has the owner's shift; she does not land in it, she takes over.
      await page.waitForSelector('#handover');
      await expect(page.locator('#handover-owner').textContent()).resolves.toContain(s.admin.email);
      await page.fill('#handover-efectivo', '45.500');
      await page.fill('#handover-opening', '1.000');
      await page.screenshot({ path: `${SHOTS}/09-handover-${label}.png`, fullPage: true });
      expect((await problems(page)).overflow).toBe(0);
      await page.click('#handover-confirm');
      await page.waitForSelector('.register-head :text("turno 2")');
      await page.waitForSelector('.register-head :text("productos")');
      const rows = await t.container.db.query<{
        id: number;
        status: string;
        user_id: number;
        opening_cash: string;
        handed_over_to: number | null;
      }>('SELECT id, status, user_id, opening_cash::text, handed_over_to FROM box_sessions WHERE company_id = $1 ORDER BY id', [
        s.company.id,
      ]);
      expect(rows).toEqual([
        { id: 1, status: 'closed', user_id: s.admin.id, opening_cash: '45500.00', handed_over_to: 2 },
        { id: 2, status: 'open', user_id: s.cashier.id, opening_cash: '1000.00', handed_over_to: null },
      ]);
      await page.screenshot({ path: `${SHOTS}/10-own-shift-${label}.png`, fullPage: true });
      expect(await problems(page)).toMatchObject({ overflow: 0, console: [], csp: [], errors: [] });
      // Her Mis ventas has her shift only; the owner's closed shift is his, with its close per person.
      await page.goto(`${base}/mis-ventas`);
      await page.waitForSelector('#my-sales :text("Todavía no hay ventas")');
      await expect(page.locator('#my-closes').count()).resolves.toBe(0);
      await context.close();

      const ownerContext = await watchedContext(browser, viewport);
      const owner = await signIn(ownerContext, s.admin, '/mis-ventas');
      await owner.click('#my-closes [data-shift="1"] button');
      await expect(owner.locator('#close-report-person').textContent()).resolves.toBe(`Turno de ${s.admin.email}`);
      await expect(owner.locator('#close-report').textContent()).resolves.toContain('siguió el turno N.º 2');
      await owner.screenshot({ path: `${SHOTS}/11-owner-close-${label}.png`, fullPage: true });
      expect(await problems(owner)).toMatchObject({ overflow: 0, console: [], csp: [], errors: [] });
      await ownerContext.close();
    }
  });
});
