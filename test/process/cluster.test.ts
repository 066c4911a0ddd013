import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_SECRET_KEY } from '../app.ts';
import { createEmptyDatabase, isPostgresRun, openTestDatabase, type TestDatabase } from '../setup/db.ts';
import { listeningUrl, type Running, startProcess, waitForOutput, workerUrl } from './processes.ts';

const postgres = Boolean(process.env['TEST_DATABASE_URL']);

async function stopAll(processes: Running[]) {
  for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGTERM');
  return Promise.all(processes.map((p) => p.exit));
}

/** Each process's exit code with the end of its stderr and of its log, for a failed expectation. */
function exitReport(processes: Running[], exits: { code: number | null }[]) {
  return processes
    .map((p, i) => `process ${i} exited ${exits[i]!.code}:\n${p.stderr.join('').slice(-2000)}${p.stdout.join('').slice(-3000)}`)
    .join('\n');
}

describe.skipIf(!postgres)('several processes on one PostgreSQL', () => {
  // The processes' DATA_DIR (the built-in fake ARCA's state): never the checkout's ./data, which is
  // `npm start`'s (a demo there found this test's ARCA tickets and could not invoice).
  const dataDir = mkdtempSync(join(tmpdir(), 'mostrador-several-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('start at the same moment on an empty database, again and again: all come up, one demo company, the queues exist', async () => {
    expect(isPostgresRun()).toBe(true);
    const rounds: number[] = [];
    const budgets: string[] = [];
    for (let round = 0; round < 3; round++) {
      const database = await createEmptyDatabase();
      const base = {
        DATA_DIR: join(dataDir, `round-${round}`),
        DATABASE_URL: database.url,
        SECRET_KEY: TEST_SECRET_KEY,
        DEMO_SEED: 'true',
        DB_POOL_MAX: '4',
        SHUTDOWN_DRAIN_MS: '0',
        WORKER_PORT: '0',
      };
      const started = Date.now();
      const processes = [
        startProcess({ ...base, ROLE: 'web' }),
        startProcess({ ...base, ROLE: 'web' }),
        startProcess({ ...base, ROLE: 'worker' }),
      ];
      try {
        const [web1, web2] = await Promise.all([listeningUrl(processes[0]!), listeningUrl(processes[1]!)]);
        const worker = await workerUrl(processes[2]!);
        await Promise.all(processes.map((p) => waitForOutput(p, /mostrador started/)));
        rounds.push(Date.now() - started);
        for (const url of [web1, web2, worker]) expect((await fetch(`${url}/readyz`)).status).toBe(200);
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        try {
          const companies = await client.query<{ name: string }>('SELECT name FROM companies');
          expect(companies.rows.map((r) => r.name)).toEqual(['Almacén Don Tito']);
          const queues = await client.query<{ name: string }>('SELECT name FROM pgboss.queue ORDER BY name');
          expect(queues.rows.map((r) => r.name)).toContain('webhooks-prune');
          const schedules = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pgboss.schedule');
          expect(schedules.rows[0]!.n).toBeGreaterThan(0);
          // The connection budget: DB_POOL_MAX (4) per process at most; the start-up lock connections are gone.
          const connections = await client.query<{ app: string; n: number }>(
            `SELECT application_name AS app, count(*)::int AS n FROM pg_stat_activity
             WHERE datname = current_database() AND pid <> pg_backend_pid() GROUP BY 1 ORDER BY 1`,
          );
          const byApp = Object.fromEntries(connections.rows.map((r) => [r.app, r.n]));
          budgets.push(JSON.stringify(byApp));
          expect(byApp['mostrador-startup']).toBeUndefined();
          expect(byApp['mostrador'] ?? 0).toBeLessThanOrEqual(3 * 4);
        } finally {
          await client.end();
        }
        // The demo credentials are delivered by the one process that seeded (off a terminal: to a 0600
        // file whose path the log names, never the secrets themselves).
        const delivered = processes.filter((p) => (p.stdout.join('') + p.stderr.join('')).includes('demo-credentials.txt'));
        expect(delivered).toHaveLength(1);
        expect(processes.filter((p) => p.stdout.join('').includes('Token del escáner'))).toHaveLength(0);
      } catch (err) {
        for (const p of processes) console.error(p.stderr.join('').slice(-3000));
        throw err;
      } finally {
        const exits = await stopAll(processes);
        await database.dispose();
        // A process that stopped badly says why in its log (stdout) or on stderr: show both.
        expect(
          exits.map((e) => e.code),
          exitReport(processes, exits),
        ).toEqual([0, 0, 0]);
      }
    }
    console.info(`cold start of 2 web + 1 worker on an empty database, ms per round: ${rounds.join(', ')}`);
    console.info(`connections open once all were up (DB_POOL_MAX=4): ${budgets.join(' ')}`);
  }, 300_000);

  describe('login limit', () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await openTestDatabase();
    });
    afterAll(async () => {
      await database.dispose();
    });

    it('is shared by two web processes and survives a restart', async () => {
      const env = {
        DATA_DIR: join(dataDir, 'login-limit'),
        DATABASE_URL: database.url!,
        SECRET_KEY: TEST_SECRET_KEY,
        DEMO_SEED: 'false',
        ROLE: 'web',
        SHUTDOWN_DRAIN_MS: '0',
        AUTH_LOGIN_LIMIT_PER_ACCOUNT: '5',
        LOG_LEVEL: 'warn',
      };
      const processes = [startProcess({ ...env, LOG_LEVEL: 'info' }), startProcess({ ...env, LOG_LEVEL: 'info' })];
      try {
        const urls = await Promise.all(processes.map((p) => listeningUrl(p)));
        const attempt = async (url: string) =>
          (
            await fetch(`${url}/api/auth/login`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ email: 'nadie@example.com', password: 'wrong password' }),
            })
          ).status;
        const statuses: number[] = [];
        for (let i = 0; i < 10; i++) statuses.push(await attempt(urls[i % 2]!));
        expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429, 429, 429]);

        processes[0]!.child.kill('SIGTERM');
        expect((await processes[0]!.exit).code).toBe(0);
        const restarted = startProcess({ ...env, LOG_LEVEL: 'info' });
        processes.push(restarted);
        expect(await attempt(await listeningUrl(restarted))).toBe(429);
      } finally {
        await stopAll(processes);
      }
    }, 120_000);
  });
});

