import { createHash } from 'node:crypto';
import type { Database } from '../db/client.ts';
import { deleteOldWindows, deleteWindow, hitWindow, releaseHit } from './rate-limiter.repo.ts';
import type { Clock } from './time.ts';

export interface RateDecision {
  allowed: boolean;
  remaining: number;
  /** Seconds until the window that refused the hit resets (0 when allowed). */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  hit(key: string): Promise<RateDecision>;
  /** Takes back one earlier hit of the window (an attempt that turned out not to count). */
  release(key: string): Promise<void>;
  reset(key: string): Promise<void>;
}

export interface RateLimiterOptions {
  limit: number;
  windowMs: number;
  clock: Clock;
  /** Keys kept at most; the oldest windows are dropped first (memory bound under key floods). */
  maxKeys?: number;
}

function decide(limit: number, hits: number, endsAt: number, now: number): RateDecision {
  if (hits > limit) return { allowed: false, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil((endsAt - now) / 1000)) };
  return { allowed: true, remaining: limit - hits, retryAfterSeconds: 0 };
}

/**
 * Fixed-window counters in process memory: for the embedded database, where one process is the
 * whole service, so nothing needs sharing and a lookup costs no write.
 */
export function createRateLimiter({ limit, windowMs, clock, maxKeys = 100_000 }: RateLimiterOptions): RateLimiter {
  const windows = new Map<string, { startedAt: number; count: number }>();
  return {
    async hit(key) {
      const now = clock.now().getTime();
      let window = windows.get(key);
      if (!window || now - window.startedAt >= windowMs) {
        windows.delete(key);
        if (windows.size >= maxKeys) windows.delete(windows.keys().next().value!);
        window = { startedAt: now, count: 0 };
        windows.set(key, window);
      }
      window.count += 1;
      return decide(limit, window.count, window.startedAt + windowMs, now);
    },
    async release(key) {
      const window = windows.get(key);
      if (!window) return;
      window.count -= 1;
      if (window.count <= 0) windows.delete(key);
    },
    async reset(key) {
      windows.delete(key);
    },
  };
}

export interface SharedRateLimiterOptions {
  db: Database;
  /** Separates limiters sharing the table (`login-account`, `scanner`…). */
  name: string;
  limit: number;
  windowMs: number;
  clock: Clock;
}

/**
 * Fixed-window counters in PostgreSQL (rate_limit_windows): every process counts in the same row,
 * so N web processes still allow `limit` hits per window, and a restart forgets nothing. One upsert
 * per hit; the key is hashed with the limiter's name.
 */
export function createSharedRateLimiter({ db, name, limit, windowMs, clock }: SharedRateLimiterOptions): RateLimiter {
  const rowKey = (key: string) => createHash('sha256').update(`${name}\u0000${key}`).digest('hex');
  return {
    async hit(key) {
      const now = clock.now();
      const { hits, endsMs } = await hitWindow(db, rowKey(key), now, windowMs);
      return decide(limit, hits, endsMs, now.getTime());
    },
    async release(key) {
      await releaseHit(db, rowKey(key));
    },
    async reset(key) {
      await deleteWindow(db, rowKey(key));
    },
  };
}

/** Shared through PostgreSQL when the service runs on it (several processes); in memory on PGlite. */
export function createRateLimiterFor(db: Database, options: Omit<SharedRateLimiterOptions, 'db'>): RateLimiter {
  return db.kind === 'postgres' ? createSharedRateLimiter({ db, ...options }) : createRateLimiter(options);
}

/** Deletes windows that ended more than a day ago (run by a scheduled job). */
export async function pruneRateLimitWindows(db: Database, now: Date): Promise<number> {
  return deleteOldWindows(db, now);
}
