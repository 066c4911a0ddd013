import { sha256Hex } from '../../lib/secrets.ts';

export interface KeyCacheOptions {
  /** Resolves a key to its company (by hash, in the database); null when unknown or revoked. */
  lookup: (key: string) => Promise<number | null>;
  /** How long a positive answer is reused; 0 disables the cache. A revoked key stops working after this. */
  ttlMs: number;
  maxEntries: number;
  nowMs: () => number;
}

/**
 * A small cache in front of the integration-key lookup: positive answers only, for a few
 * seconds, bounded in size (oldest out first). Entries are keyed by the key's hash, so the
 * process never holds plaintext keys longer than a request. Concurrent lookups of one key share
 * one query.
 */
export function createKeyCache({ lookup, ttlMs, maxEntries, nowMs }: KeyCacheOptions) {
  const entries = new Map<string, { companyId: number; expiresAt: number }>();
  const inFlight = new Map<string, Promise<number | null>>();

  function remember(hash: string, companyId: number) {
    entries.delete(hash);
    entries.set(hash, { companyId, expiresAt: nowMs() + ttlMs });
    while (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
  }

  async function resolve(key: string): Promise<number | null> {
    if (ttlMs <= 0) return lookup(key);
    const hash = sha256Hex(key);
    const cached = entries.get(hash);
    if (cached && cached.expiresAt > nowMs()) return cached.companyId;
    if (cached) entries.delete(hash);
    const pending = inFlight.get(hash);
    if (pending) return pending;
    const query = lookup(key)
      .then((companyId) => {
        if (companyId !== null) remember(hash, companyId);
        return companyId;
      })
      .finally(() => inFlight.delete(hash));
    inFlight.set(hash, query);
    return query;
  }

  return { resolve, size: () => entries.size, clear: () => entries.clear() };
}

export type KeyCache = ReturnType<typeof createKeyCache>;
