import type { Database } from './client.ts';

/**
 * Runs `fn` while no other caller, in this process or in another one on the same PostgreSQL,
 * runs a function under the same key. For work that must wait on something slow outside the
 * database (an ARCA login, an invoice number being authorised) without holding a transaction
 * open: `fn` opens its own short transactions.
 *
 * Two layers: an in-process queue per key first, so a process never parks more than one pool
 * client on a key (twenty requests for one point of sale must not take the whole pool and leave
 * the holder without a connection); then, on PostgreSQL, a session-level advisory lock on a
 * dedicated client. PGlite is one process with one connection, so the queue is the whole lock.
 */
export async function withSerialLock<T>(db: Database, key: string, fn: () => Promise<T>): Promise<T> {
  return queued(key, async () => {
    if (!db.pool) return fn();
    const client = await db.pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock(hashtext($1), 1)', [key]);
    } catch (err) {
      client.release(true);
      throw err;
    }
    try {
      return await fn();
    } finally {
      try {
        await client.query('SELECT pg_advisory_unlock(hashtext($1), 1)', [key]);
        client.release();
      } catch {
        // The client may still hold the lock: destroying it makes the server free it.
        client.release(true);
      }
    }
  });
}

const tails = new Map<string, Promise<unknown>>();

async function queued<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  tails.set(key, tail);
  try {
    return await run;
  } finally {
    if (tails.get(key) === tail) tails.delete(key);
  }
}
