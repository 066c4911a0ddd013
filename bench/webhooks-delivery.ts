// npm run bench -- delivery   (bench/webhooks-delivery.ts)
// Outbound webhooks end to end on PostgreSQL (BENCH_DATABASE_URL, default the local server): a worker
// process (src/main.ts, ROLE=worker) delivers product.upserted events, committed by this process,
// to a receiver on 127.0.0.1 that checks every signature. Two phases, both bounded:
//   backlog  BENCH_BURST events committed before the worker starts, then drained → events/s from the
//            first receipt to the last (delivery throughput, not the writers');
//   paced    BENCH_RATE events/s for BENCH_PACED_SECONDS with the worker running → p50/p99 lag from
//            each change's commit to its receipt.
// Prints as its last line: `delivery: <events/s> events/s to a local receiver; p99 lag <ms> ms`.
import { spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { createContainer } from '../src/container.ts';
import { migrate } from '../src/db/migrate.ts';
import { createLogger } from '../src/logger.ts';
import { upsertProduct } from '../src/modules/catalog/products.service.ts';
import { cliCtx } from '../src/http/request-context.ts';
import { type Figure, figure } from './results.ts';

const SERVER = process.env['BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const BURST = Number(process.env['BENCH_BURST'] ?? 5000);
const RATE = Number(process.env['BENCH_RATE'] ?? 200);
const PACED_SECONDS = Number(process.env['BENCH_PACED_SECONDS'] ?? 10);
const WRITERS = 8;
const DEADLINE_MS = 180_000;

const withDatabase = (name: string) => {
  const url = new URL(SERVER);
  url.pathname = `/${name}`;
  return url.toString();
};

async function admin(statement: string) {
  const client = new pg.Client({ connectionString: withDatabase('postgres') });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** Receives deliveries, checks each signature, and notes when each product id arrived. */
async function startReceiver(secret: () => string) {
  const received = new Map<number, number>();
  let badSignatures = 0;
  let duplicates = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.timeOrigin + performance.now();
      const body = Buffer.concat(chunks).toString('utf8');
      if (createHmac('sha256', secret()).update(body).digest('hex') !== req.headers['x-signature']) badSignatures++;
      const id = JSON.parse(body).data.product.id as number;
      if (received.has(id)) duplicates++;
      else received.set(id, at);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    stats: () => ({ badSignatures, duplicates }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function startWorker(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { PATH: process.env['PATH'] ?? '', ...env, ROLE: 'worker', LOG_LEVEL: 'info', DEMO_SEED: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c) => {
    output += String(c);
  });
  child.stderr!.on('data', (c) => {
    output += String(c);
  });
  const deadline = Date.now() + 60_000;
  while (!output.includes('mostrador started')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`worker did not start: ${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return child;
}

export default async function run(): Promise<Figure[]> {
  const name = `mostrador_bench_delivery_${process.pid}`;
  const url = withDatabase(name);
  const env = {
    DATABASE_URL: url,
    SECRET_KEY: randomBytes(32).toString('base64url'),
    ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
    DB_POOL_MAX: '20',
  };
  await admin(`CREATE DATABASE "${name}"`);
  const container = await createContainer(loadConfig({ ...env, LOG_LEVEL: 'warn', DEMO_SEED: 'false' }), {
    logger: createLogger('warn', process.stderr),
  });
  let secret = '';
  const receiver = await startReceiver(() => secret);
  let worker: Awaited<ReturnType<typeof startWorker>> | null = null;
  try {
    await migrate(container.db);
    const { company } = await container.companies.createCompany({ name: 'Bench' });
    const created = await container.webhooks.endpoints.createEndpoint(cliCtx(company.id), {
      url: receiver.url,
      events: ['product.upserted'],
    });
    secret = created.secret;

    const committed = new Map<number, number>();
    const write = async (id: number) => {
      await container.db.orm.transaction((tx) =>
        upsertProduct(tx, company.id, { id, name: `Producto ${id}`, basePrice: 100 + (id % 900) }, { now: new Date() }),
      );
      committed.set(id, performance.timeOrigin + performance.now());
    };
    const waitFor = async (count: number) => {
      const deadline = Date.now() + DEADLINE_MS;
      while (receiver.received.size < count) {
        if (Date.now() > deadline) throw new Error(`only ${receiver.received.size} of ${count} events arrived in time`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const lags = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, i) => receiver.received.get(from + i)! - committed.get(from + i)!).sort(
        (a, b) => a - b,
      );

    // Backlog: events committed while no worker runs, then drained by one worker process. Measures
    // delivery throughput alone (the writers are not competing for the two cores meanwhile).
    let next = 1;
    const producing = performance.now();
    await Promise.all(
      Array.from({ length: WRITERS }, async () => {
        while (next <= BURST) await write(next++);
      }),
    );
    const producedPerSecond = Math.round(BURST / ((performance.now() - producing) / 1000));
    worker = await startWorker(env);
    await waitFor(BURST);
    const receipts = [...receiver.received.values()];
    const eventsPerSecond = Math.round((BURST - 1) / ((Math.max(...receipts) - Math.min(...receipts)) / 1000));

    // Paced: lag at a steady rate well under capacity.
    const pacedCount = RATE * PACED_SECONDS;
    const first = BURST + 1;
    const startedAt = Date.now();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < pacedCount; i++) {
      const due = startedAt + (i * 1000) / RATE;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      pending.push(write(first + i));
    }
    await Promise.all(pending);
    await waitFor(BURST + pacedCount);
    const pacedLags = lags(first, first + pacedCount);
    const { badSignatures, duplicates } = receiver.stats();

    const fmt = (n: number) => n.toFixed(1);
    process.stdout.write(
      `backlog: ${BURST} events committed by ${WRITERS} writers (${producedPerSecond}/s), drained by 1 worker process ` +
        `(concurrency ${container.config.webhooks.concurrency}) at ${eventsPerSecond} events/s\n` +
        `paced: ${pacedCount} events at ${RATE}/s; lag p50 ${fmt(percentile(pacedLags, 50))} ms, p99 ${fmt(percentile(pacedLags, 99))} ms, ` +
        `max ${fmt(pacedLags.at(-1)!)} ms\n` +
        `checks: ${badSignatures} bad signatures, ${duplicates} duplicates\n` +
        `delivery: ${eventsPerSecond} events/s to a local receiver; p99 lag ${fmt(percentile(pacedLags, 99))} ms\n`,
    );
    if (badSignatures > 0 || duplicates > 0) process.exitCode = 1;
    return [figure('delivery', eventsPerSecond, 'events/s'), figure('lag p99', percentile(pacedLags, 99), 'ms')];
  } finally {
    worker?.kill('SIGTERM');
    await receiver.close();
    await container.close();
    await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}
