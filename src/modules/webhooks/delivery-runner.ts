import type { Database, Tx } from '../../db/client.ts';
import { type Cipher, hmacSha256Hex } from '../../lib/secrets.ts';
import type { Clock } from '../../lib/time.ts';
import type { Logger } from '../../logger.ts';
import type { ClaimedDelivery } from './deliveries.repo.ts';
import {
  clearEndpointFailing,
  type DeliveredAttempt,
  disableEndpoint,
  failPendingDeliveries,
  insertAttempt,
  markEndpointFailing,
  settleDelivered,
  settleDeliveryRow,
} from './deliveries.repo.ts';
import { DISABLE_AFTER_FAILING_MS, parseRetryAfter, retryDelayMs } from './retry-policy.ts';
import type { SendResult, WebhookSender } from './webhook-sender.ts';

export const USER_AGENT = 'Mostrador-Webhooks/1.0';

export interface AttemptReport {
  deliveryId: string;
  attempt: number;
  delivered: boolean;
  statusCode: number | null;
  durationMs: number;
  responseBody: string | null;
  error: string | null;
  /** The endpoint was disabled by this attempt (410, or five days of failures). */
  disabled: 'gone' | 'failing' | null;
}

export interface DeliveryRunnerDeps {
  db: Database;
  cipher: Cipher;
  clock: Clock;
  sender: WebhookSender;
  logger: Logger;
  random?: () => number;
}

export type DeliveryRunner = ReturnType<typeof createDeliveryRunner>;

/** True for another Mostrador's (or this one's) inbound integration endpoint. */
export function isMostradorInbound(url: string): boolean {
  try {
    return /\/api\/integration\/in\/?$/.test(new URL(url).pathname);
  } catch {
    return false;
  }
}

/**
 * The exact bytes sent: the stored envelope, `event` first. For a Mostrador inbound endpoint the
 * records go without `company_id`: company ids are each server's own numbers, the receiving company
 * is the one of the bearer key, and Mostrador refuses a `company_id` that is not the key's.
 */
export function deliveryBody(payload: ClaimedDelivery['payload'], options: { omitCompanyId?: boolean } = {}): string {
  let data = payload.data;
  if (options.omitCompanyId) {
    data = Object.fromEntries(
      Object.entries(data).map(([key, record]) => {
        if (!record || typeof record !== 'object' || Array.isArray(record)) return [key, record];
        const { company_id: _omitted, ...rest } = record as Record<string, unknown>;
        return [key, rest];
      }),
    );
  }
  return JSON.stringify({ event: payload.event, data });
}

/** One signature per valid secret, the current one first, comma separated. */
export function signatureHeader(body: string, secrets: string[]): string {
  return secrets.map((secret) => hmacSha256Hex(secret, body)).join(',');
}

