import { type SQL, sql } from 'drizzle-orm';
import { type Conn, selectRows } from '../../db/client.ts';
import { dbDate } from '../../db/dates.ts';

/** A delivery a worker holds (by lease token) with everything needed to send it. */
export interface ClaimedDelivery {
  id: string;
  companyId: number;
  endpointId: string;
  eventId: string;
  event: string;
  kind: 'event' | 'test';
  /** The number of this attempt, over the delivery's whole life. */
  attempts: number;
  /** The number of this attempt in the current round (drives the retry schedule). */
  roundAttempts: number;
  /** A previous holder never settled: its attempt was lost with the worker. */
  lostAttempt: boolean;
  payload: { event: string; data: Record<string, unknown> };
  causedBy: string | null;
  url: string;
  secretEncrypted: string;
  previousSecretEncrypted: string | null;
  previousSecretExpiresAt: Date | null;
  headersEncrypted: string | null;
}

const iso = (date: Date) => date.toISOString();

/**
 * Fans undispatched outbox events out to the matching enabled endpoints, oldest first, and marks
 * them dispatched, in one statement. SKIP LOCKED lets several workers relay at once without
 * waiting on or repeating each other; the unique (endpoint, event) makes a repeat harmless.
 */
export async function relayOutbox(conn: Conn, now: Date, limit: number): Promise<{ events: number; deliveries: number }> {
  const [row] = await selectRows<{ events: number; deliveries: number }>(
    conn,
    sql`WITH claimed AS (
      SELECT o.id, o.company_id, o.event, o.created_at, o.tx_id, o.seq FROM outbox_events o
      WHERE o.dispatched_at IS NULL
      ORDER BY o.created_at, o.seq
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    ), marked AS (
      UPDATE outbox_events o SET dispatched_at = ${iso(now)}::timestamptz FROM claimed c WHERE o.id = c.id RETURNING o.id
    ), inserted AS (
      INSERT INTO webhook_deliveries
        (id, company_id, endpoint_id, event_id, event, kind, status, next_attempt_at, event_created_at, source_tx, event_seq, created_at, updated_at)
      SELECT gen_random_uuid(), c.company_id, e.id, c.id, c.event, 'event', 'pending',
        ${iso(now)}::timestamptz, c.created_at, c.tx_id, c.seq, ${iso(now)}::timestamptz, ${iso(now)}::timestamptz
      FROM claimed c
      JOIN webhook_endpoints e ON e.company_id = c.company_id AND e.enabled
        AND (e.events IS NULL OR c.event = ANY (e.events))
      ON CONFLICT (endpoint_id, event_id) DO NOTHING
      RETURNING 1
    )
    SELECT (SELECT count(*)::int FROM marked) AS events, (SELECT count(*)::int FROM inserted) AS deliveries`,
  );
  return { events: Number(row?.events ?? 0), deliveries: Number(row?.deliveries ?? 0) };
}

interface ClaimRow {
  id: string;
  company_id: number;
  endpoint_id: string;
  event_id: string;
  event: string;
  kind: 'event' | 'test';
  attempts: number;
  round_attempts: number;
  lost_token: string | null;
  payload: ClaimedDelivery['payload'] | string;
  caused_by: string | null;
  url: string;
  secret_encrypted: string;
  previous_secret_encrypted: string | null;
  previous_secret_expires_ms: number | null;
  headers_encrypted: string | null;
}

export interface ClaimOptions {
  now: Date;
  limit: number;
  token: string;
  /**
   * Lease of every delivery of this claim, wherever it stands in its endpoint's lane: the worker
   * renews the lane's leases while it works through it (renewLeases), so the time a dead worker's
   * claims wait does not grow with the queue.
   */
  leaseMs: number;
}

