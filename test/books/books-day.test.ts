import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saleCreated } from '../integration-helpers.ts';
import {
  type BooksApp,
  expectBooksClean,
  type Headers,
  makeShop,
  type Shop,
  sendIntegration,
  startBooksApp,
} from './books-shop.ts';

/** Cents of an amount, for hand sums that are exact. */
const c = (amount: number) => Math.round(amount * 100);
const sumCents = (amounts: number[]) => amounts.reduce((sum, a) => sum + c(a), 0);
const csvTotal = (csv: string) =>
  csv
    .trim()
    .split('\n')
    .find((line) => line.startsWith('Total;'))!;

/**
 * A shop owner's day through the real API, and every number they read checked against the others
 * and against a hand computation: the day summary, both shift closes, the reports and their CSV
 * Total rows, Inicio, the customer's account and statement, the sale detail; `books verify` clean.
 */
describe('a whole day adds up (sales, discounts, returns, account, integration, shifts)', () => {
  let b: BooksApp;
  let s: Shop;
  beforeAll(async () => {
    b = await startBooksApp();
    s = await makeShop(b);
  }, 120_000);
  afterAll(() => b.close());

  const today = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Argentina/Buenos_Aires' }).format(new Date());

  async function ok(method: string, url: string, h: Headers, body?: unknown) {
    const res = await b.call(method, url, h, body);
    expect([200, 201], `${method} ${url}: ${res.body}`).toContain(res.statusCode);
    return res.json();
  }
  const sale = (h: Headers, body: object) =>
    ok('POST', '/api/v1/sales', { ...h, 'x-idempotency-key': randomUUID() }, { box_id: 1, ...body }).then((r) => r.sale);

  it('the summary, the closes, the reports, Inicio, the account and the sale detail agree with each other and by hand', async () => {
    const { p21, p105, exempt, kg } = s.products; // 3917.36, 1105.50, 5000.00, 9000.00/kg
    const shift1 = (await ok('POST', '/api/v1/box-sessions', s.asCashier, { box_id: 1, opening_cash: 5000 })).session;

    // 1. Cash with change: 2 × 3917.36 = 7834.72 − 7.5 % (587.604 → 587.60) = 7247.12; 0.333 kg × 9000 = 2997.
    const s1 = await sale(s.asCashier, {
      items: [
        { product_id: p21, quantity: 2, discount: { percent: 7.5, reason: 'Envase abollado' } },
        { product_id: kg, quantity: 0.333 },
      ],
      payments: [{ method: 'efectivo', amount: 20_000 }],
    });
    expect([s1.total, s1.discount, s1.change, s1.items.map((i: { subtotal: number }) => i.subtotal)]).toEqual([
      10_244.12,
      587.6,
      9_755.88,
      [7_247.12, 2_997],
    ]);
    // 2. Card, a sale discount of 333.33 over 3316.50 + 5000: spread 132.93 + 200.40.
    const s2 = await sale(s.asCashier, {
      items: [
        { product_id: p105, quantity: 3 },
        { product_id: exempt, quantity: 1 },
      ],
      discount: { amount: 333.33, reason: 'Cliente frecuente' },
      payments: [{ method: 'debito', amount: 7_983.17 }],
    });
    expect(s2.items.map((i: { subtotal: number; sale_discount: number }) => [i.subtotal, i.sale_discount])).toEqual([
      [3_183.57, 132.93],
      [4_799.6, 200.4],
    ]);
    // 3. QR: 3917.36 + 0.777 kg (6993) + (1105.50 − 100.50) = 11915.36, − 3.33 % (396.7815 → 396.78) = 11518.58.
    const s3 = await sale(s.asCashier, {
      items: [
        { product_id: p21, quantity: 1 },
        { product_id: kg, quantity: 0.777 },
        { product_id: p105, quantity: 1, discount: { amount: 100.5, reason: 'Vencido' } },
      ],
      discount: { percent: 3.33, reason: 'Cliente frecuente' },
      payments: [{ method: 'qr', amount: 11_518.58, reference: 'MP-1' }],
    });
    expect(s3.total).toBe(11_518.58);
    expect(sumCents(s3.items.map((i: { subtotal: number }) => i.subtotal))).toBe(c(s3.total));
    // 4. Credit 6000 and cash 5000 for 10000: change 1000, cash counts 4000.
    const s4 = await sale(s.asCashier, {
      items: [{ product_id: exempt, quantity: 2 }],
      payments: [
        { method: 'credito', amount: 6_000 },
        { method: 'efectivo', amount: 5_000 },
      ],
    });
    expect([s4.total, s4.change]).toEqual([10_000, 1_000]);
    // 5. Cuenta corriente, mixed: 1000 cash, 5914.36 on account.
    const customer = (await ok('POST', '/api/v1/customers', s.asAdmin, { name: 'Juan Pérez', account_enabled: true })).customer;
    const s5 = await sale(s.asCashier, {
      items: [
        { product_id: p21, quantity: 1 },
        { product_id: kg, quantity: 0.333 },
      ],
      customer: { id: customer.id },
      payments: [
        { method: 'efectivo', amount: 1_000 },
        { method: 'cuenta_corriente', amount: 5_914.36 },
      ],
    });
    expect([s5.total, s5.status]).toEqual([6_914.36, 'pending']);
    // 6. A pending sale, cancelled.
    const s6 = await sale(s.asCashier, { items: [{ product_id: p105, quantity: 2 }] });
    await ok('POST', `/api/v1/sales/${s6.id}/cancel`, s.asAdmin, { reason: 'Se arrepintió' });
    // A payment on account, in the cashier's shift.
    await ok(
      'POST',
      `/api/v1/customers/${customer.id}/payments`,
      { ...s.asCashier, 'x-idempotency-key': randomUUID() },
      { amount: 2_500.5, method: 'efectivo', session_id: shift1.id },
    );
    // Partial return of sale 1 (one Yerba: 7247.12 / 2 = 3623.56, cash); whole return of sale 2 (card).
    const ret1 = await ok(
      'POST',
      `/api/v1/sales/${s1.id}/returns`,
      { ...s.asAdmin, 'x-idempotency-key': randomUUID() },
      {
        lines: [{ item_id: s1.items[0].id, quantity: 1 }],
        refund: { method: 'efectivo' },
        reason: 'No le gustó',
      },
    );
    expect(ret1.return.amount).toBe(3_623.56);
    const ret2 = await ok(
      'POST',
      `/api/v1/sales/${s2.id}/returns`,
      { ...s.asAdmin, 'x-idempotency-key': randomUUID() },
      {
        lines: s2.items.map((i: { id: number; quantity: number }) => ({ item_id: i.id, quantity: i.quantity })),
        refund: { method: 'debito' },
        reason: 'Equivocado',
      },
    );
    expect(ret2.return.amount).toBe(s2.total);
    // Integration: one sale created and paid by QR (300), one only created (300 pending).
    await sendIntegration(b, s, saleCreated(90_001, p21));
    await sendIntegration(b, s, {
      event: 'sales.paid',
      data: { sale: { id: 90_001, payment_method: 'qr', payment_id: 'MP-9' } },
    });
    await sendIntegration(b, s, saleCreated(90_002, p21));
    await ok('POST', `/api/v1/box-sessions/${shift1.id}/cash`, s.asCashier, { kind: 'out', amount: 3_000, reason: 'Banco' });

    // Handover to the admin, who sells 1.111 kg (9999) by transfer and closes.
    const handover = await ok('POST', `/api/v1/box-sessions/${shift1.id}/handover`, s.asAdmin, {
      counted: { efectivo: 16_121.06, credito: 6_000, qr: 11_518.58 },
      opening_cash: 16_121.06,
    });
    const shift2 = handover.session.id as number;
    await sale(s.asAdmin, {
      items: [{ product_id: kg, quantity: 1.111 }],
      payments: [{ method: 'transferencia', amount: 9_999 }],
    });
    const close2 = await ok('POST', `/api/v1/box-sessions/${shift2}/close`, s.asAdmin, {
      counted: { efectivo: 16_121.06, transferencia: 9_999 },
    });

    // The first shift: cash = 5000 + (10244.12 + 4000 + 1000 + 2500.50) − 3623.56 − 3000 = 16121.06.
    const r1 = await ok('GET', `/api/v1/box-sessions/${shift1.id}`, s.asAdmin);
    expect(r1.expected).toEqual({ efectivo: 16_121.06, credito: 6_000, qr: 11_518.58 });
    expect(r1.difference).toEqual({ efectivo: 0, credito: 0, qr: 0 });
    expect(r1.sales).toEqual({ count: 4, total: 38_677.06 }); // sales 1, 3, 4, 5 (2 and 6 cancelled)
    expect(r1.refunds).toEqual([
      { method: 'debito', amount: 7_983.17, count: 1 },
      { method: 'efectivo', amount: 3_623.56, count: 1 },
    ]);
    expect(handover.closed.expected).toEqual(r1.expected); // what was printed is what is read
    const methods = (rows: { method: string; amount: number }[]) => Object.fromEntries(rows.map((p) => [p.method, p.amount]));
    const paid1 = methods(r1.payments);
    const refunded1 = methods(r1.refunds);
    for (const [method, expected] of Object.entries(r1.expected as Record<string, number>)) {
      const cash = method === 'efectivo' ? c(5_000) - c(r1.cash_out) + c(r1.cash_in) : 0;
      expect(cash + c(paid1[method] ?? 0) - c(refunded1[method] ?? 0), method).toBe(c(expected));
    }
    // The second shift opened with what the first left.
    expect(close2.expected).toEqual({ efectivo: 16_121.06, transferencia: 9_999 });
    expect(close2.sales).toEqual({ count: 1, total: 9_999 });

    // The day summary: 10244.12 + 11518.58 + 10000 + 6914.36 + 9999 + 300 + 300 = 49276.06.
    const dayTotal = sumCents([10_244.12, 11_518.58, 10_000, 6_914.36, 9_999, 300, 300]);
    const summary = await ok('GET', `/api/v1/sales/summary?date=${today()}`, s.asAdmin);
    expect(c(summary.total)).toBe(dayTotal);
    expect([summary.count, summary.pending, summary.cancelled]).toEqual([7, 300, 2]);
    expect(methods(summary.by_method)).toEqual({
      credito: 6_000,
      cuenta_corriente: 5_914.36,
      efectivo: 15_244.12, // 10244.12 + 4000 + 1000
      qr: 11_818.58,
      transferencia: 9_999,
    });
    expect(sumCents(summary.by_method.map((m: { amount: number }) => m.amount)) + c(summary.pending)).toBe(dayTotal);
    expect(sumCents(summary.by_box.map((x: { total: number }) => x.total))).toBe(dayTotal);
    expect(summary.by_box.map((x: { origin: string; count: number; total: number }) => [x.origin, x.count, x.total])).toEqual([
      ['register', 5, 48_676.06],
      ['integration', 2, 600],
    ]);
    expect(summary.account_payments).toEqual([{ method: 'efectivo', amount: 2_500.5, count: 1 }]);

    // Inicio says the same as the summary.
    const home = await ok('GET', '/api/v1/reports/home', s.asAdmin);
    expect(home.today).toMatchObject({ tickets: 7, total: summary.total, pending: 300, cancelled: 2 });
    expect(home.by_method).toEqual(summary.by_method);
    expect(sumCents(home.by_hour.map((h: { total: number }) => h.total))).toBe(dayTotal);

    // Reports, and their CSV Total rows.
    const report = (name: string) => ok('GET', `/api/v1/reports/${name}`, s.asAdmin);
    const csv = async (name: string) => (await b.call('GET', `/api/v1/reports/${name}.csv`, s.asAdmin)).body;
    const sales = await report('sales');
    expect(sales.totals).toEqual({ tickets: 7, total: 49_276.06, average: 7_039.44 });
    expect(sumCents(sales.rows.map((r: { total: number }) => r.total))).toBe(dayTotal);
    expect(csvTotal(await csv('sales'))).toBe('Total;7;49276,06;7039,44');
    const payments = await report('payments');
    expect(payments.totals).toEqual({ amount: 48_976.06, pending: 300 });
    expect(sumCents(payments.rows.map((r: { amount: number }) => r.amount)) + c(payments.totals.pending)).toBe(dayTotal);
    expect(payments.rows.reduce((sum: number, r: { share: number }) => sum + r.share * 10, 0)).toBe(1000);
    expect(await csv('payments')).toContain('Total;;48976,06;\r\nSin cobrar;;300,00;');
    const cashiers = await report('cashiers');
    expect(cashiers.rows.map((r: { tickets: number; total: number }) => [r.tickets, r.total])).toEqual([
      [4, 38_677.06],
      [1, 9_999],
      [2, 600],
    ]);
    expect(cashiers.totals).toEqual(sales.totals);
    expect(csvTotal(await csv('cashiers'))).toBe('Total;7;49276,06;7039,44');
    for (const name of ['products', 'margins', 'categories', 'brands']) {
      const table = await report(name);
      expect(sumCents(table.rows.map((r: { total: number }) => r.total)), name).toBe(dayTotal);
      expect(c(table.totals.total), name).toBe(dayTotal);
    }
    const products = await report('products');
    // Queso: 0.333 + 0.777 + 0.333 + 1.111 kg; Yerba: 2 + 1 + 1 + 3 + 3 (the returned one still counts as sold).
    expect(products.rows.map((r: { name: string; quantity: number }) => [r.name, r.quantity])).toEqual([
      ['Queso', 2.554],
      ['Yerba', 10],
      ['Libro', 2],
      ['Pan', 1],
    ]);
    expect(csvTotal(await csv('products'))).toBe('Total;;;;49276,06;');

    // The customer: 5914.36 on account − 2500.50 paid = 3413.86, in the account and the statement.
    const account = await ok('GET', `/api/v1/customers/${customer.id}/account`, s.asAdmin);
    expect(account.account.balance).toBe(3_413.86);
    expect(account.open_sales).toEqual([
      expect.objectContaining({ sale_id: s5.id, on_account: 5_914.36, paid: 2_500.5, open: 3_413.86 }),
    ]);
    const statement = await ok('GET', `/api/v1/customers/${customer.id}/statement`, s.asAdmin);
    expect(statement.movements.map((m: { amount: number; balance: number }) => [m.amount, m.balance])).toEqual([
      [5_914.36, 5_914.36],
      [-2_500.5, 3_413.86],
    ]);
    expect([statement.closing_balance, statement.aging.total]).toEqual([3_413.86, 3_413.86]);

    // The sale detail: total, returned, what remains.
    const detail1 = (await ok('GET', `/api/v1/sales/${s1.id}`, s.asAdmin)).sale;
    expect([detail1.status, detail1.total, detail1.returned_total]).toEqual(['paid', 10_244.12, 3_623.56]);
    const detail2 = (await ok('GET', `/api/v1/sales/${s2.id}`, s.asAdmin)).sale;
    expect([detail2.status, detail2.returned_total]).toEqual(['cancelled', 7_983.17]);

    await expectBooksClean(b.t.container, s.companyId);
  }, 120_000);

  it('integration sales whose lines make the total keep the books clean (rounded per line, or the sender subtotal)', async () => {
    const { p21, kg } = s.products;
    // 0.333 × 1234.57 = 411.11 rounded per line; or the sender's own subtotal.
    await sendIntegration(b, s, {
      event: 'sales.created',
      data: { sale: { id: 80_001, total: 411.11, items: [{ product_id: kg, quantity: 0.333, price: 1234.57 }] } },
    });
    await sendIntegration(b, s, {
      event: 'sales.created',
      data: { sale: { id: 80_003, total: 400, items: [{ product_id: p21, quantity: 3, price: 100, subtotal: 400 }] } },
    });
    await expectBooksClean(b.t.container, s.companyId);
  });

  it("a return as store credit is not money taken: the day's account collections leave it out", async () => {
    const { p105 } = s.products;
    const customer = (await ok('POST', '/api/v1/customers', s.asAdmin, { name: 'Ana Gómez', account_enabled: true })).customer;
    const before = await ok('GET', `/api/v1/sales/summary?date=${today()}`, s.asAdmin);
    const shift = (await ok('POST', '/api/v1/box-sessions', s.asCashier, { box_id: 1, opening_cash: 0 })).session;
    const paid = await sale(s.asCashier, {
      items: [{ product_id: p105, quantity: 2 }],
      customer: { id: customer.id },
      payments: [{ method: 'efectivo', amount: 2_211 }],
    });
    // One back as store credit (1105.50 in her favour), then she pays 400.25 on account in cash.
    await ok(
      'POST',
      `/api/v1/sales/${paid.id}/returns`,
      { ...s.asCashier, 'x-idempotency-key': randomUUID() },
      {
        lines: [{ item_id: paid.items[0].id, quantity: 1 }],
        refund: 'store_credit',
        reason: 'Roto',
      },
    );
    await ok(
      'POST',
      `/api/v1/customers/${customer.id}/payments`,
      { ...s.asCashier, 'x-idempotency-key': randomUUID() },
      { amount: 400.25, method: 'efectivo', session_id: shift.id },
    );
    expect((await ok('GET', `/api/v1/customers/${customer.id}/account`, s.asAdmin)).account.balance).toBe(-1_505.75);
    // Her statement says what each line is: the credit is no payment.
    const statement = await ok('GET', `/api/v1/customers/${customer.id}/statement`, s.asAdmin);
    expect(
      statement.movements.map((m: { description: string; amount: number; balance: number }) => [
        m.description,
        m.amount,
        m.balance,
      ]),
    ).toEqual([
      [`Saldo a favor por devolución de la venta N.º ${paid.id} · Roto`, -1_105.5, -1_105.5],
      ['Pago · Efectivo', -400.25, -1_505.75],
    ]);
    const summary = await ok('GET', `/api/v1/sales/summary?date=${today()}`, s.asAdmin);
    // Money taken on account today: the earlier 2500.50 and these 400.25, all cash; the credit is no collection.
    expect(before.account_payments).toEqual([{ method: 'efectivo', amount: 2_500.5, count: 1 }]);
    expect(summary.account_payments).toEqual([{ method: 'efectivo', amount: 2_900.75, count: 2 }]);
    // The shift has the cash that came in: the sale and the payment; nothing left the drawer.
    const report = await ok('GET', `/api/v1/box-sessions/${shift.id}`, s.asAdmin);
    expect(report.expected).toEqual({ efectivo: 2_611.25 });
    await expectBooksClean(b.t.container, s.companyId);
  });
});
