import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, parseRetryAfter, RETRY_DELAYS_SECONDS, retryDelayMs } from './retry-policy.ts';

describe('retry policy', () => {
  it('starts at about 10 s and spans about three days over eleven attempts', () => {
    expect(RETRY_DELAYS_SECONDS[0]).toBe(10);
    expect(MAX_ATTEMPTS).toBe(11);
    const totalHours = RETRY_DELAYS_SECONDS.reduce((sum, s) => sum + s, 0) / 3600;
    expect(totalHours).toBeGreaterThan(66);
    expect(totalHours).toBeLessThan(80);
    for (let i = 1; i < RETRY_DELAYS_SECONDS.length; i++)
      expect(RETRY_DELAYS_SECONDS[i]).toBeGreaterThan(RETRY_DELAYS_SECONDS[i - 1]!);
  });

  it('spreads each delay by ±20 %', () => {
    expect(retryDelayMs(1, null, 0)).toBe(8000);
    expect(retryDelayMs(1, null, 0.5)).toBe(10_000);
    expect(retryDelayMs(1, null, 0.999999)).toBe(12_000);
    expect(retryDelayMs(2, null, 0.5)).toBe(60_000);
  });

  it('stops after the last attempt', () => {
    expect(retryDelayMs(10, null, 0.5)).toBe(86_400_000);
    expect(retryDelayMs(11, null, 0.5)).toBeNull();
  });

  it('honours a longer Retry-After up to one hour, and never shortens the schedule', () => {
    expect(retryDelayMs(1, 120, 0.5)).toBe(120_000);
    expect(retryDelayMs(1, 86_400, 0.5)).toBe(3_600_000);
    expect(retryDelayMs(5, 30, 0.5)).toBe(7_200_000);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = new Date('2025-03-01T12:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter('Sat, 01 Mar 2025 12:02:00 GMT', now)).toBe(120);
    expect(parseRetryAfter('Sat, 01 Mar 2025 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(undefined, now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter('-5', now)).toBeNull();
    expect(parseRetryAfter('2025', now)).toBe(2025);
  });
});
