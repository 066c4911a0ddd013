import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { tableCounter } from '../fuzz/fuzz.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

// Issue 26: the defects the merchant API's fuzz found, one case each; the fix is one guard for every
// route (src/http/input-guard.ts), so each must be refused with a 4xx house error and write nothing.

describe('one input guard for every route (issue 26)', () => {
  let t: TestApp;
  let headers: Record<string, string>;
  let productId: number;
  let depositId: number;
  let boxId: number;
  let sessionId: number;
  let saleId: number;
  let counts: () => Promise<Record<string, number>>;

  beforeAll(async () => {
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000' } });
    const company = await makeCompany(t.container);
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    headers = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
    productId = (await makeProduct(t.container, company.id, { name: 'Yerba' })).id;
    const ok = async (method: 'POST', url: string, payload: object) => {
      const res = await t.app.inject({ method, url, headers: { ...headers, 'x-idempotency-key': randomUUID() }, payload });
      expect(res.statusCode, res.body).toBeLessThan(300);
      return res.json();
    };
    depositId = (await ok('POST', '/api/v1/deposits', { name: 'Depósito' })).deposit.id;
    boxId = (await ok('POST', '/api/v1/boxes', { name: 'Caja 1', deposit_id: depositId })).box.id;
    sessionId = (await ok('POST', '/api/v1/box-sessions', { box_id: boxId, opening_cash: 0 })).session.id;
    saleId = (await ok('POST', '/api/v1/sales', { box_id: boxId, items: [{ product_id: productId, quantity: 1 }] })).sale.id;
    counts = await tableCounter(t.container.db);
  });
  afterAll(() => t.close());

  async function refused(method: string, url: string, payload: unknown, status: number, path?: string) {
    const before = await counts();
    const res = await t.app.inject({
      method: method as 'POST',
      url,
      headers: {
        ...headers,
        'x-idempotency-key': randomUUID(),
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
    expect(res.statusCode, `${method} ${url} ${JSON.stringify(payload)} → ${res.body}`).toBe(status);
    const body = res.json();
    expect(body).toMatchObject({ error: expect.any(String), code: status === 400 ? 'bad_request' : 'validation_failed' });
    if (path) expect(body.details.map((d: { path: string }) => d.path)).toContain(path);
    expect(await counts()).toEqual(before);
  }

  it('refuses a NUL in any query value or path with 400 naming it', async () => {
    await refused('GET', '/api/v1/products?q=a%00b', undefined, 400, '/q');
    await refused('GET', '/api/v1/products?mark=%00', undefined, 400, '/mark');
    await refused('GET', '/api/v1/stock?q=%00', undefined, 400, '/q');
  });

  it('refuses a NUL or an unpaired surrogate in any body string (values and keys) with 422 naming it', async () => {
    await refused('POST', '/api/v1/categories', { name: '\u0000' }, 422, '/name');
    await refused('POST', '/api/v1/products', { name: 'a\u0000', base_price: 1 }, 422, '/name');
    await refused('PATCH', `/api/v1/products/${productId}`, { name: 'x\ud800' }, 422, '/name');
    await refused('POST', '/api/v1/boxes', { name: '\udc00' }, 422, '/name');
    await refused('POST', '/api/v1/deposits', { name: 'D\u0000' }, 422, '/name');
    await refused(
      'POST',
      '/api/v1/movements',
      { type: 'IN', product_id: productId, deposit_id: depositId, amount: 1, reason: '\u0000' },
      422,
      '/reason',
    );
    await refused('POST', `/api/v1/box-sessions/${sessionId}/cash`, { kind: 'in', amount: 1, reason: 'r\u0000' }, 422, '/reason');
    await refused('POST', '/api/v1/products/price-change', { percent: 1, filter: { mark: '\u0000' } }, 422, '/filter/mark');
    await refused('POST', '/api/v1/categories', { ['k\u0000']: 'x' }, 422);
  });

  it('names every refused field with a JSON Pointer into its part, from the schema and from the business rules alike', async () => {
    const detailsOf = async (method: 'GET' | 'POST', url: string, payload?: object) => {
      const res = await t.app.inject({ method, url, headers: { ...headers, 'x-idempotency-key': randomUUID() }, payload });
      expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400);
      return res.json() as { error: string; details: { path: string; message: string }[] };
    };
    // The schema: a wrong type deep in the body, a missing property, an unknown one (RFC 6901 escapes ~ and /).
    const typed = await detailsOf('POST', '/api/v1/sales', {
      box_id: boxId,
      items: [{ product_id: productId, quantity: { n: 1 } }],
    });
    expect(typed.details.map((d) => d.path)).toContain('/items/0/quantity');
    expect(typed.error).toContain('invalid body: /items/0/quantity');
    const missing = await detailsOf('POST', '/api/v1/categories', {});
    expect(missing.details.map((d) => d.path)).toEqual(['/name']);
    const unknown = await detailsOf('POST', '/api/v1/categories', { name: 'Almacén', 'a/b~c': 1 });
    expect(unknown.details.map((d) => d.path)).toEqual(['/a~1b~0c']);
    // The whole body of the wrong type is the empty pointer, and the message names the part.
    const whole = await detailsOf('POST', '/api/v1/categories', [1]);
    expect(whole.details.map((d) => d.path)).toEqual(['']);
    expect(whole.error).toContain('invalid body: the body');
    // A query parameter of the wrong type is a pointer into the query.
    const query = await detailsOf('GET', '/api/v1/products?limit=abc');
    expect(query.details.map((d) => d.path)).toEqual(['/limit']);
    // A business rule of the same request names its field the same way.
    const rule = await detailsOf('POST', '/api/v1/sales', { box_id: boxId, items: [] });
    expect(rule.details.map((d) => d.path)).toEqual(['/items']);
  });

  it('refuses amounts sent as text that are not finite or too large, with 422, like the same JSON numbers', async () => {
    for (const bad of ['Infinity', '-Infinity', '1e999', '1e13', 'NaN']) {
      await refused('POST', '/api/v1/products', { name: 'P', base_price: bad }, 422, '/base_price');
      await refused('PATCH', `/api/v1/products/${productId}`, { base_price: bad }, 422, '/base_price');
      await refused(
        'POST',
        '/api/v1/sales',
        { box_id: boxId, items: [{ product_id: productId, quantity: bad }] },
        422,
        '/items/0/quantity',
      );
      await refused(
        'POST',
        `/api/v1/sales/${saleId}/pay`,
        { payments: [{ method: 'cash', amount: bad }] },
        422,
        '/payments/0/amount',
      );
      await refused('POST', `/api/v1/box-sessions/${sessionId}/cash`, { kind: 'in', amount: bad, reason: 'r' }, 422, '/amount');
      await refused(
        'POST',
        '/api/v1/movements',
        { type: 'IN', product_id: productId, deposit_id: depositId, amount: bad },
        422,
        '/amount',
      );
    }
  });

  it('still reads amounts sent as decimal text', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/products',
      headers,
      payload: { name: 'Texto', base_price: '1234.5' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().product.base_price).toBe(1234.5);
  });

  it('refuses dates that match yyyy-mm-dd but do not exist', async () => {
    for (const day of ['2025-02-30', '2025-13-01', '2025-00-10', '2023-02-29']) {
      await refused('GET', `/api/v1/sales/summary?date=${day}`, undefined, 400, '/date');
      await refused('GET', `/api/v1/box-sessions?from=${day}`, undefined, 400, '/from');
    }
    const leap = await t.app.inject({ method: 'GET', url: '/api/v1/sales/summary?date=2024-02-29', headers });
    expect(leap.statusCode, leap.body).toBe(200);
  });

  it('refuses an impossible date in a free-form date parameter with a 4xx, not a 500', async () => {
    for (const day of ['2025-02-30', '2025-13-01']) {
      const res = await t.app.inject({ method: 'GET', url: `/api/v1/sales?from=${day}`, headers });
      expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, res.body).toBeLessThan(500);
      expect(res.json()).toMatchObject({ error: expect.any(String), code: expect.any(String) });
    }
  });

  it('lists sales from and to the edges of years 0001-9999, and refuses past them or loose dates with 422, not a 500', async () => {
    // Years past 9999 were a 500 (JavaScript writes them "+010000-…", which PostgreSQL does not read),
    // and new Date() took anything it could read ("1", Feb 30): found by hand after FUZZ_SEED=1726161440.
    for (const range of [
      'from=0001-01-01&to=9999-12-31',
      'from=0001-01-01T00:00:00Z&to=9999-12-31T23:59:59.999Z',
      'from=2000-01-01T00:00:00%2B14:00&to=9999-12-31T23:59:59Z',
    ]) {
      for (const url of [`/api/v1/sales?${range}`, `/api/v1/sales/export.csv?${range}`]) {
        const res = await t.app.inject({ method: 'GET', url, headers });
        expect(res.statusCode, `${url} → ${res.body}`).toBe(200);
        if (!url.includes('.csv')) expect(res.json().sales.map((s: { id: number }) => s.id)).toContain(saleId);
      }
    }
    for (const value of [
      '%2B010000-01-01',
      '275760-09-13',
      '-271821-04-20',
      '9999-12-31T23:59:59-23:59',
      '9999-12-31T23:59:59-01:00',
      '0000-01-01',
      '0000-12-31T00:00:00Z',
      '-000001-01-01T00:00:00Z',
      '2024-02-30T00:00:00Z',
      '2024-01-01T24:00:00Z',
      '2024-01-01T00:00:00',
      '1',
      'March%207',
    ]) {
      for (const name of ['from', 'to']) {
        await refused('GET', `/api/v1/sales?${name}=${value}`, undefined, 422, `/${name}`);
        await refused('GET', `/api/v1/sales/export.csv?${name}=${value}`, undefined, 422, `/${name}`);
      }
    }
  });
});
