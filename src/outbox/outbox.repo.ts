import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Conn } from '../db/client.ts';

export interface OutboundEventInput {
  companyId: number;
  event: string;
  data: Record<string, unknown>;
  /** The inbound event that caused this change, when one did. */
  causedBy?: string | null;
}

const OUTBOX_INSERT = 'INSERT INTO outbox_events (id, company_id, event, payload, caused_by)';

/**
 * For writers that build a single statement: the INSERT of one outbound event row per row of
 * `select` (a SELECT over a CTE of the change that caused them, yielding id, company_id, event,
 * payload and caused_by in that order), so the events exist exactly when the change does.
 */
export function outboundRowsInsert(select: string): string {
  return `${OUTBOX_INSERT} ${select}`;
}

/**
 * Records an outbound event in the caller's transaction, so the event exists exactly when the
 * change that caused it was committed. Delivery reads these rows later.
 */
export async function recordOutbound(conn: Conn, input: OutboundEventInput): Promise<string> {
  const id = randomUUID();
  const payload = JSON.stringify({ event: input.event, data: input.data });
  await conn.execute(
    sql`${sql.raw(OUTBOX_INSERT)} VALUES (${id}::uuid, ${input.companyId}::integer, ${input.event}::text, ${payload}::jsonb,
      ${input.causedBy ?? null}::uuid)`,
  );
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
  events: { event: string; data: Record<string, unknown> }[],
  causedBy: string | null = null,
): Promise<string[]> {
  const ids = events.map(() => randomUUID());
  for (let i = 0; i < events.length; i += OUTBOUND_CHUNK) {
    const chunk = events.slice(i, i + OUTBOUND_CHUNK);
    await conn.execute(
      sql`${sql.raw(OUTBOX_INSERT)} VALUES ${sql.join(
        chunk.map(
          (e, n) =>
            sql`(${ids[i + n]}::uuid, ${companyId}::integer, ${e.event}::text, ${JSON.stringify({ event: e.event, data: e.data })}::jsonb, ${causedBy}::uuid)`,
        ),
        sql`, `,
      )}`,
    );
  }
  return ids;
}
