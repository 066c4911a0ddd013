/**
 * The register under load: paid 3-item sales through POST /api/v1/sales (a read-write API token,
 * an idempotency key each, cash with change, stock out through the ledger, events) from 8
 * registers at once — each its own box with its own open session, one sale after another as a
 * cashier does — on PostgreSQL, against a baseline Fastify route doing one INSERT through the same
 * kind of pool at the same concurrency. Creates and drops its own scratch database on BENCH_DATABASE_URL.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import Fastify from 'fastify';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createContainer } from '../src/container.ts';
import { migrate } from '../src/db/migrate.ts';
import { cliCtx } from '../src/http/request-context.ts';
import { upsertProduct } from '../src/modules/catalog/products.service.ts';

const SERVER_URL = process.env['BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const REGISTERS = positiveInt('BENCH_REGISTERS', 8);
const SALES = positiveInt('BENCH_SALES', 2400);
const WARMUP = positiveInt('BENCH_WARMUP', 200);
const ROUNDS = positiveInt('BENCH_ROUNDS', 3);
const POOL_MAX = positiveInt('BENCH_POOL', 10);

function positiveInt(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1 || value > 1_000_000) throw new Error(`${name} must be a positive integer`);
  return value;
}

function withDatabase(url: string, database: string) {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function admin(sql: string) {
  const client = new pg.Client({ connectionString: withDatabase(SERVER_URL, 'postgres') });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

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

function post(agent: Agent, port: number, path: string, item: Prepared): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', agent, headers: item.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(item.body);
  });
}

interface LoadResult {
  seconds: number;
  latencies: number[];
}

/** Each register sends its own list one after another; all registers at once. */
async function load(port: number, path: string, perRegister: Prepared[][], okStatus: number): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: perRegister.length });
  const latencies: number[] = [];
  const failures = new Map<string, number>();
  const started = performance.now();
  await Promise.all(
    perRegister.map(async (items) => {
      for (const item of items) {
        const t0 = performance.now();
        const { status, body } = await post(agent, port, path, item);
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

function summarize(results: LoadResult[]) {
  const latencies = results.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const seconds = results.reduce((sum, r) => sum + r.seconds, 0);
  return {
    perSecond: latencies.length / seconds,
    p50: latencies[Math.ceil(latencies.length * 0.5) - 1]!,
    p99: latencies[Math.ceil(latencies.length * 0.99) - 1]!,
  };
}

async function startBaseline(url: string) {
  const pool = new pg.Pool({ connectionString: url, max: POOL_MAX });
  pool.on('error', () => {});
  await pool.query(
    'CREATE TABLE bench_baseline (id bigserial PRIMARY KEY, body jsonb NOT NULL, received_at timestamptz NOT NULL DEFAULT now())',
  );
  const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
  app.post('/baseline', async (req, reply) => {
    await pool.query('INSERT INTO bench_baseline (body) VALUES ($1)', [req.body]);
    return reply.code(201).send({ status: 'ok' });
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, pool, port: (app.server.address() as AddressInfo).port };
}

export async function run() {
  const database = `mostrador_bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  const url = withDatabase(SERVER_URL, database);
  await admin(`CREATE DATABASE "${database}"`);
  const cleanups: (() => Promise<unknown>)[] = [() => admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`)];
  try {
    const config = loadConfig({
      DATABASE_URL: url,
      SECRET_KEY: randomBytes(32).toString('base64url'),
      LOG_LEVEL: 'silent',
      DEMO_SEED: 'false',
      DATA_DIR: tmpdir(),
      DB_POOL_MAX: String(POOL_MAX),
    });
    const container = await createContainer(config);
    cleanups.unshift(() => container.close());
    await migrate(container.db);
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
          { id, name: `Producto ${id}`, basePrice: price, stock: 1_000_000 },
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
    const baseline = await startBaseline(url);
    cleanups.unshift(
      () => baseline.pool.end(),
      () => baseline.app.close(),
    );

    const registers = Array.from({ length: REGISTERS }, (_, n) => n + 1);
    const batch = (count: number) => registers.map((box) => prepareSales(secret, box, Math.ceil(count / REGISTERS)));
    // Warm both up, then alternate rounds so that load elsewhere on the machine hits both alike.
    const warm = batch(WARMUP);
    await load(port, '/api/v1/sales', warm, 201);
    await load(baseline.port, '/baseline', warm, 201);
    const baseRuns: LoadResult[] = [];
    const posRuns: LoadResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const items = batch(Math.ceil(SALES / ROUNDS));
      baseRuns.push(await load(baseline.port, '/baseline', items, 201));
      posRuns.push(await load(port, '/api/v1/sales', items, 201));
    }
    const base = summarize(baseRuns);
    const pos = summarize(posRuns);

    const sent = warm.flat().length + posRuns.reduce((s, r) => s + r.latencies.length, 0);
    const [check] = await container.db.query<{ n: number; paid: number; moves: number }>(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'paid')::int AS paid,
         (SELECT count(*)::int FROM movements WHERE company_id = $1 AND type = 'OUT') AS moves
       FROM sales WHERE company_id = $1`,
      [company.id],
    );
    if (check!.n !== sent || check!.paid !== sent || check!.moves !== sent * 3) {
      throw new Error(`expected ${sent} paid sales and ${sent * 3} movements, found ${JSON.stringify(check)}`);
    }
    process.stdout.write(
      `sales ${posRuns.reduce((s, r) => s + r.latencies.length, 0)} (+${warm.flat().length} warm-up) in ${ROUNDS} alternating rounds, ` +
        `${REGISTERS} registers (one box and session each, one sale after another), pool ${POOL_MAX}, ` +
        `PostgreSQL ${SERVER_URL.replace(/\/\/[^@]*@/, '//')}; p50 ${pos.p50.toFixed(1)} ms; ratio ${(pos.perSecond / base.perSecond).toFixed(2)}\n`,
    );
    process.stdout.write(
      `pos: ${Math.round(pos.perSecond)} sales/s p99 ${pos.p99.toFixed(1)} ms at ${REGISTERS} registers; ` +
        `baseline insert: ${Math.round(base.perSecond)} req/s\n`,
    );
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => {});
  }
}
