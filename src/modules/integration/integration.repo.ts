import { sql } from 'drizzle-orm';
import { type Conn, selectRows, selectRowsPrepared } from '../../db/client.ts';

/** RFC 3339 in UTC with exactly six fractional digits: cursors must keep every microsecond. */
const WIRE_TIME = (column: ReturnType<typeof sql>) => sql`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export interface NewInboundEvent {
  id: string;
  companyId: number;
  event: string;
  /** The sender's key; the event's own id when none was sent. */
  idempotencyKey: string;
  /** The raw body text (the envelope exactly as received). */
  payloadText: string;
  bodySha256: string;
  signatureValid: boolean;
}

/**
 * Stores an accepted event as the first write of the caller's transaction (inbound_stamp() runs
 * before anything else is written: see migration 0002); null for a duplicate. A concurrent or
 * earlier event with the same (company, event, key) makes it a no-op: the unique index waits for
 * the other transaction and then reports the conflict, so exactly one of them applies.
 * (sales.created events are also stored by the batched sales statement: src/modules/sales/create-sale.ts.)
 */
export async function insertInboundEvent(tx: Conn, e: NewInboundEvent): Promise<{ receivedAt: string } | null> {
  const rows = await selectRowsPrepared<{ received_at: string }>(
    tx,
    sql`INSERT INTO inbound_events
          (id, company_id, event, idempotency_key, payload, body_sha256, signature_valid, received_at, tx_id)
        SELECT ${e.id}::uuid, ${e.companyId}::integer, ${e.event}::text, ${e.idempotencyKey}::text, ${e.payloadText}::json,
               ${e.bodySha256}::char(64), ${e.signatureValid}::boolean, s.received_at, s.tx_id
        FROM inbound_stamp() AS s
        ON CONFLICT (company_id, event, idempotency_key) DO NOTHING
        RETURNING ${WIRE_TIME(sql`received_at`)} AS received_at`,
  );
  return rows[0] ? { receivedAt: rows[0].received_at } : null;
}

/** The stored event holding an idempotency key (after a conflict: it is committed by then). */
export async function findByIdempotencyKey(conn: Conn, companyId: number, event: string, key: string) {
  const rows = await selectRows<{ id: string; body_sha256: string }>(
    conn,
    sql`SELECT id, body_sha256 FROM inbound_events
        WHERE company_id = ${companyId} AND event = ${event} AND idempotency_key = ${key}`,
  );
  return rows[0] ? { id: rows[0].id, bodySha256: rows[0].body_sha256 } : null;
}

export interface StoredInboundEvent {
  id: string;
  received_at: string;
  event: string;
  idempotency_key: string;
  /** The envelope's text exactly as received (never parsed again: see pollPage in the service). */
  payload: string;
  signature_valid: boolean;
}

/**
 * One page of a company's events after `since`, ascending by (received_at, id), at most `limit`.
 * Two statements on purpose (see migration 0002): first the horizon, then the rows with a newer
 * snapshot, serving only rows whose transaction id is below the horizon. Every event not served
 * yet then has a later received_at than every event served, so a poller that moves its cursor
 * to the last received_at never skips an event whose transaction commits late. Must not run
 * inside a REPEATABLE READ or SERIALIZABLE transaction (one snapshot for both statements).
 */
export async function listInboundEvents(
  conn: Conn,
  companyId: number,
  { since, limit }: { since: string | null; limit: number },
): Promise<StoredInboundEvent[]> {
  const [{ horizon }] = (await selectRows<{ horizon: string }>(conn, sql`SELECT inbound_horizon()::text AS horizon`)) as [
    { horizon: string },
  ];
  return selectRows<StoredInboundEvent>(
    conn,
    sql`SELECT id, ${WIRE_TIME(sql`received_at`)} AS received_at, event, idempotency_key, payload::text AS payload, signature_valid
        FROM inbound_events
        WHERE company_id = ${companyId}
          AND received_at > coalesce(${since}::timestamptz, '-infinity'::timestamptz)
          AND tx_id < ${horizon}::xid8
        ORDER BY received_at, id
        LIMIT ${limit}`,
  );
}

/**
 * Deletes events received before `before`, company by company along the polling index, in
 * batches (short transactions); returns how many went.
 */
export async function purgeInboundEvents(conn: Conn, before: Date, batchSize = 5000): Promise<number> {
  const companies = await selectRows<{ id: number }>(conn, sql`SELECT id FROM companies ORDER BY id`);
  let total = 0;
  for (const { id: companyId } of companies) {
    for (;;) {
      const rows = await selectRows<{ id: string }>(
        conn,
        sql`DELETE FROM inbound_events WHERE id IN (
              SELECT id FROM inbound_events
              WHERE company_id = ${companyId} AND received_at < ${before.toISOString()}::timestamptz
              LIMIT ${batchSize}
            ) RETURNING id`,
      );
      total += rows.length;
      if (rows.length < batchSize) break;
    }
  }
  return total;
}
