import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { listen } from '../../src/db/listen.ts';
import { createLogger } from '../../src/logger.ts';
import { isPostgresRun, openTestDatabase, type TestDatabase } from '../setup/db.ts';

const postgres = Boolean(process.env['TEST_DATABASE_URL']);

describe('LISTEN (src/db/listen.ts): every channel of a process on one connection', () => {
  let database: TestDatabase;
  const logger = createLogger('silent');

  beforeAll(async () => {
    database = await openTestDatabase({ poolMax: 3 });
  });
  afterAll(async () => {
    await database.dispose();
  });

  const listening = async () => {
    const [row] = await database.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN test_listen_%'`,
    );
    return row!.n;
  };

  it('hears each channel on its own handlers, shares one connection, and lets it go when the last stops', async () => {
    const heard = { a: 0, b: 0, upA: 0, downA: 0 };
    const a = await listen(
      database.db,
      'test_listen_a',
      { onNotify: () => heard.a++, onUp: () => heard.upA++, onDown: () => heard.downA++ },
      logger,
    );
    const b = await listen(database.db, 'test_listen_b', { onNotify: () => heard.b++ }, logger);
    expect([a.connected, b.connected, heard.upA]).toEqual([true, true, 1]);
    await database.db.query(
      `SELECT pg_notify('test_listen_a', ''), pg_notify('test_listen_a', 'x'), pg_notify('test_listen_b', '')`,
    );
    await vi.waitFor(() => expect([heard.a, heard.b]).toEqual([2, 1]));
    // One backend holds both LISTENs (its last statement was the second LISTEN).
    if (isPostgresRun()) expect(await listening()).toBe(1);
    await a.stop();
    expect([a.connected, heard.downA]).toEqual([false, 1]);
    await database.db.query(`SELECT pg_notify('test_listen_a', ''), pg_notify('test_listen_b', '')`);
    await vi.waitFor(() => expect(heard.b).toBe(2));
    expect(heard.a).toBe(2);
    await b.stop();
    // Back in the pool, its last statement an UNLISTEN.
    if (isPostgresRun()) expect(await listening()).toBe(0);
  });

  it.skipIf(!postgres)('comes back after its connection is killed: down, then up again on every channel', async () => {
    const seen = { up: 0, down: 0, notified: 0 };
    const one = await listen(
      database.db,
      'test_listen_c',
      { onNotify: () => seen.notified++, onUp: () => seen.up++, onDown: () => seen.down++ },
      logger,
    );
    const two = await listen(database.db, 'test_listen_d', { onNotify: () => {} }, logger);
    try {
      expect(seen.up).toBe(1);
      expect(await listening()).toBe(1);
      await database.db.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN test_listen_%'`,
      );
      await vi.waitFor(() => expect(seen.down).toBe(1), { timeout: 5000 });
      await vi.waitFor(() => expect([seen.up, one.connected, two.connected]).toEqual([2, true, true]), { timeout: 5000 });
      await database.db.query(`SELECT pg_notify('test_listen_c', '')`);
      await vi.waitFor(() => expect(seen.notified).toBe(1));
    } finally {
      await one.stop();
      await two.stop();
    }
  });
});
