import { describe, expect, it } from 'vitest';
import { createRateLimiter } from './rate-limiter.ts';

describe('rate limiter', () => {
  it('allows the limit per window, then refuses with the seconds left, then allows again', () => {
    let now = 1_000_000;
    const limiter = createRateLimiter({ limit: 2, windowMs: 10_000, clock: { now: () => new Date(now) } });
    expect(limiter.hit('a')).toEqual({ allowed: true, remaining: 1, retryAfterSeconds: 0 });
    expect(limiter.hit('a').allowed).toBe(true);
    now += 2_500;
    expect(limiter.hit('a')).toEqual({ allowed: false, remaining: 0, retryAfterSeconds: 8 });
    expect(limiter.hit('b').allowed).toBe(true);
    now += 7_500;
    expect(limiter.hit('a').allowed).toBe(true);
  });

  it('forgets a key on reset', () => {
    const limiter = createRateLimiter({ limit: 1, windowMs: 60_000, clock: { now: () => new Date(0) } });
    limiter.hit('k');
    expect(limiter.hit('k').allowed).toBe(false);
    limiter.reset('k');
    expect(limiter.hit('k').allowed).toBe(true);
  });

  it('keeps at most maxKeys windows', () => {
    const limiter = createRateLimiter({ limit: 1, windowMs: 60_000, clock: { now: () => new Date(0) }, maxKeys: 2 });
    limiter.hit('x');
    limiter.hit('y');
    limiter.hit('z'); // drops x
    expect(limiter.hit('x').allowed).toBe(true);
  });
});