/**
 * Claims due deliveries of enabled endpoints: oldest event first, at most `limit`, skipping rows
 * another worker is claiming. Each claimed row gets this claim's token, one more attempt, and
 * next_attempt_at pushed to the end of its lease: if the worker dies, the row is due again then.
 * Deliveries of one endpoint are returned in event order, to be sent one after the other; a delivery
 * whose change (source transaction) has an earlier delivery still pending is not claimed yet.
 */
export async function claimDeliveries(conn: Conn, options: ClaimOptions): Promise<ClaimedDelivery[]> {
  const rows = await selectRows<ClaimRow>(
    conn,
    sql`WITH picked AS (
      SELECT d.id, d.endpoint_id, d.lease_token, d.event_created_at, d.event_seq FROM webhook_deliveries d
      WHERE d.status = 'pending' AND d.next_attempt_at <= ${iso(options.now)}::timestamptz
        AND EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = d.endpoint_id AND e.enabled)
        -- Events of one change go in order: a movement before the stock update it caused, even
        -- when the first attempt of the movement fails. The next waits until the earlier settles.
        AND NOT EXISTS (
          SELECT 1 FROM webhook_deliveries s
          WHERE s.endpoint_id = d.endpoint_id AND s.source_tx = d.source_tx AND s.status = 'pending'
            AND s.event_seq < d.event_seq
        )
      ORDER BY d.next_attempt_at, d.event_created_at, d.event_seq, d.id
      LIMIT ${options.limit}
      FOR UPDATE SKIP LOCKED
    ), ranked AS (
      SELECT p.*, row_number() OVER (PARTITION BY p.endpoint_id ORDER BY p.event_created_at, p.event_seq, p.id) AS pos FROM picked p
    ), claimed AS (
      UPDATE webhook_deliveries d SET
        attempts = d.attempts + 1,
        round_attempts = d.round_attempts + 1,
        lease_token = ${options.token}::uuid,
        next_attempt_at = ${iso(options.now)}::timestamptz + make_interval(secs => ${options.leaseMs}::float8 / 1000),
        updated_at = ${iso(options.now)}::timestamptz
      FROM ranked r WHERE d.id = r.id
      RETURNING d.id, d.company_id, d.endpoint_id, d.event_id, d.event, d.kind, d.attempts, d.round_attempts,
        r.lease_token AS lost_token, r.pos, r.event_created_at
    )
    SELECT c.id, c.company_id, c.endpoint_id, c.event_id, c.event, c.kind, c.attempts, c.round_attempts, c.lost_token,
      o.payload, o.caused_by, e.url, e.secret_encrypted, e.previous_secret_encrypted,
      (extract(epoch FROM e.previous_secret_expires_at) * 1000)::float8 AS previous_secret_expires_ms, e.headers_encrypted
    FROM claimed c
    JOIN outbox_events o ON o.id = c.event_id
    JOIN webhook_endpoints e ON e.id = c.endpoint_id
    ORDER BY c.endpoint_id, c.pos`,
  );
  return rows.map(toClaimed);
}

function toClaimed(row: ClaimRow): ClaimedDelivery {
  return {
    id: row.id,
    companyId: Number(row.company_id),
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    event: row.event,
    kind: row.kind,
    attempts: Number(row.attempts),
    roundAttempts: Number(row.round_attempts),
    lostAttempt: row.lost_token !== null,
    payload: typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload,
    causedBy: row.caused_by,
    url: row.url,
    secretEncrypted: row.secret_encrypted,
    previousSecretEncrypted: row.previous_secret_encrypted,
    previousSecretExpiresAt: row.previous_secret_expires_ms === null ? null : new Date(Number(row.previous_secret_expires_ms)),
    headersEncrypted: row.headers_encrypted,
  };
}

/** Pushes the leases of deliveries this claim still holds to `now + leaseMs`; returns the ids still held. */
export async function renewLeases(conn: Conn, ids: string[], token: string, now: Date, leaseMs: number): Promise<Set<string>> {
  const rows = await selectRows<{ id: string }>(
    conn,
    sql`UPDATE webhook_deliveries SET next_attempt_at = ${iso(now)}::timestamptz + make_interval(secs => ${leaseMs}::float8 / 1000)
      WHERE id = ANY(${sql.param(ids)}::uuid[]) AND lease_token = ${token}::uuid AND status = 'pending'
      RETURNING id`,
  );
  return new Set(rows.map((row) => row.id));
}

