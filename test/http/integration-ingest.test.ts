import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundEvents } from '../../src/db/schema/index.ts';
import { hmacSha256Hex } from '../../src/lib/secrets.ts';
import { FUTURE_EVENTS } from '../../src/modules/integration/events.schemas.ts';
import { buildTestApp, captureLogs, type TestApp } from '../app.ts';
import { makeCompany, makeProduct } from '../factories.ts';
import { countRows, INTEGRATION_PATH, saleCreated, sendEvent } from '../integration-helpers.ts';

type LightResponse = Awaited<ReturnType<typeof sendEvent>>;

const NOW = new Date('2026-03-10T15:00:00.000Z');
const secondsFromNow = (s: number) => new Date(NOW.getTime() + s * 1000).toISOString();

describe('POST /api/integration/in: the contract rules, in order', () => {
  let t: TestApp;
  const logs = captureLogs();
  let key: string;
  let companyId: number;
  let productId: number;

  beforeAll(async () => {
    t = await buildTestApp({ overrides: { clock: { now: () => NOW }, logger: logs.logger } });
    const company = await makeCompany(t.container);
    key = company.integrationKey;
    companyId = company.id;
    productId = (await makeProduct(t.container, companyId)).id;
  });
  afterAll(() => t.close());

  async function expectNothingWritten(run: () => Promise<LightResponse>, status: number, code: string) {
    const before = await countRows(t.container.db.orm, companyId);
    const res = await run();
    expect(res.statusCode).toBe(status);
    expect(res.json()).toMatchObject({ error: expect.any(String), code });
    expect(await countRows(t.container.db.orm, companyId)).toEqual(before);
    return res;
  }

  let saleId = 100;
  const nextSale = () => saleCreated(++saleId, productId);

  describe('rule 1: the integration key must match a company (401)', () => {
    it.each([
      ['no Authorization header', undefined],
      ['another scheme', 'Basic abc'],
      ['an unknown key', 'Bearer mos_int_unknown'],
      ['a key without the prefix', 'Bearer whatever'],
      ['an empty bearer', 'Bearer '],
    ])('refuses %s', async (_name, authorization) => {
      const res = await expectNothingWritten(
        () =>
          t.app.inject({
            method: 'POST',
            url: INTEGRATION_PATH,
            headers: { 'content-type': 'application/json', ...(authorization === undefined ? {} : { authorization }) },
            payload: JSON.stringify(nextSale()),
          }),
        401,
        'unauthenticated',
      );
      expect(res.headers['www-authenticate']).toBe('Bearer realm="integration"');
    });

    it('accepts the scheme in any case', async () => {
      const res = await sendEvent(t.app, key, nextSale(), { headers: { authorization: `bearer ${key}` } });
      expect(res.statusCode).toBe(200);
    });
  });

  describe('rule 2: the body must be valid JSON (400)', () => {
    it.each([['{"event": "sales.created",'], ['not json'], ['']])('refuses %j', async (raw) => {
      await expectNothingWritten(() => sendEvent(t.app, key, null, { raw }), 400, 'invalid_json');
    });

    it('refuses bytes that are not UTF-8 instead of storing U+FFFD in their place', async () => {
      const sale = JSON.stringify(nextSale()).replace('"items"', '"note":"caf\u00e9","items"');
      const raw = Buffer.from(sale, 'latin1'); // é as the single byte 0xE9
      expect(raw.includes(0xe9)).toBe(true);
      const res = await expectNothingWritten(() => sendEvent(t.app, key, null, { raw }), 400, 'invalid_json');
      expect(res.json().error).toContain('not UTF-8');
    });

    it('takes a __proto__ key as valid JSON (issue 11): dropped, so here the event is missing (422)', async () => {
      const raw = '{"__proto__": {"polluted": true}}';
      await expectNothingWritten(() => sendEvent(t.app, key, null, { raw }), 422, 'unsupported_event');
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    });
  });

  describe('rule 3: event must be present and supported (422)', () => {
    it.each([
      ['a missing event', { data: {} }],
      ['an event that is not a string', { event: 7, data: {} }],
      ['an unknown event', { event: 'sales.refunded', data: { sale: { id: 1 } } }],
      ['a body that is not an object', [1, 2]],
      ...FUTURE_EVENTS.map((name) => [`the future event ${name}`, { event: name, data: {} }] as [string, unknown]),
    ])('refuses %s', async (_name, envelope) => {
      const res = await expectNothingWritten(() => sendEvent(t.app, key, envelope), 422, 'unsupported_event');
      expect(res.json()).not.toHaveProperty('details');
    });

    it('names the event and the supported ones', async () => {
      const res = await sendEvent(t.app, key, { event: 'order.shipped', data: {} });
      expect(res.json().error).toBe(
        'event "order.shipped" is not supported yet; supported events: sales.created, sales.paid, sales.cancelled, ' +
          'invoice.issued, movement.created, product.upserted, product.stock_updated',
      );
    });
  });

  describe('rule 4: data must have the structure of the event (422, every problem with its path)', () => {
    it('lists every problem', async () => {
      const res = await expectNothingWritten(
        () =>
          sendEvent(t.app, key, {
            event: 'sales.created',
            data: { sale: { id: 'x', total: -1, items: [{ product_id: 1, quantity: 0 }] } },
          }),
        422,
        'validation_failed',
      );
      expect(res.json().details).toEqual(
        expect.arrayContaining([
          { path: 'data.sale.id', message: 'must be integer' },
          { path: 'data.sale.total', message: 'must be >= 0' },
          { path: 'data.sale.items.0.quantity', message: 'must be > 0' },
          { path: 'data.sale.items.0.price', message: "must have required property 'price'" },
        ]),
      );
      expect(res.json().details).toHaveLength(4);
    });

    it.each([
      ['data missing', { event: 'sales.paid' }, 'data'],
      ['data not an object', { event: 'sales.paid', data: [] }, 'data'],
      ['the record missing', { event: 'sales.paid', data: {} }, 'data.sale'],
      [
        'a company_id of another company',
        { event: 'sales.paid', data: { sale: { id: 1, company_id: 999999 } } },
        'data.sale.company_id',
      ],
    ])('refuses %s', async (_name, envelope, path) => {
      const res = await expectNothingWritten(() => sendEvent(t.app, key, envelope), 422, 'validation_failed');
      expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path);
    });

    it('accepts company_id when it is the key’s company', async () => {
      const res = await sendEvent(t.app, key, saleCreated(++saleId, productId, { company_id: companyId }));
      expect(res.statusCode).toBe(200);
    });
  });

  describe('rule 5: x-sent-at within ±5 minutes (400)', () => {
    it.each([-300, 300, 0, -299.999])('accepts %d s from the server clock', async (offset) => {
      const res = await sendEvent(t.app, key, nextSale(), { sentAt: secondsFromNow(offset) });
      expect(res.statusCode).toBe(200);
    });

    it('accepts an offset other than Z', async () => {
      const res = await sendEvent(t.app, key, nextSale(), { sentAt: '2026-03-10T12:01:00-03:00' });
      expect(res.statusCode).toBe(200);
    });

    it.each([-301, 301, -86400])('refuses %d s and names the server time', async (offset) => {
      const res = await expectNothingWritten(
        () => sendEvent(t.app, key, nextSale(), { sentAt: secondsFromNow(offset) }),
        400,
        'timestamp_out_of_window',
      );
      expect(res.json().error).toContain(`server time is ${NOW.toISOString()}`);
    });

    it.each(['2026-03-10T15:00:00', '1741618800', 'yesterday', '2026-03-10'])('refuses the malformed %j', async (sentAt) => {
      const res = await expectNothingWritten(() => sendEvent(t.app, key, nextSale(), { sentAt }), 400, 'bad_request');
      expect(res.json().error).toContain(NOW.toISOString());
    });
  });

  describe('rule 6: x-signature, when present, must match the raw bytes (401)', () => {
    const body = () => JSON.stringify(nextSale());

    it.each([
      ['another key', (raw: string) => hmacSha256Hex('mos_int_other', raw)],
      ['uppercase hex', (raw: string) => hmacSha256Hex(key, raw).toUpperCase()],
      ['a truncated signature', (raw: string) => hmacSha256Hex(key, raw).slice(0, 63)],
      ['a prefixed signature', (raw: string) => `sha256=${hmacSha256Hex(key, raw)}`],
      ['base64', (raw: string) => Buffer.from(hmacSha256Hex(key, raw), 'hex').toString('base64')],
      ['an empty header', () => ''],
      ['the signature of the re-serialized body', (raw: string) => hmacSha256Hex(key, JSON.stringify(JSON.parse(raw), null, 1))],
    ])('refuses %s', async (_name, sign) => {
      const raw = body();
      await expectNothingWritten(() => sendEvent(t.app, key, null, { raw, signature: sign(raw) }), 401, 'signature_mismatch');
    });

    it('verifies the exact bytes, whitespace and all', async () => {
      const raw = JSON.stringify(nextSale(), null, 2);
      const res = await sendEvent(t.app, key, null, { raw });
      expect(res.statusCode).toBe(200);
      const [row] = await t.container.db.orm
        .select()
        .from(inboundEvents)
        .where(eq(inboundEvents.id, res.headers['x-event-id'] as string));
      expect(row!.signatureValid).toBe(true);
    });

    it('stores signature_valid false when no signature was sent', async () => {
      const res = await sendEvent(t.app, key, nextSale(), { sign: false });
      expect(res.statusCode).toBe(200);
      const [row] = await t.container.db.orm
        .select()
        .from(inboundEvents)
        .where(eq(inboundEvents.id, res.headers['x-event-id'] as string));
      expect(row!.signatureValid).toBe(false);
    });
  });

  describe('the order of the checks (design §4)', () => {
    const wrongSig = '0'.repeat(64);
    it.each([
      [
        'a bad key before a bad signature',
        { authorization: 'Bearer nope', sig: wrongSig, sentAt: '1999-01-01T00:00:00Z' },
        401,
        'unauthenticated',
      ],
      [
        'the signature before x-sent-at and JSON',
        { sig: wrongSig, sentAt: '1999-01-01T00:00:00Z', raw: '{' },
        401,
        'signature_mismatch',
      ],
      ['x-sent-at before JSON', { sentAt: '1999-01-01T00:00:00Z', raw: '{' }, 400, 'timestamp_out_of_window'],
      ['JSON before the event', { raw: '{"event": "nope", ' }, 400, 'invalid_json'],
      ['the event before the data', { raw: '{"event": "nope", "data": 5}' }, 422, 'unsupported_event'],
    ])('checks %s', async (_name, c: { authorization?: string; sig?: string; sentAt?: string; raw?: string }, status, code) => {
      const raw = c.raw ?? JSON.stringify(nextSale());
      const res = await sendEvent(t.app, key, null, {
        raw,
        ...(c.sig ? { signature: c.sig } : {}),
        ...(c.sentAt ? { sentAt: c.sentAt } : {}),
        ...(c.authorization ? { headers: { authorization: c.authorization } } : {}),
      });
      expect(res.statusCode).toBe(status);
      expect(res.json().code).toBe(code);
    });

    it('refuses a body over 1 MiB with 413 before looking at the signature', async () => {
      const raw = JSON.stringify({ ...nextSale(), padding: 'x'.repeat(1024 * 1024) });
      await expectNothingWritten(() => sendEvent(t.app, key, null, { raw, signature: '0'.repeat(64) }), 413, 'payload_too_large');
    });

    it('accepts a body just under 1 MiB', async () => {
      const base = JSON.stringify({ ...nextSale(), padding: '' });
      const raw = base.replace('"padding":""', `"padding":"${'x'.repeat(1024 * 1024 - base.length)}"`);
      expect(Buffer.byteLength(raw)).toBe(1024 * 1024);
      expect((await sendEvent(t.app, key, null, { raw })).statusCode).toBe(200);
    });

    it('refuses an unauthenticated oversized body with 401', async () => {
      const res = await sendEvent(t.app, 'mos_int_nope', null, { raw: 'x'.repeat(2 * 1024 * 1024) });
      expect(res.statusCode).toBe(401);
    });

    it('answers 415 for a body that is not JSON by content type', async () => {
      const res = await sendEvent(t.app, key, nextSale(), { headers: { 'content-type': 'text/plain' } });
      expect(res.statusCode).toBe(415);
    });
  });

  describe('rule 7: idempotency', () => {
    it('answers a repeated key for the same event with idempotent true and no side effect', async () => {
      const envelope = nextSale();
      const first = await sendEvent(t.app, key, envelope, { idempotencyKey: 'order-7781' });
      expect(first.statusCode).toBe(200);
      expect(first.json()).toEqual({ status: 'ok' });
      const before = await countRows(t.container.db.orm, companyId);
      const again = await sendEvent(t.app, key, envelope, { idempotencyKey: 'order-7781' });
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual({ status: 'ok', idempotent: true });
      expect(again.headers['x-event-id']).toBe(first.headers['x-event-id']);
      expect(again.headers['x-idempotency-mismatch']).toBeUndefined();
      expect(await countRows(t.container.db.orm, companyId)).toEqual(before);
    });

    it('is idempotent before the business rules: a replay of an applied event is still 200', async () => {
      const envelope = nextSale();
      await sendEvent(t.app, key, envelope, { idempotencyKey: 'replay-1' });
      // Applying it again would be 422 (the sale exists); the duplicate is recognised first.
      expect((await sendEvent(t.app, key, envelope, { idempotencyKey: 'other' })).statusCode).toBe(422);
      expect((await sendEvent(t.app, key, envelope, { idempotencyKey: 'replay-1' })).json()).toEqual({
        status: 'ok',
        idempotent: true,
      });
    });

    it('scopes a key by event: the same key on another event is processed', async () => {
      const sale = nextSale();
      await sendEvent(t.app, key, sale, { idempotencyKey: 'shared-key' });
      const paid = await sendEvent(
        t.app,
        key,
        { event: 'sales.paid', data: { sale: { id: sale.data.sale.id } } },
        { idempotencyKey: 'shared-key' },
      );
      expect(paid.json()).toEqual({ status: 'ok' });
    });

    it('answers a reused key with a different body as a duplicate, flags it and logs a warning', async () => {
      await sendEvent(t.app, key, nextSale(), { idempotencyKey: 'reused-key' });
      const before = await countRows(t.container.db.orm, companyId);
      const res = await sendEvent(t.app, key, nextSale(), { idempotencyKey: 'reused-key' });
      expect(res.json()).toEqual({ status: 'ok', idempotent: true });
      expect(res.headers['x-idempotency-mismatch']).toBe('body differs from the stored event');
      expect(await countRows(t.container.db.orm, companyId)).toEqual(before);
      const warning = logs.lines.map((l) => JSON.parse(l)).find((l) => l.idempotencyKey === 'reused-key');
      expect(warning).toMatchObject({ level: 40, companyId, event: 'sales.created' });
    });

    it('processes an event without a key and stores its own id as the key', async () => {
      const envelope = nextSale();
      const res = await sendEvent(t.app, key, envelope, { idempotencyKey: null });
      expect(res.json()).toEqual({ status: 'ok' });
      const id = res.headers['x-event-id'] as string;
      const [row] = await t.container.db.orm.select().from(inboundEvents).where(eq(inboundEvents.id, id));
      expect(row!.idempotencyKey).toBe(id);
      // Without a key, sending it again is a new event (and here the sale already exists).
      expect((await sendEvent(t.app, key, envelope, { idempotencyKey: null })).statusCode).toBe(422);
    });

    it.each([['with space'], ['x'.repeat(256)], ['ñandú']])('refuses the malformed key %j with 400', async (idempotencyKey) => {
      await expectNothingWritten(() => sendEvent(t.app, key, nextSale(), { idempotencyKey }), 400, 'bad_request');
    });
  });

  describe('rule 8: success', () => {
    it('answers 200 {status: ok} and stores the event once', async () => {
      const before = await countRows(t.container.db.orm, companyId);
      const res = await sendEvent(t.app, key, nextSale(), { sentAt: NOW.toISOString() });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'ok' });
      const after = await countRows(t.container.db.orm, companyId);
      expect(after.inbound).toBe(before.inbound + 1);
      expect(after.sales).toBe(before.sales + 1);
    });
  });

  it('never writes the key or a signature to the logs', async () => {
    const raw = JSON.stringify(nextSale());
    const signature = hmacSha256Hex(key, raw);
    await sendEvent(t.app, key, null, { raw, signature });
    await sendEvent(t.app, key, null, { raw, signature: hmacSha256Hex('x', raw) });
    const text = logs.lines.join('\n');
    expect(logs.lines.length).toBeGreaterThan(0);
    expect(text).not.toContain(key);
    expect(text).not.toContain(key.slice(8));
    expect(text).not.toContain(signature);
  });
});
