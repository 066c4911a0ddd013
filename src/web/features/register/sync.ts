import { ApiError, api, type Messages, messageFor } from '../../ui/api.ts';
import type { SaleWire } from '../../../modules/sales/sales.schemas.ts';
import { sendOfflineInvoice } from './caea-offline.ts';
import { isShift, type QueuedSale, type QueuedShift, type RegisterStore } from './store.ts';

/** The server's answer to a sale: its one wire shape (/api/v1/sales, modules/sales/sales.schemas.ts). */
export type { SaleWire };

/** The sale's own wording by code; the rest (no_open_session, price_needs_admin, unknown_scale_plu…) come from ui/messages.ts. */
export const SALE_MESSAGES: Messages = {
  conflict: 'Esa venta ya se había registrado con otros datos.',
  invalid_state: 'La venta no se puede hacer en este estado.',
  invalid_reference: 'Algún producto de la venta ya no existe.',
};

/** Sends one sale with its idempotency key: the same key again never makes a second sale. */
export function postSale(key: string, body: Record<string, unknown>): Promise<{ sale: SaleWire }> {
  return api<{ sale: SaleWire }>('POST', '/api/v1/sales', {
    body,
    messages: SALE_MESSAGES,
    headers: { 'x-idempotency-key': key },
  });
}

export const isNetworkError = (err: unknown) => err instanceof ApiError && (err.status === 0 || err.status >= 500);

export interface FlushResult {
  sent: { key: string; sale: SaleWire }[];
  /** Shift opens and closes made offline that the server took. */
  shifts: { op: 'open' | 'close'; clientId: string; sessionId: number }[];
  failed: { key: string; message: string }[];
  /** Receipts printed offline under the CAEA and now recorded. */
  invoiced: number;
  /** True when the server could not be reached (the rest wait). */
  stopped: boolean;
}

let flushing: Promise<FlushResult> | null = null;

/**
 * Sends the queued sales in the order they were made, one at a time. A sale the server took (201,
 * or 200 when an earlier attempt had arrived) leaves the queue; one it refused stays, marked, for a
 * person to see, and the next goes on; an unreachable server stops the run (they wait for the next).
 */
export function flushQueue(store: RegisterStore): Promise<FlushResult> {
  flushing ??= run(store).finally(() => {
    flushing = null;
  });
  return flushing;
}

/**
 * A shift opened or closed offline, sent once: the open carries the shift's client id (the server
 * answers the same shift to it again), the close its own client id; a close of a shift opened
 * offline finds the shift's server id by the open's client id.
 */
async function sendShift(entry: QueuedShift): Promise<number> {
  if (entry.op === 'open') {
    const { session } = await api<{ session: { id: number } }>('POST', '/api/v1/box-sessions', { body: entry.body });
    return session.id;
  }
  const id =
    entry.sessionId ??
    (await api<{ session: { id: number } }>('GET', `/api/v1/register/offline-shifts/${entry.clientId}`)).session.id;
  await api('POST', `/api/v1/box-sessions/${id}/close`, { body: entry.body });
  return id;
}

async function run(store: RegisterStore): Promise<FlushResult> {
  const result: FlushResult = { sent: [], shifts: [], failed: [], invoiced: 0, stopped: false };
  for (const queued of await store.queuedAll()) {
    if (queued.error) continue;
    try {
      if (isShift(queued)) {
        const sessionId = await sendShift(queued);
        await store.remove(queued.seq!);
        result.shifts.push({ op: queued.op, clientId: queued.clientId, sessionId });
        continue;
      }
      const { sale } = await postSale(queued.key, queued.body);
      if (queued.invoice) {
        // The receipt printed offline follows its sale (the same call again returns it).
        await store.markSent(queued as QueuedSale, sale.id);
        await sendOfflineInvoice(sale.id, queued.invoice);
        result.invoiced += 1;
      }
      await store.settleArrived(queued.seq!, { saleId: sale.id, at: new Date().toISOString() });
      result.sent.push({ key: queued.key, sale });
    } catch (err) {
      if (isNetworkError(err)) {
        result.stopped = true;
        break;
      }
      const message = err instanceof ApiError ? err.message : messageFor(0, null);
      await store.markFailed(queued, message);
      result.failed.push({ key: queued.key, message });
    }
  }
  return result;
}