/** Sends one claimed delivery and settles it: the attempt is logged, the delivery and the endpoint updated. */
export function createDeliveryRunner({ db, cipher, clock, sender, logger, random = Math.random }: DeliveryRunnerDeps) {
  function requestFor(delivery: ClaimedDelivery, sentAt: Date) {
    const mostrador = isMostradorInbound(delivery.url);
    const body = deliveryBody(delivery.payload, { omitCompanyId: mostrador });
    const secrets = [cipher.decrypt(delivery.secretEncrypted)];
    // Another Mostrador's /api/integration/in verifies one signature, made with its current key: the
    // previous secret (its old key, which stopped working) would only make it refuse every delivery.
    const previous = delivery.previousSecretEncrypted;
    if (!mostrador && previous && delivery.previousSecretExpiresAt && delivery.previousSecretExpiresAt > sentAt) {
      secrets.push(cipher.decrypt(previous));
    }
    const extra = delivery.headersEncrypted
      ? (JSON.parse(cipher.decrypt(delivery.headersEncrypted)) as Record<string, string>)
      : {};
    const headers: Record<string, string> = {
      ...extra,
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'x-idempotency-key': delivery.eventId,
      'x-event-id': delivery.eventId,
      'x-sent-at': sentAt.toISOString(),
      'x-signature': signatureHeader(body, secrets),
      ...(delivery.causedBy ? { 'x-caused-by': delivery.causedBy } : {}),
    };
    return { url: delivery.url, headers, body };
  }

  async function run(delivery: ClaimedDelivery, token: string): Promise<AttemptReport> {
    if (delivery.lostAttempt) await recordLostAttempt(delivery);
    const startedAt = clock.now();
    const result = await sender.send(requestFor(delivery, startedAt));
    const delivered = result.error === null && result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    const error = delivered ? null : (result.error ?? describeStatus(result));
    const disabled = delivered
      ? await settleSuccess(delivery, token, result, startedAt)
      : await db.orm.transaction((tx) => settle(tx, { delivery, token, result, delivered, error, startedAt }));
    const report = { deliveryId: delivery.id, attempt: delivery.attempts, delivered, disabled, error, ...pick(result) };
    logger.debug({ delivery: delivery.id, event: delivery.event, status: result.statusCode, error }, 'webhook attempt');
    if (disabled) logger.warn({ endpoint: delivery.endpointId, reason: disabled }, 'webhook endpoint disabled');
    return report;
  }

  // Successes are settled in batches: whatever finished while the previous batch was being written
  // goes in the next statement (group commit), so a busy worker makes one round trip for many.
  const successes: Array<{ attempt: DeliveredAttempt; done: (err?: unknown) => void }> = [];
  let flushing = false;

  function settleSuccess(delivery: ClaimedDelivery, token: string, result: SendResult, startedAt: Date): Promise<null> {
    const attempt: DeliveredAttempt = {
      delivery,
      token,
      startedAt,
      statusCode: result.statusCode!,
      durationMs: result.durationMs,
      responseBody: result.responseBody,
    };
    return new Promise((resolve, reject) => {
      successes.push({ attempt, done: (err) => (err === undefined ? resolve(null) : reject(err)) });
      if (!flushing) void flushSuccesses();
    });
  }

  async function flushSuccesses() {
    flushing = true;
    while (successes.length > 0) {
      const batch = successes.splice(0, 200);
      try {
        await settleDelivered(
          db.orm,
          clock.now(),
          batch.map((b) => b.attempt),
        );
        for (const b of batch) b.done();
      } catch (err) {
        for (const b of batch) b.done(err);
      }
    }
    flushing = false;
  }

  interface Settlement {
    delivery: ClaimedDelivery;
    token: string;
    result: SendResult;
    delivered: boolean;
    error: string | null;
    startedAt: Date;
  }

  async function settle(tx: Tx, s: Settlement): Promise<AttemptReport['disabled']> {
    const { delivery, result } = s;
    const now = clock.now();
    await insertAttempt(tx, {
      companyId: delivery.companyId,
      deliveryId: delivery.id,
      attempt: delivery.attempts,
      startedAt: s.startedAt,
      durationMs: result.durationMs,
      statusCode: result.statusCode,
      responseBody: result.responseBody,
      error: s.error,
      outcome: s.delivered ? 'delivered' : 'failed',
    });
    let nextAttemptAt: Date | null = null;
    if (!s.delivered && delivery.kind === 'event' && result.statusCode !== 410) {
      const delay = retryDelayMs(delivery.roundAttempts, parseRetryAfter(result.retryAfter ?? undefined, now), random());
      if (delay !== null) nextAttemptAt = new Date(now.getTime() + delay);
    }
    const settled = await settleDeliveryRow(tx, {
      id: delivery.id,
      token: s.token,
      status: s.delivered ? 'delivered' : nextAttemptAt ? 'pending' : 'failed',
      nextAttemptAt,
      statusCode: result.statusCode,
      error: s.error,
      now,
    });
    // A redelivery request or another worker took the row meanwhile: the attempt stays in the log only.
    // Test sends never change the endpoint's health.
    if (!settled || delivery.kind === 'test') return null;
    return updateEndpointHealth(tx, delivery.endpointId, s.delivered ? null : result.statusCode, s.delivered, now);
  }

  async function updateEndpointHealth(tx: Tx, endpointId: string, statusCode: number | null, delivered: boolean, now: Date) {
    if (delivered) {
      await clearEndpointFailing(tx, endpointId);
      return null;
    }
    const failingSince = await markEndpointFailing(tx, endpointId, now);
    if (!failingSince) return null;
    let reason: 'gone' | 'failing' | null = null;
    if (statusCode === 410) reason = 'gone';
    else if (now.getTime() - failingSince.getTime() >= DISABLE_AFTER_FAILING_MS) reason = 'failing';
    if (!reason) return null;
    await disableEndpoint(tx, endpointId, reason, now);
    const why = reason === 'gone' ? 'the endpoint answered 410 Gone' : 'the endpoint failed for 5 days';
    await failPendingDeliveries(tx, endpointId, now, `endpoint disabled: ${why}`);
    return reason;
  }

  /** The worker that held this delivery died mid-attempt: log that attempt before retrying it. */
  async function recordLostAttempt(delivery: ClaimedDelivery) {
    await insertAttempt(db.orm, {
      companyId: delivery.companyId,
      deliveryId: delivery.id,
      attempt: delivery.attempts - 1,
      startedAt: clock.now(),
      durationMs: null,
      statusCode: null,
      responseBody: null,
      error: 'the worker stopped during this attempt; retried',
      outcome: 'failed',
    });
  }

  return { run, requestFor };
}

function pick(result: SendResult) {
  return { statusCode: result.statusCode, durationMs: result.durationMs, responseBody: result.responseBody };
}

function describeStatus(result: SendResult): string {
  const status = result.statusCode!;
  if (status >= 300 && status < 400) {
    return `HTTP ${status}: redirects are not followed${result.location ? ` (location: ${result.location.slice(0, 200)})` : ''}`;
  }
  return `HTTP ${status}`;
}
