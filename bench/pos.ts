/**
 * The register under load: paid 3-item sales through POST /api/v1/sales (a read-write API token,
 * an idempotency key each, cash with change, stock out through the ledger, events) from 8
 * registers at once — each its own box with its own open session, one sale after another as a
 * cashier does — on PostgreSQL, against a baseline Fastify route doing one INSERT through the same
 * kind of pool at the same concurrency. Creates and drops its own scratch database on BENCH_DATABASE_URL.
 */
import { randomUUID } from 'node:crypto';
import { Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../src/app.ts';
import { booksOf } from '../src/cli/books-commands.ts';
import { cliCtx } from '../src/http/request-context.ts';
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

const REGISTERS = positiveInt('BENCH_REGISTERS', 8);
const SALES = positiveInt('BENCH_SALES', 3600);
// The sale's own path warms up over its first ~4,000 sales (748 → 1,191 sales/s on 28/11), the
// bare INSERT over ~6,000 requests (BASELINE_WARMUP): both are timed warm.
const WARMUP = positiveInt('BENCH_WARMUP', 4000);
/** Each baseline round sends its sales' bodies this many times: a round of 1,200 INSERTs took 0.1 s. */
const BASELINE_REPEAT = positiveInt('BENCH_BASELINE_REPEAT', 4);
const ROUNDS = positiveInt('BENCH_ROUNDS', 3);
const POOL_MAX = positiveInt('BENCH_POOL', 10);

interface Prepared {
  body: string;
  headers: Record<string, string>;
}

/** One register's sales, made before timing: three items, paid in cash with change. */
function prepareSales(token: string, boxId: number, count: number): Prepared[] {
  return Array.from({ length: count }, () => {
    const body = JSON.stringify({
      box_id: boxId,
      items: [
        { product_id: 1, quantity: 2 },
        { product_id: 2, quantity: 1 },
        { product_id: 3, quantity: 0.5 },
      ],
      payments: [{ method: 'efectivo', amount: 5000 }],
    });
    return {
      body,
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'x-idempotency-key': randomUUID(),
      },
    };
  });
}

