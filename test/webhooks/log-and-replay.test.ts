import { describe, expect, it } from 'vitest';
import type { Receiver } from '../fakes/webhook-receiver.ts';
import { makeCompany, makeProduct } from '../factories.ts';
import { attemptRows, deliveryRows, hmacHex, useWebhookFixture, type WebhookTestApp } from './helpers.ts';
import { cliCtx } from '../../src/http/request-context.ts';

describe('webhook delivery log, replay and test events', () => {
  let t: WebhookTestApp;
  let receiver: Receiver;
  useWebhookFixture({ app: (app) => (t = app), receiver: (r) => (receiver = r) });

  const drain = () => t.container.webhooks.dispatcher.drain();
  const endpoints = () => t.container.webhooks.endpoints;
  const deliveries = () => t.container.webhooks.deliveries;

  async function setup() {
    const company = await makeCompany(t.container);
    const created = await endpoints().createEndpoint(cliCtx(company.id), { url: `${receiver.url}/hooks` });
    return { company, ...created };
  }

  it('redelivers one event with the same x-idempotency-key and the same body', async () => {
    const { company, endpoint, secret } = await setup();
    await makeProduct(t.container, company.id);
    await drain();
    const [delivery] = await deliveryRows(t, endpoint.id);
    const again = await deliveries().redeliver(company.id, endpoint.id, delivery!.event_id);
    expect(again).toMatchObject({ id: delivery!.id, status: 'pending', event_id: delivery!.event_id });
    await drain();
    expect(receiver.requests).toHaveLength(2);
    const [first, second] = receiver.requests;
    expect(second!.headers['x-idempotency-key']).toBe(first!.headers['x-idempotency-key']);
    expect(second!.body).toBe(first!.body);
    expect(second!.headers['x-signature']).toBe(hmacHex(secret, second!.body));
    const detail = await deliveries().getDelivery(company.id, delivery!.id);
    expect(detail.delivery).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(detail.attempts.map((a) => a.attempt)).toEqual([1, 2]);
    expect(detail.payload).toMatchObject({ event: 'product.upserted' });
  });

  it('redelivers an event the endpoint never had (created before it, or filtered out)', async () => {
    const company = await makeCompany(t.container);
    await makeProduct(t.container, company.id);
    await drain();
    const [event] = await t.container.db.query<{ id: string }>('SELECT id FROM outbox_events WHERE company_id = $1', [
      company.id,
    ]);
    const { endpoint } = await endpoints().createEndpoint(cliCtx(company.id), { url: `${receiver.url}/late` });
    await deliveries().redeliver(company.id, endpoint.id, event!.id);
    await drain();
    expect(receiver.requests.map((r) => r.headers['x-idempotency-key'])).toEqual([event!.id]);
  });

  it('retries every failed delivery since a time, and only those', async () => {
    const { company, endpoint } = await setup();
    await receiver.down();
    for (let i = 0; i < 3; i++) await makeProduct(t.container, company.id);
    await drain();
    // An admin disables the endpoint while it is down: what was pending fails.
    await endpoints().updateEndpoint(cliCtx(company.id), endpoint.id, { enabled: false });
    let rows = await deliveryRows(t, endpoint.id);
    expect(rows.map((d) => d.status)).toEqual(['failed', 'failed', 'failed']);
    expect(rows[0]!.last_error).toBe('endpoint disabled by an admin');
    await expect(deliveries().retryFailedSince(company.id, endpoint.id, new Date(0))).rejects.toMatchObject({
      code: 'invalid_state',
    });

    await receiver.up();
    await endpoints().updateEndpoint(cliCtx(company.id), endpoint.id, { enabled: true });
    const [{ since }] = (await t.container.db.query<{ since: string }>(
      `SELECT to_json(d.event_created_at) #>> '{}' AS since FROM webhook_deliveries d WHERE d.id = $1`,
      [rows[1]!.id],
    )) as [{ since: string }];
    expect(await deliveries().retryFailedSince(company.id, endpoint.id, new Date(since))).toEqual({ retried: 2 });
    await drain();
    rows = await deliveryRows(t, endpoint.id);
    expect(rows.map((d) => d.status)).toEqual(['failed', 'delivered', 'delivered']);
    expect(receiver.requests.map((r) => r.headers['x-event-id'])).toEqual([rows[1]!.event_id, rows[2]!.event_id]);
  });

  it('lists deliveries per endpoint and per event, newest first, with pages', async () => {
    const { company, endpoint } = await setup();
    for (let i = 0; i < 5; i++) await makeProduct(t.container, company.id);
    await drain();
    const first = await deliveries().listDeliveries(company.id, { endpointId: endpoint.id, limit: 3 });
    expect(first.deliveries).toHaveLength(3);
    expect(first.next_before).not.toBeNull();
    const rest = await deliveries().listDeliveries(company.id, { endpointId: endpoint.id, before: new Date(first.next_before!) });
    const all = [...first.deliveries, ...rest.deliveries.filter((d) => !first.deliveries.some((f) => f.id === d.id))];
    expect(all).toHaveLength(5);
    const times = all.map((d) => d.event_created_at);
    expect([...times].sort().reverse()).toEqual(times);
    const byEvent = await deliveries().listDeliveries(company.id, { eventId: all[2]!.event_id });
    expect(byEvent.deliveries.map((d) => d.id)).toEqual([all[2]!.id]);
    expect(await deliveries().listDeliveries(company.id, { status: 'failed' })).toEqual({ deliveries: [], next_before: null });
  });

  it('sends a test event at once, reports the answer, and never retries it or marks the endpoint failing', async () => {
    const { company, endpoint, secret } = await setup();
    const ok = await deliveries().sendTest(company.id, endpoint.id);
    expect(ok).toMatchObject({ delivered: true, statusCode: 200, attempt: 1, error: null, responseBody: '{"status":"ok"}' });
    const request = receiver.requests[0]!;
    expect(JSON.parse(request.body)).toMatchObject({
      event: 'webhook.test',
      data: { company_id: company.id, endpoint_id: endpoint.id },
    });
    expect(request.headers['x-signature']).toBe(hmacHex(secret, request.body));

    receiver.set({ kind: 'status', status: 410, body: 'gone' });
    const failed = await deliveries().sendTest(company.id, endpoint.id);
    expect(failed).toMatchObject({ delivered: false, statusCode: 410, error: 'HTTP 410', disabled: null });
    t.clock.advance(3600_000);
    await drain();
    expect(receiver.requests).toHaveLength(2);
    expect(await endpoints().getEndpoint(company.id, endpoint.id)).toMatchObject({ enabled: true, failing_since: null });
    const tests = await deliveries().listDeliveries(company.id, { event: 'webhook.test' });
    expect(tests.deliveries.map((d) => [d.kind, d.status])).toEqual([
      ['test', 'failed'],
      ['test', 'delivered'],
    ]);
  });

  it('prunes attempts, settled deliveries and dispatched events after 30 days, keeping what is pending', async () => {
    const { company, endpoint } = await setup();
    await makeProduct(t.container, company.id);
    await drain();
    await receiver.down();
    await makeProduct(t.container, company.id);
    await drain();
    const before = await deliveryRows(t, endpoint.id);
    expect(before.map((d) => d.status)).toEqual(['delivered', 'pending']);
    expect(await deliveries().prune(t.clock.now())).toEqual({ attempts: 0, deliveries: 0, events: 0 });
    const later = new Date(t.clock.now().getTime() + 31 * 24 * 3600_000);
    const pruned = await deliveries().prune(later);
    expect(pruned.attempts).toBeGreaterThanOrEqual(2);
    expect(pruned.deliveries).toBeGreaterThanOrEqual(1);
    expect(pruned.events).toBeGreaterThanOrEqual(1);
    const after = await deliveryRows(t, endpoint.id);
    expect(after.map((d) => d.id)).toEqual([before[1]!.id]);
    expect(await attemptRows(t, before[1]!.id)).toEqual([]);
  });

  it('schedules the prune as a daily pg-boss job on workers', async () => {
    await t.container.jobs.start({ work: true });
    try {
      const schedules = await t.container.db.query<{ name: string; cron: string }>('SELECT name, cron FROM pgboss.schedule');
      expect(schedules).toContainEqual({ name: 'webhooks-prune', cron: '17 3 * * *' });
    } finally {
      await t.container.jobs.stop(5000);
    }
  });

  it('keeps every log and action inside the company: another company gets 404', async () => {
    const { company, endpoint } = await setup();
    await makeProduct(t.container, company.id);
    await drain();
    const [delivery] = await deliveryRows(t, endpoint.id);
    const other = await makeCompany(t.container);
    const notFound = { code: 'not_found' };
    await expect(endpoints().getEndpoint(other.id, endpoint.id)).rejects.toMatchObject(notFound);
    await expect(endpoints().updateEndpoint(cliCtx(other.id), endpoint.id, { enabled: false })).rejects.toMatchObject(notFound);
    await expect(endpoints().rotateSecret(cliCtx(other.id), endpoint.id)).rejects.toMatchObject(notFound);
    await expect(endpoints().removeEndpoint(cliCtx(other.id), endpoint.id)).rejects.toMatchObject(notFound);
    await expect(deliveries().getDelivery(other.id, delivery!.id)).rejects.toMatchObject(notFound);
    await expect(deliveries().listDeliveries(other.id, { endpointId: endpoint.id })).rejects.toMatchObject(notFound);
    await expect(deliveries().redeliver(other.id, endpoint.id, delivery!.event_id)).rejects.toMatchObject(notFound);
    await expect(deliveries().retryFailedSince(other.id, endpoint.id, new Date(0))).rejects.toMatchObject(notFound);
    await expect(deliveries().sendTest(other.id, endpoint.id)).rejects.toMatchObject(notFound);
    expect(await endpoints().listEndpoints(other.id)).toEqual([]);
    expect((await deliveries().listDeliveries(other.id)).deliveries).toEqual([]);
    // The other company's own endpoint cannot redeliver this company's event either.
    const { endpoint: theirs } = await endpoints().createEndpoint(cliCtx(other.id), { url: `${receiver.url}/other` });
    await expect(deliveries().redeliver(other.id, theirs.id, delivery!.event_id)).rejects.toMatchObject(notFound);
    expect(await endpoints().getEndpoint(company.id, endpoint.id)).toMatchObject({ enabled: true });
  });

  it('removes an endpoint with its log', async () => {
    const { company, endpoint } = await setup();
    await makeProduct(t.container, company.id);
    await drain();
    expect(await endpoints().removeEndpoint(cliCtx(company.id), endpoint.id)).toEqual({ id: endpoint.id });
    expect(await deliveryRows(t, endpoint.id)).toEqual([]);
    await expect(endpoints().getEndpoint(company.id, endpoint.id)).rejects.toMatchObject({ code: 'not_found' });
  });
});
