import { mkdirSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { saleCreated, sendEvent } from '../integration-helpers.ts';
import { login, manualClock, SAME_ORIGIN } from '../sessions.ts';
import { launchChromium } from '../setup/browser.ts';
import { logIn, problemsOf, VIEWPORTS, watch, watchedContext } from './page-checks.ts';

const SHOTS = '/tmp/shots-numbers-3';
const DAY_MS = 86_400_000;

/** "$ 1.234,56" → cents. */
const centsOf = (text: string) => {
  const clean = text.replace(/[$\s\u00a0]/g, '').replace(/\./g, '');
  const [whole, fraction = '00'] = clean.split(',');
  return Number(whole) * 100 + Number(fraction.padEnd(2, '0').slice(0, 2));
};

/** Issue 27 on the screens: Stock asks before going below zero, Ventas adds up, a closed shift prints the same forever. */
describe('numbers that add up, on the screens (real browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  const clock = manualClock(new Date());
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    t = await buildTestApp({
      env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000', AUTH_LOGIN_LIMIT_PER_ACCOUNT: '1000' },
      overrides: { clock },
    });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function shop(name: string) {
    const company = await makeCompany(t.container, { name });
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const cashier = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    const yerba = await makeProduct(t.container, company.id, { name: 'Yerba Playadito 1 kg', basePrice: 3200, stock: 17 });
    const queso = await makeProduct(t.container, company.id, { name: 'Queso cremoso', basePrice: 9000, stock: 5, unit: 'kg' });
    return { company, admin, cashier, yerba, queso };
  }

  type Headers = Record<string, string>;
  const call = (method: string, url: string, headers: Headers, payload?: unknown) =>
    t.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });
  const as = async (user: { email: string; password: string }) => ({
    cookie: (await login(t.app, user.email, user.password)).cookie,
    ...SAME_ORIGIN,
  });

  it.each(Object.entries(VIEWPORTS))(
    'Stock: taking out 20 with 17 on hand asks "Quedan −3. ¿Registrar igual?" and only then sends allow_negative (%s)',
    async (name, viewport) => {
      const s = await shop(`Stock ${name}`);
      const stock = async () =>
        Number(
          (
            await t.container.db.query<{ q: string }>('SELECT stock::text AS q FROM products WHERE company_id = $1 AND id = $2', [
              s.company.id,
              s.yerba.id,
            ])
          )[0]!.q,
        );
      const context = await watchedContext(browser, viewport);
      const page = watch(await context.newPage());
      const sent: Record<string, unknown>[] = [];
      page.on('request', (request) => {
        if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/v1/movements')
          sent.push(request.postDataJSON() as Record<string, unknown>);
      });
      await logIn(page, base, s.admin.email, s.admin.password, '/stock');
      await page.fill('#stock-search', 'yerba');
      await page.waitForFunction(() => document.querySelectorAll('[data-level]').length === 1);
      await page.click('[data-level] button:has-text("Mover")');
      await page.selectOption('#move-type', 'OUT');
      await page.fill('#move-amount', '20');
      await page.click('#movement button[type=submit]');
      await page.waitForSelector('#move-confirm');
      await expect(page.locator('#move-confirm p').textContent()).resolves.toBe('Quedan \u22123. ¿Registrar igual?');
      await page.screenshot({ path: `${SHOTS}/stock-confirm-${name}.png`, fullPage: true });
      // Asked, not done: nothing moved yet.
      expect(sent).toHaveLength(1);
      expect(sent[0]).not.toHaveProperty('allow_negative');
      expect(await stock()).toBe(17);

      await page.click('#move-confirm-yes');
      await page.waitForSelector('#movement', { state: 'detached' });
      expect(sent).toHaveLength(2);
      expect(sent[1]).toMatchObject({ type: 'OUT', amount: 20, allow_negative: true });
      expect(await stock()).toBe(-3);
      // Below zero shows as such, marked, on the list.
      await page.waitForFunction(() => document.querySelector('[data-level] td:nth-child(2)')?.textContent === '\u22123');
      await expect(page.locator('[data-level] td:nth-child(2)').getAttribute('class')).resolves.toBe('error-text');
      await page.screenshot({ path: `${SHOTS}/stock-negative-${name}.png`, fullPage: true });
      const problems = await problemsOf(page);
      expect(problems.errors).toEqual([]);
      expect(problems.csp).toEqual([]);
      expect(problems.overflow).toBeLessThanOrEqual(0);
      // The only console error is the browser's own note of the 409 the confirmation answers.
      expect(problems.console.every((m) => m.includes('409'))).toBe(true);
      await context.close();
    },
    90_000,
  );

  it('Ventas and Cierres: the summary adds up with the integration in its own group; a closed shift prints the same after a sale of it is refunded the next day, plus "Devoluciones posteriores"', async () => {
    const s = await shop('Almacén Números');
    const cashier = await as(s.cashier);
    const opened = await call('POST', '/api/v1/box-sessions', cashier, { box_id: 1, opening_cash: 1000 });
    expect(opened.statusCode, opened.body).toBe(201);
    const first = opened.json().session.id as number;
    const sell = (items: unknown[], payments: unknown[]) =>
      call('POST', '/api/v1/sales', { ...cashier, 'x-idempotency-key': randomUUID() }, { box_id: 1, items, payments });
    const a = await sell([{ product_id: s.yerba.id, quantity: 1 }], [{ method: 'debito', amount: 3200 }]);
    const b = await sell([{ product_id: s.queso.id, quantity: 0.5 }], [{ method: 'efectivo', amount: 5000 }]);
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    // Two sales through the integration, the sender naming box 1: one paid with Mercado Pago, one pending.
    const key = s.company.integrationKey;
    await sendEvent(t.app, key, saleCreated(80_001, s.yerba.id, { box_id: 1 }));
    await sendEvent(t.app, key, {
      event: 'sales.paid',
      data: { sale: { id: 80_001, payment_method: 'Mercado Pago', payment_id: 'MP-1' } },
    });
    await sendEvent(t.app, key, saleCreated(80_002, s.yerba.id, { box_id: 1 }));
    const closed = await call('POST', `/api/v1/box-sessions/${first}/close`, cashier, {
      counted: { efectivo: 5500, debito: 3200 },
    });
    expect(closed.statusCode, closed.body).toBe(200);

    const context = await watchedContext(browser, VIEWPORTS.desktop);
    const page = watch(await context.newPage());
    await logIn(page, base, s.admin.email, s.admin.password, '/ventas');
    await page.waitForSelector('#sales-summary .stat');
    const stats = await page.$$eval('#sales-summary .stat', (els) =>
      els.map((e) => {
        const amount = e.querySelector('strong')?.textContent ?? '';
        return { amount, label: (e.textContent ?? '').slice(amount.length) };
      }),
    );
    expect(stats.map((x) => [x.amount, x.label.trim()])).toEqual([
      ['$\u00a08.300,00', '4 ventas'],
      ['$\u00a03.200,00', 'Débito'],
      ['$\u00a04.500,00', 'Efectivo'],
      ['$\u00a0300,00', 'QR'],
      ['$\u00a0300,00', 'pendiente de cobro'],
    ]);
    // The headline is the sum of its parts.
    const [headline, ...parts] = stats.map((x) => centsOf(x.amount));
    expect(parts.reduce((sum, x) => sum + x, 0)).toBe(headline);
    const boxes = await page.locator('#sales-summary + p').textContent();
    expect(boxes).toBe('Caja 1: 2 · $\u00a07.700,00 — Integración: 2 · $\u00a0600,00');
    const groups = [...boxes!.matchAll(/: \d+ · ([^—]+)/g)].map((m) => centsOf(m[1]!));
    expect(groups.reduce((sum, x) => sum + x, 0)).toBe(headline);
    await page.screenshot({ path: `${SHOTS}/ventas-summary-desktop.png`, fullPage: true });
    // Each group of the summary is a filter of the list, with the same sales.
    for (const [option, label, rows, total] of [
      ['integration', 'Integración', 2, 60_000],
      ['1', 'Caja 1', 2, 770_000],
    ] as const) {
      await page.selectOption('.sales-filters select >> nth=0', option);
      await page.waitForFunction(
        ([n, box]) => {
          const cells = Array.from(document.querySelectorAll('#sales tbody td[data-label="Caja"]'));
          return cells.length === n && cells.every((c) => c.textContent === box);
        },
        [rows, label] as const,
      );
      const totals = await page.$$eval('#sales tbody td[data-label="Total"]', (cells) => cells.map((c) => c.textContent ?? ''));
      expect([option, totals.reduce((sum, x) => sum + centsOf(x), 0)]).toEqual([option, total]);
    }
    await page.selectOption('.sales-filters select >> nth=0', '');
    // The days are written dd/mm/aaaa whatever the browser's language; one that does not exist is marked and not used.
    const from = page.locator('#sales-from');
    const [year, month, day] = new Date().toLocaleDateString('en-CA', { timeZone: 'America/Argentina/Buenos_Aires' }).split('-');
    expect(await from.inputValue()).toBe(`${day}/${month}/${year}`);
    await from.fill('31/02/2026');
    expect(await from.getAttribute('aria-invalid')).toBe('true');
    await page.locator('#sales-to').fill('1/1/2020');
    await from.fill('01-01-2020');
    await page.waitForSelector('text=No hay ventas con estos filtros.');
    await page.locator('#sales-to').fill(`${day}/${month}/${year}`);
    await page.waitForFunction(() => document.querySelectorAll('#sales tbody tr').length === 4);
    await page.locator('#sales-from').blur();
    expect(await from.inputValue()).toBe('01/01/2020');
    await page.screenshot({ path: `${SHOTS}/ventas-filters-desktop.png` });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('.sales-filters').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/ventas-filters-phone.png` });
    const phoneProblems = await problemsOf(page);
    expect([phoneProblems.errors, phoneProblems.csp, phoneProblems.overflow]).toEqual([[], [], 0]);
    await page.setViewportSize(VIEWPORTS.desktop);

    const printClose = async () => {
      await page.goto(`${base}/cierres`);
      await page.click(`#closes button:has-text("N.º ${first}")`);
      await page.waitForSelector('#close-report');
      await page.emulateMedia({ media: 'print' });
      const text = await page.locator('#close-report').evaluate((el) => {
        const copy = el.cloneNode(true) as HTMLElement;
        const later = copy.querySelector('.later-refunds');
        const note = later?.textContent ?? null;
        later?.remove();
        return { figures: copy.textContent ?? '', note };
      });
      const row = await page.locator('#closes tr.selected').textContent();
      return { ...text, row };
    };
    const printed = await printClose();
    expect(printed.figures).toContain('Ventas2 · $\u00a07.700,00');
    // What came in by method, from which the expected column is made.
    expect(printed.figures).toMatch(/Cobrado.*\$\u00a0/);
    expect(printed.note).toBeNull();
    await page.screenshot({ path: `${SHOTS}/close-printed-day1.png`, fullPage: true });
    await page.emulateMedia({ media: 'screen' });

    // The next day: a new shift, and the owner refunds the cheese sold in yesterday's closed shift.
    clock.advance(DAY_MS);
    const cashier2 = await as(s.cashier);
    const second = (await call('POST', '/api/v1/box-sessions', cashier2, { box_id: 1, opening_cash: 2000 })).json().session
      .id as number;
    const cancel = await call('POST', `/api/v1/sales/${b.json().sale.id}/cancel`, await as(s.admin), { reason: 'devolución' });
    expect(cancel.statusCode, cancel.body).toBe(200);

    await logIn(page, base, s.admin.email, s.admin.password, '/cierres');
    const again = await printClose();
    expect(again.figures).toBe(printed.figures);
    expect(again.row).toBe(printed.row);
    expect(again.note).toContain('Devoluciones posteriores');
    expect(again.note).toContain('(no cambian este cierre)');
    expect(again.note).toContain(`Venta N.º ${b.json().sale.id} ($\u00a04.500,00): anulada el`);
    expect(again.note).toContain('se devolvieron $\u00a04.500,00');
    expect(again.note).toContain(`(devuelto desde el turno N.º ${second})`);
    await page.screenshot({ path: `${SHOTS}/close-printed-day2.png`, fullPage: true });
    await page.emulateMedia({ media: 'screen' });
    const problems = await problemsOf(page);
    expect(problems).toMatchObject({ console: [], csp: [], errors: [] });

    // The same at 390 px: the note fits.
    const phone = watch(await (await watchedContext(browser, VIEWPORTS.phone)).newPage());
    await logIn(phone, base, s.admin.email, s.admin.password, '/cierres');
    await phone.click(`#closes button:has-text("N.º ${first}")`);
    await phone.waitForSelector('#close-report .later-refunds');
    await phone.screenshot({ path: `${SHOTS}/close-printed-day2-phone.png`, fullPage: true });
    expect((await problemsOf(phone)).overflow).toBeLessThanOrEqual(0);
    // Every figure of the close and of the list of shifts is on screen, none cut at the card's edge
    // (the difference column was: four columns of amounts do not fit 390 px).
    for (const selector of ['#close-table td', '#closes td']) {
      const cells = await phone.locator(selector).evaluateAll((tds) =>
        tds.map((td) => {
          const box = td.getBoundingClientRect();
          const wrap = td.closest('.table-wrap')!.getBoundingClientRect();
          return { text: td.textContent, inside: box.left >= wrap.left - 0.5 && box.right <= wrap.right + 0.5 };
        }),
      );
      expect(cells.length).toBeGreaterThan(0);
      expect(cells.filter((c) => !c.inside)).toEqual([]);
    }
    await context.close();
  }, 120_000);

  /** A shift opened with the most an amount holds and 90 cash moves in of as much: past 2^53 cents. */
  const most = 999_999_999_999;
  async function hugeDrawer(cashier: Headers): Promise<number> {
    const id = (await call('POST', '/api/v1/box-sessions', cashier, { box_id: 1, opening_cash: most })).json().session.id;
    for (let n = 0; n < 90; n++) {
      const moved = await call('POST', `/api/v1/box-sessions/${id}/cash`, cashier, { kind: 'in', amount: most, reason: 'x' });
      expect(moved.statusCode).toBe(201);
    }
    return id;
  }

  it.each(Object.entries(VIEWPORTS))(
    'Cierres: a drawer past 2^53 cents shows its expected cash and difference in whole pesos, inside the screen (%s)',
    async (name, viewport) => {
      const s = await shop(`Cajón ${name}`);
      const cashier = await as(s.cashier);
      const id = await hugeDrawer(cashier);
      const closed = await call('POST', `/api/v1/box-sessions/${id}/close`, cashier, { counted: { efectivo: most } });
      expect(closed.statusCode, closed.body).toBe(200);
      const context = await watchedContext(browser, viewport);
      const page = watch(await context.newPage());
      await logIn(page, base, s.admin.email, s.admin.password, '/cierres');
      await page.click(`#closes button:has-text("N.º ${id}")`);
      await page.waitForSelector('#close-report');
      // 91 × $ 999.999.999.999 expected (past 2^53 cents: whole pesos), $ 999.999.999.999 counted, the difference below 2^53 cents again (with its cents).
      await expect(page.locator('#closes tr.selected td:last-child').textContent()).resolves.toBe(
        '-$\u00a089.999.999.999.910,00',
      );
      const cells = await page.locator('#close-table tbody tr:first-child td').allTextContents();
      expect(cells).toEqual([
        'Efectivo',
        '$\u00a090.999.999.999.909',
        '$\u00a0999.999.999.999,00',
        '-$\u00a089.999.999.999.910,00',
      ]);
      await page.screenshot({ path: `${SHOTS}/close-past-2-53-${name}.png`, fullPage: true });
      const problems = await problemsOf(page);
      expect(problems).toMatchObject({ console: [], csp: [], errors: [] });
      expect(problems.overflow).toBeLessThanOrEqual(0);
      await context.close();
    },
    90_000,
  );

  it.each(Object.entries(VIEWPORTS))(
    'Mis ventas: a closed drawer whose difference is past 2^53 cents shows it in whole pesos, inside the screen (%s)',
    async (name, viewport) => {
      const s = await shop(`Mi cajón ${name}`);
      const cashier = await as(s.cashier);
      const id = await hugeDrawer(cashier);
      // Counted empty: the difference is the whole expected cash, 91 × $ 999.999.999.999, past 2^53 cents.
      const closed = await call('POST', `/api/v1/box-sessions/${id}/close`, cashier, { counted: { efectivo: 0 } });
      expect(closed.statusCode, closed.body).toBe(200);
      const context = await watchedContext(browser, viewport);
      const page = watch(await context.newPage());
      await logIn(page, base, s.cashier.email, s.cashier.password, '/mis-ventas');
      const shift = page.locator(`#my-closes li[data-shift="${id}"]`);
      await expect(shift.locator('.amount').textContent()).resolves.toBe('-$\u00a090.999.999.999.909');
      await shift.locator('button:has-text("Ver cierre")').click();
      await page.waitForSelector('#close-report');
      const cells = await page.locator('#close-table tbody tr:first-child td').allTextContents();
      expect(cells).toEqual(['Efectivo', '$\u00a090.999.999.999.909', '$\u00a00,00', '-$\u00a090.999.999.999.909']);
      await page.screenshot({ path: `${SHOTS}/my-close-past-2-53-${name}.png`, fullPage: true });
      const problems = await problemsOf(page);
      expect(problems).toMatchObject({ console: [], csp: [], errors: [] });
      expect(problems.overflow).toBeLessThanOrEqual(0);
      await context.close();
    },
    90_000,
  );
});
