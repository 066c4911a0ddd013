import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ean13 } from '../../src/lib/barcode.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

/** The cash register's merchant API: box sessions, sales, payments, cancellations, reports. */
describe('register API (/api/v1/box-sessions, /api/v1/sales)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000', AUTH_LOGIN_LIMIT_PER_ACCOUNT: '1000' } });
  });
  afterAll(() => t.close());

  type Headers = Record<string, string>;
  const call = (method: string, url: string, headers: Headers, payload?: unknown) =>
    t.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

  async function shop() {
    const company = await makeCompany(t.container);
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const cashier = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    const asAdmin = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
    const asCashier = { cookie: (await login(t.app, cashier.email, cashier.password)).cookie, ...SAME_ORIGIN };
    const token = async (scope: 'read' | 'read-write') =>
      ({
        authorization: `Bearer ${(await call('POST', '/api/v1/api-tokens', asAdmin, { name: `t-${randomUUID()}`, scope })).json().secret}`,
      }) as Headers;
    const yerba = await makeProduct(t.container, company.id, {
      name: 'Yerba 1kg',
      bc: '7790001000011',
      basePrice: 3200,
      stock: 50,
    });
    const azucar = await makeProduct(t.container, company.id, {
      name: 'Azúcar',
      bc: '7790001000028',
      basePrice: 1150.5,
      stock: 20,
    });
    const galletitas = await makeProduct(t.container, company.id, {
      name: 'Galletitas',
      bc: '7790001000035',
      basePrice: 899.99,
      stock: 10,
    });
    return { company, admin, cashier, asAdmin, asCashier, token, yerba, azucar, galletitas };
  }

  async function openSession(headers: Headers, boxId = 1, openingCash = 1000) {
    const res = await call('POST', '/api/v1/box-sessions', headers, { box_id: boxId, opening_cash: openingCash });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().session as { id: number };
  }

  const sell = (headers: Headers, body: unknown, key: string = randomUUID()) =>
    call('POST', '/api/v1/sales', { ...headers, 'x-idempotency-key': key }, body);

  async function stockIn(companyId: number, productId: number, depositId = 1) {
    const [row] = await t.container.db.query<{ quantity: string }>(
      'SELECT quantity::text FROM stock_levels WHERE company_id = $1 AND product_id = $2 AND deposit_id = $3',
      [companyId, productId, depositId],
    );
    return Number(row?.quantity ?? 0);
  }

  async function eventsOf(companyId: number) {
    return t.container.db.query<{ event: string; payload: { data: Record<string, Record<string, unknown>> } }>(
      'SELECT event, payload FROM outbox_events WHERE company_id = $1 ORDER BY seq',
      [companyId],
    );
  }

  it('a cashier opens a session, sells three items paid in cash with change; stock leaves the deposit through the ledger, with the events', async () => {
    const s = await shop();
    const session = await openSession(s.asCashier);
    const before = (await eventsOf(s.company.id)).length;
    const res = await sell(s.asCashier, {
      box_id: 1,
      items: [
        { product_id: s.yerba.id, quantity: 2 },
        { product_id: s.azucar.id, quantity: 1 },
        { product_id: s.galletitas.id, quantity: 3 },
      ],
      payments: [{ method: 'efectivo', amount: 10_000 }],
    });
    expect(res.statusCode, res.body).toBe(201);
    const sale = res.json().sale;
    // 2 × 3200 + 1150.50 + 3 × 899.99 = 10250.47 → over 10000: pending, cash applied in full.
    expect(sale.total).toBe(10250.47);
    expect(sale.status).toBe('pending');
    expect(sale.paid_total).toBe(10000);

    const paid = await sell(s.asCashier, {
      box_id: 1,
      items: [
        { product_id: s.yerba.id, quantity: 1 },
        { product_id: s.azucar.id, quantity: 2 },
        { product_id: s.galletitas.id, quantity: 1 },
      ],
      payments: [{ method: 'efectivo', amount: 10_000 }],
    });
    expect(paid.statusCode, paid.body).toBe(201);
    const p = paid.json().sale;
    expect(p).toMatchObject({
      source: 'register',
      status: 'paid',
      total: 6400.99,
      paid_total: 6400.99,
      change: 3599.01,
      box_id: 1,
      box_session_id: session.id,
      deposit_id: 1,
      payment_method: 'efectivo',
      sold_by: s.cashier.email,
    });
    expect(p.payments).toEqual([
      expect.objectContaining({ method: 'efectivo', amount: 6400.99, tendered: 10000, change: 3599.01 }),
    ]);
    expect(p.items.map((i: { name: string }) => i.name)).toEqual(['Yerba 1kg', 'Azúcar', 'Galletitas']);

    // Stock: 50 − 2 − 1, 20 − 1 − 2, 10 − 3 − 1, all out of deposit 1, each a movement of the ledger.
    expect(await stockIn(s.company.id, s.yerba.id)).toBe(47);
    expect(await stockIn(s.company.id, s.azucar.id)).toBe(17);
    expect(await stockIn(s.company.id, s.galletitas.id)).toBe(6);
    const moves = await t.container.db.query<{ type: string; amount: string; reason: string }>(
      `SELECT type, amount::text, reason FROM movements WHERE company_id = $1 AND reason = $2 ORDER BY id`,
      [s.company.id, `venta ${p.id}`],
    );
    expect(moves).toEqual([
      { type: 'OUT', amount: '1.000', reason: `venta ${p.id}` },
      { type: 'OUT', amount: '2.000', reason: `venta ${p.id}` },
      { type: 'OUT', amount: '1.000', reason: `venta ${p.id}` },
    ]);
    const products = await t.container.db.query<{ stock: string }>(
      'SELECT stock::text FROM products WHERE company_id = $1 AND id = $2',
      [s.company.id, s.yerba.id],
    );
    expect(Number(products[0]!.stock)).toBe(47);

    // Events of the first (pending) and the second (paid) sale, in order.
    const events = (await eventsOf(s.company.id)).slice(before).map((e) => e.event);
    const oneSale = ['sales.created', ...Array(3).fill(['movement.created', 'product.stock_updated']).flat()];
    expect(events).toEqual([...oneSale, ...oneSale, 'sales.paid']);
    const created = (await eventsOf(s.company.id)).filter((e) => e.event === 'sales.created').at(-1)!;
    expect(created.payload.data['sale']).toMatchObject({ id: p.id, total: 6400.99, status: 'pending', box_id: 1 });
    const paidEvent = (await eventsOf(s.company.id)).filter((e) => e.event === 'sales.paid').at(-1)!;
    expect(paidEvent.payload.data['sale']).toMatchObject({ id: p.id, status: 'paid', payment_method: 'efectivo' });

    // The pending one is paid later: what it owes, cash with change.
    const short = await call('POST', `/api/v1/sales/${sale.id}/pay`, s.asCashier, {
      payments: [{ method: 'debito', amount: 100 }],
    });
    expect(short.statusCode).toBe(422);
    const settled = await call('POST', `/api/v1/sales/${sale.id}/pay`, s.asCashier, {
      payments: [{ method: 'efectivo', amount: 500 }],
    });
    expect(settled.statusCode, settled.body).toBe(200);
    expect(settled.json().sale).toMatchObject({ status: 'paid', paid_total: 10250.47, change: 249.53 });
    const again = await call('POST', `/api/v1/sales/${sale.id}/pay`, s.asCashier, {
      payments: [{ method: 'efectivo', amount: 500 }],
    });
    expect(again.statusCode).toBe(422);
  });

  it('the idempotency key: the same body answers the same sale and changes nothing; another body is 409; it is required', async () => {
    const s = await shop();
    await openSession(s.asCashier);
    const key = `caja1-${randomUUID()}`;
    const body = {
      box_id: 1,
      items: [{ product_id: s.yerba.id, quantity: 1 }],
      payments: [{ method: 'debito', amount: 3200, reference: '0042' }],
    };
    const first = await sell(s.asCashier, body, key);
    expect(first.statusCode).toBe(201);
    const events = (await eventsOf(s.company.id)).length;
    const stock = await stockIn(s.company.id, s.yerba.id);

    // Keys in another order are the same request.
    const replay = await sell(s.asCashier, { payments: body.payments, items: body.items, box_id: 1 }, key);
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['idempotent-replay']).toBe('true');
    expect(replay.json().sale).toEqual(first.json().sale);
    expect((await eventsOf(s.company.id)).length).toBe(events);
    expect(await stockIn(s.company.id, s.yerba.id)).toBe(stock);

    const other = await sell(s.asCashier, { ...body, items: [{ product_id: s.yerba.id, quantity: 2 }] }, key);
    expect(other.statusCode).toBe(409);
    expect(other.json()).toMatchObject({ code: 'conflict' });
    expect(other.json().error).toContain(`sale ${first.json().sale.id}`);

    const missing = await call('POST', '/api/v1/sales', s.asCashier, body);
    expect(missing.statusCode).toBe(400);
    const count = await t.container.db.query('SELECT 1 FROM sales WHERE company_id = $1', [s.company.id]);
    expect(count).toHaveLength(1);

    // Another company may use the same key for its own sale.
    const t2 = await shop();
    await openSession(t2.asCashier);
    expect((await sell(t2.asCashier, { ...body, items: [{ product_id: t2.yerba.id, quantity: 1 }] }, key)).statusCode).toBe(201);
  });

  it('a register sale takes its numbers before its transaction, after its checks: a refused sale leaves no hole, a replay takes none', async () => {
    const s = await shop();
    await openSession(s.asCashier);
    const body = { box_id: 1, items: [{ product_id: s.yerba.id, quantity: 1 }] };
    const key = randomUUID();
    const first = await sell(s.asCashier, body, key);
    expect(first.statusCode, first.body).toBe(201);
    const n = first.json().sale.id as number;

    // Refused by its checks, which run before the numbers are taken: the next sale is n + 1.
    const refused = await sell(s.asCashier, { box_id: 1, items: [{ product_id: 999_999, quantity: 1 }] });
    expect(refused.statusCode).toBe(422);
    const second = await sell(s.asCashier, body);
    expect(second.json().sale.id).toBe(n + 1);

    // A replay answers the first sale and takes no number.
    expect((await sell(s.asCashier, body, key)).statusCode).toBe(200);
    const third = await sell(s.asCashier, body);
    expect(third.json().sale.id).toBe(n + 2);
    const rows = await t.container.db.query<{ id: number }>('SELECT id FROM sales WHERE company_id = $1 ORDER BY id', [
      s.company.id,
    ]);
    expect(rows.map((r) => Number(r.id))).toEqual([n, n + 1, n + 2]);
    // Each movement number is used once, one per line.
    const moves = await t.container.db.query<{ n: number; d: number }>(
      "SELECT count(*)::int AS n, count(DISTINCT id)::int AS d FROM movements WHERE company_id = $1 AND type = 'OUT'",
      [s.company.id],
    );
    expect(moves[0]).toEqual({ n: 3, d: 3 });
  });

  it('refuses bad sales and writes nothing: empty, unknown product, another company’s box or product, negative quantity, non-cash over the total, no open session', async () => {
    const s = await shop();
    const other = await shop();
    const foreignProduct = await makeProduct(t.container, other.company.id, { name: 'Solo en otra empresa' });
    const noSession = await sell(s.asCashier, { box_id: 1, items: [{ product_id: s.yerba.id, quantity: 1 }] });
    expect(noSession.statusCode).toBe(422);
    expect(noSession.json()).toMatchObject({ code: 'no_open_session' });
    expect(noSession.json().error).toContain('no open session');
    await openSession(s.asCashier);
    const cases: [unknown, number, string][] = [
      [{ box_id: 1, items: [] }, 422, 'at least one item'],
      [{ box_id: 1, items: [{ product_id: 999_999, quantity: 1 }] }, 422, 'product 999999 does not exist'],
      [
        { box_id: 1, items: [{ product_id: foreignProduct.id, quantity: 1 }] },
        422,
        `product ${foreignProduct.id} does not exist`,
      ],
      [{ box_id: 77, items: [{ product_id: s.yerba.id, quantity: 1 }] }, 422, 'box 77 does not exist'],
      [{ box_id: 1, items: [{ product_id: s.yerba.id, quantity: -1 }] }, 422, 'quantity'],
      [{ box_id: 1, items: [{ product_id: s.yerba.id, quantity: 0 }] }, 422, 'quantity'],
      [{ box_id: 1, items: [{ product_id: s.yerba.id }] }, 422, 'quantity is required'],
      [
        { box_id: 1, items: [{ product_id: s.yerba.id, quantity: 1 }], payments: [{ method: 'debito', amount: 3300 }] },
        422,
        'exceed',
      ],
      [
        {
          box_id: 1,
          items: [{ product_id: s.yerba.id, quantity: 1 }],
          payments: [
            { method: 'debito', amount: 3200 },
            { method: 'efectivo', amount: 100 },
          ],
        },
        422,
        'not needed',
      ],
      [
        { box_id: 1, items: [{ product_id: s.yerba.id, quantity: 1 }], payments: [{ method: 'efectivo', amount: -5 }] },
        422,
        'amount',
      ],
      [
        { box_id: 1, items: [{ product_id: s.yerba.id, quantity: 1 }], payments: [{ method: 'cheque', amount: 5 }] },
        422,
        'method',
      ],
      [
        { box_id: 1, items: [{ product_id: s.yerba.id, quantity: 1 }], payments: [{ method: 'cuenta_corriente', amount: 3200 }] },
        422,
        'customer',
      ],
      [{ box_id: 1, items: [{ scale_label: '2000000000000' }] }, 422, 'scale'],
    ];
    for (const [body, status, message] of cases) {
      const res = await sell(s.asCashier, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(status);
      expect(res.json().error, JSON.stringify(body)).toContain(message);
    }
    // The records a body names that are not the company's, and a negative price, name their field.
    for (const [body, path] of [
      [
        {
          box_id: 1,
          items: [
            { product_id: s.yerba.id, quantity: 1 },
            { product_id: foreignProduct.id, quantity: 1 },
          ],
        },
        '/items/1/product_id',
      ],
      [{ box_id: 77, items: [{ product_id: s.yerba.id, quantity: 1 }] }, '/box_id'],
      [{ box_id: 1, items: [{ product_id: s.yerba.id, quantity: 1, price: '-1' }] }, '/items/0/price'],
    ] as const) {
      const res = await sell(s.asCashier, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.json().details, JSON.stringify(body)).toEqual([{ path, message: expect.any(String) }]);
    }
    const noBox = await call('POST', '/api/v1/box-sessions', s.asAdmin, { box_id: 77, opening_cash: 0 });
    expect(noBox.json()).toMatchObject({ code: 'invalid_reference', details: [{ path: '/box_id' }] });
    // Another company's box is unknown here, even when that company has the same number.
    await openSession(other.asCashier);
    const foreign = await t.container.db.query<{ id: number }>(
      `INSERT INTO boxes (company_id, id, name) VALUES ($1, 2, 'Caja 2') RETURNING id`,
      [other.company.id],
    );
    expect(
      (await sell(s.asCashier, { box_id: foreign[0]!.id, items: [{ product_id: s.yerba.id, quantity: 1 }] })).statusCode,
    ).toBe(422);
    expect(await t.container.db.query('SELECT 1 FROM sales WHERE company_id = $1', [s.company.id])).toHaveLength(0);
    expect(await stockIn(s.company.id, s.yerba.id)).toBe(50);
  });

  it('sold_at: more than 7 days ago is refused naming /sold_at; ahead of the server (year 9999, ten years on) the sale is dated now', async () => {
    const s = await shop();
    await openSession(s.asCashier);
    const body = { box_id: 1, items: [{ product_id: s.yerba.id, quantity: 1 }] };
    const before = (await eventsOf(s.company.id)).length;
    for (const soldAt of ['0001-01-01T00:00:00Z', new Date(Date.now() - 8 * 86_400_000).toISOString()]) {
      const refused = await sell(s.asCashier, { ...body, sold_at: soldAt });
      expect(refused.statusCode, soldAt).toBe(422);
      expect(refused.json()).toMatchObject({
        code: 'validation_failed',
        details: [{ path: '/sold_at', message: 'is more than 7 days ago' }],
      });
    }
    expect((await eventsOf(s.company.id)).length).toBe(before);
    expect(await stockIn(s.company.id, s.yerba.id)).toBe(50);
    for (const soldAt of ['9999-12-31T23:59:59Z', new Date(Date.now() + 10 * 365 * 86_400_000).toISOString()]) {
      const start = Date.now();
      const sold = await sell(s.asCashier, { ...body, sold_at: soldAt });
      expect(sold.statusCode, sold.body).toBe(201);
      const at = Date.parse(sold.json().sale.created_at);
      expect(at).toBeGreaterThanOrEqual(start - 1000);
      expect(at).toBeLessThanOrEqual(Date.now() + 1000);
    }
  });

  it('under the total the sale is pending; a split payment covers it; cuenta corriente needs the customer', async () => {
    const s = await shop();
    await openSession(s.asCashier);
    const split = await sell(s.asCashier, {
      box_id: 1,
      items: [{ product_id: s.yerba.id, quantity: 3 }],
      payments: [
        { method: 'debito', amount: 5000, reference: 'lote 12' },
        { method: 'qr', amount: 2000, reference: 'MP-998' },
        { method: 'efectivo', amount: 5000 },
      ],
    });
    expect(split.statusCode, split.body).toBe(201);
    expect(split.json().sale).toMatchObject({ status: 'paid', total: 9600, change: 2400, payment_method: 'mixto' });
    expect(split.json().sale.payments.map((p: { method: string; amount: number }) => [p.method, p.amount])).toEqual([
      ['debito', 5000],
      ['qr', 2000],
      ['efectivo', 2600],
    ]);
    // Cuenta corriente needs a customer of the company with an account; the sale stays pending on it.
    const unknown = await sell(s.asCashier, {
      box_id: 1,
      items: [{ product_id: s.azucar.id, quantity: 2 }],
      customer: { id: 15, name: 'Almacén Don Pepe' },
      payments: [{ method: 'cuenta_corriente', amount: 2301 }],
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('customer_not_found');
    const [customer] = await t.container.db.query<{ id: number }>(
      `INSERT INTO customers (company_id, id, name, account_enabled) VALUES ($1, take_company_ids($1, 'customers', 1), 'Almacén Don Pepe', true)
       RETURNING id`,
      [s.company.id],
    );
    const account = await sell(s.asCashier, {
      box_id: 1,
      items: [{ product_id: s.azucar.id, quantity: 2 }],
      customer: { id: customer!.id },
      payments: [{ method: 'cuenta_corriente', amount: 2301 }],
    });
    expect(account.json().sale).toMatchObject({
      status: 'pending',
      customer_id: customer!.id,
      customer_name: 'Almacén Don Pepe',
      payment_method: 'cuenta_corriente',
    });
    const pending = await sell(s.asCashier, { box_id: 1, items: [{ product_id: s.azucar.id, quantity: 1 }] });
    expect(pending.json().sale).toMatchObject({ status: 'pending', paid_total: 0, payments: [] });
  });

  it('a price other than the product’s needs an admin, a read-write token, or the company’s setting; the change is audited', async () => {
    const s = await shop();
    await openSession(s.asCashier);
    const body = { box_id: 1, items: [{ product_id: s.yerba.id, quantity: 1, price: 3000 }] };
    const refused = await sell(s.asCashier, body);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'price_needs_admin' });
    expect(refused.json().error).toContain('needs a company admin');
    expect(
      (await sell(s.asCashier, { box_id: 1, items: [{ product_id: s.yerba.id, quantity: 1, price: 3200 }] })).statusCode,
    ).toBe(201);
    // The admin sells in a shift of their own (issue 29: a person works only in their own shift).
    await t.container.db.query(`INSERT INTO boxes (company_id, id, name) VALUES ($1, 2, 'Caja 2')`, [s.company.id]);
    await openSession(s.asAdmin, 2, 0);
    const byAdmin = await sell(s.asAdmin, { ...body, box_id: 2 });
    expect(byAdmin.statusCode).toBe(201);
    expect(byAdmin.json().sale.items[0]).toMatchObject({ price: 3000, subtotal: 3000 });
    expect((await sell(await s.token('read-write'), body)).statusCode).toBe(201);
    const audit = await t.container.db.query<{ details: { items: unknown[] } }>(
      `SELECT details FROM audit_log WHERE company_id = $1 AND action = 'sale.price_changed' ORDER BY id`,
      [s.company.id],
    );
    expect(audit[0]!.details.items).toEqual([{ product_id: s.yerba.id, list_price: 3200, price: 3000 }]);
    // An offline sale priced with a catalogue older than the product's last change keeps the price charged.
    const catalogAt = new Date(Date.now() - 60_000).toISOString();
    const offline = await sell(s.asCashier, { ...body, catalog_at: catalogAt });
    expect(offline.statusCode, offline.body).toBe(201);
    const fresh = await sell(s.asCashier, { ...body, catalog_at: new Date(Date.now() + 60_000).toISOString() });
    expect(fresh.statusCode).toBe(403);
    // A catalogue from the year 0001 excuses only what changed in the last 7 days (what an offline
    // register can have missed), not a product last changed 8 days ago.
    const ancient = { ...body, catalog_at: '0001-01-01T00:00:00Z' };
    expect((await sell(s.asCashier, ancient)).statusCode).toBe(201);
    await t.container.db.query(`UPDATE products SET updated_at = now() - interval '8 days' WHERE company_id = $1 AND id = $2`, [
      s.company.id,
      s.yerba.id,
    ]);
    const old = await sell(s.asCashier, ancient);
    expect(old.statusCode, old.body).toBe(403);
    expect(old.json()).toMatchObject({ code: 'price_needs_admin' });
    await t.container.db.query(`UPDATE companies SET settings = settings || '{"registerPriceOverride": true}' WHERE id = $1`, [
      s.company.id,
    ]);
    expect((await sell(s.asCashier, body)).statusCode).toBe(201);
  });

  it('weighed items take the quantity from a scale label (weight and price layouts)', async () => {
    const s = await shop();
    await openSession(s.asCashier);
    const queso = await makeProduct(t.container, s.company.id, {
      name: 'Queso cremoso',
      sku: '123',
      basePrice: 9000,
      stock: 10,
      unit: 'kg',
    });
    await t.container.db.query(
      `UPDATE companies SET settings = settings || '{"scaleLabel": {"value": "weight", "decimals": 3}}' WHERE id = $1`,
      [s.company.id],
    );
    const weight = ean13('200012301250'); // PLU 00123, 1.250 kg
    const res = await sell(s.asCashier, {
      box_id: 1,
      items: [{ scale_label: weight }],
      payments: [{ method: 'efectivo', amount: 11250 }],
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().sale.items[0]).toMatchObject({ product_id: queso.id, quantity: 1.25, price: 9000, subtotal: 11250 });
    expect(await stockIn(s.company.id, queso.id)).toBe(8.75);
    await t.container.db.query(`UPDATE companies SET settings = settings - 'scaleLabel' WHERE id = $1`, [s.company.id]);
    const price = ean13('200012300450'); // default layout (whole pesos): PLU 00123, $ 450 → 0.05 kg at 9000
    const byPrice = await sell(s.asCashier, { box_id: 1, items: [{ scale_label: price }] });
    expect(byPrice.json().sale.items[0]).toMatchObject({ product_id: queso.id, quantity: 0.05, subtotal: 450 });
    const unknownPlu = await sell(s.asCashier, { box_id: 1, items: [{ scale_label: ean13('200099900450') }] });
    expect(unknownPlu.statusCode).toBe(422);
    expect(unknownPlu.json()).toMatchObject({ code: 'unknown_scale_plu' });
    expect(unknownPlu.json().error).toContain('PLU 00999');
  });

  it('cancel: a pending sale by the cashier puts the stock back; a paid one is a refund only an admin gives, booked in the open session', async () => {
    const s = await shop();
    const session = await openSession(s.asCashier);
    const pending = (await sell(s.asCashier, { box_id: 1, items: [{ product_id: s.yerba.id, quantity: 2 }] })).json().sale;
    expect(await stockIn(s.company.id, s.yerba.id)).toBe(48);
    const events = (await eventsOf(s.company.id)).length;
    const cancelled = await call('POST', `/api/v1/sales/${pending.id}/cancel`, s.asCashier, {
      reason: 'el cliente se arrepintió',
    });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(cancelled.json().sale).toMatchObject({ status: 'cancelled', cancellation_reason: 'el cliente se arrepintió' });
    expect(await stockIn(s.company.id, s.yerba.id)).toBe(50);
    expect((await eventsOf(s.company.id)).slice(events).map((e) => e.event)).toEqual([
      'sales.cancelled',
      'movement.created',
      'product.stock_updated',
    ]);
    // Same reason again: no change; another reason: refused; no reason: refused.
    expect(
      (await call('POST', `/api/v1/sales/${pending.id}/cancel`, s.asCashier, { reason: 'el cliente se arrepintió' })).statusCode,
    ).toBe(200);
    expect((await eventsOf(s.company.id)).length).toBe(events + 3);
    expect((await call('POST', `/api/v1/sales/${pending.id}/cancel`, s.asCashier, { reason: 'otro' })).statusCode).toBe(422);
    expect(
      (await call('POST', `/api/v1/sales/${pending.id}/pay`, s.asCashier, { payments: [{ method: 'efectivo', amount: 9000 }] }))
        .statusCode,
    ).toBe(422);

    const paid = (
      await sell(s.asCashier, {
        box_id: 1,
        items: [{ product_id: s.yerba.id, quantity: 1 }],
        payments: [{ method: 'efectivo', amount: 5000 }],
      })
    ).json().sale;
    const byCashier = await call('POST', `/api/v1/sales/${paid.id}/cancel`, s.asCashier, { reason: 'error' });
    // A cashier gives money back only with an admin's approval on the spot (issue 29).
    expect(byCashier.statusCode).toBe(403);
    expect(byCashier.json().code).toBe('refund_needs_approval');
    expect((await call('POST', `/api/v1/sales/${paid.id}/cancel`, s.asAdmin, { reason: '' })).statusCode).toBe(422);
    const refund = await call('POST', `/api/v1/sales/${paid.id}/cancel`, s.asAdmin, { reason: 'devolución: producto vencido' });
    expect(refund.statusCode, refund.body).toBe(200);
    expect(refund.json().sale).toMatchObject({ status: 'cancelled', refund_session_id: session.id });
    expect(await stockIn(s.company.id, s.yerba.id)).toBe(50);
    const audit = await t.container.db.query<{ action: string }>(
      `SELECT action FROM audit_log WHERE company_id = $1 AND action LIKE 'sale.%' ORDER BY id`,
      [s.company.id],
    );
    expect(audit.map((a) => a.action)).toEqual(['sale.cancelled', 'sale.refunded']);
    const report = (await call('GET', `/api/v1/box-sessions/${session.id}`, s.asCashier)).json();
    expect(report.refunds).toEqual([{ method: 'efectivo', amount: 3200, count: 1 }]);
    expect(report.expected.efectivo).toBe(1000);
  });

  it('an integration-received sale keeps today’s rule: cancelled while pending, stock untouched; a paid one cannot be', async () => {
    const s = await shop();
    await t.container.db.query(
      `INSERT INTO sales (company_id, id, box_id, total, status) VALUES ($1, 500, 1, 3200, 'pending'), ($1, 501, 1, 3200, 'paid')`,
      [s.company.id],
    );
    await t.container.db.query(
      `INSERT INTO sale_items (company_id, sale_id, id, product_id, quantity, price, subtotal) VALUES ($1, 500, 1, $2, 1, 3200, 3200)`,
      [s.company.id, s.yerba.id],
    );
    const res = await call('POST', '/api/v1/sales/500/cancel', s.asCashier, { reason: 'pedido web anulado' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().sale).toMatchObject({ source: 'integration', status: 'cancelled' });
    expect(await stockIn(s.company.id, s.yerba.id)).toBe(50);
    expect((await call('POST', '/api/v1/sales/501/cancel', s.asAdmin, { reason: 'x' })).statusCode).toBe(422);
    expect(
      (await call('POST', '/api/v1/sales/501/pay', s.asAdmin, { payments: [{ method: 'efectivo', amount: 1 }] })).statusCode,
    ).toBe(422);
  });

  it('box sessions: one open per box, the close report (expected, counted, difference per method), cash in and out', async () => {
    const s = await shop();
    const session = await openSession(s.asCashier, 1, 1000);
    const second = await call('POST', '/api/v1/box-sessions', s.asAdmin, { box_id: 1, opening_cash: 0 });
    expect(second.statusCode).toBe(409);
    expect(second.json().error).toContain('already has an open session');
    expect((await call('POST', '/api/v1/box-sessions', s.asAdmin, { box_id: 9, opening_cash: 0 })).statusCode).toBe(422);
    expect((await call('POST', '/api/v1/box-sessions', s.asAdmin, { box_id: 1, opening_cash: -1 })).statusCode).toBe(422);

    await sell(s.asCashier, {
      box_id: 1,
      items: [{ product_id: s.yerba.id, quantity: 1 }],
      payments: [{ method: 'efectivo', amount: 5000 }],
    });
    await sell(s.asCashier, {
      box_id: 1,
      items: [{ product_id: s.azucar.id, quantity: 2 }],
      payments: [
        { method: 'credito', amount: 2000 },
        { method: 'efectivo', amount: 301 },
      ],
    });
    expect(
      (await call('POST', `/api/v1/box-sessions/${session.id}/cash`, s.asCashier, { kind: 'in', amount: 200, reason: 'cambio' }))
        .statusCode,
    ).toBe(201);
    expect(
      (
        await call('POST', `/api/v1/box-sessions/${session.id}/cash`, s.asCashier, {
          kind: 'out',
          amount: 50,
          reason: 'pago flete',
        })
      ).statusCode,
    ).toBe(201);
    // Never more than the drawer is expected to hold (1000 + 3200 + 301 + 200 − 50 = 4651): a
    // withdrawal with three zeros too many is refused, naming the cash there, and changes nothing.
    for (const amount of [4651.01, 465_100]) {
      const tooMuch = await call('POST', `/api/v1/box-sessions/${session.id}/cash`, s.asCashier, {
        kind: 'out',
        amount,
        reason: 'retiro',
      });
      expect(tooMuch.statusCode, tooMuch.body).toBe(422);
      expect(tooMuch.json()).toMatchObject({
        code: 'validation_failed',
        details: [{ path: '/amount', message: 'more_than_cash', expected: '4651.00' }],
      });
    }
    const live = (await call('GET', `/api/v1/box-sessions/${session.id}`, s.asCashier)).json();
    // 1000 + 3200 + 301 + 200 − 50
    expect(live.expected).toEqual({ efectivo: 4651, credito: 2000 });
    expect(live.counted).toBeNull();
    expect(live.sales).toEqual({ count: 2, total: 5501 });

    const bad = await call('POST', `/api/v1/box-sessions/${session.id}/close`, s.asCashier, { counted: { cheque: 1 } });
    expect(bad.statusCode).toBe(422);
    const closed = await call('POST', `/api/v1/box-sessions/${session.id}/close`, s.asCashier, {
      counted: { efectivo: 4600, credito: 2000 },
      note: 'faltan 51',
    });
    expect(closed.statusCode, closed.body).toBe(200);
    expect(closed.json()).toMatchObject({
      session: { id: session.id, status: 'closed', closed_by: s.cashier.email, note: 'faltan 51' },
      expected: { efectivo: 4651, credito: 2000 },
      counted: { efectivo: 4600, credito: 2000 },
      difference: { efectivo: -51, credito: 0 },
      cash_in: 200,
      cash_out: 50,
    });
    expect((await call('POST', `/api/v1/box-sessions/${session.id}/close`, s.asCashier, { counted: {} })).statusCode).toBe(422);
    expect((await sell(s.asCashier, { box_id: 1, items: [{ product_id: s.yerba.id, quantity: 1 }] })).statusCode).toBe(422);
    // The report stays as it was closed; a new session may open.
    expect((await call('GET', `/api/v1/box-sessions/${session.id}`, s.asAdmin)).json().difference).toEqual({
      efectivo: -51,
      credito: 0,
    });
    await openSession(s.asCashier, 1, 4600);
    const list = (await call('GET', '/api/v1/box-sessions', s.asAdmin)).json().sessions;
    expect(list.map((r: { session: { status: string } }) => r.session.status)).toEqual(['open', 'closed']);
    const audit = await t.container.db.query<{ action: string }>(
      `SELECT action FROM audit_log WHERE company_id = $1 AND action LIKE 'box_session.%' ORDER BY id`,
      [s.company.id],
    );
    expect(audit.map((a) => a.action)).toEqual([
      'box_session.opened',
      'box_session.cash_moved',
      'box_session.cash_moved',
      'box_session.closed',
      'box_session.opened',
    ]);
  });

  it('access: cashiers and read-write tokens sell, read tokens only read, nobody without credentials; tenancy is strict', async () => {
    const s = await shop();
    const other = await shop();
    const read = await s.token('read');
    const write = await s.token('read-write');
    expect((await call('POST', '/api/v1/box-sessions', read, { box_id: 1, opening_cash: 0 })).statusCode).toBe(403);
    expect((await call('POST', '/api/v1/box-sessions', {}, { box_id: 1, opening_cash: 0 })).statusCode).toBe(401);
    const session = await openSession(write);
    const sale = (await sell(write, { box_id: 1, items: [{ product_id: s.yerba.id, quantity: 1 }] })).json().sale;
    expect((await sell(read, { box_id: 1, items: [{ product_id: s.yerba.id, quantity: 1 }] })).statusCode).toBe(403);
    expect((await call('GET', `/api/v1/sales/${sale.id}`, read)).statusCode).toBe(200);
    expect((await call('POST', `/api/v1/sales/${sale.id}/cancel`, read, { reason: 'x' })).statusCode).toBe(403);
    // Another company sees none of it.
    expect((await call('GET', `/api/v1/sales/${sale.id}`, other.asAdmin)).statusCode).toBe(404);
    expect((await call('POST', `/api/v1/sales/${sale.id}/cancel`, other.asAdmin, { reason: 'x' })).statusCode).toBe(404);
    expect(
      (await call('POST', `/api/v1/sales/${sale.id}/pay`, other.asAdmin, { payments: [{ method: 'efectivo', amount: 9999 }] }))
        .statusCode,
    ).toBe(404);
    expect((await call('GET', `/api/v1/box-sessions/${session.id}`, other.asAdmin)).statusCode).toBe(404);
    expect((await call('POST', `/api/v1/box-sessions/${session.id}/close`, other.asAdmin, { counted: {} })).statusCode).toBe(404);
    expect((await call('GET', '/api/v1/sales', other.asAdmin)).json().sales).toEqual([]);
  });

  it('lists with filters and a cursor, the day summary by method and box, CSV export, and the catalogue with its ETag', async () => {
    const s = await shop();
    await openSession(s.asCashier);
    await t.container.db.query(`INSERT INTO boxes (company_id, id, name) VALUES ($1, 2, 'Caja 2')`, [s.company.id]);
    await openSession(s.asCashier, 2, 0);
    const ids: number[] = [];
    for (const [box, method, qty] of [
      [1, 'efectivo', 1],
      [1, 'debito', 2],
      [2, 'qr', 1],
      [2, null, 1],
    ] as const) {
      const total = 3200 * qty;
      const res = await sell(s.asCashier, {
        box_id: box,
        items: [{ product_id: s.yerba.id, quantity: qty }],
        ...(method ? { payments: [{ method, amount: total }] } : {}),
      });
      ids.push(res.json().sale.id);
    }
    await call('POST', `/api/v1/sales/${ids[0]}/cancel`, s.asAdmin, { reason: 'prueba' });
    const all = (await call('GET', '/api/v1/sales?limit=3', s.asCashier)).json();
    expect(all.sales.map((x: { id: number }) => x.id)).toEqual([ids[3], ids[2], ids[1]]);
    const next = (await call('GET', `/api/v1/sales?limit=3&cursor=${all.next_cursor}`, s.asCashier)).json();
    expect(next.sales.map((x: { id: number }) => x.id)).toEqual([ids[0]]);
    expect(next.next_cursor).toBeNull();
    // A cursor past any sale number is not one this list gave: 400 naming it, never a database error.
    const past = await call('GET', '/api/v1/sales?cursor=9999999999', s.asCashier);
    expect([past.statusCode, past.json().code, past.json().details]).toEqual([
      400,
      'bad_request',
      [{ path: '/cursor', message: 'must be a next_cursor of this list (a sale number)' }],
    ]);
    const box2 = (await call('GET', '/api/v1/sales?box_id=2', s.asCashier)).json().sales;
    expect(box2).toHaveLength(2);
    expect(
      (await call('GET', '/api/v1/sales?status=pending', s.asCashier)).json().sales.map((x: { id: number }) => x.id),
    ).toEqual([ids[3]]);
    expect((await call('GET', '/api/v1/sales?method=debito', s.asCashier)).json().sales.map((x: { id: number }) => x.id)).toEqual(
      [ids[1]],
    );
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Argentina/Buenos_Aires' }).format(new Date());
    expect((await call('GET', `/api/v1/sales?from=${today}&to=${today}`, s.asCashier)).json().sales).toHaveLength(4);
    expect((await call('GET', '/api/v1/sales?from=2020-01-01&to=2020-01-31', s.asCashier)).json().sales).toHaveLength(0);
    expect((await call('GET', '/api/v1/sales?from=ayer', s.asCashier)).statusCode).toBe(422);

    const summary = (await call('GET', `/api/v1/sales/summary?date=${today}`, s.asAdmin)).json();
    expect(summary).toMatchObject({ date: today, count: 3, total: 12_800, pending: 3200, cancelled: 1 });
    expect(summary.by_method).toEqual([
      { method: 'debito', amount: 6400, count: 1 },
      { method: 'qr', amount: 3200, count: 1 },
    ]);
    expect(summary.by_box).toEqual([
      { box_id: 1, box_name: 'Caja 1', origin: 'register', count: 1, total: 6400 },
      { box_id: 2, box_name: 'Caja 2', origin: 'register', count: 2, total: 6400 },
    ]);

    const csv = await call('GET', '/api/v1/sales/export.csv?box_id=1', s.asAdmin);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    const lines = csv.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toContain('venta;fecha;caja');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain('Débito 6400,00');
    expect(lines[1]).toMatch(/^\d+;\d{2}\/\d{2}\/\d{4} \d{2}:\d{2};/);
    expect(lines[2]).toContain(';Caja;Anulada;3200,00;');
    expect(lines[0]).toContain(';cliente;factura;nota_de_credito;');

    // A customer name a spreadsheet would run as a formula stays text.
    await sell(s.asCashier, {
      box_id: 1,
      items: [{ product_id: s.yerba.id, quantity: 1 }],
      customer: { name: '=HYPERLINK("http://x")' },
    });
    const tricky = await call('GET', '/api/v1/sales/export.csv?status=pending&box_id=1', s.asAdmin);
    expect(tricky.body).toContain(`"'=HYPERLINK(""http://x"")"`);

    const catalog = await call('GET', '/api/v1/register/catalog', s.asCashier);
    expect(catalog.statusCode).toBe(200);
    expect(catalog.json().products).toContainEqual([s.yerba.id, 'Yerba 1kg', 3200, '7790001000011', null, 'unit']);
    const etag = catalog.headers['etag'] as string;
    // Any form of If-None-Match that names it: alone, weak (a proxy may weaken it), in a list, or *.
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await call('GET', '/api/v1/register/catalog', { ...s.asCashier, 'if-none-match': ifNoneMatch });
      expect([ifNoneMatch, res.statusCode]).toEqual([ifNoneMatch, 304]);
    }
    await makeProduct(t.container, s.company.id, { name: 'Nuevo' });
    expect((await call('GET', '/api/v1/register/catalog', { ...s.asCashier, 'if-none-match': etag })).statusCode).toBe(200);
    const state = (await call('GET', '/api/v1/register', s.asCashier)).json();
    expect(state).toMatchObject({ company: { name: s.company.company.name }, can_change_prices: false });
    expect(state.boxes.map((b: { name: string }) => b.name)).toEqual(['Caja 1', 'Caja 2']);
  });
});
