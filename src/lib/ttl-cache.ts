import type { Clock } from './time.ts';

export interface TtlCache<V> {
  get(key: string): { value: V } | undefined;
  set(key: string, value: V): void;
  delete(key: string): void;
}

/**
 * A small in-process cache whose entries expire after `ttlMs`. At `maxEntries` the oldest entry
 * is dropped first, so a flood of distinct keys cannot grow memory without bound.
 */
export function createTtlCache<V>({
  ttlMs,
  maxEntries,
  clock,
}: {
  ttlMs: number;
  maxEntries: number;
  clock: Clock;
}): TtlCache<V> {
  const entries = new Map<string, { value: V; expiresAt: number }>();
  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt <= clock.now().getTime()) {
        entries.delete(key);
        return undefined;
      }
      return { value: entry.value };
    },
    set(key, value) {
      entries.delete(key);
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, { value, expiresAt: clock.now().getTime() + ttlMs });
    },
    delete(key) {
      entries.delete(key);
    },
  };
}
