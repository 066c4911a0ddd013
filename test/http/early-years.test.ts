import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { saleCreated, sendEvent } from '../integration-helpers.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

/**
 * Dates in years 1-99 are inside the accepted range (0001-01-01 to 9999-12-31). They were read back
 * with `new Date(text)` (drizzle's timestamp column, PGlite's parser), which takes "0020-06-01 …" as
 * Invalid Date and "0050-06-15 …" as 1950: an event answered 500 and the company's sales list
 * answered 500 ever after, and a product dated year 49 ignored every later update until 2049.
 */
describe('dates in years 1-99 are stored and read back as sent', () => {
  let t: TestApp;
  let key: string;
  let token: Record<string, string>;
  let productId: number;

  beforeAll(async () => {
    t = await buildTestApp({ env: { LOG_LEVEL: process.env.DEBUG_LOG ?? 'silent' } });
    const company = await makeCompany(t.container, { name: 'Años tempranos' });
    key = company.integrationKey;
    productId = (await makeProduct(t.container, company.id, { name: 'Yerba' })).id;
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const asAdmin = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/api-tokens',
      headers: asAdmin,
      payload: { name: 'lectura', scope: 'read' },
    });
    token = { authorization: `Bearer ${created.json().secret}` };
  });
  afterAll(() => t.close());

  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: token });

  it('a sale created, paid and invoiced in year 20, and another cancelled in year 1', async () => {
    const sent = [
      saleCreated(61, productId, { created_at: '0020-06-01T00:00:00Z' }),
      { event: 'sales.paid', data: { sale: { id: 61, paid_at: '0020-06-02T10:00:00-03:00', payment_method: 'efectivo' } } },
      {
        event: 'invoice.issued',
        data: {
          invoice: {
            id: 71,
            sale_id: 61,
            type: 'B',
            point_of_sale: 1,
            number: 1,
            cae: '12345678901234',
            cae_expiration: '0019-01-01T00:00:00Z',
            issued_at: '0020-06-02T13:00:00Z',
            total: 300,
          },
        },
      },
      saleCreated(62, productId, { created_at: '0012-06-01T00:00:00Z' }),
      { event: 'sales.cancelled', data: { sale: { id: 62, cancelled_at: '0001-01-01T00:00:00Z', cancellation_reason: 'x' } } },
    ];
    for (const envelope of sent) {
      const res = await sendEvent(t.app, key, envelope);
      expect(res.statusCode, res.body).toBe(200);
    }
    const paid = await get('/api/v1/sales/61');
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json().sale).toMatchObject({ created_at: '0020-06-01T00:00:00.000Z', paid_at: '0020-06-02T13:00:00.000Z' });
    const cancelled = await get('/api/v1/sales/62');
    expect(cancelled.json().sale).toMatchObject({
      created_at: '0012-06-01T00:00:00.000Z',
      cancelled_at: '0001-01-01T00:00:00.000Z',
    });
    const list = await get('/api/v1/sales?limit=5&from=0001-01-01&to=9999-12-31');
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().sales.map((s: { id: number }) => s.id)).toEqual(expect.arrayContaining([61, 62]));
  });

  it('a stock movement dated year 20 is listed with its date', async () => {
    const moved = await sendEvent(t.app, key, {
      event: 'movement.created',
      data: {
        movement: { id: 81, type: 'IN', deposit_id: 1, product_id: productId, amount: 5, created_at: '0020-06-01T00:00:00Z' },
      },
    });
    expect(moved.statusCode, moved.body).toBe(200);
    const list = await get(`/api/v1/products/${productId}/movements`);
    expect(list.statusCode, list.body).toBe(200);
    expect(JSON.stringify(list.json())).toContain('0020-06-01T00:00:00.000Z');
  });

  it('a product dated year 49 takes the next update, dated today', async () => {
    const upsert = (extra: Record<string, unknown>) =>
      sendEvent(t.app, key, { event: 'product.upserted', data: { product: { id: 700, name: 'Fecha rara', ...extra } } });
    expect((await upsert({ base_price: 100, updated_at: '0049-01-01T00:00:00Z' })).statusCode).toBe(200);
    expect((await upsert({ base_price: 200, updated_at: '2026-11-28T10:00:00-03:00' })).statusCode).toBe(200);
    const product = await get('/api/v1/products/700');
    expect(product.statusCode, product.body).toBe(200);
    expect(product.json().product.base_price).toBe(200);
  });
});
