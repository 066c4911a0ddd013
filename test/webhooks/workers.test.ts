import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/db/client.ts';
import { createLogger } from '../../src/logger.ts';
import { claimDeliveries, relayOutbox } from '../../src/modules/webhooks/deliveries.repo.ts';
import { createWebhooksModule } from '../../src/modules/webhooks/webhooks.module.ts';
import { TEST_SECRET_KEY, type TestApp, testConfig } from '../app.ts';
import { type Receiver, startReceiver } from '../fakes/webhook-receiver.ts';
import { makeCompany, makeProduct } from '../factories.ts';
import { attemptRows, buildWebhookApp, deliveryRows, type TestClock, useWebhookFixture, type WebhookTestApp } from './helpers.ts';
import { cliCtx } from '../../src/http/request-context.ts';

describe('webhook workers', () => {
  let t: WebhookTestApp;
  let receiver: Receiver;
  useWebhookFixture({ app: (app) => (t = app), receiver: (r) => (receiver = r) });

  async function setup() {
    const company = await makeCompany(t.container);
    const { endpoint } = await t.container.webhooks.endpoints.createEndpoint(cliCtx(company.id), {
      url: `${receiver.url}/hooks`,
    });
    return { company, endpoint };
  }

  /** A second worker process's delivery module: its own connections on PostgreSQL. */
  async function secondWorker(pollIntervalMs = 1000, timeoutMs = 5000) {
    const db = t.database.url ? await openPostgres({ url: t.database.url, poolMax: 5 }) : t.container.db;
    const config = testConfig({
      ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
      ...(t.database.url ? { DATABASE_URL: t.database.url } : {}),
    });
    const module = createWebhooksModule({
      config,
      db,
      cipher: t.container.cipher,
      clock: t.clock,
      logger: createLogger('silent'),
      jobs: { define: () => {} } as never,
      tuning: { timeoutMs, random: () => 0.5, concurrency: 4, pollIntervalMs },
    });
    return {
      module,
      async close() {
        await module.close();
        if (db !== t.container.db) await db.close();
      },
    };
  }

  it('loses nothing when a relay transaction fails: the events stay undispatched and go out later', async () => {
    const { company, endpoint } = await setup();
    await makeProduct(t.container, company.id);
    await expect(
      t.container.db.orm.transaction(async (tx) => {
        expect((await relayOutbox(tx, t.clock.now(), 100)).deliveries).toBe(1);
        throw new Error('worker crashed before commit');
      }),
    ).rejects.toThrow('worker crashed');
    expect(await deliveryRows(t, endpoint.id)).toEqual([]);
    await t.container.webhooks.dispatcher.drain();
    await t.container.webhooks.dispatcher.drain();
    expect(receiver.requests).toHaveLength(1);
    expect((await deliveryRows(t, endpoint.id))[0]!.status).toBe('delivered');
  });

  it('two workers deliver every event exactly once per attempt', async () => {
    const { company, endpoint } = await setup();
    for (let i = 0; i < 30; i++) await makeProduct(t.container, company.id);
    const other = await secondWorker();
    try {
      await Promise.all([
        t.container.webhooks.dispatcher.drain(),
        other.module.dispatcher.drain(),
        other.module.dispatcher.drain(),
      ]);
    } finally {
      await other.close();
    }
    const ids = receiver.requests.map((r) => r.headers['x-idempotency-key']);
    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
    const deliveries = await deliveryRows(t, endpoint.id);
    expect(deliveries.every((d) => d.status === 'delivered' && d.attempts === 1)).toBe(true);
    const [{ n }] = (await t.container.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = $1',
      [endpoint.id],
    )) as [{ n: number }];
    expect(n).toBe(30);
  });

  it('never lets two workers claim the same delivery', async () => {
    const { company, endpoint } = await setup();
    for (let i = 0; i < 20; i++) await makeProduct(t.container, company.id);
    await t.container.db.orm.transaction((tx) => relayOutbox(tx, t.clock.now(), 100));
    const other = t.database.url ? await openPostgres({ url: t.database.url, poolMax: 5 }) : t.container.db;
    try {
      const claim = (db: typeof other) =>
        claimDeliveries(db.orm, { now: t.clock.now(), limit: 3, token: randomUUID(), leaseMs: 60_000 });
      const rounds = await Promise.all(Array.from({ length: 10 }, (_, i) => claim(i % 2 ? other : t.container.db)));
      const claimed = rounds.flat().map((d) => d.id);
      expect(claimed).toHaveLength(20);
      expect(new Set(claimed).size).toBe(20);
    } finally {
      if (other !== t.container.db) await other.close();
    }
    expect((await deliveryRows(t, endpoint.id)).every((d) => d.attempts === 1)).toBe(true);
  });

  it('retries the delivery of a worker that died mid-attempt once its lease runs out', async () => {
    const { company, endpoint } = await setup();
    await makeProduct(t.container, company.id);
    await t.container.db.orm.transaction((tx) => relayOutbox(tx, t.clock.now(), 100));
    // The dying worker claims the delivery and never settles it.
    const [held] = await claimDeliveries(t.container.db.orm, {
      now: t.clock.now(),
      limit: 10,
      token: randomUUID(),
      leaseMs: 42_000,
    });
    expect(held!.endpointId).toBe(endpoint.id);
    await t.container.webhooks.dispatcher.drain();
    expect(receiver.requests).toHaveLength(0); // still leased
    t.clock.advance(42_001);
    await t.container.webhooks.dispatcher.drain();
    expect(receiver.requests).toHaveLength(1);
    const [delivery] = await deliveryRows(t, endpoint.id);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 2 });
    const attempts = await attemptRows(t, delivery!.id);
    expect(attempts.map((a) => [a.attempt, a.outcome])).toEqual([
      [1, 'failed'],
      [2, 'delivered'],
    ]);
    expect(attempts[0]!.error).toBe('the worker stopped during this attempt; retried');
  });

  it('leases every claimed delivery of a lane for the same time, wherever it stands in the queue', async () => {
    const { company, endpoint } = await setup();
    for (let i = 0; i < 5; i++) await makeProduct(t.container, company.id);
    await t.container.db.orm.transaction((tx) => relayOutbox(tx, t.clock.now(), 100));
    const now = t.clock.now();
    const claimed = await claimDeliveries(t.container.db.orm, { now, limit: 10, token: randomUUID(), leaseMs: 42_000 });
    expect(claimed).toHaveLength(5);
    const rows = await t.container.db.query<{ due: Date }>(
      'SELECT next_attempt_at AS due FROM webhook_deliveries WHERE endpoint_id = $1',
      [endpoint.id],
    );
    expect(new Set(rows.map((r) => new Date(r.due).getTime() - now.getTime()))).toEqual(new Set([42_000]));
  });

  it('on a clean stop, releases the deliveries a lane had not started: due at once, their attempt given back', async () => {
    const { company, endpoint } = await setup();
    for (let i = 0; i < 4; i++) await makeProduct(t.container, company.id);
    receiver.set({ kind: 'hang' });
    const worker = await secondWorker(600_000, 400);
    await worker.module.dispatcher.start();
    await receiver.waitFor(1, 10_000);
    await worker.close(); // the attempt in flight times out (400 ms) and settles; the other three go back
    const rows = await t.container.db.query<{ attempts: number; lease_token: string | null; due: Date; status: string }>(
      'SELECT attempts, lease_token, next_attempt_at AS due, status FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY event_seq',
      [endpoint.id],
    );
    expect(rows).toHaveLength(4);
    const untouched = rows.filter((r) => r.attempts === 0);
    expect(untouched).toHaveLength(3);
    for (const row of untouched) {
      expect(row.lease_token).toBeNull();
      expect(new Date(row.due).getTime()).toBeLessThanOrEqual(t.clock.now().getTime());
    }
    receiver.set({ kind: 'status', status: 200 });
    await t.container.webhooks.dispatcher.drain();
    expect((await deliveryRows(t, endpoint.id)).filter((d) => d.status === 'delivered')).toHaveLength(3);
  });

  it('delivers right after commit when the dispatcher runs (woken by LISTEN/NOTIFY, not its poll)', async () => {
    const { company } = await setup();
    const worker = await secondWorker(600_000);
    await worker.module.dispatcher.start();
    try {
      const started = Date.now();
      await makeProduct(t.container, company.id);
      await receiver.waitFor(1, 10_000);
      expect(receiver.requests[0]!.receivedAt - started).toBeLessThan(5000);
    } finally {
      await worker.close();
    }
  });
});

