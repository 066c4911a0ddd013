import { expectBooksClean } from '../books/books-shop.ts';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeArca } from '../../src/modules/arca/fake/fake-arca.ts';
import { cuitCheckDigit } from '../../src/lib/cuit.ts';
import type { TestApp } from '../app.ts';
import { buildArcaTestApp } from '../arca-app.ts';
import { runCliOn } from '../cli/run-cli.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

const _SERVICE_CUIT = '20111111112';

/** Returns, exchanges and their credit notes (issue 29): /api/v1/sales/:id/returns, /exchanges, cancel. */
describe('returns and exchanges (/api/v1/sales/:id/returns, /api/v1/sales/:id/exchanges)', () => {
  let t: TestApp;
  let fake: FakeArca;
  beforeAll(async () => {
    ({ t, fake } = await buildArcaTestApp({ timeoutMs: 1500 }));
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });
  beforeEach(() => fake.control.clearQueue());

  type Headers = Record<string, string>;
  const call = (method: string, url: string, headers: Headers, payload?: unknown) =>
    t.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

  let cuitSeed = 30_712_345;
  function freeCuit(): string {
    for (;;) {
      const body = `30${String(cuitSeed++ % 100_000_000).padStart(8, '0')}`;
      const check = cuitCheckDigit(body);
      if (check >= 0) return `${body}${check}`;
    }
  }

  async function shop(options: { fiscal?: boolean } = {}) {
    const company = await makeCompany(t.container);
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const cashier = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    const asAdmin = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
    const asCashier = { cookie: (await login(t.app, cashier.email, cashier.password)).cookie, ...SAME_ORIGIN };
    const cuit = freeCuit();
    if (options.fiscal) {
      const res = await call('PUT', '/api/v1/fiscal', asAdmin, {
        cuit,
        iva_condition: 'responsable_inscripto',
        legal_name: 'Almacén Prueba S.R.L.',
        address: 'Av. Siempreviva 742',
        gross_income: '901-000000-1',
        activity_start: '2020-01-02',
        auth_mode: 'delegation',
        environment: 'homologacion',
        points_of_sale: [1],
        default_point_of_sale: 1,
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    const pan = await makeProduct(t.container, company.id, { name: 'Pan', bc: '7790001000011', basePrice: 1000, stock: 50 });
    const alfajor = await makeProduct(t.container, company.id, {
      name: 'Alfajor',
      bc: '7790001000028',
      basePrice: 700,
      stock: 50,
    });
    const yerba = await makeProduct(t.container, company.id, { name: 'Yerba', bc: '7790001000035', basePrice: 3200, stock: 50 });
    await t.container.db.query(`INSERT INTO boxes (company_id, id, name) VALUES ($1, 2, 'Caja 2')`, [company.id]);
    return { company, admin, cashier, asAdmin, asCashier, cuit, pan, alfajor, yerba };
  }
  type Shop = Awaited<ReturnType<typeof shop>>;

  async function openSession(headers: Headers, boxId = 1, openingCash = 10_000) {
    const res = await call('POST', '/api/v1/box-sessions', headers, { box_id: boxId, opening_cash: openingCash });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().session as { id: number };
  }

  async function sell(s: Shop, items: { product_id: number; quantity: number }[], extra: Record<string, unknown> = {}) {
    const total = items.reduce(
      (sum, i) => sum + i.quantity * (i.product_id === s.pan.id ? 1000 : i.product_id === s.alfajor.id ? 700 : 3200),
      0,
    );
    const res = await call(
      'POST',
      '/api/v1/sales',
      { ...s.asCashier, 'x-idempotency-key': randomUUID() },
      { box_id: 1, items, payments: [{ method: 'efectivo', amount: total }], ...extra },
    );
    expect(res.statusCode, res.body).toBe(201);
    return res.json().sale as { id: number; total: number; items: { id: number; product_id: number }[] };
  }

  const giveBack = (headers: Headers, saleId: number, body: unknown, key: string = randomUUID()) =>
    call('POST', `/api/v1/sales/${saleId}/returns`, { ...headers, 'x-idempotency-key': key }, body);

  async function stockOf(companyId: number, productId: number) {
    const [row] = await t.container.db.query<{ quantity: string }>(
      'SELECT quantity::text FROM stock_levels WHERE company_id = $1 AND product_id = $2 AND deposit_id = 1',
      [companyId, productId],
    );
    return Number(row?.quantity ?? 0);
  }

  const eventsOf = (companyId: number) =>
    t.container.db.query<{ event: string; payload: { data: Record<string, Record<string, unknown>> } }>(
      'SELECT event, payload FROM outbox_events WHERE company_id = $1 ORDER BY seq',
      [companyId],
    );

  it('a partial return, then another, then beyond what was sold (422), then the rest: stock, money, events, states', async () => {
    const s = await shop();
    const session = await openSession(s.asCashier);
    // Bread × 3 and an alfajor × 2: $ 4.400.
    const sale = await sell(s, [
      { product_id: s.pan.id, quantity: 3 },
      { product_id: s.alfajor.id, quantity: 2 },
    ]);
    const [bread, alfajor] = sale.items;
    const before = (await eventsOf(s.company.id)).length;

    // The customer brings back one bread: $ 1.000 in cash, the sale stays paid.
    const first = await giveBack(s.asAdmin, sale.id, {
      lines: [{ item_id: bread!.id, quantity: 1 }],
      refund: { method: 'efectivo' },
      reason: 'pan duro',
    });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().return).toMatchObject({
      id: 1,
      sale_id: sale.id,
      amount: 1000,
      refund: { store_credit: false, method: 'efectivo', box_session_id: session.id },
      reason: 'pan duro',
      lines: [{ item_id: bread!.id, product_id: s.pan.id, quantity: 1, amount: 1000 }],
      credit_note: null,
      exchange_sale_id: null,
    });
    expect(await stockOf(s.company.id, s.pan.id)).toBe(48);
    const events = (await eventsOf(s.company.id)).slice(before);
    expect(events.map((e) => e.event)).toEqual(['movement.created', 'product.stock_updated', 'sales.paid']);
    expect(events[2]!.payload.data['sale']).toMatchObject({ id: sale.id, status: 'paid' });
    expect(events[2]!.payload.data['return']).toMatchObject({
      id: 1,
      amount: 1000,
      lines: [{ item_id: bread!.id, quantity: 1 }],
    });

    // The same key and body again: the same return (200), nothing moves; another body: 409.
    const key = randomUUID();
    const body = { lines: [{ item_id: alfajor!.id, quantity: 1 }], refund: { method: 'efectivo' }, reason: 'no le gustó' };
    expect((await giveBack(s.asAdmin, sale.id, body, key)).statusCode).toBe(201);
    const replay = await giveBack(s.asAdmin, sale.id, body, key);
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['idempotent-replay']).toBe('true');
    expect(replay.json().return.id).toBe(2);
    expect((await giveBack(s.asAdmin, sale.id, { ...body, reason: 'otra' }, key)).statusCode).toBe(409);
    expect(await stockOf(s.company.id, s.alfajor.id)).toBe(49);

    // Beyond what is left (2 breads, 1 alfajor): 422 return_exceeds_sold, at the line's quantity; nothing changes.
    const beyond = await giveBack(s.asAdmin, sale.id, {
      lines: [
        { item_id: bread!.id, quantity: 1 },
        { item_id: alfajor!.id, quantity: 2 },
      ],
      refund: { method: 'efectivo' },
      reason: 'todo',
    });
    expect(beyond.statusCode).toBe(422);
    expect(beyond.json()).toMatchObject({ code: 'return_exceeds_sold', details: [{ path: '/lines/1/quantity', expected: '1' }] });
    expect(await stockOf(s.company.id, s.pan.id)).toBe(48);
    expect(
      (
        await giveBack(s.asAdmin, sale.id, { lines: [{ item_id: 99, quantity: 1 }], refund: { method: 'efectivo' }, reason: 'x' })
      ).json().code,
    ).toBe('invalid_reference');
    expect(
      (
        await giveBack(s.asAdmin, sale.id, {
          lines: [{ item_id: bread!.id, quantity: 0.5 }],
          refund: { method: 'efectivo' },
          reason: 'x',
        })
      ).json().code,
    ).toBe('validation_failed');

    // A cashier cannot give money back (403); the sale's view shows what was returned.
    expect(
      (
        await giveBack(s.asCashier, sale.id, {
          lines: [{ item_id: bread!.id, quantity: 1 }],
          refund: { method: 'efectivo' },
          reason: 'x',
        })
      ).statusCode,
    ).toBe(403);
    const view = (await call('GET', `/api/v1/sales/${sale.id}`, s.asCashier)).json().sale;
    expect(view).toMatchObject({ status: 'paid', total: 4400, returned_total: 1700 });
    expect(view.items.map((i: { returned_quantity: number }) => i.returned_quantity)).toEqual([1, 1]);
    expect(view.returns).toHaveLength(2);
    const listed = await call('GET', `/api/v1/sales/${sale.id}/returns`, s.asCashier);
    expect(listed.json().returns.map((r: { id: number }) => r.id)).toEqual([1, 2]);

    // The rest: the sale is cancelled with sales.cancelled carrying the last return.
    const last = await giveBack(s.asAdmin, sale.id, {
      lines: [
        { item_id: bread!.id, quantity: 2 },
        { item_id: alfajor!.id, quantity: 1 },
      ],
      refund: { method: 'debito' },
      reason: 'devolvió todo',
    });
    expect(last.statusCode, last.body).toBe(201);
    expect(last.json().return.amount).toBe(2700);
    const cancelled = (await call('GET', `/api/v1/sales/${sale.id}`, s.asCashier)).json().sale;
    expect(cancelled).toMatchObject({ status: 'cancelled', returned_total: 4400, cancellation_reason: 'devolvió todo' });
    const lastEvent = (await eventsOf(s.company.id)).at(-1)!;
    expect(lastEvent.event).toBe('sales.cancelled');
    expect(lastEvent.payload.data['return']).toMatchObject({ id: 3, amount: 2700 });
    expect(await stockOf(s.company.id, s.pan.id)).toBe(50);
    expect(await stockOf(s.company.id, s.alfajor.id)).toBe(50);
    // Nothing left to return; the cancel endpoint refuses it too.
    expect((await giveBack(s.asAdmin, sale.id, body)).json().code).toBe('invalid_state');

    // The shift gave back $ 1.700 in cash and $ 2.700 by debit: the close expects it.
    const report = (await call('GET', `/api/v1/box-sessions/${session.id}`, s.asAdmin)).json();
    expect(report.refunds).toEqual(
      expect.arrayContaining([
        { method: 'efectivo', amount: 1700, count: 2 },
        { method: 'debito', amount: 2700, count: 1 },
      ]),
    );
    expect(report.expected.efectivo).toBe(10_000 + 4400 - 1700);
    const closed = await call('POST', `/api/v1/box-sessions/${session.id}/close`, s.asCashier, {
      counted: { efectivo: 12_700 },
    });
    expect(closed.statusCode, closed.body).toBe(200);
    await expectBooksClean(t.container, s.company.id);
  });

  it('after the sale’s shift closed: the money leaves the refunding person’s open shift (another box); cancel too', async () => {
    const s = await shop();
    const first = await openSession(s.asCashier);
    const sale = await sell(s, [{ product_id: s.yerba.id, quantity: 2 }]);
    const other = await sell(s, [{ product_id: s.pan.id, quantity: 1 }]);
    expect(
      (await call('POST', `/api/v1/box-sessions/${first.id}/close`, s.asCashier, { counted: { efectivo: 17_400 } })).statusCode,
    ).toBe(200);
    // No open shift anywhere: 422 no_refund_session, nothing written.
    const none = await giveBack(s.asAdmin, sale.id, {
      lines: [{ item_id: sale.items[0]!.id, quantity: 1 }],
      refund: { method: 'efectivo' },
      reason: 'vencida',
    });
    expect(none.statusCode).toBe(422);
    expect(none.json().code).toBe('no_refund_session');
    expect(await stockOf(s.company.id, s.yerba.id)).toBe(48);
    // The owner opens her own shift at box 2: the refund and the cancel are booked there.
    const mine = await openSession(s.asAdmin, 2, 5000);
    const ok = await giveBack(s.asAdmin, sale.id, {
      lines: [{ item_id: sale.items[0]!.id, quantity: 1 }],
      refund: { method: 'efectivo' },
      reason: 'vencida',
    });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().return.refund.box_session_id).toBe(mine.id);
    const cancel = await call('POST', `/api/v1/sales/${other.id}/cancel`, s.asAdmin, { reason: 'error de cobro' });
    expect(cancel.statusCode, cancel.body).toBe(200);
    expect(cancel.json().sale).toMatchObject({ status: 'cancelled', refund_session_id: mine.id });
    const report = (await call('GET', `/api/v1/box-sessions/${mine.id}`, s.asAdmin)).json();
    expect(report.expected.efectivo).toBe(5000 - 3200 - 1000);
    // The closed shift's figures do not move.
    const closedReport = (await call('GET', `/api/v1/box-sessions/${first.id}`, s.asAdmin)).json();
    expect(closedReport.expected.efectivo).toBe(10_000 + 6400 + 1000);
    // Its note of later refunds names the return and the cancel, and the shift they came from.
    expect(
      closedReport.later_refunds.map((x: { sale_id: number; kind: string; refunded: number; refund_session_id: number }) => [
        x.sale_id,
        x.kind,
        x.refunded,
        x.refund_session_id,
      ]),
    ).toEqual([
      [sale.id, 'returned', 3200, mine.id],
      [other.id, 'cancelled', 1000, mine.id],
    ]);
    // A sale with returns is finished by returning its lines, not cancelled.
    expect((await call('POST', `/api/v1/sales/${sale.id}/cancel`, s.asAdmin, { reason: 'todo' })).json().code).toBe(
      'invalid_state',
    );
    expect(
      (await call('POST', `/api/v1/box-sessions/${mine.id}/close`, s.asAdmin, { counted: { efectivo: 800 } })).statusCode,
    ).toBe(200);
    await expectBooksClean(t.container, s.company.id);
  });

  it('a transfer refund above what the shift took: the count may say it (negative), cash may not; the close shows each method apart', async () => {
    const s = await shop();
    const session = await openSession(s.asCashier);
    const sale = await sell(s, [{ product_id: s.pan.id, quantity: 2 }]);
    const back = await giveBack(s.asAdmin, sale.id, {
      lines: [{ item_id: sale.items[0]!.id, quantity: 1 }],
      refund: { method: 'transferencia' },
      reason: 'pan duro',
    });
    expect(back.statusCode, back.body).toBe(201);
    const close = (counted: Record<string, number>) =>
      call('POST', `/api/v1/box-sessions/${session.id}/close`, s.asCashier, { counted });
    const negativeCash = await close({ efectivo: -1 });
    expect(negativeCash.statusCode).toBe(422);
    expect(negativeCash.json()).toMatchObject({ code: 'validation_failed', details: [{ path: '/counted/efectivo' }] });
    // The drawer is 500 short; the bank statement of the shift says −1.000 in transfers.
    const closed = await close({ efectivo: 11_500, transferencia: -1000 });
    expect(closed.statusCode, closed.body).toBe(200);
    const report = closed.json();
    expect(report.expected).toMatchObject({ efectivo: 12_000, transferencia: -1000 });
    expect(report.difference).toMatchObject({ efectivo: -500, transferencia: 0 });
  });

  it('store credit: the returned amount goes to the customer’s account (a cashier may do it); without a customer, 422', async () => {
    const s = await shop();
    await openSession(s.asCashier);
    const [customer] = await t.container.db.query<{ id: number }>(
      `INSERT INTO customers (company_id, id, name, account_enabled) VALUES ($1, take_company_ids($1, 'customers', 1), 'Doña Rosa', true)
       RETURNING id`,
      [s.company.id],
    );
    const sale = await sell(s, [{ product_id: s.yerba.id, quantity: 1 }], { customer: { id: customer!.id } });
    const res = await giveBack(s.asCashier, sale.id, {
      lines: [{ item_id: sale.items[0]!.id, quantity: 1 }],
      refund: 'store_credit',
      reason: 'la cambia la semana que viene',
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().return).toMatchObject({ amount: 3200, refund: { store_credit: true, customer_id: customer!.id } });
    const account = (await call('GET', `/api/v1/customers/${customer!.id}/account`, s.asAdmin)).json();
    expect(account.account.balance).toBe(-3200);
    // The sale had no other lines: it is cancelled.
    expect((await call('GET', `/api/v1/sales/${sale.id}`, s.asAdmin)).json().sale.status).toBe('cancelled');

    const anonymous = await sell(s, [{ product_id: s.pan.id, quantity: 1 }]);
    const refused = await giveBack(s.asCashier, anonymous.id, {
      lines: [{ item_id: anonymous.items[0]!.id, quantity: 1 }],
      refund: 'store_credit',
      reason: 'x',
    });
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toMatchObject({ code: 'validation_failed', details: [{ path: '/refund' }] });
    await expectBooksClean(t.container, s.company.id);
  });

  it('exchanges: one request returns lines and sells new ones; the difference is given back or paid', async () => {
    const s = await shop();
    const session = await openSession(s.asCashier);
    const sale = await sell(s, [{ product_id: s.yerba.id, quantity: 1 }]);
    // Yerba ($ 3.200) for two breads ($ 2.000): $ 1.200 back in cash.
    const key = randomUUID();
    const body = {
      box_id: 1,
      return_lines: [{ item_id: sale.items[0]!.id, quantity: 1 }],
      new_items: [{ product_id: s.pan.id, quantity: 2 }],
      reason: 'cambio',
    };
    const res = await call('POST', `/api/v1/sales/${sale.id}/exchanges`, { ...s.asCashier, 'x-idempotency-key': key }, body);
    expect(res.statusCode, res.body).toBe(201);
    const exchange = res.json().exchange;
    expect(exchange.difference).toBe(-1200);
    expect(exchange.sale).toMatchObject({ status: 'paid', total: 2000, change: 1200 });
    expect(exchange.return).toMatchObject({ amount: 3200, exchange_sale_id: exchange.sale.id });
    const again = await call('POST', `/api/v1/sales/${sale.id}/exchanges`, { ...s.asCashier, 'x-idempotency-key': key }, body);
    expect(again.statusCode).toBe(200);
    expect(again.json().exchange.sale.id).toBe(exchange.sale.id);
    expect(await stockOf(s.company.id, s.yerba.id)).toBe(50);
    expect(await stockOf(s.company.id, s.pan.id)).toBe(48);

    // Bread ($ 1.000) for a yerba ($ 3.200): the customer pays $ 2.200 more by debit.
    const bread = exchange.sale as { id: number; items: { id: number }[] };
    const up = await call(
      'POST',
      `/api/v1/sales/${bread.id}/exchanges`,
      { ...s.asCashier, 'x-idempotency-key': randomUUID() },
      {
        box_id: 1,
        return_lines: [{ item_id: bread.items[0]!.id, quantity: 1 }],
        new_items: [{ product_id: s.yerba.id, quantity: 1 }],
        payments: [{ method: 'debito', amount: 2200 }],
        reason: 'se llevó yerba',
      },
    );
    expect(up.statusCode, up.body).toBe(201);
    expect(up.json().exchange).toMatchObject({ difference: 2200, sale: { status: 'paid', total: 3200 } });
    // Beyond what was sold: 422 and no new sale.
    const salesBefore = (await call('GET', '/api/v1/sales', s.asAdmin)).json().sales.length;
    const beyond = await call(
      'POST',
      `/api/v1/sales/${bread.id}/exchanges`,
      { ...s.asCashier, 'x-idempotency-key': randomUUID() },
      {
        box_id: 1,
        return_lines: [{ item_id: bread.items[0]!.id, quantity: 5 }],
        new_items: [{ product_id: s.pan.id, quantity: 1 }],
        reason: 'x',
      },
    );
    expect(beyond.json().code).toBe('return_exceeds_sold');
    expect((await call('GET', '/api/v1/sales', s.asAdmin)).json().sales.length).toBe(salesBefore);
    const report = (await call('GET', `/api/v1/box-sessions/${session.id}`, s.asAdmin)).json();
    // Cash: 10.000 + 3.200 (yerba) + 2.000 (breads, paid with the returned value) − 3.200 (returned) + 1.000 − 1.000.
    expect(report.expected.efectivo).toBe(10_000 + 3200 + 2000 - 3200 + 1000 - 1000);
    expect(report.expected.debito).toBe(2200);
    await expectBooksClean(t.container, s.company.id);
  });

  it('an invoiced sale: each return gets its credit note in the same request; ARCA down leaves it pending, settled later; a cancel too', async () => {
    const s = await shop({ fiscal: true });
    await openSession(s.asCashier);
    const sale = await sell(s, [
      { product_id: s.pan.id, quantity: 2 },
      { product_id: s.alfajor.id, quantity: 1 },
    ]);
    const invoice = await call('POST', `/api/v1/sales/${sale.id}/invoice`, s.asCashier, {});
    expect(invoice.statusCode, invoice.body).toBe(201);
    const inv = invoice.json().invoice as { id: number; type: string };
    expect(inv.type).toBe('B');

    const res = await giveBack(s.asAdmin, sale.id, {
      lines: [{ item_id: sale.items[1]!.id, quantity: 1 }],
      refund: { method: 'efectivo' },
      reason: 'alfajor roto',
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().return.credit_note).toMatchObject({ status: 'issued', number: 'NC B 0001-00000001' });
    const receipts = (await call('GET', `/api/v1/sales/${sale.id}/invoices`, s.asAdmin)).json().invoices;
    const nc = receipts.find((r: { kind: string }) => r.kind === 'credit_note');
    expect(nc).toMatchObject({ type: 'NC B', total: 700, associated_invoice_id: inv.id });
    const sent = fake.control.receipts().filter((r) => r.cuit === s.cuit && r.type === 8);
    expect(sent).toHaveLength(1);

    // ARCA does not answer: the return stands, its credit note pending; the job settles it.
    for (let i = 0; i < 5; i++) fake.control.failNext(503, 'FECAESolicitar');
    const down = await giveBack(s.asAdmin, sale.id, {
      lines: [{ item_id: sale.items[0]!.id, quantity: 1 }],
      refund: { method: 'efectivo' },
      reason: 'pan de más',
    });
    expect(down.statusCode, down.body).toBe(201);
    expect(down.json().return.credit_note).toMatchObject({ status: 'pending', number: null });
    expect(await stockOf(s.company.id, s.pan.id)).toBe(49);
    await t.container.db.query(`UPDATE invoice_attempts SET updated_at = now() - interval '2 minutes' WHERE company_id = $1`, [
      s.company.id,
    ]);
    expect(await t.container.invoicing.invoicing.settleStale()).toBe(1);
    const settled = (await call('GET', `/api/v1/sales/${sale.id}/returns`, s.asAdmin)).json().returns;
    expect(settled[1].credit_note).toMatchObject({ status: 'issued', number: 'NC B 0001-00000002' });

    // ARCA cannot even be asked for the next number: nothing reserved; the sweep issues it later.
    for (let i = 0; i < 3; i++) fake.control.failNext(503, 'FECompUltimoAutorizado');
    const unreachable = await giveBack(s.asAdmin, sale.id, {
      lines: [{ item_id: sale.items[0]!.id, quantity: 1 }],
      refund: { method: 'efectivo' },
      reason: 'el último pan',
    });
    expect(unreachable.statusCode, unreachable.body).toBe(201);
    expect(unreachable.json().return.credit_note.status).toBe('pending');
    fake.control.clearQueue();
    expect(await t.container.invoicing.invoicing.settleCreditNotes()).toBe(1);
    const all = (await call('GET', `/api/v1/sales/${sale.id}`, s.asAdmin)).json().sale;
    expect(all.status).toBe('cancelled');
    expect(all.returns.map((r: { credit_note: { status: string } }) => r.credit_note.status)).toEqual([
      'issued',
      'issued',
      'issued',
    ]);
    // The three credit notes add up to the invoice.
    const notes = (await call('GET', `/api/v1/sales/${sale.id}/invoices`, s.asAdmin))
      .json()
      .invoices.filter((r: { kind: string }) => r.kind === 'credit_note');
    expect(notes.reduce((sum: number, n: { total: number }) => sum + n.total, 0)).toBe(2700);

    // ARCA rejects a credit note: the return stands (201), its note says so, the sweep leaves it to a
    // person, books verify points at it, and trying again issues it.
    const rejectedSale = await sell(s, [{ product_id: s.pan.id, quantity: 1 }]);
    expect((await call('POST', `/api/v1/sales/${rejectedSale.id}/invoice`, s.asCashier, {})).statusCode).toBe(201);
    fake.control.rejectNext(10048);
    const rejected = await giveBack(s.asAdmin, rejectedSale.id, {
      lines: [{ item_id: rejectedSale.items[0]!.id, quantity: 1 }],
      refund: { method: 'efectivo' },
      reason: 'rechazada',
    });
    expect(rejected.statusCode, rejected.body).toBe(201);
    expect(rejected.json().return.credit_note.status).toBe('rejected');
    expect(await t.container.invoicing.invoicing.settleCreditNotes()).toBe(0);
    const { out } = await runCliOn(t.container, ['books', 'verify', '--company', String(s.company.id), '--json']);
    const flagged = (
      JSON.parse(out) as { checks: { name: string; ok: boolean; detail: { rows: { problem: string }[] } }[] }
    ).checks.find((c) => c.name === 'invoice_matches_sale')!;
    expect(flagged.detail.rows.map((r) => r.problem)).toEqual(['credit_note_missing']);
    expect((await call('POST', `/api/v1/sales/${rejectedSale.id}/returns/1/credit-note`, s.asCashier)).statusCode).toBe(403);
    const retried = await call('POST', `/api/v1/sales/${rejectedSale.id}/returns/1/credit-note`, s.asAdmin);
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json().return.credit_note).toMatchObject({ status: 'issued', number: 'NC B 0001-00000004' });

    // A whole cancel of an invoiced sale issues its credit note in the same request.
    const whole = await sell(s, [{ product_id: s.yerba.id, quantity: 1 }]);
    expect((await call('POST', `/api/v1/sales/${whole.id}/invoice`, s.asCashier, {})).statusCode).toBe(201);
    const cancel = await call('POST', `/api/v1/sales/${whole.id}/cancel`, s.asAdmin, { reason: 'anulada' });
    expect(cancel.statusCode, cancel.body).toBe(200);
    const wholeNotes = (await call('GET', `/api/v1/sales/${whole.id}/invoices`, s.asAdmin)).json().invoices;
    expect(wholeNotes.map((r: { type: string; total: number }) => [r.type, r.total])).toEqual([
      ['B', 3200],
      ['NC B', 3200],
    ]);
    await expectBooksClean(t.container, s.company.id);
  });

  it('by weight: parts of a kilo give back their share, the last one what is left; two returns of the last unit at once: one wins', async () => {
    const s = await shop();
    await openSession(s.asCashier);
    const queso = await makeProduct(t.container, s.company.id, {
      name: 'Queso',
      bc: '7790001000042',
      basePrice: 999.99,
      stock: 10,
    });
    await t.container.db.query(`UPDATE products SET unit = 'kg' WHERE company_id = $1 AND id = $2`, [s.company.id, queso.id]);
    const res = await call(
      'POST',
      '/api/v1/sales',
      { ...s.asCashier, 'x-idempotency-key': randomUUID() },
      {
        box_id: 1,
        items: [
          { product_id: queso.id, quantity: 1.5 },
          { product_id: s.pan.id, quantity: 1 },
        ],
        payments: [{ method: 'efectivo', amount: 5000 }],
      },
    );
    expect(res.statusCode, res.body).toBe(201);
    const sale = res.json().sale as { id: number; items: { id: number; subtotal: number }[] };
    const [cheese, bread] = sale.items;
    const parts: number[] = [];
    for (const quantity of [0.333, 0.667, 0.5]) {
      const r = await giveBack(s.asAdmin, sale.id, {
        lines: [{ item_id: cheese!.id, quantity }],
        refund: { method: 'efectivo' },
        reason: 'pesado de más',
      });
      expect(r.statusCode, r.body).toBe(201);
      parts.push(r.json().return.amount);
    }
    expect(parts[0]).toBe(Math.round(cheese!.subtotal * 100 * (0.333 / 1.5)) / 100);
    expect(Math.round(parts.reduce((sum, p) => sum + p, 0) * 100)).toBe(Math.round(cheese!.subtotal * 100));
    expect(await stockOf(s.company.id, queso.id)).toBe(10);

    // The last bread twice at once: one return, one 422; the sale ends cancelled once.
    const both = await Promise.all(
      [1, 2].map(() =>
        giveBack(s.asAdmin, sale.id, {
          lines: [{ item_id: bread!.id, quantity: 1 }],
          refund: { method: 'efectivo' },
          reason: 'a la vez',
        }),
      ),
    );
    expect(both.map((r) => r.statusCode).sort()).toEqual([201, 422]);
    expect((await call('GET', `/api/v1/sales/${sale.id}`, s.asAdmin)).json().sale).toMatchObject({ status: 'cancelled' });
    const cancelledEvents = (await eventsOf(s.company.id)).filter((e) => e.event === 'sales.cancelled');
    expect(cancelledEvents).toHaveLength(1);
    await expectBooksClean(t.container, s.company.id);
  });

  it('tenancy: another company’s sale is 404 for returns, their list and exchanges, and nothing about it leaks', async () => {
    const mine = await shop();
    const theirs = await shop();
    await openSession(theirs.asCashier);
    await openSession(mine.asAdmin);
    const sale = await sell(theirs, [{ product_id: theirs.pan.id, quantity: 2 }]);
    const post = await giveBack(mine.asAdmin, sale.id, {
      lines: [{ item_id: sale.items[0]!.id, quantity: 1 }],
      refund: { method: 'efectivo' },
      reason: 'x',
    });
    expect(post.statusCode).toBe(404);
    expect(post.json().code).toBe('not_found');
    expect(post.body).not.toContain('Pan');
    const list = await call('GET', `/api/v1/sales/${sale.id}/returns`, mine.asAdmin);
    expect(list.statusCode).toBe(404);
    const exchange = await call(
      'POST',
      `/api/v1/sales/${sale.id}/exchanges`,
      { ...mine.asAdmin, 'x-idempotency-key': randomUUID() },
      {
        box_id: 1,
        return_lines: [{ item_id: 1, quantity: 1 }],
        new_items: [{ product_id: mine.pan.id, quantity: 1 }],
        reason: 'x',
      },
    );
    expect(exchange.statusCode).toBe(404);
    expect(await stockOf(theirs.company.id, theirs.pan.id)).toBe(48);
    expect((await call('GET', `/api/v1/sales/${sale.id}`, theirs.asAdmin)).json().sale.returns).toEqual([]);
  });
});