/**
 * Gives back deliveries a stopping worker holds: due at once for any other worker, without the
 * lost-attempt mark. Deliveries never started get their claimed attempt back; one whose attempt was
 * cut short keeps it (the receiver may have seen it).
 */
export async function releaseClaims(conn: Conn, token: string, now: Date, released: { id: string; started: boolean }[]) {
  if (released.length === 0) return;
  await conn.execute(sql`UPDATE webhook_deliveries d SET lease_token = NULL, next_attempt_at = ${iso(now)}::timestamptz,
      attempts = d.attempts - CASE WHEN r.started THEN 0 ELSE 1 END,
      round_attempts = d.round_attempts - CASE WHEN r.started THEN 0 ELSE 1 END,
      updated_at = ${iso(now)}::timestamptz
    FROM unnest(${sql.param(released.map((r) => r.id))}::uuid[], ${sql.param(released.map((r) => r.started))}::boolean[]) AS r(id, started)
    WHERE d.id = r.id AND d.lease_token = ${token}::uuid AND d.status = 'pending'`);
}

/** Fails every pending delivery of an endpoint that was just disabled. */
export async function failPendingDeliveries(conn: Conn, endpointId: string, now: Date, reason: string) {
  await conn.execute(sql`UPDATE webhook_deliveries
    SET status = 'failed', next_attempt_at = NULL, lease_token = NULL, last_error = ${reason}, updated_at = ${iso(now)}::timestamptz
    WHERE endpoint_id = ${endpointId}::uuid AND status = 'pending'`);
}

/** Wakes the workers (LISTEN mostrador_webhooks) when the transaction commits. */
export async function notifyWorkers(conn: Conn) {
  await conn.execute(sql`SELECT pg_notify('mostrador_webhooks', '')`);
}

export interface DeliveredAttempt {
  delivery: Pick<ClaimedDelivery, 'id' | 'companyId' | 'attempts'>;
  token: string;
  startedAt: Date;
  statusCode: number;
  durationMs: number;
  responseBody: string | null;
}

/**
 * Successes in one statement (one round trip for many): log each attempt, mark each delivery
 * delivered if its worker still holds it, and clear the endpoints' failure clocks.
 */
export async function settleDelivered(conn: Conn, now: Date, attempts: DeliveredAttempt[]): Promise<void> {
  const column = <T>(pick: (a: DeliveredAttempt) => T) => sql.param(attempts.map(pick));
  await conn.execute(sql`WITH input AS (
      SELECT * FROM unnest(
        ${column((a) => a.delivery.id)}::uuid[], ${column((a) => a.token)}::uuid[], ${column((a) => a.delivery.companyId)}::int[],
        ${column((a) => a.delivery.attempts)}::int[], ${column((a) => iso(a.startedAt))}::timestamptz[],
        ${column((a) => a.durationMs)}::int[], ${column((a) => a.statusCode)}::int[], ${column((a) => a.responseBody)}::text[]
      ) AS t(id, token, company_id, attempt, started_at, duration_ms, status_code, response_body)
    ), settled AS (
      UPDATE webhook_deliveries d SET status = 'delivered', next_attempt_at = NULL, lease_token = NULL,
        last_status_code = i.status_code, last_error = NULL, updated_at = ${iso(now)}::timestamptz,
        delivered_at = ${iso(now)}::timestamptz
      FROM input i WHERE d.id = i.id AND d.lease_token = i.token
      RETURNING d.endpoint_id, d.kind
    ), logged AS (
      INSERT INTO webhook_attempts (company_id, delivery_id, attempt, started_at, duration_ms, status_code, response_body, outcome)
      SELECT company_id, id, attempt, started_at, duration_ms, status_code, response_body, 'delivered' FROM input
    )
    UPDATE webhook_endpoints e SET failing_since = NULL
    WHERE e.failing_since IS NOT NULL AND e.id IN (SELECT endpoint_id FROM settled WHERE kind = 'event')`);
}

