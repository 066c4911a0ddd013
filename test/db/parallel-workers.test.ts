import { describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/db/client.ts';
import { loadConfig } from '../../src/config.ts';

const serverUrl = process.env['TEST_DATABASE_URL'];

describe('DB_PARALLEL_WORKERS: parallel workers per query of the app', () => {
  it('is 0 unless set, and refuses what is not a count', () => {
    expect(loadConfig({}).db.parallelWorkers).toBe(0);
    expect(loadConfig({ DB_PARALLEL_WORKERS: '2' }).db.parallelWorkers).toBe(2);
    expect(() => loadConfig({ DB_PARALLEL_WORKERS: '-1' })).toThrow(/DB_PARALLEL_WORKERS/);
    expect(() => loadConfig({ DB_PARALLEL_WORKERS: 'many' })).toThrow(/DB_PARALLEL_WORKERS/);
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
});
