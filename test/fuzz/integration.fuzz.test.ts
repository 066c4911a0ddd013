import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hmacSha256Hex } from '../../src/lib/secrets.ts';
import { SUPPORTED_EVENTS } from '../../src/modules/integration/events.schemas.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct } from '../factories.ts';
import { isPostgresRun } from '../setup/db.ts';
import { INTEGRATION_PATH } from '../integration-helpers.ts';
import {
  assertFuzz,
  bodiesFrom,
  edgeDateTime,
  expectHouseError,
  FUZZ_TIMEOUT_MS,
  freshKey,
  headerText,
  printStats,
  statsFor,
  writeWatch,
} from './fuzz.ts';

/**
 * POST /api/integration/in under generated bodies and headers, one target per inbound event type:
 * never a 5xx, a refusal is always `{error, code}`, and a refused request writes nothing (every
 * table's row count unchanged, the polled page unchanged). Accepted events must stay pollable.
 */
const BOUNDED_RUNS = 12;
/** Stands for a fresh record id in a generated body: replaced on every run, so valid bodies keep being accepted. */
const FRESH_ID = 2_000_000_001;

describe('fuzz: inbound events', () => {
  let t: TestApp;
  let key: string;
  let productId: number;
  let counts: () => Promise<Record<string, number>>;
  /** The polling cursor: every event before it has been polled successfully. */
  let cursor: string | null = null;

  beforeAll(async () => {
    t = await buildTestApp();
    const company = await makeCompany(t.container);
    key = company.integrationKey;
    productId = (await makeProduct(t.container, company.id)).id;
    counts = await writeWatch(t.container.db);
    const sale = valid['sales.created']!();
    const text = JSON.stringify(sale).replace(String(FRESH_ID), '1001');
    const res = await t.app.inject({
      method: 'POST',
      url: INTEGRATION_PATH,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-signature': hmacSha256Hex(key, text) },
      payload: text,
    });
    expect(res.statusCode, res.body).toBe(200);
  });
  afterAll(async () => {
    printStats(isPostgresRun() ? 'postgres' : 'pglite');
    await t.close();
  });

  /** A page of events after the cursor, as the raw body; it must always be a 200 holding JSON. */
  async function pollAfterCursor(): Promise<string> {
    const res = await t.app.inject({
      method: 'GET',
      url: `${INTEGRATION_PATH}?limit=200${cursor ? `&since=${encodeURIComponent(cursor)}` : ''}`,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.statusCode, res.body).toBe(200);
    JSON.parse(res.body);
    return res.body;
  }

  /** Sale 1001 exists (created in beforeAll): payments, cancellations and invoices refer to it. */
  let nextId = 5000;
  const valid: Record<string, () => unknown> = {
    'sales.created': () => ({
      event: 'sales.created',
      data: {
        sale: {
          id: FRESH_ID,
          total: 300,
          payment_method: 'efectivo',
          created_at: '2026-03-01T10:00:00-03:00',
          items: [{ product_id: productId, quantity: 3, price: 100 }],
        },
      },
    }),
    'sales.paid': () => ({
      event: 'sales.paid',
      data: { sale: { id: 1001, paid_at: '2026-03-01T10:05:00Z', payment_method: 'qr', payment_id: 'mp-1' } },
    }),
    'sales.cancelled': () => ({
      event: 'sales.cancelled',
      data: { sale: { id: 1001, cancelled_at: '2026-03-01T10:05:00Z', cancellation_reason: 'error de carga' } },
    }),
    'invoice.issued': () => ({
      event: 'invoice.issued',
      data: {
        invoice: {
          id: FRESH_ID,
          sale_id: 1001,
          type: 'B',
          point_of_sale: 1,
          number: FRESH_ID,
          cae: '71234567890123',
          cae_expiration: '2026-03-20T00:00:00Z',
          total: 300,
          issued_at: '2026-03-01T10:06:00Z',
        },
      },
    }),
    'movement.created': () => ({
      event: 'movement.created',
      data: {
        movement: { id: FRESH_ID, type: 'IN', deposit_id: 1, product_id: productId, amount: 2.5, reason: 'compra' },
      },
    }),
    'product.upserted': () => ({
      event: 'product.upserted',
      data: {
        product: {
          id: FRESH_ID,
          sku: 'SKU-1',
          BC: '7790001000019',
          name: 'Yerba mate 1 kg',
          description: 'Suave',
          base_price: 2500.5,
          stock: 10,
          mark: 'Rosamonte',
          enable: true,
          photo: 'https://cdn.example.com/yerba.png',
          updated_at: '2026-03-01T10:00:00Z',
        },
      },
    }),
    'product.stock_updated': () => ({
      event: 'product.stock_updated',
      data: { product: { id: productId, stock: 7.25, updated_at: '2026-03-01T10:00:00Z' } },
    }),
  };

  const headers = fc.record({
    signature: fc.oneof(
      { weight: 8, arbitrary: fc.constant('valid' as const) },
      { weight: 1, arbitrary: fc.constantFrom('none' as const, 'upper' as const) },
      { weight: 1, arbitrary: headerText },
    ),
    sentAt: fc.oneof(
      { weight: 4, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: edgeDateTime },
      { weight: 1, arbitrary: headerText },
    ),
    idempotencyKey: fc.oneof({ weight: 6, arbitrary: fc.constant('fresh' as const) }, { weight: 1, arbitrary: headerText }),
    contentType: fc.oneof(
      { weight: 8, arbitrary: fc.constant('application/json') },
      {
        weight: 1,
        arbitrary: fc.constantFrom('application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded'),
      },
    ),
  });

  for (const event of SUPPORTED_EVENTS) {
    it(
      `${event}: generated bodies and headers never give a 5xx, and a refusal writes nothing`,
      async () => {
        const stats = statsFor(`POST ${INTEGRATION_PATH} ${event}`);
        cursor = JSON.parse(await pollAfterCursor()).meta.next_since;
        const input = fc.tuple(bodiesFrom(valid[event]!()), headers);
        await assertFuzz(
          input,
          async ([generated, h]) => {
            const fresh = String(++nextId);
            const body =
              typeof generated === 'string'
                ? generated.replaceAll(String(FRESH_ID), fresh)
                : Buffer.from(generated.toString('latin1').replaceAll(String(FRESH_ID), fresh), 'latin1');
            const requestHeaders: Record<string, string> = { authorization: `Bearer ${key}`, 'content-type': h.contentType };
            const signature = hmacSha256Hex(key, body);
            if (h.signature === 'valid') requestHeaders['x-signature'] = signature;
            else if (h.signature === 'upper') requestHeaders['x-signature'] = signature.toUpperCase();
            else if (h.signature !== 'none') requestHeaders['x-signature'] = h.signature;
            if (h.sentAt !== undefined) requestHeaders['x-sent-at'] = h.sentAt;
            requestHeaders['x-idempotency-key'] = h.idempotencyKey === 'fresh' ? freshKey() : h.idempotencyKey;

            const before = await counts();
            const page = await pollAfterCursor();
            const res = await t.app.inject({ method: 'POST', url: INTEGRATION_PATH, headers: requestHeaders, payload: body });
            stats.requests++;
            if (res.statusCode >= 500) stats.serverErrors++;
            expect(res.statusCode, res.body).toBeLessThan(500);
            if (res.statusCode >= 400) {
              stats.refused++;
              expectHouseError(res);
              const after = await counts();
              if (JSON.stringify(after) !== JSON.stringify(before)) stats.writesOnRefusal++;
              expect(after).toEqual(before);
              expect(await pollAfterCursor()).toBe(page);
            } else {
              stats.accepted++;
              expect(res.statusCode).toBe(200);
              cursor = JSON.parse(await pollAfterCursor()).meta.next_since ?? cursor;
            }
          },
          BOUNDED_RUNS,
        );
      },
      FUZZ_TIMEOUT_MS,
    );
  }
});
