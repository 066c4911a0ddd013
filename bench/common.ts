// Shared by the benchmarks that run the application on a scratch PostgreSQL database
// (catalog, ingest, pos): settings from the environment, the scratch database and its container,
// one HTTP call, the baseline INSERT route and the summary of timed rounds.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import Fastify from 'fastify';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { type Container, createContainer } from '../src/container.ts';
import { migrate } from '../src/db/migrate.ts';

export const SERVER_URL = process.env['BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
/** SERVER_URL without its credentials, for the printed lines. */
export const SERVER_SHOWN = SERVER_URL.replace(/\/\/[^@]*@/, '//');

export function positiveInt(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1 || value > 10_000_000) throw new Error(`${name} must be a positive integer`);
  return value;
}

export function withDatabase(url: string, database: string) {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** One statement on the server's `postgres` database (CREATE / DROP DATABASE). */
export async function admin(sql: string) {
  const client = new pg.Client({ connectionString: withDatabase(SERVER_URL, 'postgres') });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export type Cleanup = () => Promise<unknown>;

/**
 * A scratch database named `<prefix>_<pid>_<random>`, migrated, with the application's container
 * on a pool of `poolMax`. `cleanups` undo it, last made first: run them with runCleanups.
 */
export async function scratchContainer(prefix: string, poolMax: number) {
  const database = `${prefix}_${process.pid}_${randomBytes(3).toString('hex')}`;
  const url = withDatabase(SERVER_URL, database);
  await admin(`CREATE DATABASE "${database}"`);
  const cleanups: Cleanup[] = [() => admin(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`)];
  let container: Container;
  try {
    const config = loadConfig({
      DATABASE_URL: url,
      SECRET_KEY: randomBytes(32).toString('base64url'),
      LOG_LEVEL: 'silent',
      DEMO_SEED: 'false',
      DATA_DIR: tmpdir(),
      DB_POOL_MAX: String(poolMax),
    });
    container = await createContainer(config);
    cleanups.unshift(() => container.close());
    await migrate(container.db);
  } catch (err) {
    await runCleanups(cleanups);
    throw err;
  }
  return { url, container, cleanups };
}

export async function runCleanups(cleanups: Cleanup[]) {
  for (const cleanup of cleanups) await cleanup().catch(() => {});
}

/** One request to 127.0.0.1 on a keep-alive agent: the status and the body. */
export function call(
  agent: Agent,
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: Buffer | string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A Fastify route doing one INSERT of the body through its own pool: what a write costs at least. */
export async function startInsertBaseline(url: string, poolMax: number, status: 200 | 201) {
  const pool = new pg.Pool({ connectionString: url, max: poolMax, application_name: 'bench-baseline' });
  pool.on('error', () => {}); // as the application's pool: a dropped idle connection is not fatal
  await pool.query(
    'CREATE TABLE bench_baseline (id bigserial PRIMARY KEY, body jsonb NOT NULL, received_at timestamptz NOT NULL DEFAULT now())',
  );
  const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
  app.post('/baseline', async (req, reply) => {
    await pool.query('INSERT INTO bench_baseline (body) VALUES ($1)', [req.body]);
    return reply.code(status).send({ status: 'ok' });
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, pool, port: (app.server.address() as AddressInfo).port };
}

/**
 * How many requests warm a baseline route (the bare INSERT of pos and ingest, the SELECT of
 * catalog) before it is timed. Its Node CPU per request falls from ~0.27 to ~0.08 ms over its first
 * ~6,000 requests as V8 optimises the HTTP and `pg` paths; warmed with 200 it was timed at a third of
 * its speed (docs/decisiones.md, «`pos`, `ingest` y `catalog` miden las dos rutas en caliente»).
 */
export const BASELINE_WARMUP = positiveInt('BENCH_BASELINE_WARMUP', 10_000);

/** `items` sent `times` times over, in order (a baseline round long enough to time). */
export function repeated<T>(items: T[], times: number): T[] {
  return Array.from({ length: times }, () => items).flat();
}

export interface TimedRun {
  seconds: number;
  latencies: number[];
}

/** A round's requests per second. */
export const rateOf = (run: TimedRun) => run.latencies.length / run.seconds;

/** Requests per second over the rounds, and the latency percentiles of all their requests. */
export function summarize(results: TimedRun[]) {
  const latencies = results.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const seconds = results.reduce((sum, r) => sum + r.seconds, 0);
  return {
    perSecond: latencies.length / seconds,
    p50: latencies[Math.ceil(latencies.length * 0.5) - 1]!,
    p99: latencies[Math.ceil(latencies.length * 0.99) - 1]!,
  };
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); null when unreadable. */
function processCpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are the 12th and 13th fields after the command (clock ticks, USER_HZ = 100 on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/**
 * Where the CPU of a timed section goes: this process (the service and the load generator) and the
 * PostgreSQL backends connected to `database`, per application_name. Read from /proc, so only on a
 * local Linux server; load elsewhere on the machine does not change these figures the way it
 * changes the wall clock. Backends that connect and disconnect inside the section are not counted.
 */
export async function cpuOf<T>(
  url: string,
  fn: () => Promise<T>,
): Promise<{ result: T; nodeMs: number; postgresMs: Record<string, number> }> {
  const database = new URL(url).pathname.slice(1);
  const client = new pg.Client({ connectionString: url, application_name: 'bench-cpu-meter' });
  await client.connect();
  const backends = async () => {
    const { rows } = await client.query<{ pid: number; app: string }>(
      'SELECT pid, application_name AS app FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [database],
    );
    return new Map(rows.map((r) => [r.pid, { app: r.app || 'other', seconds: processCpuSeconds(r.pid) }]));
  };
  try {
    const before = await backends();
    const nodeBefore = process.cpuUsage();
    const result = await fn();
    const node = process.cpuUsage(nodeBefore);
    const after = await backends();
    const postgresMs: Record<string, number> = {};
    for (const [pid, { app, seconds }] of after) {
      if (seconds === null) continue;
      const start = before.get(pid)?.seconds ?? 0;
      postgresMs[app] = (postgresMs[app] ?? 0) + (seconds - start) * 1000;
    }
    return { result, nodeMs: (node.user + node.system) / 1000, postgresMs };
  } finally {
    await client.end();
  }
}

/** The CPU one side of a bench spent over its timed rounds, in ms: this process and PostgreSQL's backends. */
export interface CpuSpent {
  node: number;
  postgres: number;
}

/**
 * The line pos, ingest and catalog print: CPU per request of this process (the service and the
 * load generator) and of PostgreSQL's backends, for what is measured and for its baseline.
 */
export function cpuPerRequestLine(
  measured: { name: string; cpu: CpuSpent; requests: number },
  baseline: { name: string; cpu: CpuSpent; requests: number },
  digits = 2,
): string {
  const side = ({ name, cpu, requests }: { name: string; cpu: CpuSpent; requests: number }) =>
    `${name} ${(cpu.node / requests).toFixed(digits)} / ${(cpu.postgres / requests).toFixed(digits)} ms`;
  return `CPU per request (this process incl. the load generator / PostgreSQL backends): ${side(measured)}, ${side(baseline)}\n`;
}
