import { describe, expect, it } from 'vitest';
import { createKeyCache } from './integration.auth.ts';

function setup(ttlMs = 5000, maxEntries = 3) {
  let now = 0;
  const calls: string[] = [];
  const companies = new Map<string, number>([
    ['k1', 1],
    ['k2', 2],
    ['k3', 3],
    ['k4', 4],
  ]);
  const cache = createKeyCache({
    lookup: async (key) => {
      calls.push(key);
      return companies.get(key) ?? null;
    },
    ttlMs,
    maxEntries,
    nowMs: () => now,
  });
  return { cache, calls, companies, advance: (ms: number) => (now += ms) };
}

describe('integration key cache', () => {
  it('reuses a positive answer until it expires, then asks again', async () => {
    const { cache, calls, companies, advance } = setup();
    expect(await cache.resolve('k1')).toBe(1);
    advance(4999);
    expect(await cache.resolve('k1')).toBe(1);
    expect(calls).toEqual(['k1']);
    companies.delete('k1'); // revoked
    advance(1);
    expect(await cache.resolve('k1')).toBeNull();
    expect(calls).toEqual(['k1', 'k1']);
  });

  it('does not remember unknown keys', async () => {
    const { cache, calls, companies } = setup();
    expect(await cache.resolve('new')).toBeNull();
    companies.set('new', 9);
    expect(await cache.resolve('new')).toBe(9);
    expect(calls).toEqual(['new', 'new']);
  });

  it('keeps at most maxEntries, dropping the oldest', async () => {
    const { cache, calls } = setup(5000, 3);
    for (const key of ['k1', 'k2', 'k3', 'k4']) await cache.resolve(key);
    expect(cache.size()).toBe(3);
    await cache.resolve('k1');
    expect(calls).toEqual(['k1', 'k2', 'k3', 'k4', 'k1']);
  });

  it('shares one lookup among concurrent requests for the same key', async () => {
    const { cache, calls } = setup();
    const results = await Promise.all(Array.from({ length: 20 }, () => cache.resolve('k2')));
    expect(results).toEqual(Array(20).fill(2));
    expect(calls).toEqual(['k2']);
  });

  it('always asks when the ttl is 0', async () => {
    const { cache, calls } = setup(0);
    await cache.resolve('k1');
    await cache.resolve('k1');
    expect(calls).toEqual(['k1', 'k1']);
  });
});
