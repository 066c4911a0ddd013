import { and, eq, sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { selectRows } from '../../src/db/client.ts';
import { inboundEvents, outboxEvents, sales } from '../../src/db/schema/index.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct } from '../factories.ts';
import { countRows, poll, saleCreated, sendEvent } from '../integration-helpers.ts';
import { isPostgresRun } from '../setup/db.ts';
import { signal } from '../signal.ts';

describe('inbound events under concurrency and failure', () => {
  let t: TestApp;
  let nowMs = Date.parse('2026-03-10T15:00:00Z');
  beforeAll(async () => {
    t = await buildTestApp({ overrides: { clock: { now: () => new Date(nowMs) } } });
  });
  afterAll(() => t.close());

  const db = () => t.container.db.orm;

  async function setup() {
    const company = await makeCompany(t.container);
    const product = await makeProduct(t.container, company.id);
    return { companyId: company.id, key: company.integrationKey, productId: product.id };
  }

  it('applies 50 simultaneous requests with the same key exactly once; all get 200', async () => {
    const c = await setup();
    const envelope = saleCreated(1, c.productId);
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => sendEvent(t.app, c.key, envelope, { idempotencyKey: 'burst-1' })),
    );
    expect(responses.map((r) => r.statusCode)).toEqual(Array(50).fill(200));
    const bodies = responses.map((r) => r.json());
    expect(bodies.filter((b) => b.idempotent === true)).toHaveLength(49);
    expect(bodies.filter((b) => b.idempotent === undefined)).toEqual([{ status: 'ok' }]);
    expect(new Set(responses.map((r) => r.headers['x-event-id'])).size).toBe(1);
    const counts = await countRows(db(), c.companyId);
    expect(counts).toMatchObject({ inbound: 1, sales: 1, sale_items: 2 });
    const outbound = await db()
      .select()
      .from(outboxEvents)
      .where(and(eq(outboxEvents.companyId, c.companyId), eq(outboxEvents.event, 'sales.created')));
    expect(outbound).toHaveLength(1);
  });

  it('applies simultaneous different events on one record one at a time, by the transition table', async () => {
    const c = await setup();
    await sendEvent(t.app, c.key, saleCreated(2, c.productId));
    const [paid, cancelled] = await Promise.all([
      sendEvent(t.app, c.key, { event: 'sales.paid', data: { sale: { id: 2 } } }),
      sendEvent(t.app, c.key, { event: 'sales.cancelled', data: { sale: { id: 2 } } }),
    ]);
    expect([paid!.statusCode, cancelled!.statusCode].sort()).toEqual([200, 422]);
    const [sale] = await db()
      .select()
      .from(sales)
      .where(and(eq(sales.companyId, c.companyId), eq(sales.id, 2)));
    expect(sale!.status).toBe(paid!.statusCode === 200 ? 'paid' : 'cancelled');
  });

  it('gives a sku or barcode to one product only when several events claim it at once', async () => {
    const c = await setup();
    for (const field of ['sku', 'BC'] as const) {
      const code = field === 'sku' ? 'YER-RACE' : '7790001000507';
      const first = field === 'sku' ? 300 : 400;
      const responses = await Promise.all(
        Array.from({ length: 8 }, (_, n) =>
          sendEvent(t.app, c.key, {
            event: 'product.upserted',
            data: { product: { id: first + n, name: `Yerba ${n}`, [field]: code } },
          }),
        ),
      );
      expect(responses.map((r) => r.statusCode).sort()).toEqual([200, 422, 422, 422, 422, 422, 422, 422]);
      const winner = first + responses.findIndex((r) => r.statusCode === 200);
      for (const res of responses.filter((r) => r.statusCode === 422)) {
        expect(res.json()).toMatchObject({
          code: 'validation_failed',
          details: [{ path: `data.product.${field}`, message: `"${code}" already belongs to product ${winner}` }],
        });
      }
      const column = field === 'sku' ? sql`sku` : sql`bc`;
      const holders = await selectRows<{ id: number }>(
        db(),
        sql`SELECT id FROM products WHERE company_id = ${c.companyId} AND ${column} = ${code}`,
      );
      expect(holders).toEqual([{ id: winner }]);
    }
  });

  it('answers 422, not 500, when two different events create the same sale at once', async () => {
    const c = await setup();
    const results = await Promise.all(Array.from({ length: 5 }, () => sendEvent(t.app, c.key, saleCreated(3, c.productId))));
    const statuses = results.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([200, 422, 422, 422, 422]);
    expect((await countRows(db(), c.companyId)).sales).toBe(1);
  });

  it('answers each of many simultaneous sales.created as if it came alone, writing them in shared transactions', async () => {
    const c = await setup();
    const stored = await sendEvent(t.app, c.key, saleCreated(100, c.productId), { idempotencyKey: 'stored' });
    expect(stored.statusCode).toBe(200);
    const requests = Array.from({ length: 40 }, (_, n) => {
      if (n % 8 === 3) return { kind: 'missing', send: () => sendEvent(t.app, c.key, saleCreated(200 + n, 9999)) };
      if (n % 8 === 5) {
        return {
          kind: 'repeat',
          send: () => sendEvent(t.app, c.key, saleCreated(100, c.productId), { idempotencyKey: 'stored' }),
        };
      }
      if (n % 8 === 7) return { kind: 'exists', send: () => sendEvent(t.app, c.key, saleCreated(100, c.productId)) };
      return { kind: 'new', send: () => sendEvent(t.app, c.key, saleCreated(200 + n, c.productId)) };
    });
    const responses = await Promise.all(requests.map((r) => r.send()));
    responses.forEach((res, n) => {
      const kind = requests[n]!.kind;
      if (kind === 'new') expect(res.json()).toEqual({ status: 'ok' });
      if (kind === 'repeat') {
        expect(res.json()).toEqual({ status: 'ok', idempotent: true });
        expect(res.headers['x-event-id']).toBe(stored.headers['x-event-id']);
      }
      if (kind === 'missing') {
        expect(res.statusCode).toBe(422);
        expect(res.json().error).toBe(`sale ${200 + n} refers to product 9999 that does not exist`);
      }
      if (kind === 'exists') {
        expect(res.statusCode).toBe(422);
        expect(res.json().error).toBe('sale 100 already exists (status pending)');
      }
    });
    const created = requests.filter((r) => r.kind === 'new').length;
    expect(await countRows(db(), c.companyId)).toMatchObject({ inbound: 1 + created, sales: 1 + created });
  });

  it.runIf(isPostgresRun())(
    'writes the sales.created that arrive while earlier ones are being written in one transaction',
    async () => {
      const c = await setup();
      // Hold the inbound stamp lock: the batches in flight wait on it, and what arrives meanwhile queues up.
      const { fired: released, fire: release } = signal();
      const { fired: isLocked, fire: locked } = signal();
      const holder = db().transaction(async (tx) => {
        await tx.execute(sql`SELECT pg_advisory_xact_lock(727002)`);
        locked();
        await released;
      });
      await isLocked;
      const responses = Promise.all(
        Array.from({ length: 20 }, (_, n) => sendEvent(t.app, c.key, saleCreated(300 + n, c.productId))),
      );
      const waiting = async () =>
        (
          await selectRows<{ n: number }>(
            db(),
            sql`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = 727002 AND NOT granted`,
          )
        )[0]!.n;
      while ((await waiting()) < 1) await new Promise((resolve) => setTimeout(resolve, 10));
      await new Promise((resolve) => setTimeout(resolve, 100));
      release();
      await holder;
      expect((await responses).map((r) => r.statusCode)).toEqual(Array(20).fill(200));
      const perTransaction = await db()
        .select({ events: sql<number>`count(*)::int` })
        .from(inboundEvents)
        .where(eq(inboundEvents.companyId, c.companyId))
        .groupBy(inboundEvents.txId);
      expect(perTransaction.reduce((sum, r) => sum + r.events, 0)).toBe(20);
      expect(perTransaction.length).toBeLessThanOrEqual(t.container.config.integration.batchConcurrency + 1);
    },
  );

  describe('when the database fails in the middle of a request', () => {
    afterEach(async () => {
      await db().execute(sql`DROP TRIGGER IF EXISTS test_fail_outbox ON outbox_events`);
      await db().execute(sql`DROP TRIGGER IF EXISTS test_fail_commit ON sale_items`);
      await db().execute(sql`DROP FUNCTION IF EXISTS test_fail()`);
    });

    async function installFailure(kind: 'statement' | 'commit') {
      await db().execute(
        sql.raw(`CREATE FUNCTION test_fail() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN RAISE EXCEPTION 'simulated database failure'; END $$`),
      );
      await db().execute(
        sql.raw(
          kind === 'statement'
            ? // The last write of the request: everything before it must be undone.
              'CREATE TRIGGER test_fail_outbox BEFORE INSERT ON outbox_events FOR EACH ROW EXECUTE FUNCTION test_fail()'
            : // Fails at COMMIT, after every statement succeeded.
              'CREATE CONSTRAINT TRIGGER test_fail_commit AFTER INSERT ON sale_items DEFERRABLE INITIALLY DEFERRED ' +
                'FOR EACH ROW EXECUTE FUNCTION test_fail()',
        ),
      );
    }

    it.each(['statement', 'commit'] as const)(
      'answers 500 with nothing half written (failure at %s), and a retry with the same key applies once',
      async (kind) => {
        const c = await setup();
        const envelope = saleCreated(10, c.productId);
        await installFailure(kind);
        const before = await countRows(db(), c.companyId);
        const failed = await sendEvent(t.app, c.key, envelope, { idempotencyKey: `crash-${kind}` });
        expect(failed.statusCode).toBe(500);
        expect(failed.json()).toEqual({ error: 'internal error', code: 'internal' });
        expect(await countRows(db(), c.companyId)).toEqual(before);

        await db().execute(sql`DROP TRIGGER IF EXISTS test_fail_outbox ON outbox_events`);
        await db().execute(sql`DROP TRIGGER IF EXISTS test_fail_commit ON sale_items`);
        const retry = await sendEvent(t.app, c.key, envelope, { idempotencyKey: `crash-${kind}` });
        expect(retry.json()).toEqual({ status: 'ok' });
        const again = await sendEvent(t.app, c.key, envelope, { idempotencyKey: `crash-${kind}` });
        expect(again.json()).toEqual({ status: 'ok', idempotent: true });
        expect(await countRows(db(), c.companyId)).toMatchObject({
          inbound: 1,
          sales: 1,
          sale_items: 2,
          outbox: before.outbox + 1,
        });
      },
    );

    it.runIf(isPostgresRun())('answers 500 when the connection dies mid-transaction, and recovers', async () => {
      const c = await setup();
      const envelope = saleCreated(11, c.productId);
      await db().execute(
        sql.raw(`CREATE FUNCTION test_fail() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); RETURN NEW; END $$`),
      );
      await db().execute(
        sql.raw('CREATE TRIGGER test_fail_outbox BEFORE INSERT ON outbox_events FOR EACH ROW EXECUTE FUNCTION test_fail()'),
      );
      const failed = await sendEvent(t.app, c.key, envelope, { idempotencyKey: 'killed' });
      expect(failed.statusCode).toBe(500);
      await db().execute(sql`DROP TRIGGER IF EXISTS test_fail_outbox ON outbox_events`);
      expect(await countRows(db(), c.companyId)).toMatchObject({ inbound: 0, sales: 0 });
      const retry = await sendEvent(t.app, c.key, envelope, { idempotencyKey: 'killed' });
      expect(retry.json()).toEqual({ status: 'ok' });
    });
  });

  describe('integration key cache', () => {
    it('keeps a revoked key working only until the cache entry expires (5 s)', async () => {
      const c = await setup();
      expect((await poll(t.app, c.key)).statusCode).toBe(200);
      const { integrationKey: newKey } = await t.container.companies.rotateSecrets(c.companyId, {
        integration: true,
        scanner: false,
      });
      expect((await poll(t.app, newKey!)).statusCode).toBe(200);
      nowMs += 4000;
      expect((await poll(t.app, c.key)).statusCode).toBe(200);
      nowMs += 1001;
      expect((await poll(t.app, c.key)).statusCode).toBe(401);
      expect((await sendEvent(t.app, c.key, saleCreated(20, c.productId))).statusCode).toBe(401);
      expect((await sendEvent(t.app, newKey!, saleCreated(20, c.productId))).statusCode).toBe(200);
    });
  });

  describe('retention', () => {
    it('deletes events older than the retention window, after which a key can be used again', async () => {
      const c = await setup();
      await sendEvent(t.app, c.key, saleCreated(30, c.productId), { idempotencyKey: 'old-key' });
      await db()
        .update(inboundEvents)
        .set({ receivedAt: new Date(nowMs - 91 * 86_400_000) })
        .where(eq(inboundEvents.companyId, c.companyId));
      const recent = await sendEvent(t.app, c.key, saleCreated(31, c.productId), { idempotencyKey: 'new-key' });
      expect(recent.statusCode).toBe(200);
      expect(await t.container.integration.purgeExpired()).toBeGreaterThanOrEqual(1);
      const left = await db()
        .select({ key: inboundEvents.idempotencyKey })
        .from(inboundEvents)
        .where(eq(inboundEvents.companyId, c.companyId));
      expect(left).toEqual([{ key: 'new-key' }]);
      // Outside the window the key is new again (and the sale it made exists, so the business rule answers).
      expect((await sendEvent(t.app, c.key, saleCreated(30, c.productId), { idempotencyKey: 'old-key' })).statusCode).toBe(422);
    });
  });
});
