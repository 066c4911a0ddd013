import type { Database } from '../db/client.ts';

// The shared rate limiter's SQL (rate-limiter.ts decides; this file reads and writes the windows).
// Keys arrive hashed: no email or IP is ever stored.

/** One hit on a key's fixed window (a new window when the last one ended): the hits so far and when it ends. */
export async function hitWindow(db: Database, rowKey: string, now: Date, windowMs: number) {
  const [row] = await db.query<{ hits: number; ends_ms: number }>(
    `INSERT INTO rate_limit_windows AS w (key, window_started_at, hits, expires_at)
     VALUES ($1, $2::timestamptz, 1, $2::timestamptz + make_interval(secs => $3::float8 / 1000))
     ON CONFLICT (key) DO UPDATE SET
       window_started_at = CASE WHEN w.expires_at <= $2::timestamptz THEN excluded.window_started_at ELSE w.window_started_at END,
       hits = CASE WHEN w.expires_at <= $2::timestamptz THEN 1 ELSE w.hits + 1 END,
       expires_at = CASE WHEN w.expires_at <= $2::timestamptz THEN excluded.expires_at ELSE w.expires_at END
     RETURNING hits, (extract(epoch FROM expires_at) * 1000)::float8 AS ends_ms`,
    [rowKey, now.toISOString(), windowMs],
  );
  return { hits: Number(row!.hits), endsMs: Number(row!.ends_ms) };
}

/** Takes one hit back (the last one removes the window). */
export async function releaseHit(db: Database, rowKey: string) {
  await db.query(
    `WITH gone AS (DELETE FROM rate_limit_windows WHERE key = $1 AND hits = 1 RETURNING 1)
     UPDATE rate_limit_windows SET hits = hits - 1 WHERE key = $1 AND hits > 1`,
    [rowKey],
  );
}

export async function deleteWindow(db: Database, rowKey: string) {
  await db.query('DELETE FROM rate_limit_windows WHERE key = $1', [rowKey]);
}

/** Deletes windows that ended more than a day before `now`; answers how many. */
export async function deleteOldWindows(db: Database, now: Date): Promise<number> {
  const rows = await db.query(
    "DELETE FROM rate_limit_windows WHERE expires_at < $1::timestamptz - interval '1 day' RETURNING 1",
    [now.toISOString()],
  );
  return rows.length;
}
