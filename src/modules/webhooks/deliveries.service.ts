import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, gte, lt, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { outboxEvents, webhookAttempts, webhookDeliveries } from '../../db/schema/index.ts';
import { AppError } from '../../lib/errors.ts';
import { type Clock, DAY_MS } from '../../lib/time.ts';
import { recordOutbound } from '../../outbox/outbox.repo.ts';
import { notifyWorkers } from './deliveries.repo.ts';
import type { AttemptReport, DeliveryRunner } from './delivery-runner.ts';
import type { EndpointService } from './endpoints.service.ts';
import { TEST_EVENT } from './webhook-events.ts';
import { isUuid } from '../../lib/uuid.ts';

/** Attempts, settled deliveries and dispatched events older than this are pruned. */
export const RETENTION_DAYS = 30;

type DeliveryRow = typeof webhookDeliveries.$inferSelect;
type AttemptRow = typeof webhookAttempts.$inferSelect;

export function deliveryToWire(row: DeliveryRow) {
  return {
    id: row.id,
    endpoint_id: row.endpointId,
    event_id: row.eventId,
    event: row.event,
    kind: row.kind,
    status: row.status,
    attempts: row.attempts,
    in_flight: row.leaseToken !== null,
    next_attempt_at: row.nextAttemptAt?.toISOString() ?? null,
    last_status_code: row.lastStatusCode,
    last_error: row.lastError,
    event_created_at: row.eventCreatedAt.toISOString(),
    created_at: row.createdAt.toISOString(),
    delivered_at: row.deliveredAt?.toISOString() ?? null,
  };
}

export function attemptToWire(row: AttemptRow) {
  return {
    attempt: row.attempt,
    started_at: row.startedAt.toISOString(),
    outcome: row.outcome,
    status_code: row.statusCode,
    duration_ms: row.durationMs,
    response_body: row.responseBody,
    error: row.error,
  };
}

export interface DeliveryQuery {
  endpointId?: string;
  eventId?: string;
  event?: string;
  status?: 'pending' | 'delivered' | 'failed';
  limit?: number;
  /** Only deliveries of events older than this (the previous page's `next_before`). */
  before?: Date;
}

export interface DeliveryServiceDeps {
  db: Database;
  clock: Clock;
  endpoints: EndpointService;
  runner: DeliveryRunner;
}

export type DeliveryService = ReturnType<typeof createDeliveryService>;