describe.runIf(!!process.env['TEST_DATABASE_URL'])('a worker process killed mid-attempt (PostgreSQL)', () => {
  let t: TestApp & { clock: TestClock };
  let receiver: Receiver;
  let child: ChildProcess | null = null;
  // The worker's own DATA_DIR: the checkout's ./data belongs to `npm start` (the demo processes of
  // cluster.test.ts once left the built-in fake ARCA's state there, and the next `npm start` could not
  // invoice its demo).
  const dataDir = mkdtempSync(join(tmpdir(), 'mostrador-worker-'));
  beforeAll(async () => {
    t = await buildWebhookApp();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await receiver.close();
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is retried by another worker with the same idempotency key; the lost attempt is logged', async () => {
    const company = await makeCompany(t.container);
    const { endpoint } = await t.container.webhooks.endpoints.createEndpoint(cliCtx(company.id), {
      url: `${receiver.url}/hooks`,
    });
    receiver.set({ kind: 'hang' });
    const stderr: string[] = [];
    child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: {
        PATH: process.env['PATH'] ?? '',
        ROLE: 'worker',
        DATA_DIR: dataDir,
        DATABASE_URL: t.database.url!,
        SECRET_KEY: TEST_SECRET_KEY,
        ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
        DEMO_SEED: 'false',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr!.on('data', (chunk) => stderr.push(String(chunk)));
    await makeProduct(t.container, company.id);
    await receiver.waitFor(1, 60_000).catch((err) => {
      throw new Error(`${err.message}; worker stderr: ${stderr.join('')}`);
    });
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    child = null;

    receiver.set({ kind: 'status', status: 200 });
    await t.container.webhooks.dispatcher.drain();
    expect(receiver.requests).toHaveLength(1); // the dead worker's lease still holds
    t.clock.advance(43_000); // its lease: a 10 s attempt + margins
    await t.container.webhooks.dispatcher.drain();
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests[1]!.headers['x-idempotency-key']).toBe(receiver.requests[0]!.headers['x-idempotency-key']);
    const [delivery] = await deliveryRows(t, endpoint.id);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 2 });
    expect((await attemptRows(t, delivery!.id)).map((a) => a.outcome)).toEqual(['failed', 'delivered']);
  }, 90_000);
});