/** One attempt in the delivery log (webhook_attempts). */
export interface AttemptValues {
  companyId: number;
  deliveryId: string;
  attempt: number;
  startedAt: Date;
  durationMs: number | null;
  statusCode: number | null;
  responseBody: string | null;
  error: string | null;
  outcome: 'delivered' | 'failed';
}

export async function insertAttempt(conn: Conn, a: AttemptValues) {
  await conn.execute(sql`INSERT INTO webhook_attempts
      (company_id, delivery_id, attempt, started_at, duration_ms, status_code, response_body, error, outcome)
    VALUES (${a.companyId}, ${a.deliveryId}::uuid, ${a.attempt}, ${iso(a.startedAt)}::timestamptz, ${a.durationMs},
      ${a.statusCode}, ${a.responseBody}, ${a.error}, ${a.outcome})`);
}

/**
 * Settles one attempt on its delivery if the worker still holds it (by lease token); false when a
 * redelivery request or another worker took the row meanwhile.
 */
export async function settleDeliveryRow(
  conn: Conn,
  v: {
    id: string;
    token: string;
    status: 'pending' | 'delivered' | 'failed';
    nextAttemptAt: Date | null;
    statusCode: number | null;
    error: string | null;
    now: Date;
  },
): Promise<boolean> {
  const rows = await selectRows<{ id: string }>(
    conn,
    sql`UPDATE webhook_deliveries SET status = ${v.status},
        next_attempt_at = ${v.nextAttemptAt ? iso(v.nextAttemptAt) : null}::timestamptz, lease_token = NULL,
        last_status_code = ${v.statusCode}, last_error = ${v.error}, updated_at = ${iso(v.now)}::timestamptz
        ${v.status === 'delivered' ? sql`, delivered_at = ${iso(v.now)}::timestamptz` : sql``}
      WHERE id = ${v.id}::uuid AND lease_token = ${v.token}::uuid
      RETURNING id`,
  );
  return rows.length > 0;
}

/** The endpoint answered: its failure clock stops. */
export async function clearEndpointFailing(conn: Conn, endpointId: string) {
  await conn.execute(sql`UPDATE webhook_endpoints SET failing_since = NULL
    WHERE id = ${endpointId}::uuid AND failing_since IS NOT NULL`);
}

/** The endpoint failed: its failure clock starts (if it was not running); null when it is disabled. */
export async function markEndpointFailing(conn: Conn, endpointId: string, now: Date): Promise<Date | null> {
  const [row] = await selectRows<{ failing_since: Date | string }>(
    conn,
    sql`UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, ${iso(now)}::timestamptz)
      WHERE id = ${endpointId}::uuid AND enabled = true
      RETURNING failing_since`,
  );
  return row ? dbDate(row.failing_since) : null;
}

export async function disableEndpoint(conn: Conn, endpointId: string, reason: 'gone' | 'failing', now: Date) {
  await conn.execute(sql`UPDATE webhook_endpoints
    SET enabled = false, disabled_reason = ${reason}, disabled_at = ${iso(now)}::timestamptz, updated_at = ${iso(now)}::timestamptz
    WHERE id = ${endpointId}::uuid`);
}

// --- the delivery log, as the admin screens and the merchant API read and act on it ---

/** A delivery as its log shows it. */
export interface DeliveryLogRow {
  id: string;
  endpointId: string;
  eventId: string;
  event: string;
  kind: 'event' | 'test';
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  leaseToken: string | null;
  nextAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  eventCreatedAt: Date;
  createdAt: Date;
  deliveredAt: Date | null;
}