/** The drain of the test below: long enough that a loaded machine still stops its load inside it. */
const DRAIN_MS = 3000;

describe('stopping a web process under load', () => {
  let dataDir: string;
  let database: TestDatabase | null = null;
  let env: Record<string, string>;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mostrador-drain-'));
    env = { DATA_DIR: dataDir, DEMO_SEED: 'false', SHUTDOWN_DRAIN_MS: String(DRAIN_MS), EXCHANGE_RATE_FIXED: '1160.50' };
    if (postgres) {
      database = await openTestDatabase();
      env = { ...env, DATABASE_URL: database.url!, SECRET_KEY: TEST_SECRET_KEY, ROLE: 'web' };
    }
  });
  afterAll(async () => {
    await database?.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers /readyz 503 first, keeps serving through the drain, resets no connection, exits 0', async () => {
    const service = startProcess({ ...env, LOG_LEVEL: 'info' });
    const url = await listeningUrl(service);
    let loadOn = true;
    const statuses = new Map<number, number>();
    const errors: string[] = [];
    const loop = async () => {
      while (loadOn) {
        try {
          const res = await fetch(`${url}/api/exchange`);
          await res.arrayBuffer();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        } catch (err) {
          errors.push(String((err as Error).cause ?? err));
        }
      }
    };
    const loops = Array.from({ length: 8 }, loop);
    await new Promise((resolve) => setTimeout(resolve, 500));

    const signalledAt = Date.now();
    service.child.kill('SIGTERM');
    let notReadyAt = 0;
    while (!notReadyAt && Date.now() - signalledAt < 5000) {
      const res = await fetch(`${url}/readyz`);
      if (res.status === 503) notReadyAt = Date.now();
      else await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // The load balancer takes the process out a moment after /readyz fails; until then traffic flows.
    // That moment ends well inside the drain, counted from the signal (a loaded machine may take a
    // while to answer the first 503): whatever is still in flight then must be served, not reset.
    const lbDelay = Math.min(700, Math.max(0, signalledAt + DRAIN_MS - 1000 - Date.now()));
    await new Promise((resolve) => setTimeout(resolve, lbDelay));
    loadOn = false;
    await Promise.all(loops);
    const stopped = await service.exit;

    const served = [...statuses.values()].reduce((a, b) => a + b, 0);
    console.info(
      `drain under load: ${served} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}, ` +
        `${errors.length} errors, /readyz 503 after ${notReadyAt - signalledAt} ms, exit after ${stopped.ms} ms`,
    );
    expect(errors).toEqual([]);
    expect([...statuses.keys()]).toEqual([200]);
    expect(notReadyAt).toBeGreaterThan(0);
    expect(notReadyAt - signalledAt).toBeLessThan(DRAIN_MS);
    expect(stopped.code).toBe(0);
    expect(stopped.ms).toBeGreaterThanOrEqual(DRAIN_MS);
    expect(stopped.ms).toBeLessThan(10_000);
  }, 120_000);
});
