import { randomUUID } from 'node:crypto';
import { type SQL, sql } from 'drizzle-orm';
import type { Conn } from '../db/client.ts';

export interface OutboundEventInput {
  companyId: number;
  event: string;
  data: Record<string, unknown>;
  /** The inbound event that caused this change, when one did. */
  causedBy?: string | null;
}

/**
 * The one INSERT of an outbound event row, for writers that build a single statement: with
 * `source`, the row is written once per row of that relation of the same statement (a CTE of
 * the change that caused it), so it exists exactly when the change does.
 */
export function outboundEventInsert(input: OutboundEventInput, source?: SQL): { id: string; query: SQL } {
  const id = randomUUID();
  const payload = JSON.stringify({ event: input.event, data: input.data });
  const query = sql`INSERT INTO outbox_events (id, company_id, event, payload, caused_by)
    SELECT ${id}::uuid, ${input.companyId}::integer, ${input.event}::text, ${payload}::jsonb, ${input.causedBy ?? null}::uuid
    ${source === undefined ? sql`` : sql`FROM ${source}`}`;
  return { id, query };
}

/**
 * Records an outbound event in the caller's transaction, so the event exists exactly when the
 * change that caused it was committed. Delivery reads these rows later.
 */
export async function recordOutbound(conn: Conn, input: OutboundEventInput): Promise<string> {
  const { id, query } = outboundEventInsert(input);
  await conn.execute(query);
  return id;
}
