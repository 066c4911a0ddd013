import { describe, expect, it } from 'vitest';
import { createRateLimiter } from './rate-limiter.ts';

describe('rate limiter', async () => {
  it('allows the limit per window, then refuses with the seconds left, then allows again', async () => {
    let now = 1_000_000;
    const limiter = createRateLimiter({ limit: 2, windowMs: 10_000, clock: { now: () => new Date(now) } });
    expect(await limiter.hit('a')).toEqual({ allowed: true, remaining: 1, retryAfterSeconds: 0 });
    expect((await limiter.hit('a')).allowed).toBe(true);
    now += 2_500;
    expect(await limiter.hit('a')).toEqual({ allowed: false, remaining: 0, retryAfterSeconds: 8 });
    expect((await limiter.hit('b')).allowed).toBe(true);
    now += 7_500;
    expect((await limiter.hit('a')).allowed).toBe(true);
  });

  it('forgets a key on reset', async () => {
    const limiter = createRateLimiter({ limit: 1, windowMs: 60_000, clock: { now: () => new Date(0) } });
    await limiter.hit('k');
    expect((await limiter.hit('k')).allowed).toBe(false);
    await limiter.reset('k');
    expect((await limiter.hit('k')).allowed).toBe(true);
  });

  it('keeps at most maxKeys windows', async () => {
    const limiter = createRateLimiter({ limit: 1, windowMs: 60_000, clock: { now: () => new Date(0) }, maxKeys: 2 });
    await limiter.hit('x');
    await limiter.hit('y');
    await limiter.hit('z'); // drops x
    expect((await limiter.hit('x')).allowed).toBe(true);
  });
});
