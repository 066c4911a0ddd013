import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { createTestClock, type Receiver, startReceiver } from '../fakes/webhook-receiver.ts';

export type TestClock = ReturnType<typeof createTestClock>;
export type WebhookTestApp = TestApp & { clock: TestClock };

/**
 * The usual lifecycle of a webhook test file: one application for the file, a fresh receiver per
 * test, and every endpoint removed after each test, so nothing of one test is retried into the
 * next one's receiver. Hands both over as they are created.
 */
export function useWebhookFixture(
  use: { app(t: WebhookTestApp): void; receiver(r: Receiver): void },
  options: { attemptTimeoutMs?: number } = {},
) {
  let t: WebhookTestApp;
  let receiver: Receiver;
  beforeAll(async () => {
    t = await buildWebhookApp({}, options);
    use.app(t);
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    receiver = await startReceiver();
    use.receiver(receiver);
  });
  afterEach(async () => {
    await receiver.close();
    await t.container.db.query('DELETE FROM webhook_endpoints');
  });
}

/**
 * The application with a movable clock, a 5 s delivery timeout (half the real one) and no jitter
 * (random 0.5 → factor 1). The timeout is not shorter on purpose: on a loaded machine the first
 * request to a fresh local receiver took over 400 ms (the old default), so deliveries that should
 * succeed timed out on main and on every branch alike. Tests of the timeout itself ask for a short
 * one (`attemptTimeoutMs`).
 */
export async function buildWebhookApp(
  env: Record<string, string> = {},
  options: { attemptTimeoutMs?: number } = {},
): Promise<WebhookTestApp> {
  const clock = createTestClock();
  const t = await buildTestApp({
    env: { ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true', ...env },
    overrides: { clock, webhookTuning: { timeoutMs: options.attemptTimeoutMs ?? 5000, random: () => 0.5, pollIntervalMs: 200 } },
  });
  return { ...t, clock };
}

export function hmacHex(secret: string, body: string) {
  return createHmac('sha256', secret).update(body).digest('hex');
}

export async function deliveryRows(t: TestApp, endpointId: string) {
  return t.container.db.query<{
    id: string;
    event_id: string;
    event: string;
    status: string;
    attempts: number;
    next_attempt_at: string | null;
    last_error: string | null;
    next_ms: number | null;
  }>(
    `SELECT id, event_id, event, status, attempts, next_attempt_at::text, last_error,
       (extract(epoch FROM next_attempt_at) * 1000)::float8 AS next_ms
     FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY event_created_at, event_seq, id`,
    [endpointId],
  );
}

export async function attemptRows(t: TestApp, deliveryId: string) {
  return t.container.db.query<{
    attempt: number;
    status_code: number | null;
    error: string | null;
    outcome: string;
    response_body: string | null;
    duration_ms: number | null;
  }>(
    'SELECT attempt, status_code, error, outcome, response_body, duration_ms FROM webhook_attempts WHERE delivery_id = $1 ORDER BY id',
    [deliveryId],
  );
}

/** The requests a receiver got for one event id. */
export function requestsFor(receiver: Receiver, eventId: string) {
  return receiver.requests.filter((r) => r.headers['x-event-id'] === eventId);
}
