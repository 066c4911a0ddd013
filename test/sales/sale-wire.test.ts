import { randomUUID } from 'node:crypto';
import { Ajv, type AnySchema } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SaleCancelled, SaleCreated, SalePaid } from '../../src/modules/integration/events.schemas.ts';
import { Sale, SaleCancelledOut, SaleCreatedOut, SalePaidOut } from '../../src/modules/sales/sales.schemas.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

/** Errors of `value` against `schema` (empty when it conforms); each schema in its own Ajv (they carry $ids). */
function errorsOf(schema: AnySchema, value: unknown): string[] {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const validate = ajv.compile(schema);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

const keysOf = (schema: { properties: Record<string, unknown> }) => Object.keys(schema.properties).sort();

/**
 * One wire shape for the sale: the merchant API answers `Sale`, and the outbound sales.* events
 * carry exactly the fields of SaleCreatedOut/SalePaidOut/SaleCancelledOut (picked from `Sale`),
 * which the contract's own shapes (the inbound catalogue) accept.
 */
describe('the sale on the wire', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  it('the outbound shapes are picked from Sale and fit the contract’s sales.* shapes', () => {
    for (const out of [SaleCreatedOut, SalePaidOut, SaleCancelledOut]) {
      for (const key of keysOf(out)) {
        if (key === 'company_id' || key === 'payment_id') continue;
        expect(Object.keys(Sale.properties), key).toContain(key);
      }
    }
    expect(keysOf(SaleCreatedOut)).toEqual(keysOf(SaleCreated));
    expect(keysOf(SalePaidOut)).toEqual(keysOf(SalePaid));
    expect(keysOf(SaleCancelledOut)).toEqual(keysOf(SaleCancelled));
  });

  it('a register sale sold, paid and refunded: the API answers Sale, and every sales.* event has its shape', async () => {
    const company = await makeCompany(t.container);
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const headers = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
    const product = await makeProduct(t.container, company.id, { basePrice: 1250.5, stock: 10 });
    const call = (url: string, payload: object, extra: Record<string, string> = {}) =>
      t.app.inject({ method: 'POST', url, headers: { ...headers, ...extra }, payload });
    expect((await call('/api/v1/box-sessions', { box_id: 1, opening_cash: 0 })).statusCode).toBe(201);

    const pending = await call(
      '/api/v1/sales',
      { box_id: 1, items: [{ product_id: product.id, quantity: 2 }] },
      { 'x-idempotency-key': randomUUID() },
    );
    expect(pending.statusCode, pending.body).toBe(201);
    const sale = pending.json().sale;
    expect(errorsOf(Sale, sale)).toEqual([]);
    const paid = await call(`/api/v1/sales/${sale.id}/pay`, { payments: [{ method: 'efectivo', amount: 3000 }] });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(errorsOf(Sale, paid.json().sale)).toEqual([]);
    const refunded = await call(`/api/v1/sales/${sale.id}/cancel`, { reason: 'devolución' });
    expect(refunded.statusCode, refunded.body).toBe(200);
    expect(refunded.json().sale).toMatchObject({ status: 'cancelled', refund_session_id: 1 });
    expect(errorsOf(Sale, refunded.json().sale)).toEqual([]);

    const events = await t.container.db.query<{ event: string; payload: { event: string; data: { sale: object } } }>(
      `SELECT event, payload FROM outbox_events WHERE company_id = $1 AND event LIKE 'sales.%' ORDER BY seq`,
      [company.id],
    );
    expect(events.map((e) => e.event)).toEqual(['sales.created', 'sales.paid', 'sales.cancelled']);
    const shapes = {
      'sales.created': [SaleCreatedOut, SaleCreated],
      'sales.paid': [SalePaidOut, SalePaid],
      'sales.cancelled': [SaleCancelledOut, SaleCancelled],
    } as const;
    for (const { event, payload } of events) {
      const [out, contract] = shapes[event as keyof typeof shapes];
      expect(Object.keys(payload.data.sale).sort(), event).toEqual(keysOf(out));
      expect(errorsOf(out, payload.data.sale), event).toEqual([]);
      expect(errorsOf(contract, payload.data.sale), event).toEqual([]);
    }
    expect(events[0]!.payload.data.sale).toMatchObject({ id: sale.id, company_id: company.id, status: 'pending', total: 2501 });
    expect(events[1]!.payload.data.sale).toMatchObject({ id: sale.id, status: 'paid', payment_method: 'efectivo', total: 2501 });
    expect(events[2]!.payload.data.sale).toMatchObject({ id: sale.id, status: 'cancelled', cancellation_reason: 'devolución' });
  });
});
