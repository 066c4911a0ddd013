import { gzipSync } from 'node:zlib';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/lib/errors.ts';
import { insertInboundEvent } from '../../src/modules/integration/integration.repo.ts';
import { MAX_NESTING_DEPTH } from '../../src/modules/integration/integration.validation.ts';
import { buildTestApp, captureLogs, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { countRows, poll, saleCreated, sendEvent } from '../integration-helpers.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

// Issue 11: each defect found by fuzzing, one case per field or value, on the backend under test.

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const BAD_DATE_TIMES = ['2024-12-31T23:59:60Z', '0000-01-01T00:00:00Z', '9999-12-31T23:59:59-23:59', '2026-03-10T12:00:00+16:00'];

describe('bad input never breaks the service (issue 11)', () => {
  let t: TestApp;
  const logs = captureLogs();
  let key: string;
  let companyId: number;
  let productId: number;
  let scannerToken: string;
  let nextId = 500;

  beforeAll(async () => {
    t = await buildTestApp({
      overrides: { logger: logs.logger },
      env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000', ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' },
    });
    const company = await makeCompany(t.container);
    key = company.integrationKey;
    companyId = company.id;
    scannerToken = company.scannerToken;
    productId = (await makeProduct(t.container, companyId, { name: 'Producto de prueba' })).id;
  });
  afterAll(() => t.close());

  /** Sends an event that must be refused with `status`/`code` and write nothing. */
  async function refused(envelope: unknown, status: number, code: string, raw?: string) {
    const before = await countRows(t.container.db.orm, companyId);
    const res = await sendEvent(t.app, key, envelope, raw === undefined ? {} : { raw });
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json()).toMatchObject({ error: expect.any(String), code });
    expect(await countRows(t.container.db.orm, companyId)).toEqual(before);
    return res.json() as { error: string; code: string; details?: { path: string; message: string }[] };
  }

  const product = (extra: Record<string, unknown>) => ({
    event: 'product.upserted',
    data: { product: { id: ++nextId, name: 'Yerba', ...extra } },
  });
  const salePaid = (extra: Record<string, unknown>) => ({ event: 'sales.paid', data: { sale: { id: ++nextId, ...extra } } });
  const saleCancelled = (extra: Record<string, unknown>) => ({
    event: 'sales.cancelled',
    data: { sale: { id: ++nextId, ...extra } },
  });
  const invoice = (extra: Record<string, unknown>) => ({
    event: 'invoice.issued',
    data: {
      invoice: {
        id: ++nextId,
        sale_id: 1,
        type: 'B',
        point_of_sale: 1,
        number: nextId,
        cae: '12345678901234',
        cae_expiration: '2026-03-20T00:00:00Z',
        total: 100,
        ...extra,
      },
    },
  });
  const movement = (extra: Record<string, unknown>) => ({
    event: 'movement.created',
    data: { movement: { id: ++nextId, type: 'IN', deposit_id: 1, product_id: productId, amount: 1, ...extra } },
  });
  const stock = (extra: Record<string, unknown>) => ({
    event: 'product.stock_updated',
    data: { product: { id: productId, stock: 5, ...extra } },
  });

  describe('1. nesting deeper than the limit is refused at ingest; polling cannot fail on a stored row', () => {
    it.each([5_000, 20_000, MAX_NESTING_DEPTH])('refuses data nested %i arrays deep with 422 naming the limit', async (depth) => {
      const raw = `{"event":"product.upserted","data":{"product":{"id":${++nextId},"name":"x","extra":${nested(depth)}}}}`;
      const body = await refused(null, 422, 'validation_failed', raw);
      expect(body.error).toContain(`deeper than ${MAX_NESTING_DEPTH} levels`);
      expect(body.details).toEqual([expect.objectContaining({ path: 'data' })]);
    });

    it('accepts nesting up to the limit (envelope included)', async () => {
      // envelope 1, data 2, product 3, extra 4..MAX: the innermost array is at level MAX.
      const raw = `{"event":"product.upserted","data":{"product":{"id":${++nextId},"name":"x","extra":${nested(MAX_NESTING_DEPTH - 3)}}}}`;
      const res = await sendEvent(t.app, key, null, { raw });
      expect(res.statusCode, res.body).toBe(200);
    });

    it('serves a page holding a row stored before the limit (5,000 levels) with 200 and its exact text', async () => {
      const other = await makeCompany(t.container);
      const text = `{"event":"product.upserted","data":{"product":{"id":1,"extra":${nested(5_000)}}}}`;
      await t.container.db.orm.transaction((tx) =>
        insertInboundEvent(tx, {
          id: '00000000-0000-4000-8000-00000000d33b',
          companyId: other.id,
          event: 'product.upserted',
          idempotencyKey: 'deep',
          payloadText: text,
          bodySha256: '0'.repeat(64),
          signatureValid: true,
        }),
      );
      const res = await poll(t.app, other.integrationKey);
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain(`"payload":${text},"signature_valid":true}`);
      expect(res.json().meta.next_since).toBe(res.json().events[0].received_at);
    });
  });

  describe('2. a NUL character is refused, never a 500', () => {
    const NUL = 'a\u0000b';
    it.each([
      ['product.upserted name', () => product({ name: NUL }), 'data.product.name'],
      ['product.upserted sku', () => product({ sku: NUL }), 'data.product.sku'],
      ['product.upserted description', () => product({ description: NUL }), 'data.product.description'],
      ['product.upserted mark', () => product({ mark: NUL }), 'data.product.mark'],
      ['product.upserted BC', () => product({ BC: NUL }), 'data.product.BC'],
      ['movement.created reason', () => movement({ reason: NUL }), 'data.movement.reason'],
      ['invoice.issued type', () => invoice({ type: NUL }), 'data.invoice.type'],
      [
        'sales.created payment_method',
        () => saleCreated(++nextId, productId, { payment_method: NUL }),
        'data.sale.payment_method',
      ],
      ['sales.paid payment_method', () => salePaid({ payment_method: NUL }), 'data.sale.payment_method'],
      ['sales.paid payment_id', () => salePaid({ payment_id: NUL }), 'data.sale.payment_id'],
      ['sales.cancelled reason', () => saleCancelled({ cancellation_reason: NUL }), 'data.sale.cancellation_reason'],
      ['product.stock_updated sku', () => stock({ sku: NUL }), 'data.product.sku'],
      ['an unknown field', () => product({ extra: { note: NUL } }), 'data.product.extra.note'],
      ['a key', () => product({ [NUL]: 1 }), 'data.product.a\\u0000b'],
    ])('in %s: 422 with the path', async (_name, envelope, path) => {
      const body = await refused(envelope(), 422, 'validation_failed');
      expect(body.details).toContainEqual({ path, message: expect.stringContaining('NUL') });
    });

    it('beside data in the envelope too, in a value or a key: 422 with the path', async () => {
      for (const [raw, path] of [
        [`{"event":"sales.paid","data":{"sale":{"id":1}},"note":"a\\u0000b"}`, 'note'],
        [`{"event":"sales.paid","data":{"sale":{"id":1}},"meta":{"tags":["ok","a\\u0000b"]}}`, 'meta.tags.1'],
        [`{"event":"sales.paid","data":{"sale":{"id":1}},"a\\u0000b":1}`, 'a\\u0000b'],
      ] as const) {
        const body = await refused(null, 422, 'validation_failed', raw);
        expect(body.details).toEqual([{ path, message: expect.stringContaining('NUL') }]);
      }
    });

    it('an unpaired surrogate (\\ud800) is refused with 422 as well', async () => {
      const raw = `{"event":"product.upserted","data":{"product":{"id":${++nextId},"name":"a\\ud800b"}}}`;
      const body = await refused(null, 422, 'validation_failed', raw);
      expect(body.details).toContainEqual({ path: 'data.product.name', message: expect.stringContaining('surrogate') });
    });

    it('query=Producto%00 on the scanner: 400', async () => {
      const res = await t.app.inject({ method: 'GET', url: `/api/public/scanner?token=${scannerToken}&query=Producto%00` });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'bad_request', details: [{ path: '/query' }] });
    });

    // Since issue 26 the shared input guard refuses it before the route, like every body string: 422.
    it('an email with \\u0000 on /api/auth/login: 422, no audit row', async () => {
      const count = async () => (await t.container.db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_log'))[0]!.n;
      const before = await count();
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/auth/login',
        headers: SAME_ORIGIN,
        payload: { email: 'ana\u0000@example.com', password: 'x' },
      });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ code: 'validation_failed', details: [{ path: '/email' }] });
      expect(await count()).toBe(before);
    });
  });

  describe('2b. integers in the path and the query are decimal digits: 400, never read as something else', () => {
    it.each(['0x1', '1e0', '%201', '1.0', '12345678901234567890'])('companyId=%s on the scanner', async (value) => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/public/scanner?token=${scannerToken}&query=Producto&companyId=${value}`,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'bad_request', details: [{ path: '/companyId' }] });
    });

    it('the same company id written in digits is answered', async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/public/scanner?token=${scannerToken}&query=Producto&companyId=${companyId}`,
      });
      expect(res.statusCode).toBe(200);
    });

    it.each(['0x1', '1e0', '1.0'])('a product id %s in a merchant API path', async (value) => {
      const admin = await makeUser(t.container, { companyId, role: 'admin' });
      const { cookie } = await login(t.app, admin.email, admin.password);
      const res = await t.app.inject({ method: 'GET', url: `/api/v1/products/${value}`, headers: { cookie } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'bad_request', details: [{ path: '/id' }] });
      const plain = await t.app.inject({ method: 'GET', url: `/api/v1/products/${productId}`, headers: { cookie } });
      expect(plain.statusCode).toBe(200);
    });
  });

  describe('3. date-times outside the accepted range, or with a leap second', () => {
    const cases: [string, (value: string) => unknown, string][] = [
      ['sales.created created_at', (v) => saleCreated(++nextId, productId, { created_at: v }), 'data.sale.created_at'],
      ['sales.paid paid_at', (v) => salePaid({ paid_at: v }), 'data.sale.paid_at'],
      ['sales.cancelled cancelled_at', (v) => saleCancelled({ cancelled_at: v }), 'data.sale.cancelled_at'],
      ['invoice.issued issued_at', (v) => invoice({ issued_at: v }), 'data.invoice.issued_at'],
      ['invoice.issued cae_expiration', (v) => invoice({ cae_expiration: v }), 'data.invoice.cae_expiration'],
      ['movement.created created_at', (v) => movement({ created_at: v }), 'data.movement.created_at'],
      ['product.upserted updated_at', (v) => product({ updated_at: v }), 'data.product.updated_at'],
      ['product.stock_updated updated_at', (v) => stock({ updated_at: v }), 'data.product.updated_at'],
    ];
    for (const value of BAD_DATE_TIMES) {
      it.each(cases)(`${value} in %s: 422`, async (_name, envelope, path) => {
        const body = await refused(envelope(value), 422, 'validation_failed');
        expect(body.details).toContainEqual({ path, message: expect.stringContaining('date-time') });
      });

      it(`${value} in since: 400`, async () => {
        const res = await poll(t.app, key, { since: value });
        expect(res.statusCode).toBe(400);
        // A query problem is named by a JSON Pointer into the query, as on the merchant API.
        expect(res.json()).toMatchObject({ code: 'bad_request', details: [{ path: '/since' }] });
      });
    }

    it('accepts the ends of the range', async () => {
      for (const since of ['0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999999Z']) {
        expect((await poll(t.app, key, { since })).statusCode).toBe(200);
      }
      const res = await sendEvent(t.app, key, product({ updated_at: '0001-01-01T00:00:00Z' }));
      expect(res.statusCode, res.body).toBe(200);
    });
  });

  describe('4. secret query parameters are redacted however their name is encoded', () => {
    it.each([
      ['/api/public/scanner?t%6Fken=SECRET&query=Yerba', 200],
      ['/api/public/scanner?query=Yerba&%74oken=SECRET', 200],
      ['/api/public/scanner?query=Yerba&token%5B%5D=SECRET', 400],
      ['/scanner?t%6Fken=SECRET', 200],
      ['/scanner?TOKEN=SECRET', 400],
    ])('%s', async (url, status) => {
      logs.lines.length = 0;
      const res = await t.app.inject({ method: 'GET', url: url.replace('SECRET', scannerToken) });
      expect(res.statusCode).toBe(status);
      expect(logs.lines.some((line) => line.includes('[Redacted]'))).toBe(true);
      expect(logs.lines.join('\n')).not.toContain(scannerToken);
    });
  });

  describe('5. events: null on the webhook settings API means every event', () => {
    it('POST and PATCH accept null, and PATCH switches an endpoint back to every event', async () => {
      const user = await makeUser(t.container, { companyId, role: 'admin' });
      const { cookie } = await login(t.app, user.email, user.password);
      const headers = { cookie, ...SAME_ORIGIN };
      const base = '/api/settings/integrations/webhooks';
      const created = await t.app.inject({
        method: 'POST',
        url: base,
        headers,
        payload: { url: 'http://127.0.0.1:9/hooks', events: null },
      });
      expect(created.statusCode, created.body).toBe(201);
      expect(created.json().endpoint.events).toBeNull();
      const id = created.json().endpoint.id;
      const narrowed = await t.app.inject({
        method: 'PATCH',
        url: `${base}/${id}`,
        headers,
        payload: { events: ['sales.paid'] },
      });
      expect(narrowed.json().endpoint.events).toEqual(['sales.paid']);
      const widened = await t.app.inject({ method: 'PATCH', url: `${base}/${id}`, headers, payload: { events: null } });
      expect(widened.statusCode, widened.body).toBe(200);
      expect(widened.json().endpoint.events).toBeNull();
      // Query strings still coerce scalars (limit=5 is a number) after the change of coerceTypes.
      const deliveries = await t.app.inject({ method: 'GET', url: `${base}/${id}/deliveries?limit=5`, headers });
      expect(deliveries.statusCode, deliveries.body).toBe(200);
      const wrong = await t.app.inject({ method: 'GET', url: `${base}/${id}/deliveries?limit=abc`, headers });
      expect(wrong.statusCode).toBe(400);
    });
  });

  describe('6. values that the stored precision turns into zero are refused', () => {
    it.each([
      [
        'quantity 0.0001',
        () => saleCreated(++nextId, productId, { total: 0, items: [{ product_id: productId, quantity: 0.0001, price: 100 }] }),
        'data.sale.items.0.quantity',
        '3 decimals',
      ],
      [
        'price 1e-9',
        () => saleCreated(++nextId, productId, { total: 0, items: [{ product_id: productId, quantity: 1, price: 1e-9 }] }),
        'data.sale.items.0.price',
        '2 decimals',
      ],
      ['total 0.001', () => saleCreated(++nextId, productId, { total: 0.001 }), 'data.sale.total', '2 decimals'],
      ['ADJUSTMENT amount 0', () => movement({ type: 'ADJUSTMENT', amount: 0 }), 'data.movement.amount', 'must not be 0'],
      [
        'ADJUSTMENT amount -0.0004',
        () => movement({ type: 'ADJUSTMENT', amount: -0.0004 }),
        'data.movement.amount',
        '3 decimals',
      ],
      ['IN amount 0.0001', () => movement({ amount: 0.0001 }), 'data.movement.amount', '3 decimals'],
      ['base_price 0.004', () => product({ base_price: 0.004 }), 'data.product.base_price', '2 decimals'],
      ['stock 0.0002', () => stock({ stock: 0.0002 }), 'data.product.stock', '3 decimals'],
    ])('%s: 422 naming the field and the precision', async (_name, envelope, path, precision) => {
      const body = await refused(envelope(), 422, 'validation_failed');
      expect(body.details).toContainEqual({ path, message: expect.stringContaining(precision) });
    });

    it('still accepts exact zeros where they mean something (a free item, a stock of 0)', async () => {
      const free = saleCreated(++nextId, productId, { total: 0, items: [{ product_id: productId, quantity: 1, price: 0 }] });
      expect((await sendEvent(t.app, key, free)).statusCode).toBe(200);
      expect((await sendEvent(t.app, key, stock({ stock: 0 }))).statusCode).toBe(200);
    });
  });

  describe('6b. the merchant API refuses them too, and changes nothing', () => {
    let shop: { headers: Record<string, string>; companyId: number; productId: number; customerId: number; saleId: number };
    beforeAll(async () => {
      const company = await makeCompany(t.container, { name: 'Precisión' });
      const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
      const headers = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
      const yerba = await makeProduct(t.container, company.id, { name: 'Yerba', basePrice: 3200, stock: 40 });
      const ask = (url: string, payload: object) =>
        t.app.inject({ method: 'POST', url, headers: { ...headers, 'x-idempotency-key': crypto.randomUUID() }, payload });
      expect((await ask('/api/v1/box-sessions', { box_id: 1, opening_cash: 100 })).statusCode).toBe(201);
      const customer = await ask('/api/v1/customers', { name: 'Juan', account_enabled: true });
      const sale = await ask('/api/v1/sales', {
        box_id: 1,
        items: [{ product_id: yerba.id, quantity: 1 }],
        payments: [{ method: 'cuenta_corriente', amount: 3200 }],
        customer: { id: customer.json().customer.id },
      });
      expect(sale.statusCode, sale.body).toBe(201);
      shop = {
        headers,
        companyId: company.id,
        productId: yerba.id,
        customerId: customer.json().customer.id,
        saleId: sale.json().sale.id,
      };
    });

    /** Everything these requests could write, as rows (a silent 0 would show as a changed value). */
    const snapshot = (companyId: number) =>
      t.container.db.query(
        `SELECT (SELECT json_agg(x ORDER BY x.id) FROM box_sessions x WHERE company_id = $1) AS sessions,
           (SELECT json_agg(x ORDER BY x.id) FROM box_cash_moves x WHERE company_id = $1) AS cash,
           (SELECT json_agg(x ORDER BY x.id) FROM products x WHERE company_id = $1) AS products,
           (SELECT json_agg(x ORDER BY x.id) FROM customers x WHERE company_id = $1) AS customers,
           (SELECT json_agg(x ORDER BY x.id) FROM account_payments x WHERE company_id = $1) AS account_payments,
           (SELECT json_agg(x ORDER BY x.id) FROM sales x WHERE company_id = $1) AS sales,
           (SELECT json_agg(x ORDER BY x.id) FROM sale_returns x WHERE company_id = $1) AS returns,
           (SELECT json_agg(x ORDER BY x.id) FROM movements x WHERE company_id = $1) AS movements`,
        [companyId],
      );

    it.each([
      ['opening cash 0.001', '/api/v1/box-sessions', () => ({ box_id: 2, opening_cash: 0.001 }), '/opening_cash', '2 decimals'],
      [
        'cash in 0.004',
        '/api/v1/box-sessions/1/cash',
        () => ({ kind: 'in', amount: 0.004, reason: 'cambio' }),
        '/amount',
        '2 decimals',
      ],
      [
        'counted 0.001 at the close',
        '/api/v1/box-sessions/1/close',
        () => ({ counted: { efectivo: 0.001 } }),
        '/counted/efectivo',
        '2 decimals',
      ],
      [
        'price 0.004 (a free item without a word)',
        '/api/v1/sales',
        () => ({
          box_id: 1,
          items: [{ product_id: shop.productId, quantity: 1, price: 0.004 }],
          payments: [{ method: 'efectivo', amount: 1 }],
        }),
        '/items/0/price',
        '2 decimals',
      ],
      [
        'payment 0.001',
        '/api/v1/sales',
        () => ({
          box_id: 1,
          items: [{ product_id: shop.productId, quantity: 1 }],
          payments: [{ method: 'efectivo', amount: 0.001 }],
        }),
        '/payments/0/amount',
        '2 decimals',
      ],
      [
        'quantity 0.0004',
        '/api/v1/sales',
        () => ({
          box_id: 1,
          items: [{ product_id: shop.productId, quantity: 0.0004 }],
          payments: [{ method: 'efectivo', amount: 1 }],
        }),
        '/items/0/quantity',
        '3 decimals',
      ],
      ['product price 0.001', '/api/v1/products', () => ({ name: 'Sin precio', base_price: 0.001 }), '/base_price', '2 decimals'],
      [
        'ADJUSTMENT to 0.0001 (a count of 0)',
        '/api/v1/movements',
        () => ({ type: 'ADJUSTMENT', product_id: shop.productId, deposit_id: 1, amount: 0.0001 }),
        '/amount',
        '3 decimals',
      ],
      ['credit limit 0.001', '/api/v1/customers', () => ({ name: 'Ana', credit_limit: 0.001 }), '/credit_limit', '2 decimals'],
      [
        'payment on account 0.001',
        '/api/v1/customers/:customer/payments',
        () => ({ amount: 0.001, method: 'efectivo', box_id: 1 }),
        '/amount',
        '2 decimals',
      ],
      [
        'return of 0.0001',
        '/api/v1/sales/:sale/returns',
        () => ({ lines: [{ item_id: 1, quantity: 0.0001 }], refund: 'store_credit' }),
        '/lines/0/quantity',
        '3 decimals',
      ],
    ])('%s: 422 naming the field', async (_name, url, body, path, precision) => {
      const before = await snapshot(shop.companyId);
      const res = await t.app.inject({
        method: 'POST',
        url: url.replace(':customer', String(shop.customerId)).replace(':sale', String(shop.saleId)),
        headers: { ...shop.headers, 'x-idempotency-key': crypto.randomUUID() },
        payload: body(),
      });
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json()).toMatchObject({ code: 'validation_failed', error: expect.stringContaining('rounds to 0') });
      expect(res.json().details).toContainEqual({ path, message: expect.stringContaining(precision) });
      expect(await snapshot(shop.companyId)).toEqual(before);
    });

    it('accepts a cent, and an exact 0 where it means something', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/products',
        headers: shop.headers,
        payload: { name: 'Un centavo', base_price: 0.01, cost: 0 },
      });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().product).toMatchObject({ base_price: 0.01, cost: 0 });
    });
  });

  describe('6f. a JSON body is checked with the types it was sent in: null or true is not a number', () => {
    let shop: { headers: Record<string, string>; companyId: number; productId: number };
    beforeAll(async () => {
      const company = await makeCompany(t.container, { name: 'Tipos' });
      const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
      const headers = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
      const product = await makeProduct(t.container, company.id, { name: 'Yerba', basePrice: 3200, stock: 40 });
      shop = { headers, companyId: company.id, productId: product.id };
      const open = await t.app.inject({
        method: 'POST',
        url: '/api/v1/box-sessions',
        headers: { ...headers, 'x-idempotency-key': crypto.randomUUID() },
        payload: { box_id: 1, opening_cash: 0 },
      });
      expect(open.statusCode, open.body).toBe(201);
    });
    const rows = (companyId: number) =>
      t.container.db.query(
        `SELECT (SELECT json_agg(x ORDER BY x.id) FROM products x WHERE company_id = $1) AS products,
           (SELECT json_agg(x ORDER BY x.id) FROM sales x WHERE company_id = $1) AS sales`,
        [companyId],
      );

    it.each([
      ['a new product priced null', 'POST', '/api/v1/products', () => ({ name: 'Nulo', base_price: null }), '/base_price'],
      ['a price of true', 'PATCH', '/api/v1/products/:product', () => ({ base_price: true }), '/base_price'],
      ['enable null (a live product switched off)', 'PATCH', '/api/v1/products/:product', () => ({ enable: null }), '/enable'],
      [
        'a sale line priced null (a paid $ 0 sale)',
        'POST',
        '/api/v1/sales',
        () => ({ box_id: 1, items: [{ product_id: shop.productId, quantity: 1, price: null }] }),
        '/items/0/price',
      ],
    ])('%s: 422 naming the field, nothing written', async (_name, method, url, body, path) => {
      const before = await rows(shop.companyId);
      const res = await t.app.inject({
        method: method as 'POST' | 'PATCH',
        url: url.replace(':product', String(shop.productId)),
        headers: { ...shop.headers, 'x-idempotency-key': crypto.randomUUID() },
        payload: body(),
      });
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json().code).toBe('validation_failed');
      expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path);
      expect(await rows(shop.companyId)).toEqual(before);
    });

    it('null clears a field that may be empty (cost, minimum stock) instead of storing 0', async () => {
      const url = `/api/v1/products/${shop.productId}`;
      const set = await t.app.inject({ method: 'PATCH', url, headers: shop.headers, payload: { cost: 1500, min_stock: 5 } });
      expect(set.json().product).toMatchObject({ cost: 1500, min_stock: 5 });
      const cleared = await t.app.inject({
        method: 'PATCH',
        url,
        headers: shop.headers,
        payload: { cost: null, min_stock: null },
      });
      expect(cleared.statusCode, cleared.body).toBe(200);
      expect(cleared.json().product).toMatchObject({ cost: null, min_stock: null });
    });

    it('the query string is still text read as numbers (?limit=5)', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/products?limit=1', headers: shop.headers });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().products).toHaveLength(1);
    });
  });

  describe('6c. compressed bodies, crossed content types and repeated spreadsheet columns: 415 or 422, nothing written', () => {
    let headers: Record<string, string>;
    let shopId: number;
    beforeAll(async () => {
      const company = await makeCompany(t.container, { name: 'Tipos de contenido' });
      const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
      headers = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
      shopId = company.id;
    });
    const products = async () =>
      (await t.container.db.query<{ n: number }>('SELECT count(*)::int AS n FROM products WHERE company_id = $1', [shopId]))[0]!
        .n;
    const post = (url: string, extra: Record<string, string>, payload: Buffer | string) =>
      t.app.inject({ method: 'POST', url, headers: { ...headers, ...extra }, payload });
    const json = JSON.stringify({ name: 'Yerba', base_price: 100 });

    it.each([
      [
        'gzip-compressed JSON',
        { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        gzipSync(json),
        'content-encoding',
      ],
      ['plain JSON labelled br', { 'content-type': 'application/json', 'content-encoding': 'br' }, json, 'content-encoding'],
      ['a CSV sent to a JSON route', { 'content-type': 'text/csv' }, 'nombre;precio\nYerba;100', 'application/json'],
    ])('%s is 415', async (_name, extra, payload, hint) => {
      const res = await post('/api/v1/products', extra, payload);
      expect(res.statusCode, res.body).toBe(415);
      expect(res.json()).toMatchObject({ code: 'unsupported_media_type', error: expect.stringContaining(hint) });
      expect(await products()).toBe(0);
    });

    it('a body with content-encoding identity is the plain body', async () => {
      const res = await post('/api/v1/products', { 'content-type': 'application/json', 'content-encoding': 'identity' }, json);
      expect(res.statusCode, res.body).toBe(201);
      await t.container.db.query('DELETE FROM products WHERE company_id = $1', [shopId]);
    });

    it('the integration refuses a compressed event and stores nothing', async () => {
      const before = await countRows(t.container.db.orm, companyId);
      const raw = JSON.stringify(product({}));
      const res = await sendEvent(t.app, key, null, { raw, headers: { 'content-encoding': 'gzip' } });
      expect(res.statusCode, res.body).toBe(415);
      expect(res.json()).toMatchObject({ code: 'unsupported_media_type' });
      expect(await countRows(t.container.db.orm, companyId)).toEqual(before);
    });

    it.each([
      ['/api/v1/products/import', 'sku;nombre;precio;precio\nA-1;Uno;100;200', 'precio'],
      ['/api/v1/products/import', 'sku;nombre;precio;price\nA-1;Uno;100;200', 'price'],
      ['/api/v1/customers/import', 'nombre;telefono;telefono\nJuan;1144445555;1155556666', 'telefono'],
    ])('%s with a repeated column (%s) is refused whole', async (url, csv, found) => {
      const res = await post(url, { 'content-type': 'text/csv' }, csv);
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json()).toMatchObject({
        code: 'validation_failed',
        details: [{ path: '/body', message: 'repeated_column', found }],
      });
      expect(await products()).toBe(0);
      const customers = await t.container.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM customers WHERE company_id = $1',
        [shopId],
      );
      expect(customers[0]!.n).toBe(0);
    });

    it('an Excel workbook sent as such to the product import is told to save it as CSV', async () => {
      const res = await post(
        '/api/v1/products/import',
        { 'content-type': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' },
        Buffer.from('PK\x03\x04 not really a workbook'),
      );
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json()).toMatchObject({ details: [{ path: '/body', message: 'not_text', found: 'xlsx' }] });
    });
  });

  describe('6d. sums of amounts at their limit: the shift still closes, an account refuses what it cannot hold', () => {
    it('a shift with three sales of $ 999.999.999.999 closes, its report adding up; a customer account refuses a second one before taking a number', async () => {
      const company = await makeCompany(t.container, { name: 'Montos al límite' });
      const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
      const headers = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
      const ask = (url: string, payload: object) =>
        t.app.inject({ method: 'POST', url, headers: { ...headers, 'x-idempotency-key': crypto.randomUUID() }, payload });
      const dear = await makeProduct(t.container, company.id, { name: 'Caro', basePrice: 999_999_999_999, stock: 1000 });
      expect((await ask('/api/v1/box-sessions', { box_id: 1, opening_cash: 0 })).statusCode).toBe(201);
      const customer = (await ask('/api/v1/customers', { name: 'Juan', account_enabled: true })).json().customer;
      const onAccount = () =>
        ask('/api/v1/sales', {
          box_id: 1,
          items: [{ product_id: dear.id, quantity: 1 }],
          payments: [{ method: 'cuenta_corriente', amount: 999_999_999_999 }],
          customer: { id: customer.id },
        });
      expect((await onAccount()).statusCode).toBe(201);
      const refused = await onAccount();
      expect(refused.statusCode, refused.body).toBe(409);
      expect(refused.json()).toMatchObject({
        code: 'credit_limit_exceeded',
        details: [{ path: '/payments', message: 'account_balance_max' }],
      });
      const ids: number[] = [];
      for (let n = 0; n < 3; n++) {
        const sale = await ask('/api/v1/sales', {
          box_id: 1,
          items: [{ product_id: dear.id, quantity: 1 }],
          payments: [{ method: 'efectivo', amount: 999_999_999_999 }],
        });
        expect(sale.statusCode, sale.body).toBe(201);
        ids.push(sale.json().sale.id);
      }
      // The refused sale took no number: no hole in the company's N.º.
      expect(ids).toEqual([2, 3, 4]);
      // Saldo a favor has the same limit: a second payment of the most an amount holds is refused, whole.
      const other = (await ask('/api/v1/customers', { name: 'Ana', account_enabled: true })).json().customer;
      const pay = () => ask(`/api/v1/customers/${other.id}/payments`, { amount: 999_999_999_999, method: 'transferencia' });
      expect((await pay()).statusCode).toBe(201);
      const overpaid = await pay();
      expect(overpaid.statusCode, overpaid.body).toBe(422);
      expect(overpaid.json()).toMatchObject({
        code: 'validation_failed',
        details: [{ path: '/amount', message: 'account_balance_max' }],
      });
      const account = await t.app.inject({ url: `/api/v1/customers/${other.id}/account`, headers });
      expect(account.json().account).toMatchObject({ balance: -999_999_999_999 });
      // What a drawer can be counted at is one amount's limit; the difference says the rest.
      const closed = await ask('/api/v1/box-sessions/1/close', { counted: { efectivo: 999_999_999_999 } });
      expect(closed.statusCode, closed.body).toBe(200);
      expect(closed.json()).toMatchObject({
        sales: { count: 4, total: 3_999_999_999_996 },
        expected: { efectivo: 2_999_999_999_997 },
        difference: { efectivo: -1_999_999_999_998 },
      });
    });
  });

  describe('6e. a register sale past what an amount holds: 422 with the line, nothing written, no number taken', () => {
    it('a line or a total above $ 999.999.999.999,99 is refused by path, whatever the quantity', async () => {
      const company = await makeCompany(t.container, { name: 'Ventas enormes' });
      const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
      const headers = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
      const ask = (url: string, payload: object) =>
        t.app.inject({ method: 'POST', url, headers: { ...headers, 'x-idempotency-key': crypto.randomUUID() }, payload });
      const dear = await makeProduct(t.container, company.id, { name: 'Caro', basePrice: 999_999_999_999.99, stock: 1000 });
      const half = await makeProduct(t.container, company.id, { name: 'Medio', basePrice: 600_000_000_000, stock: 1000 });
      expect((await ask('/api/v1/box-sessions', { box_id: 1, opening_cash: 0 })).statusCode).toBe(201);
      const before = await countRows(t.container.db.orm, company.id);
      const cases: [string, object, string][] = [
        // 91 × the most: past 2^53 cents (answered 500 before); 2 × the most: past the column (a generic 422).
        ['91 of the dearest', { items: [{ product_id: dear.id, quantity: 91 }] }, '/items/0'],
        ['2 of the dearest', { items: [{ product_id: dear.id, quantity: 2 }] }, '/items/0'],
        [
          '91 lines of the dearest',
          { items: Array.from({ length: 91 }, () => ({ product_id: dear.id, quantity: 1 })) },
          '/items',
        ],
        [
          'two lines that fit, a total that does not',
          {
            items: [
              { product_id: half.id, quantity: 1 },
              { product_id: half.id, quantity: 1, price: 600_000_000_000 },
            ],
          },
          '/items',
        ],
      ];
      for (const [name, body, path] of cases) {
        const res = await ask('/api/v1/sales', {
          box_id: 1,
          ...body,
          payments: [{ method: 'efectivo', amount: 999_999_999_999 }],
        });
        expect([name, res.statusCode], res.body).toEqual([name, 422]);
        expect(res.json()).toMatchObject({ code: 'validation_failed', details: [{ path }] });
      }
      expect(await countRows(t.container.db.orm, company.id)).toEqual(before);
      // A payment holds what an amount holds, not a cent more.
      const tooMuch = await ask('/api/v1/sales', {
        box_id: 1,
        items: [{ product_id: dear.id, quantity: 1 }],
        payments: [{ method: 'efectivo', amount: 1_000_000_000_000 }],
      });
      expect(tooMuch.statusCode, tooMuch.body).toBe(422);
      expect(tooMuch.json()).toMatchObject({ code: 'validation_failed', details: [{ path: '/payments/0/amount' }] });
      expect(await countRows(t.container.db.orm, company.id)).toEqual(before);
      // The most an amount holds still sells, paid at once (one payment of it), and takes the first number.
      const most = await ask('/api/v1/sales', {
        box_id: 1,
        items: [{ product_id: dear.id, quantity: 1 }],
        payments: [{ method: 'efectivo', amount: 999_999_999_999.99 }],
      });
      expect(most.statusCode, most.body).toBe(201);
      expect(most.json().sale).toMatchObject({
        id: 1,
        status: 'paid',
        total: 999_999_999_999.99,
        paid_total: 999_999_999_999.99,
        change: 0,
        payments: [{ method: 'efectivo', amount: 999_999_999_999.99 }],
      });
    });
  });

  describe('7. contract deviations', () => {
    it.each([
      ['__proto__', '"__proto__":{"isAdmin":true}'],
      ['constructor.prototype', '"constructor":{"prototype":{"isAdmin":true}}'],
    ])('valid JSON with a %s key is accepted safely, and served back as received', async (_name, member) => {
      const id = ++nextId;
      const raw = `{"event":"product.upserted","data":{"product":{"id":${id},"name":"Proto",${member}}}}`;
      const res = await sendEvent(t.app, key, null, { raw });
      expect(res.statusCode, res.body).toBe(200);
      expect(({} as Record<string, unknown>)['isAdmin']).toBeUndefined();
      const page = await poll(t.app, key, { limit: 200 });
      expect(page.body).toContain(`"payload":${raw}`);
    });

    it('polling serves the envelope exactly as received: big numbers and 1e400 keep their text', async () => {
      const raw = `{"event":"product.upserted","data":{"product":{"id":${++nextId},"name":"N","ref":123456789012345678901234567890,"big":1e400,"x":1.0}}}`;
      expect((await sendEvent(t.app, key, null, { raw })).statusCode).toBe(200);
      const page = await poll(t.app, key, { limit: 200 });
      expect(page.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(page.body).toContain(`"payload":${raw}`);
      expect(page.json().events.at(-1).payload.data.product.name).toBe('N');
    });

    it('a byte order mark before the JSON is ignored', async () => {
      const raw = `\uFEFF${JSON.stringify(product({}))}`;
      expect((await sendEvent(t.app, key, null, { raw })).statusCode).toBe(200);
    });

    it.each(['/docs/%', '/docs/%zz', '/api/integration/in/%'])('%s answers the house error body', async (url) => {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: expect.stringContaining('percent-encoded'), code: 'bad_request' });
      expect(res.headers['x-request-id']).toBeDefined();
    });
  });

  describe('photo accepts only http(s) URLs', () => {
    it.each(['javascript:alert(1)', 'data:image/png;base64,AAAA', 'ftp://example.com/a.png', 'file:///etc/passwd'])(
      '%s: 422',
      async (photo) => {
        const body = await refused(product({ photo }), 422, 'validation_failed');
        expect(body.details).toContainEqual({ path: 'data.product.photo', message: expect.any(String) });
      },
    );

    it('https and http are accepted', async () => {
      expect((await sendEvent(t.app, key, product({ photo: 'https://cdn.example.com/a.png' }))).statusCode).toBe(200);
      expect((await sendEvent(t.app, key, product({ photo: 'HTTP://cdn.example.com/a.png' }))).statusCode).toBe(200);
    });
  });

  describe('8. a failed query logs its statement name, never its values', () => {
    it('a failing statement run through the ORM, alone or as the cause of another error', async () => {
      const secretValue = 'ana.secreta@example.com';
      let failure: unknown;
      try {
        await t.container.db.orm.execute(sql`SELECT ${secretValue}::text AS email, 1 / ${0}::int AS boom`);
      } catch (err) {
        failure = err;
      }
      expect(String((failure as Error).message)).toContain(secretValue);
      for (const err of [failure, new AppError('internal', 'login failed', { cause: failure })]) {
        logs.lines.length = 0;
        logs.logger.error({ err }, 'unhandled error');
        const line = logs.lines.join('\n');
        expect(line).not.toContain(secretValue);
        expect(line).toMatch(/s_[A-Za-z0-9_-]{27}/);
        expect(line).toContain('SQLSTATE 22012');
      }
    });
  });
});
