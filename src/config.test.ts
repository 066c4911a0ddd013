import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('configuration', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mostrador-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('has working defaults for the embedded demo and keeps a generated secret key', () => {
    const config = loadConfig({ DATA_DIR: dir });
    expect(config).toMatchObject({ role: 'all', http: { port: 3000, host: '0.0.0.0', publicBaseUrl: 'http://localhost:3000' } });
    expect(config.db).toMatchObject({ kind: 'pglite', url: null, dataDir: dir });
    expect(config.demo.seedOnEmpty).toBe(true);
    expect(config.secretKey.length).toBeGreaterThanOrEqual(32);
    expect(readFileSync(join(dir, 'secret.key'), 'utf8').trim()).toBe(config.secretKey);
    expect(loadConfig({ DATA_DIR: dir }).secretKey).toBe(config.secretKey);
    expect(Object.isFrozen(config.http)).toBe(true);
  });

  it('uses PostgreSQL with DATABASE_URL and requires SECRET_KEY then', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://u@h/db',
      SECRET_KEY: 'k'.repeat(40),
      PUBLIC_BASE_URL: 'https://shop.example/',
    });
    expect(config.db.kind).toBe('postgres');
    expect(config.demo.seedOnEmpty).toBe(false);
    expect(config.http).toMatchObject({ publicBaseUrl: 'https://shop.example', isHttps: true });
  });

  it('believes X-Forwarded-For only from configured proxies', () => {
    const base = { SECRET_KEY: 'k'.repeat(40), DATABASE_URL: 'postgres://u@h/db' };
    expect(loadConfig(base).http.trustProxy).toBe(false);
    expect(loadConfig({ ...base, TRUST_PROXY: 'true' }).http.trustProxy).toBe(true);
    expect(loadConfig({ ...base, TRUST_PROXY: '1' }).http.trustProxy).toBe(1);
    expect(loadConfig({ ...base, TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).http.trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1']);
    expect(() => loadConfig({ ...base, TRUST_PROXY: 'everyone' })).toThrow('TRUST_PROXY must be');
  });

  it('lists every bad key in one error', () => {
    try {
      loadConfig({
        PORT: '99999',
        ROLE: 'boss',
        DB_POOL_MAX: '0',
        DEMO_SEED: 'maybe',
        SECRET_KEY: 'short',
        PUBLIC_BASE_URL: 'ftp://x',
      });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems.join('\n');
      for (const key of ['PORT', 'ROLE', 'DB_POOL_MAX', 'DEMO_SEED', 'SECRET_KEY', 'PUBLIC_BASE_URL'])
        expect(problems).toContain(key);
    }
  });

  it('reads the drain, worker port and metrics token, and refuses a drain as long as the whole stop', () => {
    const config = loadConfig({ DATA_DIR: dir });
    expect(config).toMatchObject({ shutdownDrainMs: 3000, workerPort: 3001, metricsToken: null });
    const set = loadConfig({ DATA_DIR: dir, SHUTDOWN_DRAIN_MS: '0', WORKER_PORT: '0', METRICS_TOKEN: 'a'.repeat(16) });
    expect(set).toMatchObject({ shutdownDrainMs: 0, workerPort: 0, metricsToken: 'a'.repeat(16) });
    let error: ConfigError | null = null;
    try {
      loadConfig({ DATA_DIR: dir, SHUTDOWN_DRAIN_MS: '8000', METRICS_TOKEN: 'short' });
    } catch (err) {
      error = err as ConfigError;
    }
    expect(error?.problems).toEqual([
      'SHUTDOWN_DRAIN_MS must be less than SHUTDOWN_TIMEOUT_MS (8000) (got "8000")',
      'METRICS_TOKEN must be at least 16 characters',
    ]);
  });
});
