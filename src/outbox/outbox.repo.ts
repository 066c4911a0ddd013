import { randomUUID } from 'node:crypto';
import { type SQL, sql } from 'drizzle-orm';
import type { Conn } from '../db/client.ts';

/** One outbound event: its name and data (the payload is {event, data}). */
export interface OutboundEvent {
  event: string;
  data: Record<string, unknown>;
  /** The row's id when the caller needs to know it first (a webhook test event); drawn otherwise. */
  id?: string;
}

export interface OutboundEventInput extends OutboundEvent {
  companyId: number;
  /** The inbound event that caused this change, when one did. */
  causedBy?: string | null;
  /** A row already handed to its delivery (a webhook test event): created and dispatched then. */
  dispatchedAt?: Date;
}

/** Where the rows of outboxInsert come from. */
export type OutboundSource =
  | {
      companyId: number;
      events: OutboundEvent[];
      causedBy?: string | null;
      /** A row already handed to its delivery (a webhook test event): created and dispatched then. */
      dispatchedAt?: Date;
    }
  /**
   * For fixed statements (prepared once, text never changes): a SELECT over the statement's own
   * CTEs yielding id, company_id, event, payload and caused_by, in that order, one row per event,
   * so the events exist exactly when the change that caused them does.
   */
  | { select: string }
  /** The same, as a `sql` SELECT with parameters (the locking stock ledger builds its stock events from locked rows). */
  | { rows: SQL };

/**
 * THE writer of outbound event rows: every row of outbox_events is inserted by the statement this
 * builds, run in the caller's transaction (recordOutbound/recordOutboundMany below) or as the last
 * step of the caller's own statement (the stock ledger's, the sales statement). Delivery reads
 * these rows later, in the order they were inserted (seq).
 */
export function outboxInsert(source: OutboundSource): SQL {
  if ('select' in source) {
    return sql.raw(`INSERT INTO outbox_events (id, company_id, event, payload, caused_by) ${source.select}`);
  }
  if ('rows' in source) return sql`INSERT INTO outbox_events (id, company_id, event, payload, caused_by) ${source.rows}`;
  const at = source.dispatchedAt?.toISOString() ?? null;
  const causedBy = source.causedBy ?? null;
  const rows = source.events.map(
    (e) =>
      sql`(${e.id ?? randomUUID()}::uuid, ${source.companyId}::integer, ${e.event}::text,
        ${JSON.stringify({ event: e.event, data: e.data })}::jsonb, ${causedBy}::uuid${at === null ? sql`` : sql`, ${at}::timestamptz, ${at}::timestamptz`})`,
  );
  return sql`INSERT INTO outbox_events (id, company_id, event, payload, caused_by${sql.raw(at === null ? '' : ', created_at, dispatched_at')})
    VALUES ${sql.join(rows, sql`, `)}`;
}

/**
 * Records an outbound event in the caller's transaction, so the event exists exactly when the
 * change that caused it was committed.
 */
export async function recordOutbound(conn: Conn, input: OutboundEventInput): Promise<string> {
  const id = input.id ?? randomUUID();
  await conn.execute(outboxInsert({ companyId: input.companyId, events: [{ ...input, id }], causedBy: input.causedBy ?? null }));
  return id;
}

/** Events per INSERT in recordOutboundMany. */
const OUTBOUND_CHUNK = 1000;

/**
 * Several outbound events of one company in the caller's transaction, in multi-row INSERTs that
 * keep the order given (the rows' seq follows it). Returns their ids.
 */
export async function recordOutboundMany(
  conn: Conn,
  companyId: number,
  events: OutboundEvent[],
  causedBy: string | null = null,
  options: { dispatchedAt?: Date } = {},
): Promise<string[]> {
  const withIds = events.map((e) => ({ ...e, id: e.id ?? randomUUID() }));
  for (let i = 0; i < withIds.length; i += OUTBOUND_CHUNK) {
    await conn.execute(outboxInsert({ companyId, events: withIds.slice(i, i + OUTBOUND_CHUNK), causedBy, ...options }));
  }
  return withIds.map((e) => e.id);
}
