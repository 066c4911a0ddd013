import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { sendEvent } from '../integration-helpers.ts';
import { booksOf } from '../../src/cli/books-commands.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

/** Issue 30: reports over local days of the company's zone, their CSV, Inicio, tenancy. */
describe('reports', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000', AUTH_LOGIN_LIMIT_PER_ACCOUNT: '1000' } });
  });
  afterAll(() => t.close());

  type Headers = Record<string, string>;
  const get = (url: string, headers: Headers) => t.app.inject({ method: 'GET', url, headers });
  const post = (url: string, headers: Headers, payload: object) => t.app.inject({ method: 'POST', url, headers, payload });

  async function shop() {
    const company = await makeCompany(t.container);
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const asAdmin = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
    const category = (await post('/api/v1/categories', asAdmin, { name: 'Almacén' })).json().category;
    const yerba = await makeProduct(t.container, company.id, {
      name: 'Yerba 1 kg',
      basePrice: 3000,
      cost: '2000',
      categoryId: category.id,
      mark: 'Playadito',
    });
    const pan = await makeProduct(t.container, company.id, { name: 'Pan', basePrice: 1000, cost: null });
    /** A sale received through the integration at an exact instant, paid in cash when `paid`. */
    const sale = async (id: number, createdAt: string, lines: [number, number, number][], paid = true) => {
      const items = lines.map(([product_id, quantity, price]) => ({ product_id, quantity, price }));
      const total = lines.reduce((s, [, q, p]) => s + q * p, 0);
      const key = company.integrationKey;
      const res = await sendEvent(t.app, key, {
        event: 'sales.created',
        data: { sale: { id, total, payment_method: 'efectivo', box_id: 1, items, created_at: createdAt } },
      });
      expect(res.statusCode, res.body).toBeLessThan(300);
      if (paid) {
        const pay = await sendEvent(t.app, key, { event: 'sales.paid', data: { sale: { id, payment_method: 'efectivo' } } });
        expect(pay.statusCode, pay.body).toBeLessThan(300);
      }
    };
    return { company, asAdmin, yerba, pan, category, sale };
  }

  it('counts a sale on the local day it was made: 23:30 and 00:30 in Buenos Aires fall on two days, whatever the UTC date', async () => {
    const s = await shop();
    // 10/03 23:30 local (11/03 02:30 UTC) and 11/03 00:30 local; 10/03 10:00 local.
    await s.sale(1, '2026-03-11T02:30:00Z', [[s.yerba.id, 1, 3000]]);
    await s.sale(2, '2026-03-11T00:30:00-03:00', [[s.pan.id, 2, 1000]]);
    await s.sale(3, '2026-03-10T10:00:00-03:00', [
      [s.yerba.id, 2, 3000],
      [s.pan.id, 1, 1000],
    ]);

    const day10 = (await get('/api/v1/reports/sales?from=2026-03-10&to=2026-03-10', s.asAdmin)).json();
    expect(day10.rows).toEqual([{ day: '2026-03-10', tickets: 2, total: 10_000, average: 5000 }]);
    expect(day10.time_zone).toBe('America/Argentina/Buenos_Aires');

    const both = (await get('/api/v1/reports/sales?from=2026-03-10&to=2026-03-11', s.asAdmin)).json();
    expect(both.rows.map((r: { day: string; total: number }) => [r.day, r.total])).toEqual([
      ['2026-03-10', 10_000],
      ['2026-03-11', 2000],
    ]);
    expect(both.totals).toEqual({ tickets: 3, total: 12_000, average: 4000 });

    // The same day as the day summary counts it.
    const summary = (await get('/api/v1/sales/summary?date=2026-03-10', s.asAdmin)).json();
    expect([summary.count, summary.total]).toEqual([day10.totals.tickets, day10.totals.total]);

    const products = (await get('/api/v1/reports/products?from=2026-03-10&to=2026-03-10', s.asAdmin)).json();
    expect(products.rows).toEqual([
      { id: s.yerba.id, name: 'Yerba 1 kg', quantity: 3, tickets: 2, total: 9000, share: 90 },
      { id: s.pan.id, name: 'Pan', quantity: 1, tickets: 1, total: 1000, share: 10 },
    ]);
    const categories = (await get('/api/v1/reports/categories?from=2026-03-10&to=2026-03-10', s.asAdmin)).json();
    expect(categories.rows.map((r: { name: string; total: number }) => [r.name, r.total])).toEqual([
      ['Almacén', 9000],
      ['Sin categoría', 1000],
    ]);
    const brands = (await get('/api/v1/reports/brands?from=2026-03-10&to=2026-03-10', s.asAdmin)).json();
    expect(brands.rows.map((r: { name: string; total: number }) => [r.name, r.total])).toEqual([
      ['Playadito', 9000],
      ['Sin marca', 1000],
    ]);
    const margins = (await get('/api/v1/reports/margins?from=2026-03-10&to=2026-03-10', s.asAdmin)).json();
    expect(margins.totals).toEqual({ total: 10_000, cost: 6000, margin: 3000, margin_pct: 33.3, without_cost: 1000 });
    const payments = (await get('/api/v1/reports/payments?from=2026-03-10&to=2026-03-11', s.asAdmin)).json();
    expect(payments.rows).toEqual([{ method: 'Efectivo', tickets: 3, amount: 12_000, share: 100 }]);
    expect(payments.totals).toEqual({ amount: 12_000, pending: 0 });
    const cashiers = (await get('/api/v1/reports/cashiers?from=2026-03-10&to=2026-03-11', s.asAdmin)).json();
    expect(cashiers.rows).toHaveLength(1);
    expect(cashiers.rows[0].tickets).toBe(3);
  });

  it('answers an empty period with empty rows (and every day of the range at zero for sales)', async () => {
    const s = await shop();
    for (const name of ['products', 'categories', 'brands', 'cashiers', 'payments', 'margins', 'movements']) {
      const res = await get(`/api/v1/reports/${name}?from=2020-01-01&to=2020-01-31`, s.asAdmin);
      expect(res.statusCode, `${name}: ${res.body}`).toBe(200);
      expect(res.json().rows, name).toEqual([]);
    }
    const sales = (await get('/api/v1/reports/sales?from=2020-01-01&to=2020-01-03', s.asAdmin)).json();
    expect(sales.rows.map((r: { total: number }) => r.total)).toEqual([0, 0, 0]);
    // The last days a date can be (the day after is year 10000): their rows, never a 500.
    const last = await get('/api/v1/reports/sales?from=9999-12-30&to=9999-12-31', s.asAdmin);
    expect(last.statusCode, last.body).toBe(200);
    expect(last.json().rows.map((r: { day: string; total: number }) => [r.day, r.total])).toEqual([
      ['9999-12-30', 0],
      ['9999-12-31', 0],
    ]);
    const stock = (await get('/api/v1/reports/stock-valuation', s.asAdmin)).json();
    expect(stock.rows[0]).toMatchObject({ deposit_id: 1, deposit: 'Depósito principal' });
  });

  it('refuses dates that are not days with 400 or 422 and {error, code}', async () => {
    const s = await shop();
    const cases: [string, number][] = [
      ['from=10-03-2026', 400],
      // Not a calendar day: the schema's date format refuses it (src/http/input-guard.ts).
      ['from=2026-02-30', 400],
      ['from=2026-03-10&to=2026-03-01', 422],
      ['from=2024-01-01&to=2026-01-01', 422],
      ['deposit_id=abc', 400],
    ];
    for (const [query, status] of cases) {
      const res = await get(`/api/v1/reports/products?${query}`, s.asAdmin);
      expect(res.statusCode, query).toBe(status);
      expect(Object.keys(res.json())).toEqual(expect.arrayContaining(['error', 'code']));
    }
  });

  it("never shows another company's sales, and another company's deposit or box is a 404", async () => {
    const a = await shop();
    const b = await shop();
    await a.sale(10, '2026-03-10T12:00:00-03:00', [[a.yerba.id, 1, 3000]]);
    const deposit = (await post('/api/v1/deposits', a.asAdmin, { name: 'Depósito del fondo' })).json().deposit;
    const box = (await post('/api/v1/boxes', a.asAdmin, { name: 'Caja 2' })).json().box;
    const mine = (await get('/api/v1/reports/products?from=2026-03-10&to=2026-03-10', b.asAdmin)).json();
    expect(mine.rows).toEqual([]);
    for (const query of [`deposit_id=${deposit.id}`, `box_id=${box.id}`]) {
      const res = await get(`/api/v1/reports/sales?${query}`, b.asAdmin);
      expect(res.statusCode, query).toBe(404);
      expect(res.json().code).toBe('not_found');
    }
    const stock = await get(`/api/v1/reports/stock-valuation?deposit_id=${deposit.id}`, b.asAdmin);
    expect(stock.statusCode).toBe(404);
    // Its own deposit 2 narrows the report to sales from there (none: these came through the integration).
    const own = (await get(`/api/v1/reports/sales?from=2026-03-10&to=2026-03-10&deposit_id=${deposit.id}`, a.asAdmin)).json();
    expect(own.totals.tickets).toBe(0);
  });

  it('values stock past what cents hold exactly (price and stock both accepted by the API): a number, not a 500', async () => {
    // Σ stock × price of 2^31 pesos × 8,589,934,666 units is about 1.8e19 pesos; toCents threw on it, so
    // every later request for the report was a 500 (found by hand while replaying FUZZ_SEED=517722573).
    const s = await shop();
    const price = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/products/${s.yerba.id}`,
      headers: s.asAdmin,
      payload: { base_price: 2147483648 },
    });
    expect(price.statusCode, price.body).toBe(200);
    for (let i = 0; i < 2; i++) {
      const move = await post('/api/v1/movements', s.asAdmin, {
        type: 'IN',
        product_id: s.yerba.id,
        deposit_id: 1,
        amount: 4294967333,
      });
      expect(move.statusCode, move.body).toBe(201);
    }
    const res = await get('/api/v1/reports/stock-valuation', s.asAdmin);
    expect(res.statusCode, res.body).toBe(200);
    const [row] = res.json().rows;
    expect(row.units).toBeGreaterThanOrEqual(8_589_934_666);
    expect(row.at_price).toBeCloseTo(row.units * 2147483648, -8);
    expect(res.json().totals.at_price).toBe(row.at_price);
    const csv = await get('/api/v1/reports/stock-valuation.csv', s.asAdmin);
    expect(csv.statusCode, csv.body).toBe(200);
    expect(csv.body).toMatch(/;\d{20};/);
  });

  it('sums sales past what cents hold exactly (each sale at the most a total holds): numbers, not a 500', async () => {
    // 91 sales of $ 999.999.999.999,99 add up past 2^53 cents; each was accepted, so no report may fail on them.
    const s = await shop();
    const big = await makeProduct(t.container, s.company.id, { name: 'Campo', basePrice: 1, cost: '1' });
    const at = new Date().toISOString();
    for (let id = 1; id <= 91; id++) await s.sale(1000 + id, at, [[big.id, 1, 999_999_999_999.99]], id % 2 === 0);
    const exact = 91 * 999_999_999_999.99;
    const home = await get('/api/v1/reports/home', s.asAdmin);
    expect(home.statusCode, home.body).toBe(200);
    const today = home.json().today;
    expect(today.total).toBeCloseTo(exact, -2);
    const summary = await get(`/api/v1/sales/summary?date=${today.date}`, s.asAdmin);
    expect(summary.statusCode, summary.body).toBe(200);
    expect(summary.json().total).toBe(today.total);
    const range = `from=${today.date}&to=${today.date}`;
    for (const report of ['sales', 'products', 'categories', 'brands', 'margins', 'payments', 'cashiers']) {
      for (const suffix of ['', '.csv']) {
        const res = await get(`/api/v1/reports/${report}${suffix}?${range}`, s.asAdmin);
        expect(res.statusCode, `${report}${suffix} ${res.body}`).toBe(200);
        expect(res.body, `${report}${suffix}`).not.toMatch(/NaN|Infinity|\de[+-]?\d/);
      }
    }
    const sales = (await get(`/api/v1/reports/sales?${range}`, s.asAdmin)).json();
    expect(sales.totals.total).toBeCloseTo(exact, -2);
    const books = await booksOf(t.container).verify(s.company.id);
    expect(books.checks.filter((c) => !c.ok)).toEqual([]);
  });

  it('sums quantities past what thousandths hold exactly (each line at the most a quantity holds): numbers, not a 500', async () => {
    // 91 lines of 99.999.999.999,999 units (free, so each total fits) add up past 2^53 thousandths.
    const s = await shop();
    const sand = await makeProduct(t.container, s.company.id, { name: 'Arena', basePrice: 0, categoryId: s.category.id });
    const most = 99_999_999_999.999;
    const at = new Date().toISOString();
    for (let id = 1; id <= 91; id++) {
      // No box: a sale of a box leaves its deposit's stock, which holds one such line at most.
      const items = [{ product_id: sand.id, quantity: most, price: 0 }];
      const res = await sendEvent(t.app, s.company.integrationKey, {
        event: 'sales.created',
        data: { sale: { id: 2000 + id, total: 0, items, created_at: at } },
      });
      expect(res.statusCode, res.body).toBeLessThan(300);
    }
    const exact = 91 * most;
    const home = await get('/api/v1/reports/home', s.asAdmin);
    expect(home.statusCode, home.body).toBe(200);
    const today = home.json().today.date;
    expect(home.json().top_today[0].quantity).toBeCloseTo(exact, -1);
    const range = `from=${today}&to=${today}`;
    for (const report of ['products', 'categories', 'brands', 'margins']) {
      for (const suffix of ['', '.csv']) {
        const res = await get(`/api/v1/reports/${report}${suffix}?${range}`, s.asAdmin);
        expect(res.statusCode, `${report}${suffix} ${res.body}`).toBe(200);
        expect(res.body, `${report}${suffix}`).not.toMatch(/NaN|Infinity|\de[+-]?\d/);
      }
    }
    const products = (await get(`/api/v1/reports/products?${range}`, s.asAdmin)).json();
    expect(products.rows[0].quantity).toBeCloseTo(exact, -1);
    // Units and kilos do not add up: the report has no quantity total.
    expect(products.totals.quantity).toBeUndefined();
    // The stock report sums what came in and went out: 91 times the most one movement takes in, and out.
    for (let n = 0; n < 91; n++) {
      for (const type of ['IN', 'OUT']) {
        const move = await post('/api/v1/movements', s.asAdmin, {
          type,
          product_id: sand.id,
          deposit_id: 1,
          amount: 99_999_999_999,
        });
        expect(move.statusCode, move.body).toBe(201);
      }
    }
    const moves = await get(`/api/v1/reports/movements?${range}`, s.asAdmin);
    expect(moves.statusCode, moves.body).toBe(200);
    expect(moves.json().rows[0]).toMatchObject({ entered: 91 * 99_999_999_999, left: 91 * 99_999_999_999 });
    expect((await get(`/api/v1/reports/movements.csv?${range}`, s.asAdmin)).statusCode).toBe(200);
  }, 120_000);

  it('exports a report as CSV for Excel: BOM, ; separated, decimal comma, Spanish headers, a Total line', async () => {
    const s = await shop();
    await s.sale(20, '2026-03-10T12:00:00-03:00', [[s.yerba.id, 1, 1234.5]]);
    const res = await get('/api/v1/reports/products.csv?from=2026-03-10&to=2026-03-10', s.asAdmin);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(res.headers['content-disposition']).toContain('reporte-products-2026-03-10-a-2026-03-10.csv');
    const text = res.body;
    expect(text.startsWith('\uFEFF')).toBe(true);
    expect(text.slice(1).split('\r\n')).toEqual([
      'Código;Producto;Cantidad;Tickets;Ventas;% de las ventas',
      `${s.yerba.id};Yerba 1 kg;1;1;1234,50;100,0`,
      'Total;;;;1234,50;',
      '',
    ]);
    const sales = await get('/api/v1/reports/sales.csv?from=2026-03-10&to=2026-03-10', s.asAdmin);
    expect(sales.body.split('\r\n')[1]).toBe('10/03/2026;1;1234,50;1234,50');
  });

  it("Inicio repeats today's day summary and lists what needs attention", async () => {
    const s = await shop();
    await makeProduct(t.container, s.company.id, { name: 'Queso', basePrice: 10, stock: 1, minStock: '5' });
    await s.sale(30, new Date().toISOString(), [[s.yerba.id, 2, 3000]]);
    await s.sale(31, new Date().toISOString(), [[s.pan.id, 1, 1000]], false);
    const home = await get('/api/v1/reports/home', s.asAdmin);
    expect(home.statusCode, home.body).toBe(200);
    const data = home.json();
    const summary = (await get(`/api/v1/sales/summary?date=${data.today.date}`, s.asAdmin)).json();
    expect(data.today).toEqual({
      date: summary.date,
      tickets: summary.count,
      total: summary.total,
      pending: summary.pending,
      cancelled: summary.cancelled,
    });
    expect(data.by_method).toEqual(summary.by_method);
    expect(data.today.total).toBe(7000);
    expect(data.top_today[0]).toMatchObject({ name: 'Yerba 1 kg', quantity: 2, total: 6000 });
    expect(data.below_minimum.products.map((p: { name: string }) => p.name)).toEqual(['Queso']);
    expect(data.by_hour.reduce((sum: number, h: { total: number }) => sum + h.total, 0)).toBe(7000);
    const page = await get('/inicio', s.asAdmin);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('inicio');
  });

  it('lands an admin on Inicio after login and a cashier on the register', async () => {
    const s = await shop();
    const cashier = await makeUser(t.container, { companyId: s.company.id, role: 'cashier' });
    const asCashier = { cookie: (await login(t.app, cashier.email, cashier.password)).cookie, ...SAME_ORIGIN };
    expect((await get('/', s.asAdmin)).headers.location).toBe('/inicio');
    expect((await get('/', asCashier)).headers.location).toBe('/caja');
    // The pages are the admins'.
    expect((await get('/reportes', asCashier)).statusCode).toBe(403);
  });

  it('keeps the daily product rollup true: a late sale and a cancellation show at once, and books verify checks it', async () => {
    const s = await shop();
    const url = '/api/v1/reports/products?from=2026-03-01&to=2026-03-31';
    await s.sale(40, '2026-03-05T12:00:00-03:00', [[s.yerba.id, 1, 3000]]);
    await s.sale(41, '2026-03-06T12:00:00-03:00', [[s.yerba.id, 2, 3000]], false);
    expect((await get(url, s.asAdmin)).json().totals.total).toBe(9000);
    // A sale arriving late for a day already rolled up, and a cancellation of another day's sale.
    await s.sale(42, '2026-03-05T18:00:00-03:00', [[s.pan.id, 1, 1000]]);
    const cancel = await sendEvent(t.app, s.company.integrationKey, {
      event: 'sales.cancelled',
      data: { sale: { id: 41, reason: 'error de carga' } },
    });
    expect(cancel.statusCode, cancel.body).toBeLessThan(300);
    const after = (await get(url, s.asAdmin)).json();
    expect(after.rows.map((r: { name: string; total: number }) => [r.name, r.total])).toEqual([
      ['Yerba 1 kg', 3000],
      ['Pan', 1000],
    ]);
    // Narrowed by a box, the same figures come from the raw rows.
    const raw = (await get(`${url}&box_id=1`, s.asAdmin)).json();
    expect(raw.totals.total).toBe(after.totals.total);
    const books = booksOf(t.container);
    expect((await books.verify(s.company.id)).ok).toBe(true);
    // A rollup line that no longer matches the raw rows is what books verify reports.
    await t.container.db.query('UPDATE report_product_days SET total = total + 1 WHERE company_id = $1 AND day = $2', [
      s.company.id,
      '2026-03-05',
    ]);
    const report = await books.verify(s.company.id);
    expect(report.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['report_rollup']);
  });
});
