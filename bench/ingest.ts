/**
 * Ingest throughput: signed, unique-key `sales.created` events of 3 items through
 * POST /api/integration/in on PostgreSQL, against a baseline Fastify route doing one INSERT
 * through the same kind of pool. Creates and drops its own scratch database on BENCH_DATABASE_URL.
 */
import { Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../src/app.ts';
import { hmacSha256Hex } from '../src/lib/secrets.ts';
import { upsertProduct } from '../src/modules/catalog/products.service.ts';
import {
  BASELINE_WARMUP,
  call,
  cpuOf,
  cpuPerRequestLine,
  positiveInt,
  rateOf,
  repeated,
  runCleanups,
  SERVER_SHOWN,
  scratchContainer,
  startInsertBaseline,
  summarize,
  type TimedRun,
} from './common.ts';
import { type Figure, figure, median, roundRatios, roundsText } from './results.ts';

const EVENTS = positiveInt('BENCH_EVENTS', 10_000);
// Ingest warms up over its first ~5,000 events (4,107 → 6,742 events/s on 28/11), the bare INSERT
// over ~6,000 requests (BASELINE_WARMUP): both are timed warm.
const WARMUP = positiveInt('BENCH_WARMUP', 5000);
/** Each baseline round sends its events' bodies this many times: a round of 1,000 INSERTs took 0.1 s. */
const BASELINE_REPEAT = positiveInt('BENCH_BASELINE_REPEAT', 2);
const CONCURRENCY = positiveInt('BENCH_CONCURRENCY', 32);
const ROUNDS = positiveInt('BENCH_ROUNDS', 4);
const POOL_MAX = positiveInt('BENCH_POOL', 10);

interface Prepared {
  body: string;
  headers: Record<string, string>;
}

/** Bodies and headers made before timing, so the load generator spends its CPU on sending only. */
function prepareSales(key: string, firstId: number, count: number): Prepared[] {
  const sentAt = new Date().toISOString();
  return Array.from({ length: count }, (_, n) => {
    const id = firstId + n;
    const body = JSON.stringify({
      event: 'sales.created',
      data: {
        sale: {
          id,
          total: 4550.5,
          payment_method: 'efectivo',
          items: [
            { product_id: 1, quantity: 2, price: 1250.25 },
            { product_id: 2, quantity: 1, price: 1500 },
            { product_id: 3, quantity: 0.5, price: 1100 },
          ],
        },
      },
    });
    return {
      body,
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'x-idempotency-key': `bench-${id}`,
        'x-sent-at': sentAt,
        'x-signature': hmacSha256Hex(key, body),
      },
    };
  });
}

/** Sends every item with at most CONCURRENCY in flight; every answer must be 200. */
async function load(port: number, path: string, items: Prepared[]): Promise<TimedRun> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const latencies: number[] = [];
  const failures = new Map<number, number>();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) {
        const item = items[next++]!;
        const t0 = performance.now();
        const { status } = await call(agent, port, 'POST', path, item.headers, item.body);
        latencies.push(performance.now() - t0);
        if (status !== 200) failures.set(status, (failures.get(status) ?? 0) + 1);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  if (failures.size > 0) throw new Error(`${path}: non-200 answers ${JSON.stringify(Object.fromEntries(failures))}`);
  return { seconds, latencies };
}

export async function run(): Promise<Figure[]> {
  const { url, container, cleanups } = await scratchContainer('mostrador_bench', POOL_MAX);
  try {
    const { company, integrationKey } = await container.companies.createCompany({ name: 'Almacén de prueba' });
    await container.db.orm.transaction(async (tx) => {
      for (const id of [1, 2, 3])
        await upsertProduct(tx, company.id, { id, name: `Producto ${id}`, basePrice: 1000 }, { now: new Date() });
    });
    const app = await buildApp(container);
    cleanups.unshift(() => app.close());
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as AddressInfo).port;
    const baseline = await startInsertBaseline(url, POOL_MAX, 200);
    cleanups.unshift(
      () => baseline.pool.end(),
      () => baseline.app.close(),
    );

    // Warm both up, then alternate rounds so that load elsewhere on the machine hits both alike.
    const warm = prepareSales(integrationKey, 1, WARMUP);
    await load(port, '/api/integration/in', warm);
    await load(baseline.port, '/baseline', repeated(warm, Math.ceil(BASELINE_WARMUP / WARMUP)));
    const baseRuns: TimedRun[] = [];
    const ingestRuns: TimedRun[] = [];
    const cpu = { base: { node: 0, postgres: 0 }, ingest: { node: 0, postgres: 0 } };
    const perRound = Math.ceil(EVENTS / ROUNDS);
    for (let round = 0; round < ROUNDS; round++) {
      const items = prepareSales(integrationKey, WARMUP + 1 + round * perRound, Math.min(perRound, EVENTS - round * perRound));
      const b = await cpuOf(url, () => load(baseline.port, '/baseline', repeated(items, BASELINE_REPEAT)));
      baseRuns.push(b.result);
      cpu.base.node += b.nodeMs;
      cpu.base.postgres += b.postgresMs['bench-baseline'] ?? 0;
      const i = await cpuOf(url, () => load(port, '/api/integration/in', items));
      ingestRuns.push(i.result);
      cpu.ingest.node += i.nodeMs;
      cpu.ingest.postgres += i.postgresMs['mostrador'] ?? 0;
    }
    const base = summarize(baseRuns);
    const ingest = summarize(ingestRuns);
    const byRound = roundRatios(ingestRuns.map(rateOf), baseRuns.map(rateOf));

    const [{ n }] = (await container.db.query<{ n: number }>('SELECT count(*)::int AS n FROM sales WHERE company_id = $1', [
      company.id,
    ])) as [{ n: number }];
    if (n !== WARMUP + EVENTS) throw new Error(`expected ${WARMUP + EVENTS} sales, found ${n}`);
    process.stdout.write(
      `events ${EVENTS} (+${WARMUP} warm-up) in ${ROUNDS} alternating rounds, concurrency ${CONCURRENCY}, pool ${POOL_MAX}, PostgreSQL ${SERVER_SHOWN}\n`,
    );
    process.stdout.write(
      cpuPerRequestLine(
        { name: 'event', cpu: cpu.ingest, requests: EVENTS },
        { name: 'baseline insert', cpu: cpu.base, requests: baseRuns.reduce((s, r) => s + r.latencies.length, 0) },
        3,
      ),
    );
    process.stdout.write(
      `baseline insert: each round ${BASELINE_REPEAT}× its events after ${BASELINE_WARMUP}+ to warm it; ` +
        `per round, events/s ${ingestRuns.map((r) => Math.round(rateOf(r))).join(' / ')} and inserts/s ${baseRuns.map((r) => Math.round(rateOf(r))).join(' / ')}\n`,
    );
    process.stdout.write(
      `ingest: ${Math.round(ingest.perSecond)} events/s p99 ${ingest.p99.toFixed(1)} ms; ` +
        `baseline insert: ${Math.round(base.perSecond)} req/s; ratio ${roundsText(byRound)}\n`,
    );
    return [
      figure('ingest', ingest.perSecond, 'events/s', { name: 'insert', value: base.perSecond, unit: 'req/s' }, median(byRound)),
      figure('ingest p99', ingest.p99, 'ms'),
    ];
  } finally {
    await runCleanups(cleanups);
  }
}
