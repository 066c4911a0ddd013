import type { Database } from '../../db/client.ts';
import { type Listener, listen } from '../../db/listen.ts';
import type { Logger } from '../../logger.ts';

export const WEBHOOK_CHANNEL = 'mostrador_webhooks';

/** See listenForWork; `connected` is a worker's /readyz. */
export type WorkListener = Listener;

/**
 * Calls `onWork` whenever a transaction that recorded an outbound event (or asked for a redelivery)
 * commits, and each time the LISTEN is (re)established (anything committed while we were not listening).
 */
export function listenForWork(database: Database, onWork: () => void, logger: Logger): Promise<WorkListener> {
  return listen(database, WEBHOOK_CHANNEL, { onNotify: onWork, onUp: onWork }, logger);
}
