import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct } from '../factories.ts';
import { saleCreated, sendEvent } from '../integration-helpers.ts';

const TOKEN = 'metrics-token-0123456789';

/** The value of one sample line of a Prometheus text answer (null when absent). */
function sample(text: string, line: string): number | null {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? null : Number(found.slice(line.length + 1));
}

describe('/metrics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { METRICS_TOKEN: TOKEN } });
  });
  afterAll(() => t.close());

  const scrape = async () => {
    const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain; version=0.0.4');
    return res.body;
  };

  it('asks for the metrics token when one is configured', async () => {
    for (const authorization of [undefined, 'Bearer wrong', `Bearer ${TOKEN}x`]) {
      const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: 'a valid metrics token is required', code: 'unauthenticated' });
    }
  });

  it('counts requests by route pattern and status, with latency, never by raw URL', async () => {
    const before = await scrape();
    await t.app.inject({ method: 'GET', url: '/healthz' });
    await t.app.inject({ method: 'GET', url: '/healthz' });
    await t.app.inject({ method: 'GET', url: '/no/such/page/12345' });
    const text = await scrape();
    const healthz = 'mostrador_http_requests_total{method="GET",route="/healthz",status="200"}';
    expect(sample(text, healthz)! - (sample(before, healthz) ?? 0)).toBe(2);
    expect(sample(text, 'mostrador_http_requests_total{method="GET",route="unmatched",status="404"}')).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain('12345');
    expect(
      sample(text, 'mostrador_http_request_duration_seconds_count{method="GET",route="/healthz",status="200"}'),
    ).toBeGreaterThanOrEqual(2);
  });

  it('counts inbound events accepted, replayed and refused by code', async () => {
    const company = await makeCompany(t.container);
    const product = await makeProduct(t.container, company.id);
    const key = company.integrationKey;
    expect((await sendEvent(t.app, key, saleCreated(1, product.id), { idempotencyKey: 'k-1' })).statusCode).toBe(200);
    expect((await sendEvent(t.app, key, saleCreated(1, product.id), { idempotencyKey: 'k-1' })).statusCode).toBe(200);
    expect((await sendEvent(t.app, key, null, { raw: 'not json' })).statusCode).toBe(400);
    expect((await sendEvent(t.app, key, { event: 'order.shipped', data: {} })).statusCode).toBe(422);
    const text = await scrape();
    expect(sample(text, 'mostrador_inbound_events_total{result="accepted",code="ok"}')).toBe(1);
    expect(sample(text, 'mostrador_inbound_events_total{result="duplicate",code="ok"}')).toBe(1);
    expect(sample(text, 'mostrador_inbound_events_total{result="refused",code="invalid_json"}')).toBe(1);
    expect(sample(text, 'mostrador_inbound_events_total{result="refused",code="unsupported_event"}')).toBe(1);
  });

  it('reads the outbox backlog, delivery lag and exchange rate age from the database', async () => {
    const company = await makeCompany(t.container);
    await makeProduct(t.container, company.id); // one outbound event not relayed yet (no worker here)
    const text = await scrape();
    expect(sample(text, 'mostrador_outbox_backlog')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'mostrador_webhook_delivery_lag_seconds')).toBe(0);
    expect(sample(text, 'mostrador_webhook_deliveries_pending')).toBe(0);
    await t.container.db.query(
      `INSERT INTO exchange_rates (source, rate, status, source_updated_at, fetched_at)
       VALUES ('test', 1160.5, 'accepted', now(), now() - interval '90 seconds')`,
    );
    expect(sample(await scrape(), 'mostrador_exchange_rate_age_seconds')).toBeGreaterThanOrEqual(89);
    if (t.container.db.kind === 'postgres') {
      expect(sample(text, 'mostrador_db_pool_connections{state="total"}')).toBeGreaterThanOrEqual(1);
    }
  });

  it('answers /readyz 503 while draining, and again 200 after', async () => {
    t.container.readiness.draining = true;
    try {
      const res = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ error: 'shutting down', code: 'unavailable' });
      expect(res.headers.connection).toBe('close');
    } finally {
      t.container.readiness.draining = false;
    }
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });

  it('fails /readyz naming the check that is down (a worker without its queue)', async () => {
    t.container.readiness.checks.set('job queue', () => t.container.jobs.check());
    try {
      const res = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ error: 'job queue is down', code: 'unavailable' });
    } finally {
      t.container.readiness.checks.delete('job queue');
    }
  });
});