/** The delivery log and the admin actions on it: redeliver, retry failures since a time, test, prune. */
export function createDeliveryService({ db, clock, endpoints, runner }: DeliveryServiceDeps) {
  async function listDeliveries(companyId: number, query: DeliveryQuery = {}) {
    const limit = Math.min(Math.max(query.limit ?? 50, 1), 200);
    const where: SQL[] = [eq(webhookDeliveries.companyId, companyId)];
    if (query.endpointId !== undefined)
      where.push(eq(webhookDeliveries.endpointId, (await endpoints.findRow(companyId, query.endpointId)).id));
    if (query.eventId !== undefined) {
      if (!isUuid(query.eventId)) return { deliveries: [], next_before: null };
      where.push(eq(webhookDeliveries.eventId, query.eventId));
    }
    if (query.event !== undefined) where.push(eq(webhookDeliveries.event, query.event));
    if (query.status !== undefined) where.push(eq(webhookDeliveries.status, query.status));
    if (query.before !== undefined) where.push(lt(webhookDeliveries.eventCreatedAt, query.before));
    const rows = await db.orm
      .select()
      .from(webhookDeliveries)
      .where(and(...where))
      .orderBy(desc(webhookDeliveries.eventCreatedAt), desc(webhookDeliveries.id))
      .limit(limit + 1);
    const page = rows.slice(0, limit);
    // Millisecond boundary: a page cut inside one millisecond repeats rather than skips the rest of it.
    const last = page.at(-1);
    const nextBefore = rows.length > limit && last ? new Date(last.eventCreatedAt.getTime() + 1).toISOString() : null;
    return { deliveries: page.map(deliveryToWire), next_before: nextBefore };
  }

  async function findDelivery(companyId: number, deliveryId: string) {
    const [row] = isUuid(deliveryId)
      ? await db.orm
          .select()
          .from(webhookDeliveries)
          .where(and(eq(webhookDeliveries.companyId, companyId), eq(webhookDeliveries.id, deliveryId)))
      : [];
    if (!row) throw new AppError('not_found', `webhook delivery ${deliveryId} not found`);
    return row;
  }

  /** One delivery with the event it carries and every attempt, oldest first. */
  async function getDelivery(companyId: number, deliveryId: string) {
    const row = await findDelivery(companyId, deliveryId);
    const attempts = await db.orm
      .select()
      .from(webhookAttempts)
      .where(and(eq(webhookAttempts.companyId, companyId), eq(webhookAttempts.deliveryId, row.id)))
      .orderBy(asc(webhookAttempts.attempt), asc(webhookAttempts.id));
    const [event] = await db.orm
      .select({ payload: outboxEvents.payload })
      .from(outboxEvents)
      .where(eq(outboxEvents.id, row.eventId));
    return { delivery: deliveryToWire(row), payload: event?.payload ?? null, attempts: attempts.map(attemptToWire) };
  }

  async function requireEnabled(companyId: number, endpointId: string) {
    const endpoint = await endpoints.findRow(companyId, endpointId);
    if (!endpoint.enabled) {
      throw new AppError(
        'invalid_state',
        `webhook endpoint ${endpoint.id} is disabled (${endpoint.disabledReason}); enable it first`,
      );
    }
    return endpoint;
  }

  /**
   * Sends one event to an endpoint again, with a fresh retry schedule and the same
   * x-idempotency-key (the event id). Works for delivered, failed and never-sent events alike.
   */
  async function redeliver(companyId: number, endpointId: string, eventId: string) {
    const endpoint = await requireEnabled(companyId, endpointId);
    const [event] = isUuid(eventId)
      ? await db.orm
          .select()
          .from(outboxEvents)
          .where(and(eq(outboxEvents.companyId, companyId), eq(outboxEvents.id, eventId)))
      : [];
    if (!event) throw new AppError('not_found', `event ${eventId} not found`);
    const now = clock.now();
    return db.orm.transaction(async (tx) => {
      const [row] = await tx
        .insert(webhookDeliveries)
        .values({
          id: randomUUID(),
          companyId,
          endpointId: endpoint.id,
          eventId: event.id,
          event: event.event,
          kind: event.event === TEST_EVENT ? 'test' : 'event',
          status: 'pending',
          nextAttemptAt: now,
          eventCreatedAt: event.createdAt,
          createdAt: now,
          updatedAt: now,
        })
        .onConflictDoUpdate({
          target: [webhookDeliveries.endpointId, webhookDeliveries.eventId],
          set: { status: 'pending', roundAttempts: 0, nextAttemptAt: now, leaseToken: null, updatedAt: now },
        })
        .returning();
      await notifyWorkers(tx);
      return deliveryToWire(row!);
    });
  }

  /** Puts every failed delivery of the endpoint whose event happened at or after `since` back on a fresh schedule. */
  async function retryFailedSince(companyId: number, endpointId: string, since: Date): Promise<{ retried: number }> {
    const endpoint = await requireEnabled(companyId, endpointId);
    const now = clock.now();
    return db.orm.transaction(async (tx) => {
      const rows = await tx
        .update(webhookDeliveries)
        .set({ status: 'pending', roundAttempts: 0, nextAttemptAt: now, leaseToken: null, updatedAt: now })
        .where(
          and(
            eq(webhookDeliveries.companyId, companyId),
            eq(webhookDeliveries.endpointId, endpoint.id),
            eq(webhookDeliveries.status, 'failed'),
            gte(webhookDeliveries.eventCreatedAt, since),
          ),
        )
        .returning({ id: webhookDeliveries.id });
      if (rows.length > 0) await notifyWorkers(tx);
      return { retried: rows.length };
    });
  }

  /**
   * Sends a `webhook.test` event to the endpoint now and answers with the attempt. The delivery is
   * created already claimed by this call, so no worker sends it too; it is never retried.
   */
  async function sendTest(companyId: number, endpointId: string): Promise<AttemptReport> {
    const endpoint = await endpoints.findRow(companyId, endpointId);
    const now = clock.now();
    const eventId = randomUUID();
    const token = randomUUID();
    const payload = {
      event: TEST_EVENT,
      data: {
        message: 'Evento de prueba de Mostrador',
        company_id: companyId,
        endpoint_id: endpoint.id,
        sent_at: now.toISOString(),
      },
    };
    // The delivery as stored, already on its first attempt, and as the runner takes it.
    const delivery = {
      id: randomUUID(),
      companyId,
      endpointId: endpoint.id,
      eventId,
      event: TEST_EVENT,
      kind: 'test' as const,
      attempts: 1,
      roundAttempts: 1,
    };
    await db.orm.transaction(async (tx) => {
      await recordOutbound(tx, { id: eventId, companyId, event: TEST_EVENT, data: payload.data, dispatchedAt: now });
      await tx.insert(webhookDeliveries).values({
        ...delivery,
        status: 'pending',
        leaseToken: token,
        // If this process dies mid-send, a worker finds the test due after the longest attempt.
        nextAttemptAt: new Date(now.getTime() + 60_000),
        eventCreatedAt: now,
        createdAt: now,
        updatedAt: now,
      });
    });
    return runner.run(
      {
        ...delivery,
        lostAttempt: false,
        payload,
        causedBy: null,
        url: endpoint.url,
        secretEncrypted: endpoint.secretEncrypted,
        previousSecretEncrypted: endpoint.previousSecretEncrypted,
        previousSecretExpiresAt: endpoint.previousSecretExpiresAt,
        headersEncrypted: endpoint.headersEncrypted,
      },
      token,
    );
  }

  /** Deletes attempts, settled deliveries and dispatched events older than the retention (the scheduled job). */
  async function prune(now = clock.now()) {
    const cutoff = new Date(now.getTime() - RETENTION_DAYS * DAY_MS).toISOString();
    const count = async (query: SQL) => {
      const result = (await db.orm.execute(query)) as unknown as { rowCount?: number; affectedRows?: number; rows: unknown[] };
      return Number(result.rowCount ?? result.affectedRows ?? 0);
    };
    const attempts = await count(sql`DELETE FROM webhook_attempts WHERE started_at < ${cutoff}::timestamptz`);
    const deliveries = await count(
      sql`DELETE FROM webhook_deliveries WHERE status <> 'pending' AND updated_at < ${cutoff}::timestamptz`,
    );
    const events = await count(sql`DELETE FROM outbox_events o WHERE o.dispatched_at < ${cutoff}::timestamptz
      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = o.id AND d.status = 'pending')`);
    return { attempts, deliveries, events };
  }

  return { listDeliveries, getDelivery, redeliver, retryFailedSince, sendTest, prune };
}
