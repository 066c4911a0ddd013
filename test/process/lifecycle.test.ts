import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openPglite } from '../../src/db/client.ts';
import { TEST_SECRET_KEY } from '../app.ts';
import { openTestDatabase, type TestDatabase } from '../setup/db.ts';
import { listeningUrl, type Running, startProcess, waitForOutput, workerUrl } from './processes.ts';

describe('service process', () => {
  let dataDir: string;
  let database: TestDatabase | null = null;
  let env: Record<string, string>;
  // A test that fails leaves no process behind to hold the data directory for the next one.
  const started: Running[] = [];
  const start = (vars: Record<string, string>) => {
    const running = startProcess(vars);
    started.push(running);
    return running;
  };
  afterEach(async () => {
    for (const p of started) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await Promise.all(started.splice(0).map((p) => p.exit));
  });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'mostrador-life-'));
    env = { DATA_DIR: dataDir, DEMO_SEED: 'true' };
    if (process.env['TEST_DATABASE_URL']) {
      database = await openTestDatabase();
      env = { ...env, DATABASE_URL: database.url!, SECRET_KEY: TEST_SECRET_KEY };
    }
  });
  afterAll(async () => {
    await database?.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts with the demo, stops on SIGTERM with exit 0 within 10 s, and keeps every row on restart', async () => {
    const first = start(env);
    const url = await listeningUrl(first);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    // The server listens before the demo's credentials are delivered; "mostrador started" comes after them.
    await waitForOutput(first, /mostrador started/);
    // Not a terminal: the credentials go to a 0600 file and the log names only its path.
    const file = join(dataDir, 'demo-credentials.txt');
    const banner = readFileSync(file, 'utf8');
    expect(banner).toContain('Almacén Don Tito');
    expect(banner).toMatch(/Token del escáner\s+mos_scn_/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const output = first.stdout.join('') + first.stderr.join('');
    expect(output).toContain(file);
    const secrets = [...banner.matchAll(/(mos_[a-z]+_[A-Za-z0-9_-]+)|\.demo \/ (\S+)/g)].map((m) => m[1] ?? m[2]!);
    expect(secrets.length).toBeGreaterThanOrEqual(5);
    for (const secret of secrets) expect(output).not.toContain(secret);

    if (!database) {
      // A second process on the same embedded data directory is refused, and the directory is untouched.
      const second = start(env);
      const { code } = await second.exit;
      expect(code).toBe(2);
      expect(second.stderr.join('')).toContain('is in use by process');
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
    }

    first.child.kill('SIGTERM');
    const stopped = await first.exit;
    expect(stopped.code).toBe(0);
    expect(stopped.ms).toBeLessThan(10_000);

    const again = start(env);
    const url2 = await listeningUrl(again);
    expect((await fetch(`${url2}/readyz`)).status).toBe(200);
    expect(again.stdout.join('')).not.toContain('Token del escáner'); // the demo is printed once
    again.child.kill('SIGINT');
    expect((await again.exit).code).toBe(0);

    const db = database?.db ?? (await openPglite({ dataDir }));
    try {
      const [row] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM products');
      expect(row!.n).toBeGreaterThanOrEqual(300);
    } finally {
      if (!database) await db.close();
    }
  }, 300_000);

  it('runs as a worker without the web port: health, readiness and metrics on WORKER_PORT; stops cleanly', async () => {
    const worker = start({ ...env, ROLE: 'worker', WORKER_PORT: '0' });
    const url = await workerUrl(worker);
    await waitForOutput(worker, /mostrador started/);
    const out = worker.stdout.join('');
    expect(out).toContain('"role":"worker"');
    expect(out).not.toContain('Server listening');
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${url}/readyz`)).json()).toEqual({ status: 'ready' });
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/^mostrador_job_queue_depth\{queue="webhooks-prune"\} \d+$/m);
    expect(metrics).toMatch(/^mostrador_outbox_backlog \d+$/m);
    worker.child.kill('SIGTERM');
    expect((await worker.exit).code).toBe(0);
  }, 200_000);

  it('refuses a bad configuration with one message listing every bad key', async () => {
    const bad = start({ DATA_DIR: dataDir, PORT: 'eighty', LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://x' });
    const { code } = await bad.exit;
    expect(code).toBe(2);
    const message = bad.stderr.join('');
    expect(message).toContain('PORT must be an integer');
    expect(message).toContain('LOG_LEVEL must be one of');
    expect(message).toContain('DATABASE_URL must start with postgres://');
    expect(message).toContain('SECRET_KEY is required when DATABASE_URL is set');
  }, 30_000);
});