export interface AttemptLogRow {
  attempt: number;
  startedAt: Date;
  outcome: 'delivered' | 'failed';
  statusCode: number | null;
  durationMs: number | null;
  responseBody: string | null;
  error: string | null;
}

const DELIVERY_COLUMNS = sql.raw(`id, endpoint_id AS "endpointId", event_id AS "eventId", event, kind, status, attempts,
  lease_token AS "leaseToken", next_attempt_at AS "nextAttemptAt", last_status_code AS "lastStatusCode",
  last_error AS "lastError", event_created_at AS "eventCreatedAt", created_at AS "createdAt", delivered_at AS "deliveredAt"`);

const toDate = dbDate;
const toDateOrNull = (value: Date | string | null) => (value === null ? null : toDate(value));

function deliveryRow(row: DeliveryLogRow): DeliveryLogRow {
  return {
    ...row,
    nextAttemptAt: toDateOrNull(row.nextAttemptAt),
    eventCreatedAt: toDate(row.eventCreatedAt),
    createdAt: toDate(row.createdAt),
    deliveredAt: toDateOrNull(row.deliveredAt),
  };
}

export interface DeliveryFilter {
  endpointId?: string;
  eventId?: string;
  event?: string;
  status?: 'pending' | 'delivered' | 'failed';
  before?: Date;
  limit: number;
}

/** The company's deliveries, newest event first. */
export async function listDeliveryRows(conn: Conn, companyId: number, f: DeliveryFilter): Promise<DeliveryLogRow[]> {
  const where = [sql`company_id = ${companyId}`];
  if (f.endpointId !== undefined) where.push(sql`endpoint_id = ${f.endpointId}::uuid`);
  if (f.eventId !== undefined) where.push(sql`event_id = ${f.eventId}::uuid`);
  if (f.event !== undefined) where.push(sql`event = ${f.event}`);
  if (f.status !== undefined) where.push(sql`status = ${f.status}`);
  if (f.before !== undefined) where.push(sql`event_created_at < ${iso(f.before)}::timestamptz`);
  const rows = await selectRows<DeliveryLogRow>(
    conn,
    sql`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE ${sql.join(where, sql` AND `)}
      ORDER BY event_created_at DESC, id DESC LIMIT ${f.limit}`,
  );
  return rows.map(deliveryRow);
}

export async function findDeliveryRow(conn: Conn, companyId: number, id: string): Promise<DeliveryLogRow | null> {
  const [row] = await selectRows<DeliveryLogRow>(
    conn,
    sql`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE company_id = ${companyId} AND id = ${id}::uuid`,
  );
  return row ? deliveryRow(row) : null;
}

/** A delivery's attempts, oldest first. */
export async function listAttempts(conn: Conn, companyId: number, deliveryId: string): Promise<AttemptLogRow[]> {
  const rows = await selectRows<AttemptLogRow>(
    conn,
    sql`SELECT attempt, started_at AS "startedAt", outcome, status_code AS "statusCode", duration_ms AS "durationMs",
        response_body AS "responseBody", error
      FROM webhook_attempts WHERE company_id = ${companyId} AND delivery_id = ${deliveryId}::uuid ORDER BY attempt, id`,
  );
  return rows.map((row) => ({ ...row, startedAt: toDate(row.startedAt) }));
}

/** The company's outbound event: its name, payload and when it was recorded. */
export async function findOutboxEvent(
  conn: Conn,
  companyId: number,
  id: string,
): Promise<{ id: string; event: string; payload: unknown; createdAt: Date } | null> {
  const [row] = await selectRows<{ id: string; event: string; payload: unknown; createdAt: Date }>(
    conn,
    sql`SELECT id, event, payload, created_at AS "createdAt" FROM outbox_events WHERE company_id = ${companyId} AND id = ${id}::uuid`,
  );
  return row ? { ...row, createdAt: toDate(row.createdAt) } : null;
}

