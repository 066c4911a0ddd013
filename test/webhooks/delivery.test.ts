import { describe, expect, it } from 'vitest';
import { parseRfc3339 } from '../../src/lib/time.ts';
import { createSale, markSalePaid } from '../../src/modules/sales/sales.service.ts';
import type { EndpointInput } from '../../src/modules/webhooks/endpoint-input.ts';
import { recordOutbound } from '../../src/outbox/outbox.repo.ts';
import { type Receiver, startReceiver } from '../fakes/webhook-receiver.ts';
import { makeCompany, makeProduct } from '../factories.ts';
import { attemptRows, deliveryRows, hmacHex, useWebhookFixture, type WebhookTestApp } from './helpers.ts';
import { cliCtx } from '../../src/http/request-context.ts';

describe('webhook delivery', () => {
  let t: WebhookTestApp;
  let receiver: Receiver;
  useWebhookFixture({ app: (app) => (t = app), receiver: (r) => (receiver = r) });

  const drain = () => t.container.webhooks.dispatcher.drain();
  const webhooks = () => t.container.webhooks;

  async function setup(input: Partial<EndpointInput> = {}) {
    const company = await makeCompany(t.container);
    const created = await webhooks().endpoints.createEndpoint(cliCtx(company.id), { url: `${receiver.url}/hooks`, ...input });
    return { company, ...created };
  }

  async function eventsOf(companyId: number) {
    return t.container.db.query<{ id: string; event: string }>(
      'SELECT id, event FROM outbox_events WHERE company_id = $1 ORDER BY created_at, seq',
      [companyId],
    );
  }

  it('POSTs the envelope with the documented headers and a signature of the exact body', async () => {
    const { company, endpoint, secret } = await setup({ headers: { 'X-Tienda': 'sucursal-centro' } });
    expect(secret).toMatch(/^mos_whs_[A-Za-z0-9_-]{43}$/);
    const product = await makeProduct(t.container, company.id, { name: 'Yerba mate 1 kg', basePrice: 3500 });
    await drain();

    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    const [event] = await eventsOf(company.id);
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/hooks');
    expect(request!.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Mostrador-Webhooks/1.0',
      'x-idempotency-key': event!.id,
      'x-event-id': event!.id,
      'x-tienda': 'sucursal-centro',
    });
    expect(request!.headers['x-caused-by']).toBeUndefined();
    expect(request!.headers['x-signature']).toBe(hmacHex(secret, request!.body));
    const sentAt = parseRfc3339(String(request!.headers['x-sent-at']));
    expect(Math.abs(sentAt!.getTime() - t.clock.now().getTime())).toBeLessThan(5000);
    const body = JSON.parse(request!.body);
    expect(Object.keys(body)).toEqual(['event', 'data']);
    expect(body).toMatchObject({
      event: 'product.upserted',
      data: { product: { id: product.id, company_id: company.id, name: 'Yerba mate 1 kg', base_price: 3500, stock: 0 } },
    });

    const [delivery] = await deliveryRows(t, endpoint.id);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 1, next_attempt_at: null, last_error: null });
    const attempts = await attemptRows(t, delivery!.id);
    expect(attempts).toEqual([
      {
        attempt: 1,
        status_code: 200,
        error: null,
        outcome: 'delivered',
        response_body: '{"status":"ok"}',
        duration_ms: expect.any(Number),
      },
    ]);
  });

  it('carries x-caused-by when an inbound event caused the change', async () => {
    const { company } = await setup();
    const cause = '3f8a6f4e-2a1b-4c0d-9e8f-7a6b5c4d3e2f';
    await t.container.db.orm.transaction((tx) =>
      recordOutbound(tx, { companyId: company.id, event: 'sales.paid', data: { sale: { id: 1 } }, causedBy: cause }),
    );
    await drain();
    expect(receiver.requests[0]!.headers['x-caused-by']).toBe(cause);
  });

  it('keeps only the first 1 KB of an answer', async () => {
    const { company, endpoint } = await setup();
    receiver.set({ kind: 'status', status: 200, body: `${'ñ'.repeat(600)}${'x'.repeat(5000)}` });
    await makeProduct(t.container, company.id);
    await drain();
    const [delivery] = await deliveryRows(t, endpoint.id);
    const [attempt] = await attemptRows(t, delivery!.id);
    expect(Buffer.byteLength(attempt!.response_body!)).toBeLessThanOrEqual(1024);
    expect(attempt!.response_body).toBe('ñ'.repeat(512));
  });

  it('retries with backoff while the receiver is down or failing, then delivers with the same idempotency key', async () => {
    const { company, endpoint } = await setup();
    await receiver.down();
    await makeProduct(t.container, company.id);
    await drain();
    let [delivery] = await deliveryRows(t, endpoint.id);
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1 });
    // First retry after about 10 s (no jitter in this test).
    expect(delivery!.next_ms! - t.clock.now().getTime()).toBeGreaterThan(9000);
    expect(delivery!.next_ms! - t.clock.now().getTime()).toBeLessThanOrEqual(10_000);

    await receiver.up();
    receiver.set({ kind: 'status', status: 500, body: 'boom' });
    await drain();
    expect(receiver.requests).toHaveLength(0); // not due yet
    t.clock.advance(10_001);
    await drain();
    expect(receiver.requests).toHaveLength(1);
    [delivery] = await deliveryRows(t, endpoint.id);
    expect(delivery).toMatchObject({ status: 'pending', attempts: 2, last_error: 'HTTP 500' });
    expect(delivery!.next_ms! - t.clock.now().getTime()).toBeGreaterThan(59_000);
    const [failing] = await t.container.db.query<{ failing_since: string | null }>(
      'SELECT failing_since::text FROM webhook_endpoints WHERE id = $1',
      [endpoint.id],
    );
    expect(failing!.failing_since).not.toBeNull();

    receiver.set({ kind: 'status', status: 204 });
    t.clock.advance(60_001);
    await drain();
    [delivery] = await deliveryRows(t, endpoint.id);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 3 });
    const attempts = await attemptRows(t, delivery!.id);
    expect(attempts.map((a) => [a.attempt, a.outcome, a.status_code])).toEqual([
      [1, 'failed', null],
      [2, 'failed', 500],
      [3, 'delivered', 204],
    ]);
    expect(attempts[0]!.error).toMatch(/ECONNREFUSED/);
    expect(attempts[1]!.response_body).toBe('boom');
    const [first, second] = receiver.requests;
    expect(first!.headers['x-idempotency-key']).toBe(delivery!.event_id);
    expect(second!.headers['x-idempotency-key']).toBe(delivery!.event_id);
    expect(second!.body).toBe(first!.body);
    expect(second!.headers['x-sent-at']).not.toBe(first!.headers['x-sent-at']);
    const [healed] = await t.container.db.query<{ failing_since: string | null }>(
      'SELECT failing_since::text FROM webhook_endpoints WHERE id = $1',
      [endpoint.id],
    );
    expect(healed!.failing_since).toBeNull();
  });

  it('honours a Retry-After longer than the schedule, up to one hour', async () => {
    const { company, endpoint } = await setup();
    receiver.set({ kind: 'status', status: 429, headers: { 'retry-after': '120' } });
    await makeProduct(t.container, company.id);
    await drain();
    let [delivery] = await deliveryRows(t, endpoint.id);
    const wait = delivery!.next_ms! - t.clock.now().getTime();
    expect(wait).toBeGreaterThan(119_000);
    expect(wait).toBeLessThanOrEqual(120_000);
    receiver.set({ kind: 'status', status: 503, headers: { 'retry-after': '999999' } });
    t.clock.advance(120_001);
    await drain();
    [delivery] = await deliveryRows(t, endpoint.id);
    expect(delivery!.next_ms! - t.clock.now().getTime()).toBeLessThanOrEqual(3_600_000);
    expect(delivery!.next_ms! - t.clock.now().getTime()).toBeGreaterThan(3_599_000);
  });

  it('disables the endpoint on 410 Gone and fails what was pending for it', async () => {
    const { company, endpoint } = await setup();
    receiver.set({ kind: 'status', status: 410 });
    await makeProduct(t.container, company.id);
    await makeProduct(t.container, company.id);
    await drain();
    expect(receiver.requests).toHaveLength(1);
    const [row] = await webhooks().endpoints.listEndpoints(company.id);
    expect(row).toMatchObject({ id: endpoint.id, enabled: false, disabled_reason: 'gone' });
    const deliveries = await deliveryRows(t, endpoint.id);
    expect(deliveries.map((d) => d.status)).toEqual(['failed', 'failed']);
    expect(deliveries[1]!.last_error).toContain('410');
    // Nothing new goes to a disabled endpoint.
    receiver.set({ kind: 'status', status: 200 });
    await makeProduct(t.container, company.id);
    t.clock.advance(3600_000);
    await drain();
    expect(receiver.requests).toHaveLength(1);
    expect(await deliveryRows(t, endpoint.id)).toHaveLength(2);
  });

  it('disables an endpoint that has failed for five days', async () => {
    const { company, endpoint } = await setup();
    receiver.set({ kind: 'status', status: 500 });
    await makeProduct(t.container, company.id);
    await drain();
    expect((await webhooks().endpoints.getEndpoint(company.id, endpoint.id)).enabled).toBe(true);
    t.clock.advance(4 * 24 * 3600_000);
    await drain();
    expect((await webhooks().endpoints.getEndpoint(company.id, endpoint.id)).enabled).toBe(true);
    t.clock.advance(24 * 3600_000);
    await drain();
    const after = await webhooks().endpoints.getEndpoint(company.id, endpoint.id);
    expect(after).toMatchObject({ enabled: false, disabled_reason: 'failing' });
    expect((await deliveryRows(t, endpoint.id))[0]!.status).toBe('failed');
  });

  it('never follows a redirect: a 3xx is a failed attempt and the target is not visited', async () => {
    const { company, endpoint } = await setup();
    receiver.set({ kind: 'status', status: 302, headers: { location: `${receiver.url}/elsewhere` } });
    await makeProduct(t.container, company.id);
    await drain();
    expect(receiver.requests.map((r) => r.path)).toEqual(['/hooks']);
    const [delivery] = await deliveryRows(t, endpoint.id);
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1 });
    expect(delivery!.last_error).toBe(`HTTP 302: redirects are not followed (location: ${receiver.url}/elsewhere)`);
  });

  it('signs with both secrets for 24 h after a rotation, then with the new one only', async () => {
    const { company, endpoint, secret: first } = await setup();
    const rotated = await webhooks().endpoints.rotateSecret(cliCtx(company.id), endpoint.id);
    expect(rotated.secret).not.toBe(first);
    expect(rotated.endpoint.previous_secret_expires_at).not.toBeNull();
    await makeProduct(t.container, company.id);
    await drain();
    const during = receiver.requests[0]!;
    expect(during.headers['x-signature']).toBe(`${hmacHex(rotated.secret, during.body)},${hmacHex(first, during.body)}`);

    t.clock.advance(24 * 3600_000 + 1000);
    await makeProduct(t.container, company.id);
    await drain();
    const after = receiver.requests[1]!;
    expect(after.headers['x-signature']).toBe(hmacHex(rotated.secret, after.body));

    const replaced = await webhooks().endpoints.rotateSecret(cliCtx(company.id), endpoint.id, { keepPrevious: false });
    await makeProduct(t.container, company.id);
    await drain();
    const now = receiver.requests[2]!;
    expect(now.headers['x-signature']).toBe(hmacHex(replaced.secret, now.body));
  });

  it('sends only the events an endpoint subscribed to', async () => {
    const { company, endpoint } = await setup({ events: ['sales.paid'] });
    const product = await makeProduct(t.container, company.id);
    await t.container.db.orm.transaction(async (tx) => {
      await createSale(
        tx,
        company.id,
        { id: 7, total: 100, items: [{ productId: product.id, quantity: 1, price: 100 }] },
        { now: new Date() },
      );
      await markSalePaid(tx, company.id, { id: 7, paymentId: 'mp-77', paymentMethod: 'Mercado Pago' }, { now: new Date() });
    });
    await drain();
    expect(receiver.requests).toHaveLength(1);
    const body = JSON.parse(receiver.requests[0]!.body);
    expect(body).toMatchObject({ event: 'sales.paid', data: { sale: { id: 7, status: 'paid', payment_id: 'mp-77' } } });
    expect((await deliveryRows(t, endpoint.id)).map((d) => d.event)).toEqual(['sales.paid']);
  });

  it('never sends a company’s events to another company’s endpoint', async () => {
    const a = await setup();
    const other = await startReceiver();
    try {
      const b = await makeCompany(t.container);
      await webhooks().endpoints.createEndpoint(cliCtx(b.id), { url: `${other.url}/b` });
      const productA = await makeProduct(t.container, a.company.id);
      const productB = await makeProduct(t.container, b.id);
      await drain();
      expect(receiver.requests.map((r) => JSON.parse(r.body).data.product.company_id)).toEqual([a.company.id]);
      expect(other.requests.map((r) => JSON.parse(r.body).data.product.company_id)).toEqual([b.id]);
      expect(JSON.parse(receiver.requests[0]!.body).data.product.id).toBe(productA.id);
      expect(JSON.parse(other.requests[0]!.body).data.product.id).toBe(productB.id);
    } finally {
      await other.close();
    }
  });

  it('orders the events of one change for an endpoint: movement before its stock update', async () => {
    const { company } = await setup();
    await makeProduct(t.container, company.id, { stock: 12 });
    await drain();
    expect(receiver.requests.map((r) => JSON.parse(r.body).event)).toEqual([
      'movement.created',
      'product.stock_updated',
      'product.upserted',
    ]);
    const stock = JSON.parse(receiver.requests[1]!.body).data.product;
    expect(stock).toMatchObject({ previous_stock: 0, current_stock: 12, change: 12, deposit_id: 1 });
  });

  it('holds a stock update back while the movement of the same change is still failing', async () => {
    const { company, endpoint } = await setup({ events: ['movement.created', 'product.stock_updated'] });
    await receiver.down();
    await makeProduct(t.container, company.id, { stock: 5 });
    await drain();
    const pending = await deliveryRows(t, endpoint.id);
    const attemptsByEvent = Object.fromEntries(pending.map((d) => [d.event, d.attempts]));
    expect(attemptsByEvent).toEqual({ 'movement.created': 1, 'product.stock_updated': 0 });

    await receiver.up();
    receiver.set({ kind: 'status', status: 200 });
    t.clock.advance(10_001);
    await drain();
    await drain();
    expect(receiver.requests.map((r) => JSON.parse(r.body).event)).toEqual(['movement.created', 'product.stock_updated']);
    expect((await deliveryRows(t, endpoint.id)).every((d) => d.status === 'delivered')).toBe(true);
  });
});

