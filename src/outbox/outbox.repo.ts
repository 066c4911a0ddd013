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