/** A delivery of the event to the endpoint, new or put back on a fresh schedule. */
export async function upsertRedelivery(
  conn: Conn,
  v: {
    id: string;
    companyId: number;
    endpointId: string;
    eventId: string;
    event: string;
    kind: 'event' | 'test';
    eventCreatedAt: Date;
    now: Date;
  },
): Promise<DeliveryLogRow> {
  const now = iso(v.now);
  const [row] = await selectRows<DeliveryLogRow>(
    conn,
    sql`INSERT INTO webhook_deliveries (id, company_id, endpoint_id, event_id, event, kind, status, next_attempt_at,
        event_created_at, created_at, updated_at)
      VALUES (${v.id}::uuid, ${v.companyId}, ${v.endpointId}::uuid, ${v.eventId}::uuid, ${v.event}, ${v.kind}, 'pending',
        ${now}::timestamptz, ${iso(v.eventCreatedAt)}::timestamptz, ${now}::timestamptz, ${now}::timestamptz)
      ON CONFLICT (endpoint_id, event_id) DO UPDATE SET status = 'pending', round_attempts = 0,
        next_attempt_at = ${now}::timestamptz, lease_token = NULL, updated_at = ${now}::timestamptz
      RETURNING ${DELIVERY_COLUMNS}`,
  );
  return deliveryRow(row!);
}

/** Puts the endpoint's failed deliveries of events at or after `since` back on a fresh schedule; answers how many. */
export async function retryFailedDeliveries(
  conn: Conn,
  v: { companyId: number; endpointId: string; since: Date; now: Date },
): Promise<number> {
  const now = iso(v.now);
  const rows = await selectRows<{ id: string }>(
    conn,
    sql`UPDATE webhook_deliveries SET status = 'pending', round_attempts = 0, next_attempt_at = ${now}::timestamptz,
        lease_token = NULL, updated_at = ${now}::timestamptz
      WHERE company_id = ${v.companyId} AND endpoint_id = ${v.endpointId}::uuid AND status = 'failed'
        AND event_created_at >= ${iso(v.since)}::timestamptz
      RETURNING id`,
  );
  return rows.length;
}

/** A test delivery, stored already claimed (lease token) and on its first attempt. */
export async function insertClaimedTestDelivery(
  conn: Conn,
  v: {
    id: string;
    companyId: number;
    endpointId: string;
    eventId: string;
    event: string;
    leaseToken: string;
    retryAt: Date;
    now: Date;
  },
) {
  const now = iso(v.now);
  await conn.execute(
    sql`INSERT INTO webhook_deliveries (id, company_id, endpoint_id, event_id, event, kind, status, attempts, round_attempts,
        lease_token, next_attempt_at, event_created_at, created_at, updated_at)
      VALUES (${v.id}::uuid, ${v.companyId}, ${v.endpointId}::uuid, ${v.eventId}::uuid, ${v.event}, 'test', 'pending', 1, 1,
        ${v.leaseToken}::uuid, ${iso(v.retryAt)}::timestamptz, ${now}::timestamptz, ${now}::timestamptz, ${now}::timestamptz)`,
  );
}

/** Deletes attempts, settled deliveries and dispatched events older than `cutoff`; answers how many of each. */
export async function pruneDeliveryLog(conn: Conn, cutoff: Date) {
  const count = async (query: SQL) => {
    const result = (await conn.execute(query)) as unknown as { rowCount?: number; affectedRows?: number };
    return Number(result.rowCount ?? result.affectedRows ?? 0);
  };
  const at = iso(cutoff);
  const attempts = await count(sql`DELETE FROM webhook_attempts WHERE started_at < ${at}::timestamptz`);
  const deliveries = await count(
    sql`DELETE FROM webhook_deliveries WHERE status <> 'pending' AND updated_at < ${at}::timestamptz`,
  );
  const events = await count(sql`DELETE FROM outbox_events o WHERE o.dispatched_at < ${at}::timestamptz
      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = o.id AND d.status = 'pending')`);
  return { attempts, deliveries, events };
}