// A receiver that never finishes: its own application with a short attempt timeout (400 ms), so the
// timeout itself is what is tested; the other tests use the helpers' 5 s so that a slow first
// request on a loaded machine is not mistaken for a dead receiver.
describe('webhook delivery timeouts', () => {
  let t: WebhookTestApp;
  let receiver: Receiver;
  useWebhookFixture({ app: (app) => (t = app), receiver: (r) => (receiver = r) }, { attemptTimeoutMs: 400 });

  async function setup() {
    const company = await makeCompany(t.container);
    const created = await t.container.webhooks.endpoints.createEndpoint(cliCtx(company.id), { url: `${receiver.url}/hooks` });
    return { company, ...created };
  }
  const drain = () => t.container.webhooks.dispatcher.drain();

  it.each([
    ['never answers', { kind: 'hang' } as const],
    ['stalls the body after the headers', { kind: 'stall-body' } as const],
  ])('times out a receiver that %s', async (_name, mode) => {
    const { company, endpoint } = await setup();
    receiver.set(mode);
    await makeProduct(t.container, company.id);
    await drain();
    const [delivery] = await deliveryRows(t, endpoint.id);
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1, last_error: 'timed out after 400 ms' });
    const [attempt] = await attemptRows(t, delivery!.id);
    expect(attempt!.duration_ms).toBeGreaterThanOrEqual(380);
    expect(attempt!.duration_ms).toBeLessThan(5000);
  });
});
