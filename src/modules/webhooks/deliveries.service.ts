import { randomUUID } from 'node:crypto';
import type { Database } from '../../db/client.ts';
import { AppError } from '../../lib/errors.ts';
import { type Clock, DAY_MS } from '../../lib/time.ts';
import { recordOutbound } from '../../outbox/outbox.repo.ts';
import * as repo from './deliveries.repo.ts';
import type { AttemptReport, DeliveryRunner } from './delivery-runner.ts';
import type { EndpointService } from './endpoints.service.ts';
import { TEST_EVENT } from './webhook-events.ts';
import { isUuid } from '../../lib/uuid.ts';

/** Attempts, settled deliveries and dispatched events older than this are pruned. */
export const RETENTION_DAYS = 30;

export function deliveryToWire(row: repo.DeliveryLogRow) {
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

export function attemptToWire(row: repo.AttemptLogRow) {
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
    const filter: repo.DeliveryFilter = { limit: limit + 1 };
    if (query.endpointId !== undefined) filter.endpointId = (await endpoints.findRow(companyId, query.endpointId)).id;
    if (query.eventId !== undefined) {
      if (!isUuid(query.eventId)) return { deliveries: [], next_before: null };
      filter.eventId = query.eventId;
    }
    if (query.event !== undefined) filter.event = query.event;
    if (query.status !== undefined) filter.status = query.status;
    if (query.before !== undefined) filter.before = query.before;
    const rows = await repo.listDeliveryRows(db.orm, companyId, filter);
    const page = rows.slice(0, limit);
    // Millisecond boundary: a page cut inside one millisecond repeats rather than skips the rest of it.
    const last = page.at(-1);
    const nextBefore = rows.length > limit && last ? new Date(last.eventCreatedAt.getTime() + 1).toISOString() : null;
    return { deliveries: page.map(deliveryToWire), next_before: nextBefore };
  }

  async function findDelivery(companyId: number, deliveryId: string) {
    const row = isUuid(deliveryId) ? await repo.findDeliveryRow(db.orm, companyId, deliveryId) : null;
    if (!row) throw new AppError('not_found', `webhook delivery ${deliveryId} not found`);
    return row;
  }

  /** One delivery with the event it carries and every attempt, oldest first. */
  async function getDelivery(companyId: number, deliveryId: string) {
    const row = await findDelivery(companyId, deliveryId);
    const attempts = await repo.listAttempts(db.orm, companyId, row.id);
    const event = await repo.findOutboxEvent(db.orm, companyId, row.eventId);
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
    const event = isUuid(eventId) ? await repo.findOutboxEvent(db.orm, companyId, eventId) : null;
    if (!event) throw new AppError('not_found', `event ${eventId} not found`);
    const now = clock.now();
    return db.orm.transaction(async (tx) => {
      const row = await repo.upsertRedelivery(tx, {
        id: randomUUID(),
        companyId,
        endpointId: endpoint.id,
        eventId: event.id,
        event: event.event,
        kind: event.event === TEST_EVENT ? 'test' : 'event',
        eventCreatedAt: event.createdAt,
        now,
      });
      await repo.notifyWorkers(tx);
      return deliveryToWire(row);
    });
  }

  /** Puts every failed delivery of the endpoint whose event happened at or after `since` back on a fresh schedule. */
  async function retryFailedSince(companyId: number, endpointId: string, since: Date): Promise<{ retried: number }> {
    const endpoint = await requireEnabled(companyId, endpointId);
    const now = clock.now();
    return db.orm.transaction(async (tx) => {
      const retried = await repo.retryFailedDeliveries(tx, { companyId, endpointId: endpoint.id, since, now });
      if (retried > 0) await repo.notifyWorkers(tx);
      return { retried };
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
      await repo.insertClaimedTestDelivery(tx, {
        id: delivery.id,
        companyId,
        endpointId: endpoint.id,
        eventId,
        event: TEST_EVENT,
        leaseToken: token,
        // If this process dies mid-send, a worker finds the test due after the longest attempt.
        retryAt: new Date(now.getTime() + 60_000),
        now,
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
    return repo.pruneDeliveryLog(db.orm, new Date(now.getTime() - RETENTION_DAYS * DAY_MS));
  }

  return { listDeliveries, getDelivery, redeliver, retryFailedSince, sendTest, prune };
}
