import type pg from 'pg';
import type { Logger } from '../logger.ts';
import type { Database } from './client.ts';

const RECONNECT_MS = 1000;

/** A LISTEN on one channel (see listen). */
export interface Listener {
  /** True while notifications on the channel reach this process. */
  readonly connected: boolean;
  stop(): Promise<void>;
}

export interface ListenHandlers {
  /** A notification on the channel (a committed transaction's pg_notify). */
  onNotify: () => void;
  /** The LISTEN is (again) in place: anything committed while it was not was missed. */
  onUp?: () => void;
  /** The connection is lost: notifications no longer arrive until onUp. */
  onDown?: () => void;
}

/**
 * LISTEN on `channel`: on PostgreSQL through one dedicated pooled connection, re-established when
 * lost; PGlite's own listen in the embedded database (always up). `name` tells the log lines apart.
 */
export async function listen(
  database: Database,
  channel: string,
  handlers: ListenHandlers,
  logger: Logger,
  name: string,
): Promise<Listener> {
  if (database.pglite) {
    const unlisten = await database.pglite.listen(channel, handlers.onNotify);
    handlers.onUp?.();
    return { connected: true, stop: () => unlisten() };
  }
  const pool = database.pool!;
  let client: pg.PoolClient | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;

  const reconnectLater = () => {
    if (!stopped) timer = setTimeout(() => void connect(), RECONNECT_MS);
  };
  async function connect() {
    let candidate: pg.PoolClient | null = null;
    try {
      candidate = await pool.connect();
      candidate.on('notification', handlers.onNotify);
      candidate.on('error', (err) => {
        logger.warn({ err }, `${name} connection lost; reconnecting`);
        if (client === candidate) {
          client = null;
          handlers.onDown?.();
        }
        candidate?.release(err);
        reconnectLater();
      });
      await candidate.query(`LISTEN ${channel}`);
      if (stopped) {
        candidate.release();
        return;
      }
      client = candidate;
      handlers.onUp?.();
    } catch (err) {
      if (!stopped) logger.warn({ err }, `${name} could not connect; retrying`);
      candidate?.release(err as Error);
      reconnectLater();
    }
  }
  await connect();
  return {
    get connected() {
      return client !== null;
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      const current = client;
      client = null;
      if (current) {
        handlers.onDown?.();
        await current.query(`UNLISTEN ${channel}`).catch(() => {});
        current.release();
      }
    },
  };
}
