import type { Clock } from './time.ts';

export interface RateDecision {
  allowed: boolean;
  remaining: number;
  /** Seconds until the window that refused the hit resets (0 when allowed). */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  hit(key: string): RateDecision;
  reset(key: string): void;
}

export interface RateLimiterOptions {
  limit: number;
  windowMs: number;
  clock: Clock;
  /** Keys kept at most; the oldest windows are dropped first (memory bound under key floods). */
  maxKeys?: number;
}

/**
 * Fixed-window counters in process memory. Limits are per process: with N web processes a
 * client gets at most N × limit, which is what these limits (abuse brakes, not quotas) need.
 */
export function createRateLimiter({ limit, windowMs, clock, maxKeys = 100_000 }: RateLimiterOptions): RateLimiter {
  const windows = new Map<string, { startedAt: number; count: number }>();
  return {
    hit(key) {
      const now = clock.now().getTime();
      let window = windows.get(key);
      if (!window || now - window.startedAt >= windowMs) {
        windows.delete(key);
        if (windows.size >= maxKeys) windows.delete(windows.keys().next().value!);
        window = { startedAt: now, count: 0 };
        windows.set(key, window);
      }
      window.count += 1;
      if (window.count > limit) {
        return {
          allowed: false,
          remaining: 0,
          retryAfterSeconds: Math.max(1, Math.ceil((window.startedAt + windowMs - now) / 1000)),
        };
      }
      return { allowed: true, remaining: limit - window.count, retryAfterSeconds: 0 };
    },
    reset(key) {
      windows.delete(key);
    },
  };
}
