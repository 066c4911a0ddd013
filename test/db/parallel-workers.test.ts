import { describe, expect, it } from 'vitest';
import { openPostgres, withStartupSetting } from '../../src/db/client.ts';
import { loadConfig } from '../../src/config.ts';
import { TEST_SECRET_KEY } from '../app.ts';

const serverUrl = process.env['TEST_DATABASE_URL'];

describe('DB_PARALLEL_WORKERS: parallel workers per query of the app', () => {
  it('is 0 unless set, and refuses what is not a count', () => {
    // A SECRET_KEY of its own: without one, loadConfig would write ./data/secret.key (npm start's).
    const base = { SECRET_KEY: TEST_SECRET_KEY };
    expect(loadConfig(base).db.parallelWorkers).toBe(0);
    expect(loadConfig({ ...base, DB_PARALLEL_WORKERS: '2' }).db.parallelWorkers).toBe(2);
    expect(() => loadConfig({ ...base, DB_PARALLEL_WORKERS: '-1' })).toThrow(/DB_PARALLEL_WORKERS/);
    expect(() => loadConfig({ ...base, DB_PARALLEL_WORKERS: 'many' })).toThrow(/DB_PARALLEL_WORKERS/);
  });

  it("adds the setting after the URL's own startup options, and changes nothing else of the URL", () => {
    expect(withStartupSetting('postgres://postgres@127.0.0.1:5432/test', 'max_parallel_workers_per_gather', 0)).toBe(
      'postgres://postgres@127.0.0.1:5432/test?options=-c+max_parallel_workers_per_gather%3D0',
    );
    const url = new URL(
      withStartupSetting(
        'postgres://u:p%40ss@db.example:6543/shop?sslmode=require&options=-c%20statement_timeout%3D5s',
        'max_parallel_workers_per_gather',
        2,
      ),
    );
    expect([url.username, url.password, url.host, url.pathname]).toEqual(['u', 'p%40ss', 'db.example:6543', '/shop']);
    expect(url.searchParams.get('sslmode')).toBe('require');
    expect(url.searchParams.get('options')).toBe('-c statement_timeout=5s -c max_parallel_workers_per_gather=2');
  });

  it.skipIf(!serverUrl)("sets every pooled connection's max_parallel_workers_per_gather, or leaves the server's", async () => {
    const server = await openPostgres({ url: serverUrl!, poolMax: 2 });
    const none = await openPostgres({ url: serverUrl!, poolMax: 2, parallelWorkers: 0 });
    const three = await openPostgres({ url: serverUrl!, poolMax: 2, parallelWorkers: 3 });
    try {
      // pg_settings says where the session's value came from: 'client' is a startup parameter.
      const SETTING = "SELECT setting AS value, source FROM pg_settings WHERE name = 'max_parallel_workers_per_gather'";
      const [own] = await server.query<{ value: string; source: string }>(SETTING);
      expect(own!.source).not.toBe('client');
      // Both connections of each pool, held at once.
      for (const [db, want] of [
        [none, '0'],
        [three, '3'],
      ] as const) {
        const rows = await Promise.all([
          db.rawTransaction((tx) => tx.query<{ value: string; source: string }>(SETTING)),
          db.rawTransaction((tx) => tx.query<{ value: string; source: string }>(SETTING)),
        ]);
        expect(rows.map((r) => r[0])).toEqual([
          { value: want, source: 'client' },
          { value: want, source: 'client' },
        ]);
      }
    } finally {
      await Promise.all([server.close(), none.close(), three.close()]);
    }
  });

  it.skipIf(!serverUrl)('keeps the startup options the URL already carries, and adds its own', async () => {
    const url = new URL(serverUrl!);
    url.searchParams.set('options', '-c statement_timeout=4321');
    const db = await openPostgres({ url: url.toString(), poolMax: 1, parallelWorkers: 0 });
    try {
      const [row] = await db.query<{ timeout: string; workers: string }>(
        "SELECT current_setting('statement_timeout') AS timeout, current_setting('max_parallel_workers_per_gather') AS workers",
      );
      expect(row).toEqual({ timeout: '4321ms', workers: '0' });
    } finally {
      await db.close();
    }
  });
});