/** Each register sends its own list one after another; all registers at once. */
async function load(port: number, path: string, perRegister: Prepared[][], okStatus: number): Promise<TimedRun> {
  const agent = new Agent({ keepAlive: true, maxSockets: perRegister.length });
  const latencies: number[] = [];
  const failures = new Map<string, number>();
  const started = performance.now();
  await Promise.all(
    perRegister.map(async (items) => {
      for (const item of items) {
        const t0 = performance.now();
        const { status, body } = await call(agent, port, 'POST', path, item.headers, item.body);
        latencies.push(performance.now() - t0);
        if (status !== okStatus) {
          const key = `${status} ${body.slice(0, 120)}`;
          failures.set(key, (failures.get(key) ?? 0) + 1);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  if (failures.size > 0) throw new Error(`${path}: unexpected answers ${JSON.stringify(Object.fromEntries(failures))}`);
  return { seconds, latencies };
}

export async function run(): Promise<Figure[]> {
  const { url, container, cleanups } = await scratchContainer('mostrador_bench', POOL_MAX);
  try {
    const { company } = await container.companies.createCompany({ name: 'Almacén de prueba' });
    await container.db.orm.transaction(async (tx) => {
      for (const [id, price] of [
        [1, 1250.25],
        [2, 1500],
        [3, 1100],
      ] as const)
        await upsertProduct(
          tx,
          company.id,
          // Product 3 is weighed (sold by kg): each sale takes half a kilo of it.
          { id, name: `Producto ${id}`, basePrice: price, stock: 1_000_000, unit: id === 3 ? 'kg' : 'unit' },
          { now: new Date() },
        );
    });
    const ctx = cliCtx(company.id);
    for (let box = 2; box <= REGISTERS; box++) {
      await container.db.query('INSERT INTO boxes (company_id, id, name) VALUES ($1, $2, $3)', [company.id, box, `Caja ${box}`]);
    }
    for (let box = 1; box <= REGISTERS; box++) await container.register.openSession(ctx, { box_id: box, opening_cash: 10_000 });
    const { secret } = await container.apiTokens.create(ctx, { name: 'bench', scope: 'read-write' });

    const app = await buildApp(container);
    cleanups.unshift(() => app.close());
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as AddressInfo).port;
    const baseline = await startInsertBaseline(url, POOL_MAX, 201);
    cleanups.unshift(
      () => baseline.pool.end(),
      () => baseline.app.close(),
    );

    const registers = Array.from({ length: REGISTERS }, (_, n) => n + 1);
    const batch = (count: number) => registers.map((box) => prepareSales(secret, box, Math.ceil(count / REGISTERS)));
    // Warm both up, then alternate rounds so that load elsewhere on the machine hits both alike.
    const warm = batch(WARMUP);
    await load(port, '/api/v1/sales', warm, 201);
    const warmTimes = Math.ceil(BASELINE_WARMUP / warm.flat().length);
    await load(
      baseline.port,
      '/baseline',
      warm.map((list) => repeated(list, warmTimes)),
      201,
    );
    // A shop's database has statistics: autovacuum analyzes a table once 50 rows + 10 % of it
    // changed, within a minute (autovacuum_naptime). This scratch database is seconds old, so its
    // tables were never analyzed and each connection plans its statements on empty tables, where
    // two indexes that both start with company_id cost the same: the idempotency check picked
    // register_sales_session_idx and read every register sale of the company on every sale (the
    // bench slowed down as it went). Analyze after the warm-up, as autovacuum would have.
    await container.db.query('ANALYZE');
    const baseRuns: TimedRun[] = [];
    const posRuns: TimedRun[] = [];
    const cpu = { base: { node: 0, postgres: 0 }, pos: { node: 0, postgres: 0 } };
    for (let round = 0; round < ROUNDS; round++) {
      const items = batch(Math.ceil(SALES / ROUNDS));
      const b = await cpuOf(url, () =>
        load(
          baseline.port,
          '/baseline',
          items.map((list) => repeated(list, BASELINE_REPEAT)),
          201,
        ),
      );
      baseRuns.push(b.result);
      cpu.base.node += b.nodeMs;
      cpu.base.postgres += b.postgresMs['bench-baseline'] ?? 0;
      const p = await cpuOf(url, () => load(port, '/api/v1/sales', items, 201));
      posRuns.push(p.result);
      cpu.pos.node += p.nodeMs;
      cpu.pos.postgres += p.postgresMs['mostrador'] ?? 0;
    }
    const base = summarize(baseRuns);
    const pos = summarize(posRuns);
    const byRound = roundRatios(posRuns.map(rateOf), baseRuns.map(rateOf));

    const sales = posRuns.reduce((s, r) => s + r.latencies.length, 0);
    const inserts = baseRuns.reduce((s, r) => s + r.latencies.length, 0);
    const sent = warm.flat().length + sales;
    const [check] = await container.db.query<{ n: number; paid: number; moves: number }>(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'paid')::int AS paid,
         (SELECT count(*)::int FROM movements WHERE company_id = $1 AND type = 'OUT') AS moves
       FROM sales WHERE company_id = $1`,
      [company.id],
    );
    if (check!.n !== sent || check!.paid !== sent || check!.moves !== sent * 3) {
      throw new Error(`expected ${sent} paid sales and ${sent * 3} movements, found ${JSON.stringify(check)}`);
    }
    // The books after the load, as `npm run cli -- books verify --company ID` checks them.
    const books = await booksOf(container).verify(company.id);
    const failed = books.checks.filter((c) => !c.ok);
    process.stdout.write(
      `books verify --company ${company.id}: ${books.ok ? 'clean' : `${failed.length} differences`} (${books.checks.length} checks)\n`,
    );
    if (!books.ok) throw new Error(`books verify after the pos bench: ${JSON.stringify(failed)}`);
    process.stdout.write(
      `sales ${sales} (+${warm.flat().length} warm-up) in ${ROUNDS} alternating rounds, ` +
        `${REGISTERS} registers (one box and session each, one sale after another), pool ${POOL_MAX}, ` +
        `PostgreSQL ${SERVER_SHOWN}; p50 ${pos.p50.toFixed(1)} ms; ratio ${roundsText(byRound)}\n`,
    );
    process.stdout.write(
      `baseline insert: ${inserts} in the rounds (each ${BASELINE_REPEAT}× its round's sales) after ${BASELINE_WARMUP}+ to warm it; ` +
        `per round, sales/s ${posRuns.map((r) => Math.round(rateOf(r))).join(' / ')} and inserts/s ${baseRuns.map((r) => Math.round(rateOf(r))).join(' / ')}\n`,
    );
    process.stdout.write(
      cpuPerRequestLine(
        { name: 'sale', cpu: cpu.pos, requests: sales },
        { name: 'baseline insert', cpu: cpu.base, requests: inserts },
      ),
    );
    process.stdout.write(
      `pos: ${Math.round(pos.perSecond)} sales/s p99 ${pos.p99.toFixed(1)} ms at ${REGISTERS} registers; ` +
        `baseline insert: ${Math.round(base.perSecond)} req/s\n`,
    );
    return [
      figure('sales', pos.perSecond, 'sales/s', { name: 'insert', value: base.perSecond, unit: 'req/s' }, median(byRound)),
      figure('sales p99', pos.p99, 'ms'),
    ];
  } finally {
    await runCleanups(cleanups);
  }
}
