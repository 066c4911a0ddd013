import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RECORD_ID } from '../../src/db/ids.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { saleCreated, sendEvent } from '../integration-helpers.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

/**
 * Issue 25: ids given by an integration are kept, but never move the company's own numbering
 * (docs/decisiones.md, "Numeración propia e ids de integraciones").
 */
describe('own numbering next to integrator ids', () => {
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
    const asAdmin = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
    const product = await makeProduct(t.container, company.id, { name: 'Yerba 1 kg', basePrice: 3200, stock: 100 });
    const send = (envelope: unknown) => sendEvent(t.app, company.integrationKey, envelope);
    return { company, asAdmin, product, send };
  }

  async function created(res: { statusCode: number; body: string; json: () => unknown }, key: string) {
    expect(res.statusCode, res.body).toBe(201);
    return ((res.json() as Record<string, { id: number }>)[key] as { id: number }).id;
  }

  const newProduct = (h: Headers, name: string) => call('POST', '/api/v1/products', h, { name, base_price: 10 });
  const newMovement = (h: Headers, productId: number) =>
    call('POST', '/api/v1/movements', h, { type: 'IN', product_id: productId, deposit_id: 1, amount: 1 });

  it('after product.upserted with id 2147483647, the company’s own products keep small consecutive numbers', async () => {
    const s = await shop();
    const first = await created(await newProduct(s.asAdmin, 'Arroz'), 'product');
    const res = await s.send({
      event: 'product.upserted',
      data: { product: { id: MAX_RECORD_ID, name: 'De la tienda', base_price: 5 } },
    });
    expect(res.json()).toEqual({ status: 'ok' });
    expect(await created(await newProduct(s.asAdmin, 'Fideos'), 'product')).toBe(first + 1);
    expect(await created(await newProduct(s.asAdmin, 'Aceite'), 'product')).toBe(first + 2);
  });

  it('after movement.created with id 2147483647, POST /api/v1/movements keeps working with small numbers', async () => {
    const s = await shop();
    const first = await created(await newMovement(s.asAdmin, s.product.id), 'movement');
    const event = { id: MAX_RECORD_ID, type: 'IN', deposit_id: 1, product_id: s.product.id, amount: 2, reason: 'tienda' };
    expect((await s.send({ event: 'movement.created', data: { movement: event } })).json()).toEqual({ status: 'ok' });
    expect(await created(await newMovement(s.asAdmin, s.product.id), 'movement')).toBe(first + 1);
  });

  it('after sales.created with id 2147483647, the register sells with the next consecutive N.º', async () => {
    const s = await shop();
    const opened = await call('POST', '/api/v1/box-sessions', s.asAdmin, { box_id: 1, opening_cash: 0 });
    expect(opened.statusCode, opened.body).toBe(201);
    const sell = () =>
      call(
        'POST',
        '/api/v1/sales',
        { ...s.asAdmin, 'x-idempotency-key': randomUUID() },
        { box_id: 1, items: [{ product_id: s.product.id, quantity: 1 }], payments: [{ method: 'efectivo', amount: 3200 }] },
      );
    const first = await created(await sell(), 'sale');
    expect((await s.send(saleCreated(MAX_RECORD_ID, s.product.id))).json()).toEqual({ status: 'ok' });
    expect((await s.send(saleCreated(first + 1, s.product.id))).json()).toEqual({ status: 'ok' });
    // first + 1 was taken by the integration: skipped, never continued from.
    expect(await created(await sell(), 'sale')).toBe(first + 2);
    expect(await created(await sell(), 'sale')).toBe(first + 3);
  });

  it('a register sale refused (unknown product, short payment, closed box) leaves no hole in the N.º', async () => {
    const s = await shop();
    const sell = (body: Record<string, unknown>, key = randomUUID()) =>
      call('POST', '/api/v1/sales', { ...s.asAdmin, 'x-idempotency-key': key }, { box_id: 1, ...body });
    const good = { items: [{ product_id: s.product.id, quantity: 1 }], payments: [{ method: 'efectivo', amount: 3200 }] };
    // The box has no open session yet: refused, no number taken.
    expect((await sell(good)).json()).toMatchObject({ code: 'no_open_session' });
    const opened = await call('POST', '/api/v1/box-sessions', s.asAdmin, { box_id: 1, opening_cash: 0 });
    expect(opened.statusCode, opened.body).toBe(201);
    const key = randomUUID();
    const first = await created(await sell(good, key), 'sale');
    expect((await sell({ ...good, items: [{ product_id: 999_999, quantity: 1 }] })).statusCode).toBe(422);
    expect((await sell({ ...good, payments: [{ method: 'tarjeta', amount: 9999 }] })).statusCode).toBe(422);
    expect((await sell({ ...good, items: [{ product_id: s.product.id, quantity: 0.5 }] })).statusCode).toBe(422);
    expect(await created(await sell(good), 'sale')).toBe(first + 1);
    // The box closes: a retry of the first sale still answers that sale (not the closed box's 409).
    const session = (opened.json() as { session: { id: number } }).session.id;
    const closed = await call('POST', `/api/v1/box-sessions/${session}/close`, s.asAdmin, { counted: { efectivo: 6400 } });
    expect(closed.statusCode, closed.body).toBe(200);
    const retried = await sell(good, key);
    expect(retried.statusCode, retried.body).toBe(200);
    expect((retried.json() as { sale: { id: number } }).sale.id).toBe(first);
  });

  it('own categories, deposits and boxes skip a number already in use and stay small', async () => {
    const s = await shop();
    const category = await created(await call('POST', '/api/v1/categories', s.asAdmin, { name: 'Almacén' }), 'category');
    const deposit = await created(await call('POST', '/api/v1/deposits', s.asAdmin, { name: 'Fondo' }), 'deposit');
    const box = await created(await call('POST', '/api/v1/boxes', s.asAdmin, { name: 'Caja 2' }), 'box');
    // Numbers the company's next records would get, taken behind the counters' back (as a sender would).
    await t.container.db.query('INSERT INTO categories (company_id, id, name) VALUES ($1, $2, $3), ($1, $4, $5)', [
      s.company.id,
      category + 1,
      'Tomada',
      MAX_RECORD_ID,
      'Tope',
    ]);
    await t.container.db.query('INSERT INTO deposits (company_id, id, name) VALUES ($1, $2, $3)', [
      s.company.id,
      deposit + 1,
      'Tomado',
    ]);
    await t.container.db.query('INSERT INTO boxes (company_id, id, name) VALUES ($1, $2, $3)', [s.company.id, box + 1, 'Tomada']);
    expect(await created(await call('POST', '/api/v1/categories', s.asAdmin, { name: 'Bebidas' }), 'category')).toBe(
      category + 2,
    );
    expect(await created(await call('POST', '/api/v1/deposits', s.asAdmin, { name: 'Galpón' }), 'deposit')).toBe(deposit + 2);
    expect(await created(await call('POST', '/api/v1/boxes', s.asAdmin, { name: 'Caja 3' }), 'box')).toBe(box + 2);
  });

  it('a sender id the company already used is a 422 naming the record, and changes nothing', async () => {
    const s = await shop();
    const movementId = await created(await newMovement(s.asAdmin, s.product.id), 'movement');
    const again = await s.send({
      event: 'movement.created',
      data: { movement: { id: movementId, type: 'IN', deposit_id: 1, product_id: s.product.id, amount: 1 } },
    });
    expect(again.statusCode).toBe(422);
    expect(again.json()).toMatchObject({
      code: 'invalid_state',
      error: expect.stringContaining(`movement ${movementId} already exists`),
    });

    await call('POST', '/api/v1/box-sessions', s.asAdmin, { box_id: 1, opening_cash: 0 });
    const sale = await call(
      'POST',
      '/api/v1/sales',
      { ...s.asAdmin, 'x-idempotency-key': randomUUID() },
      { box_id: 1, items: [{ product_id: s.product.id, quantity: 1 }], payments: [{ method: 'efectivo', amount: 3200 }] },
    );
    const saleId = await created(sale, 'sale');
    const clash = await s.send(saleCreated(saleId, s.product.id));
    expect(clash.statusCode).toBe(422);
    expect(clash.json()).toMatchObject({ error: expect.stringContaining(`sale ${saleId} already exists`) });
  });

  it('the catalogue import numbers new products from the counter and gives the unused block back', async () => {
    const s = await shop();
    const csv = 'nombre,precio\nMate,100\nBombilla,200\n';
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/products/import',
      headers: { ...s.asAdmin, 'content-type': 'text/csv' },
      payload: csv,
    });
    expect(res.statusCode, res.body).toBe(200);
    const next = await created(await newProduct(s.asAdmin, 'Termo'), 'product');
    expect(next).toBe(s.product.id + 3);
  });

  it('ids up to 2147483647 are accepted from senders; one more is a validation error', async () => {
    const s = await shop();
    const res = await s.send({
      event: 'product.upserted',
      data: { product: { id: MAX_RECORD_ID + 1, name: 'X', base_price: 1 } },
    });
    expect(res.statusCode).toBe(422);
  });
});
