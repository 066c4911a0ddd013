import type { Database } from '../../db/client.ts';
import { type Listener, listen } from '../../db/listen.ts';
import type { Clock } from '../../lib/time.ts';
import { createTtlCache } from '../../lib/ttl-cache.ts';
import type { Logger } from '../../logger.ts';
import type { ActiveTokenRow } from './api-tokens.repo.ts';

/** Where a change to a token that decides who it is (revoked, deleted) is announced (migration 0272). */
export const API_TOKENS_CHANNEL = 'mostrador_api_tokens';
/** An entry is read again after this long even if no change was announced (a lost notification). */
const MAX_AGE_MS = 30_000;
/** Only valid tokens are kept, so this bounds memory, not an attacker's reach. */
const MAX_ENTRIES = 10_000;

export interface TokenCache {
  /** The token's row if this process holds a fresh copy and changes reach it; else undefined. */
  get(hash: string): ActiveTokenRow | undefined;
  /** Read before a lookup; `put` keeps the row only if no change was announced since. */
  generation(): number;
  put(hash: string, row: ActiveTokenRow, generation: number): void;
  /** Drops everything (a revocation in this process, a notification, the listener lost or back). */
  forget(): void;
  close(): Promise<void>;
}

/**
 * The valid API tokens this process has seen, by hash, so that a merchant API request does not
 * read its token's row every time. Kept only while a LISTEN on API_TOKENS_CHANNEL is up: a
 * revocation, in this process or any other (the CLI, another server), empties it as its
 * transaction commits. A lookup that started before a change and ends after it is not kept
 * (`generation`). Entries live MAX_AGE_MS at most.
 */
export function createTokenCache(db: Database, logger: Logger, clock: Clock): TokenCache {
  const entries = createTtlCache<ActiveTokenRow>({ ttlMs: MAX_AGE_MS, maxEntries: MAX_ENTRIES, clock });
  let generation = 0;
  let listener: Listener | null = null;
  let starting: Promise<void> | null = null;
  let closed = false;

  const forget = () => {
    entries.clear();
    generation++;
  };
  // The LISTEN holds a pooled connection (shared with the webhook dispatcher's): with a pool of one
  // or two there is none to spare, and every request reads its token as before.
  const spare = !db.pool || (db.pool.options.max ?? 10) >= 3;
  function ensureListening() {
    if (listener || starting || closed || !spare) return;
    starting = listen(db, API_TOKENS_CHANNEL, { onNotify: forget, onUp: forget, onDown: forget }, logger)
      .then(async (started) => {
        if (closed) await started.stop();
        else listener = started;
      })
      .catch((err) => logger.warn({ err }, 'API token listener failed to start; tokens are read on every request'))
      .finally(() => {
        starting = null;
      });
  }

  return {
    get(hash) {
      ensureListening();
      if (!listener?.connected) return undefined;
      return entries.get(hash)?.value;
    },
    generation: () => generation,
    put(hash, row, seen) {
      if (seen !== generation || !listener?.connected) return;
      entries.set(hash, row);
    },
    forget,
    async close() {
      closed = true;
      await starting;
      const current = listener;
      listener = null;
      await current?.stop();
      entries.clear();
    },
  };
}
