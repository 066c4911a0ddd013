import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSharedRateLimiter, pruneRateLimitWindows } from '../../src/lib/rate-limiter.ts';
import { openTestDatabase, type TestDatabase } from '../setup/db.ts';

describe('shared rate limiter (rate_limit_windows)', () => {
  let database: TestDatabase;
  let now = Date.parse('2026-03-01T12:00:00Z');
  const clock = { now: () => new Date(now) };

  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => {
    await database.dispose();
  });

  it('counts two limiter instances (two processes) in one window, refuses with the seconds left, and opens the next window', async () => {
    const a = createSharedRateLimiter({ db: database.db, name: 'login-account', limit: 3, windowMs: 10_000, clock });
    const b = createSharedRateLimiter({ db: database.db, name: 'login-account', limit: 3, windowMs: 10_000, clock });
    expect(await a.hit('acct:ana@example.com')).toEqual({ allowed: true, remaining: 2, retryAfterSeconds: 0 });
    expect((await b.hit('acct:ana@example.com')).remaining).toBe(1);
    expect((await a.hit('acct:ana@example.com')).allowed).toBe(true);
    now += 2_500;
    expect(await b.hit('acct:ana@example.com')).toEqual({ allowed: false, remaining: 0, retryAfterSeconds: 8 });
    // Another name or key is another window.
    const other = createSharedRateLimiter({ db: database.db, name: 'scanner', limit: 3, windowMs: 10_000, clock });
    expect((await other.hit('acct:ana@example.com')).allowed).toBe(true);
    now += 7_500;
    expect(await a.hit('acct:ana@example.com')).toEqual({ allowed: true, remaining: 2, retryAfterSeconds: 0 });
    await b.reset('acct:ana@example.com');
    expect((await a.hit('acct:ana@example.com')).remaining).toBe(2);
  });

  it('stores no email in clear and prunes windows ended more than a day ago', async () => {
    const rows = await database.db.query<{ key: string }>('SELECT key FROM rate_limit_windows');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.key).toMatch(/^[0-9a-f]{64}$/);
    expect(await pruneRateLimitWindows(database.db, new Date(now + 60_000))).toBe(0);
    expect(await pruneRateLimitWindows(database.db, new Date(now + 2 * 86_400_000))).toBe(rows.length);
  });
});
