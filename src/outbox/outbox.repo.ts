import { randomUUID } from 'node:crypto';
import type { Conn } from '../db/client.ts';
import { outboxEvents } from '../db/schema/index.ts';

export interface OutboundEventInput {
  companyId: number;
  event: string;
  data: Record<string, unknown>;
  /** The inbound event that caused this change, when one did. */
  causedBy?: string | null;
}

/**
 * Records an outbound event in the caller's transaction, so the event exists exactly when the
 * change that caused it was committed. Delivery reads these rows later.
 */
export async function recordOutbound(conn: Conn, input: OutboundEventInput): Promise<string> {
  const id = randomUUID();
  await conn.insert(outboxEvents).values({
    id,
    companyId: input.companyId,
    event: input.event,
    payload: { event: input.event, data: input.data },
    causedBy: input.causedBy ?? null,
  });
  return id;
}
