import type pg from 'pg';
import type { Database } from '../../db/client.ts';
import type { Logger } from '../../logger.ts';

export const WEBHOOK_CHANNEL = 'mostrador_webhooks';
const RECONNECT_MS = 1000;

/**
 * Calls `onWork` whenever a transaction that recorded an outbound event (or asked for a redelivery)
 * commits: LISTEN on PostgreSQL through one dedicated pooled connection (re-established when lost),
 * PGlite's own listen in the embedded database.
 */
export interface WorkListener {
  /** True while the LISTEN connection is up (a worker's /readyz). */
  readonly connected: boolean;
  stop(): Promise<void>;
}

export async function listenForWork(database: Database, onWork: () => void, logger: Logger): Promise<WorkListener> {
  if (database.pglite) {
    const unlisten = await database.pglite.listen(WEBHOOK_CHANNEL, onWork);
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
      candidate.on('notification', onWork);
      candidate.on('error', (err) => {
        logger.warn({ err }, 'webhook listener connection lost; reconnecting');
        if (client === candidate) client = null;
        candidate?.release(err);
        reconnectLater();
      });
      await candidate.query(`LISTEN ${WEBHOOK_CHANNEL}`);
      if (stopped) {
        candidate.release();
        return;
      }
      client = candidate;
      onWork(); // anything committed while we were not listening
    } catch (err) {
      if (!stopped) logger.warn({ err }, 'webhook listener could not connect; retrying');
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
        await current.query(`UNLISTEN ${WEBHOOK_CHANNEL}`).catch(() => {});
        current.release();
      }
    },
  };
}
