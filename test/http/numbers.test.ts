import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { saleCreated, sendEvent } from '../integration-helpers.ts';
import { login, manualClock, SAME_ORIGIN } from '../sessions.ts';

const cents = (pesos: number) => Math.round(pesos * 100);
const DAY_MS = 86_400_000;

/** Issue 27 (server side): summaries that add up, a closed shift that never changes, stock you can trust. */
describe('numbers that add up (summary, closed shift, stock)', () => {
  let t: TestApp;
  // Real time, moved by hand ("the next day"); the company's day is today's.
  const clock = manualClock(new Date());
  beforeAll(async () => {
    t = await buildTestApp({
      env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000', AUTH_LOGIN_LIMIT_PER_ACCOUNT: '1000' },
      overrides: { clock },
    });
  });
  afterAll(() => t.close());

  type Headers = Record<string, string>;
  const call = (method: string, url: string, headers: Headers, payload?: unknown) =>
    t.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });
  const sell = (headers: Headers, body: unknown) =>
    call('POST', '/api/v1/sales', { ...headers, 'x-idempotency-key': randomUUID() }, body);

  async function shop() {
    const company = await makeCompany(t.container);
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const cashier = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    const asAdmin = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
    const asCashier = { cookie: (await login(t.app, cashier.email, cashier.password)).cookie, ...SAME_ORIGIN };
    const yerba = await makeProduct(t.container, company.id, { name: 'Yerba', basePrice: 3200, stock: 17 });
    const queso = await makeProduct(t.container, company.id, { name: 'Queso', basePrice: 9000, stock: 5, unit: 'kg' });
    const again = async () => ({
      asAdmin: { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN },
      asCashier: { cookie: (await login(t.app, cashier.email, cashier.password)).cookie, ...SAME_ORIGIN },
    });
    return { company, asAdmin, asCashier, yerba, queso, again };
  }

  async function openSession(headers: Headers, boxId = 1, openingCash = 1000) {
    const res = await call('POST', '/api/v1/box-sessions', headers, { box_id: boxId, opening_cash: openingCash });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().session.id as number;
  }

  const today = () => clock.now().toLocaleDateString('en-CA', { timeZone: 'America/Argentina/Buenos_Aires' });

  it('the day summary is the sum of its parts: a sales.paid through the integration books its payment under its method, in its own group', async () => {
    const s = await shop();
    await openSession(s.asCashier);
    const res = await sell(s.asCashier, {
      box_id: 1,
      items: [{ product_id: s.yerba.id, quantity: 2 }],
      payments: [{ method: 'efectivo', amount: 10_000 }],
    });
    expect(res.statusCode, res.body).toBe(201);
    // The sender names box 1; its sales are still not the box's.
    const key = s.company.integrationKey;
    expect((await sendEvent(t.app, key, saleCreated(90_001, s.yerba.id, { box_id: 1 }))).statusCode).toBeLessThan(300);
    const paid = await sendEvent(t.app, key, {
      event: 'sales.paid',
      data: { sale: { id: 90_001, payment_method: 'Mercado Pago', payment_id: 'MP-778899' } },
    });
    expect(paid.statusCode, paid.body).toBeLessThan(300);
    expect((await sendEvent(t.app, key, saleCreated(90_002, s.yerba.id))).statusCode).toBeLessThan(300);
    // The same sales.paid again changes nothing (no second payment row).
    await sendEvent(t.app, key, {
      event: 'sales.paid',
      data: { sale: { id: 90_001, payment_method: 'Mercado Pago', payment_id: 'MP-778899' } },
    });

    const sale = (await call('GET', '/api/v1/sales/90001', s.asAdmin)).json().sale;
    expect(
      sale.payments.map((p: { method: string; amount: number; reference: string | null }) => [p.method, p.amount, p.reference]),
    ).toEqual([['qr', 300, 'MP-778899']]);
    expect(sale.payment_method).toBe('Mercado Pago');

    const summary = (await call('GET', `/api/v1/sales/summary?date=${today()}`, s.asAdmin)).json();
    expect(summary).toMatchObject({ count: 3, total: 6400 + 300 + 300, pending: 300 });
    expect(summary.by_method).toEqual([
      { method: 'efectivo', amount: 6400, count: 1 },
      { method: 'qr', amount: 300, count: 1 },
    ]);
    const methods = summary.by_method.reduce((sum: number, m: { amount: number }) => sum + cents(m.amount), 0);
    expect(methods + cents(summary.pending)).toBe(cents(summary.total));
    expect(summary.by_box).toEqual([
      { box_id: 1, box_name: 'Caja 1', origin: 'register', count: 1, total: 6400 },
      { box_id: null, box_name: null, origin: 'integration', count: 2, total: 600 },
    ]);
    // The list filtered by a box is that box's part of the summary; the integration's, its own.
    const day = `from=${today()}&to=${today()}`;
    for (const [filter, group] of [
      ['box_id=1', summary.by_box[0]],
      ['source=integration', summary.by_box[1]],
    ]) {
      const listed = (await call('GET', `/api/v1/sales?${day}&${filter}`, s.asAdmin)).json().sales as { total: number }[];
      expect([filter, listed.length, listed.reduce((sum, x) => sum + cents(x.total), 0)]).toEqual([
        filter,
        group.count,
        cents(group.total),
      ]);
    }
    const sold = (await call('GET', `/api/v1/sales/export.csv?${day}`, s.asAdmin)).body.split('\r\n');
    expect(sold.find((line) => line.startsWith('90001;'))?.split(';')[2]).toBe('');
    expect(sold.find((line) => line.startsWith(`${res.json().sale.id};`))?.split(';')[2]).toBe('Caja 1');

    // The payments report as a spreadsheet: collected by method, its total, and what is not collected yet.
    const range = `from=${today()}&to=${today()}`;
    const csv = (await call('GET', `/api/v1/reports/payments.csv?${range}`, s.asAdmin)).body.replace(/^\uFEFF/, '');
    expect(csv.split('\r\n').slice(-3)).toEqual(['Total;;6700,00;', 'Sin cobrar;;300,00;', '']);
  });

  it('the sales CSV names the customer of an integration sale, not its id', async () => {
    const s = await shop();
    const customer = await call('POST', '/api/v1/customers', s.asAdmin, { name: 'Kiosco El Trébol' });
    expect(customer.statusCode, customer.body).toBe(201);
    const id = customer.json().customer.id;
    const key = s.company.integrationKey;
    expect((await sendEvent(t.app, key, saleCreated(90_101, s.yerba.id, { customer_id: id }))).statusCode).toBe(200);
    const csv = (await call('GET', `/api/v1/sales/export.csv?from=${today()}&to=${today()}`, s.asAdmin)).body;
    const row = csv.split('\r\n').find((line) => line.startsWith('90101;'));
    expect(row?.split(';')[12]).toBe('Kiosco El Trébol');
    expect((await call('GET', '/api/v1/sales/90101', s.asAdmin)).json().sale.customer_name).toBe('Kiosco El Trébol');
  });

  it('a closed shift never changes: print, refund one of its sales the next day, print again — identical; the refund is booked in the open shift', async () => {
    const s = await shop();
    const first = await openSession(s.asCashier);
    const a = await sell(s.asCashier, {
      box_id: 1,
      items: [{ product_id: s.yerba.id, quantity: 1 }],
      payments: [{ method: 'debito', amount: 3200 }],
    });
    const b = await sell(s.asCashier, {
      box_id: 1,
      items: [{ product_id: s.queso.id, quantity: 0.5 }],
      payments: [{ method: 'efectivo', amount: 5000 }],
    });
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    const closed = await call('POST', `/api/v1/box-sessions/${first}/close`, s.asCashier, {
      counted: { efectivo: 5500, debito: 3200 },
    });
    expect(closed.statusCode, closed.body).toBe(200);
    const printed = closed.json();
    expect(printed.sales).toEqual({ count: 2, total: 7700 });
    expect(printed.later_refunds).toEqual([]);
    expect((await call('GET', `/api/v1/box-sessions/${first}`, s.asAdmin)).json()).toEqual(printed);

    clock.advance(DAY_MS);
    // The next day's sessions (yesterday's expired overnight).
    Object.assign(s, await s.again());
    const second = await openSession(s.asCashier, 1, 2000);
    const cancel = await call('POST', `/api/v1/sales/${b.json().sale.id}/cancel`, s.asAdmin, { reason: 'devolución' });
    expect(cancel.statusCode, cancel.body).toBe(200);

    const again = (await call('GET', `/api/v1/box-sessions/${first}`, s.asAdmin)).json();
    const { later_refunds: later, ...figures } = again;
    const { later_refunds: _, ...printedFigures } = printed;
    expect(figures).toEqual(printedFigures);
    expect(later).toEqual([
      {
        sale_id: b.json().sale.id,
        kind: 'cancelled',
        total: 4500,
        refunded: 4500,
        cancelled_at: clock.now().toISOString(),
        refund_session_id: second,
      },
    ]);
    // The list of closes says the same as the report (screen close = API close).
    const listed = (await call('GET', '/api/v1/box-sessions?box_id=1', s.asAdmin)).json().sessions;
    expect(listed.find((x: { session: { id: number } }) => x.session.id === first)).toEqual(again);
    // The money went back from the open shift.
    const open = (await call('GET', `/api/v1/box-sessions/${second}`, s.asAdmin)).json();
    expect(open.refunds).toEqual([{ method: 'efectivo', amount: 4500, count: 1 }]);
    expect(open.expected.efectivo).toBe(2000 - 4500);
  });

  it('an OUT or TRANSFER over the deposit stock answers 409 insufficient_stock unless allow_negative; below zero is low stock', async () => {
    const s = await shop();
    const deposits = (await call('GET', '/api/v1/deposits', s.asAdmin)).json().deposits as { id: number; is_default: boolean }[];
    const main = deposits.find((d) => d.is_default)!.id;
    const back = (await call('POST', '/api/v1/deposits', s.asAdmin, { name: 'Trastienda' })).json().deposit.id as number;
    const out = { type: 'OUT', deposit_id: main, product_id: s.yerba.id, amount: 20 };
    const refused = await call('POST', '/api/v1/movements', s.asAdmin, out);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      code: 'insufficient_stock',
      details: [
        { path: '/stock', message: '17' },
        { path: '/amount', message: '20' },
        { path: '/remaining', message: '-3' },
      ],
    });
    expect(refused.json().error).toMatch(/holds 17 .* taking 20 leaves -3/);
    const transfer = await call('POST', '/api/v1/movements', s.asAdmin, { ...out, type: 'TRANSFER', to_deposit_id: back });
    expect(transfer.statusCode).toBe(409);
    expect(transfer.json().code).toBe('insufficient_stock');
    // Nothing changed.
    const stockOf = async () =>
      (await call('GET', `/api/v1/stock?deposit_id=${main}&q=Yerba`, s.asAdmin)).json().stock[0].stock as number;
    expect(await stockOf()).toBe(17);
    const low = async () =>
      ((await call('GET', '/api/v1/stock?low_stock=true', s.asAdmin)).json().stock as { product_id: number }[]).map(
        (x) => x.product_id,
      );
    expect(await low()).not.toContain(s.yerba.id);

    const exact = await call('POST', '/api/v1/movements', s.asAdmin, {
      ...out,
      amount: 17,
      type: 'TRANSFER',
      to_deposit_id: back,
    });
    expect(exact.statusCode, exact.body).toBe(201);
    const back17 = await call('POST', '/api/v1/movements', s.asAdmin, {
      type: 'TRANSFER',
      deposit_id: back,
      to_deposit_id: main,
      product_id: s.yerba.id,
      amount: 17,
    });
    expect(back17.statusCode, back17.body).toBe(201);
    const forced = await call('POST', '/api/v1/movements', s.asAdmin, { ...out, allow_negative: true });
    expect(forced.statusCode, forced.body).toBe(201);
    expect(await stockOf()).toBe(-3);
    expect(await low()).toContain(s.yerba.id);

    // Register sales are never blocked by stock: the shelf wins.
    await openSession(s.asCashier);
    const sale = await sell(s.asCashier, {
      box_id: 1,
      items: [{ product_id: s.yerba.id, quantity: 2 }],
      payments: [{ method: 'efectivo', amount: 6400 }],
    });
    expect(sale.statusCode, sale.body).toBe(201);
    expect(await stockOf()).toBe(-5);
  });

  it('decimals only for products sold by kg: 422 for a unit product at the register and in movements; integration events keep accepting them', async () => {
    const s = await shop();
    await openSession(s.asCashier);
    const half = await sell(s.asCashier, {
      box_id: 1,
      items: [{ product_id: s.yerba.id, quantity: 1.5 }],
      payments: [{ method: 'efectivo', amount: 10_000 }],
    });
    expect(half.statusCode).toBe(422);
    expect(half.json()).toMatchObject({ code: 'validation_failed', details: [{ path: '/items/0/quantity' }] });
    const weighed = await sell(s.asCashier, {
      box_id: 1,
      items: [{ product_id: s.queso.id, quantity: 1.5 }],
      payments: [{ method: 'efectivo', amount: 13_500 }],
    });
    expect(weighed.statusCode, weighed.body).toBe(201);
    const move = await call('POST', '/api/v1/movements', s.asAdmin, {
      type: 'IN',
      deposit_id: 1,
      product_id: s.yerba.id,
      amount: 2.5,
    });
    expect(move.statusCode).toBe(422);
    expect(move.json()).toMatchObject({ code: 'validation_failed', details: [{ path: '/amount' }] });
    const sales = (await call('GET', `/api/v1/sales?from=${today()}&to=${today()}`, s.asAdmin)).json().sales;
    expect(sales).toHaveLength(1);

    const event = await sendEvent(t.app, s.company.integrationKey, {
      event: 'sales.created',
      data: { sale: { id: 91_001, total: 4800, items: [{ product_id: s.yerba.id, quantity: 1.5, price: 3200 }] } },
    });
    expect(event.statusCode, event.body).toBeLessThan(300);
  });
});
