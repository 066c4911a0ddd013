import type { Clock } from './time.ts';

export interface TtlCache<V> {
  get(key: string): { value: V } | undefined;
  set(key: string, value: V): void;
  delete(key: string): void;
  /** Drops every entry. */
  clear(): void;
}

/**
 * A small in-process cache whose entries expire after `ttlMs` (and at once if the clock goes back
 * past the moment they were set: an entry never outlives its `ttlMs` of the clock's time). At
 * `maxEntries` the oldest entry is dropped first, so a flood of distinct keys cannot grow memory
 * without bound.
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
      const now = clock.now().getTime();
      if (entry.expiresAt <= now || now < entry.expiresAt - ttlMs) {
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
    clear() {
      entries.clear();
    },
  };
}
