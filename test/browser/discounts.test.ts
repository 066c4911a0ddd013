import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';
import { launchChromium } from '../setup/browser.ts';
import { logIn, openMenu, problemsOf, VIEWPORTS, watch, watchedContext, wrappedAmounts } from './page-checks.ts';

const SHOTS = process.env['SCREENSHOTS_DIR'] ?? '/tmp/shots-issue-29-discounts';

/**
 * Issue 29 in a real browser, at 1366 and 390 px: a cashier discounts a line and the sale, the
 * discount beyond the limit is approved by an admin on the cashier's screen (a wrong password is
 * refused next to the field), the ticket shows the discounts; every line's controls are within the
 * screen, no amount wraps, the menu is one button on a phone and keyboard hints do not show on touch.
 */
describe('register discounts and the register on a phone', () => {
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

  async function shop(name: string) {
    const company = await makeCompany(t.container, { name });
    const cashier = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    await makeProduct(t.container, company.id, {
      name: 'Aceite de oliva extra virgen Cocinero 2 l',
      bc: '7790272000018',
      basePrice: 80_239.7,
      stock: 40,
    });
    await makeProduct(t.container, company.id, { name: 'Yerba Playadito 1 kg', bc: '7790387000011', basePrice: 3200, stock: 40 });
    return { company, cashier, admin };
  }

  async function openBox(page: Page) {
    await page.waitForSelector('#open-cash');
    await page.fill('#open-cash', '0');
    await page.click('.register-open button[type=submit]');
    await page.waitForSelector('.register-head :text("productos")');
    await page.waitForFunction(() => document.activeElement?.id === 'register-input');
  }

  async function scan(page: Page, code: string, lines: number) {
    await page.fill('#register-input', code);
    await page.press('#register-input', 'Enter');
    await page.waitForFunction((n) => document.querySelectorAll('#register-lines tr[data-line]').length === n, lines);
  }

  async function discount(page: Page, opener: string, kind: 'percent' | 'amount', value: string, reason: string) {
    await page.click(opener);
    await page.waitForSelector('dialog.discount-dialog[open]');
    if (kind === 'amount') await page.check('dialog.discount-dialog input[name=discount-kind] >> nth=1');
    await page.fill('#discount-value', value);
    await page.fill('#discount-reason', reason);
    await page.waitForSelector('#discount-preview');
  }

  /** Every control of every line inside the viewport, horizontally. */
  async function linesWithin(page: Page, width: number) {
    return page.evaluate((w) => {
      const out: string[] = [];
      for (const el of Array.from(
        document.querySelectorAll<HTMLElement>('#register-lines tr[data-line] button, #register-lines tr[data-line] td'),
      )) {
        const r = el.getBoundingClientRect();
        if (r.right > w + 0.5 || r.left < -0.5) out.push(`${el.tagName} ${el.textContent} ${r.left}–${r.right}`);
      }
      return out;
    }, width);
  }

  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    it(`${size}: a line discount within the limit, a sale discount beyond it approved by an admin (a wrong password first)`, async () => {
      const s = await shop(`Almacén Descuentos ${size}`);
      const phone = size === 'phone';
      const context = phone
        ? await browser.newContext({ viewport, isMobile: true, hasTouch: true })
        : await watchedContext(browser, viewport);
      const page = watch(await context.newPage());
      await logIn(page, base, s.cashier.email, s.cashier.password, '/caja');
      await openBox(page);
      await scan(page, '7790272000018', 1);
      await scan(page, '7790387000011', 2);

      // 10 % on the oil: within the cashier's limit.
      await discount(
        page,
        '#register-lines tr[data-line] >> nth=0 >> [data-line-discount-button]',
        'percent',
        '10',
        'Envase abollado',
      );
      await expect(page.locator('#discount-beyond').count()).resolves.toBe(0);
      await page.click('#discount-apply');
      await page.waitForSelector('[data-line-discount]:has-text("Envase abollado")');
      // 80.239,70 − 8.023,97 + 3.200 = 75.415,73
      await expect(page.locator('#register-total').textContent()).resolves.toBe('$\u00a075.415,73');

      // $ 5.000 more off the sale: 13.023,97 of 83.439,70 is beyond 10 %, the dialog says so.
      await discount(page, '#sale-discount', 'amount', '5000', 'Cliente mayorista');
      await page.waitForSelector('#discount-beyond');
      await page.screenshot({ path: `${SHOTS}/00-discount-dialog-${size}.png` });
      await page.click('#discount-apply');
      await expect(page.locator('#register-total').textContent()).resolves.toBe('$\u00a070.415,73');
      await expect(page.locator('#register-discount').textContent()).resolves.toBe('−$\u00a013.023,97');

      // The screen with its discounts: everything within the width, no amount on two lines.
      expect(await linesWithin(page, viewport.width)).toEqual([]);
      expect(await wrappedAmounts(page)).toEqual([]);
      expect((await problemsOf(page)).overflow).toBe(0);
      const hints = await page.evaluate(
        () => Array.from(document.querySelectorAll('.keyboard-hint')).filter((e) => e.getClientRects().length > 0).length,
      );
      // On a touch phone no keyboard hints; on the desktop they help.
      if (phone) expect(hints).toBe(0);
      else expect(hints).toBeGreaterThan(0);
      await page.screenshot({ path: `${SHOTS}/01-discounts-${size}.png`, fullPage: true });

      // Charging asks an admin: a wrong password is refused next to the field, nothing sold.
      await page.click('.register-pay');
      await page.waitForSelector('#pay-amount');
      await page.click('#pay-confirm');
      await page.waitForSelector('dialog.approval-dialog[open]');
      await page.fill('#approval-email', s.admin.email);
      await page.fill('#approval-password', 'no es la contraseña');
      await page.click('#approval-confirm');
      await page.waitForSelector('#approval-error:has-text("no son correctos")');
      await page.screenshot({ path: `${SHOTS}/02-approval-refused-${size}.png` });
      const [{ n: before }] = (await t.container.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM sales WHERE company_id = $1',
        [s.company.id],
      )) as [{ n: number }];
      expect(before).toBe(0);

      await page.fill('#approval-password', s.admin.password);
      await page.click('#approval-confirm');
      await page.waitForSelector('#ticket :text("Venta N.º")');
      await expect(page.locator('#ticket-total').textContent()).resolves.toBe('$\u00a070.415,73');
      await page.waitForSelector('#ticket-sale-discount:has-text("Cliente mayorista")');
      await page.waitForSelector('[data-ticket-line-discount]:has-text("Envase abollado")');
      expect(await wrappedAmounts(page)).toEqual([]);
      // No uncaught error on the way: typing a discount's value before its reason drew a preview that threw.
      const found = await problemsOf(page);
      expect([found.overflow, found.errors]).toEqual([0, []]);
      await page.screenshot({ path: `${SHOTS}/03-ticket-${size}.png`, fullPage: true });

      const [sale] = await t.container.db.query<{ total: string; discount_approved_by: string; discount_reason: string }>(
        `SELECT s.total::text, r.discount_approved_by, r.discount_reason FROM sales s
          JOIN register_sales r ON r.company_id = s.company_id AND r.sale_id = s.id WHERE s.company_id = $1`,
        [s.company.id],
      );
      expect(sale).toEqual({ total: '70415.73', discount_approved_by: s.admin.email, discount_reason: 'Cliente mayorista' });
      const audits = await t.container.db.query<{ action: string }>(
        `SELECT action FROM audit_log WHERE company_id = $1 AND action LIKE 'sale.discount%' ORDER BY id`,
        [s.company.id],
      );
      expect(audits.map((a) => a.action)).toEqual(['sale.discount_approval_failed', 'sale.discount_approved']);

      // The owner's Ventas shows the sale's discounts, their reasons and who approved them.
      const ownerContext = await watchedContext(browser, viewport);
      const owner = watch(await ownerContext.newPage());
      await logIn(owner, base, s.admin.email, s.admin.password, '/ventas');
      await owner.waitForSelector('#sales tbody tr');
      await owner.click('#sales tbody tr:first-child button');
      await owner.waitForSelector('#sale-detail-discount');
      const detail = await owner.locator('#sale-detail-discount').textContent();
      expect(detail).toBe(`−$\u00a013.023,97 · Cliente mayorista · aprobó ${s.admin.email}`);
      await owner.waitForSelector('#sale-detail .line-discount:has-text("Envase abollado")');
      expect(await wrappedAmounts(owner)).toEqual([]);
      expect((await problemsOf(owner)).overflow).toBe(0);
      await owner.screenshot({ path: `${SHOTS}/06-ventas-detail-${size}.png`, fullPage: true });
      await ownerContext.close();
      await context.close();
    }, 120_000);
  }

  it('on a phone every signed-in page of the owner has a one-button menu, fits, and no amount wraps; on a desktop too', async () => {
    const s = await shop('Almacén y Forrajería «Los Hermanos Fernández Rodríguez»');
    // Sales with large amounts, one discounted, and a closed shift: Inicio, Ventas, Cierres and Reportes show money.
    const cookie = { cookie: (await login(t.app, s.admin.email, s.admin.password)).cookie, ...SAME_ORIGIN };
    const call = (url: string, payload: object, key?: string) =>
      t.app.inject({ method: 'POST', url, headers: { ...cookie, ...(key ? { 'x-idempotency-key': key } : {}) }, payload });
    const session = (await call('/api/v1/box-sessions', { box_id: 1, opening_cash: 150_000 })).json().session.id;
    const [oil] = await t.container.db.query<{ id: number }>(
      "SELECT id FROM products WHERE company_id = $1 AND name LIKE 'Aceite%'",
      [s.company.id],
    );
    for (const [n, discount] of [
      [12, { percent: 7.5, reason: 'Mayorista' }],
      [3, undefined],
    ] as const) {
      const sold = await call(
        '/api/v1/sales',
        {
          box_id: 1,
          items: [{ product_id: oil!.id, quantity: n }],
          ...(discount ? { discount } : {}),
          payments: [{ method: 'efectivo', amount: 1_000_000 }],
        },
        randomUUID(),
      );
      expect(sold.statusCode, sold.body).toBe(201);
    }
    const closed = await call(`/api/v1/box-sessions/${session}/close`, { counted: { efectivo: 1_200_000 } });
    expect(closed.statusCode, closed.body).toBe(200);
    const pages = [
      '/inicio',
      '/productos',
      '/clientes',
      '/stock',
      '/depositos',
      '/caja',
      '/ventas',
      '/cierres',
      '/cuentas-corrientes',
      '/reportes',
      '/libro-iva',
      '/settings/scanner',
      '/settings/facturacion',
      '/settings/integrations',
      '/settings/api-tokens',
      '/settings/people',
      '/cuenta',
    ];
    for (const [size, viewport] of Object.entries(VIEWPORTS)) {
      const context = await watchedContext(browser, viewport);
      const page = watch(await context.newPage());
      await logIn(page, base, s.admin.email, s.admin.password);
      for (const path of pages) {
        await page.goto(`${base}${path}`);
        await page.waitForSelector('main h1, #register-input');
        await page.waitForLoadState('networkidle');
        const header = await page.locator('.shell-header').boundingBox();
        const toggle = page.locator('[data-menu-toggle]');
        if (size === 'phone') {
          // The header is one short line: the brand and "Menú".
          expect([path, await toggle.isVisible()]).toEqual([path, true]);
          expect([path, header!.height < 70]).toEqual([path, true]);
          await expect(page.locator('.shell-nav').isVisible()).resolves.toBe(false);
        } else {
          expect([path, await toggle.isVisible()]).toEqual([path, false]);
        }
        const found = await problemsOf(page);
        expect([path, found.overflow, found.errors, await wrappedAmounts(page)]).toEqual([path, 0, [], []]);
        if (path === '/productos' || path === '/inicio') {
          await page.screenshot({ path: `${SHOTS}/05${path.replace(/\W+/g, '_')}-${size}.png`, fullPage: true });
        }
        if (size === 'phone') {
          await openMenu(page);
          await expect(page.locator('.shell-nav a[href="/ventas"]').isVisible()).resolves.toBe(true);
          expect([path, (await problemsOf(page)).overflow]).toEqual([path, 0]);
          if (path === '/ventas') await page.screenshot({ path: `${SHOTS}/04-menu-open-phone.png` });
        }
        if (path === '/productos') {
          // Stock and the product's button stay within the screen.
          await page.waitForSelector('[data-product]');
          const cells = await page.evaluate(() =>
            Array.from(document.querySelectorAll<HTMLElement>('[data-product] .p-stock, [data-product] .p-actions button')).map(
              (el) => el.getBoundingClientRect().right <= window.innerWidth && el.getBoundingClientRect().width > 0,
            ),
          );
          expect(cells.length).toBeGreaterThan(0);
          expect(cells.every(Boolean)).toBe(true);
        }
        if (path === '/depositos' && size === 'desktop') {
          // The owner sets the cashiers' limit here.
          await page.waitForSelector('#discount-limit-input:not([disabled])');
          await expect(page.inputValue('#discount-limit-input')).resolves.toBe('10');
          await page.fill('#discount-limit-input', '12,5');
          await page.click('#discount-limit-save');
          await page.waitForSelector('#discount-limit-notice:has-text("12,5")');
          const [row] = await t.container.db.query<{ limit: string }>(
            "SELECT settings->>'discountLimitPercent' AS limit FROM companies WHERE id = $1",
            [s.company.id],
          );
          expect(row!.limit).toBe('12.5');
        }
      }
      await context.close();
    }
  }, 180_000);
});
