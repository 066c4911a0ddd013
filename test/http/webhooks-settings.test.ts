import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import type { TestApp } from '../app.ts';
import { type Receiver, startReceiver } from '../fakes/webhook-receiver.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';
import { buildWebhookApp, hmacHex, type TestClock } from '../webhooks/helpers.ts';

const BASE = '/api/settings/integrations/webhooks';
const SOME_ID = '00000000-0000-4000-8000-000000000000';
const ROUTES = [
  ['GET', BASE],
  ['POST', BASE],
  ['GET', `${BASE}/${SOME_ID}`],
  ['PATCH', `${BASE}/${SOME_ID}`],
  ['DELETE', `${BASE}/${SOME_ID}`],
  ['POST', `${BASE}/${SOME_ID}/rotate-secret`],
  ['POST', `${BASE}/${SOME_ID}/test`],
  ['GET', `${BASE}/${SOME_ID}/deliveries`],
  ['GET', `${BASE}/${SOME_ID}/deliveries/${SOME_ID}`],
  ['POST', `${BASE}/${SOME_ID}/redeliver`],
  ['POST', `${BASE}/${SOME_ID}/retry-failed`],
] as const;

describe('webhooks in the merchant settings API', () => {
  let t: TestApp & { clock: TestClock };
  let receiver: Receiver;
  beforeAll(async () => {
    t = await buildWebhookApp({ AUTH_LOGIN_LIMIT_PER_CLIENT: '1000' });
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(() => receiver.close());

  async function companyWith(role: 'admin' | 'cashier') {
    const company = await makeCompany(t.container);
    const user = await makeUser(t.container, { companyId: company.id, role });
    const { cookie } = await login(t.app, user.email, user.password);
    return { company, user, headers: { cookie, ...SAME_ORIGIN } };
  }

  const call = (method: string, url: string, headers: Record<string, string>, payload?: unknown) =>
    t.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

  async function webhookRows(companyId: number) {
    return t.container.db.query('SELECT id FROM webhook_endpoints WHERE company_id = $1', [companyId]);
  }

  it.each(ROUTES)('%s %s: 401 for a visitor, 403 for a cashier and for a superadmin without the company', async (method, url) => {
    expect((await call(method, url, SAME_ORIGIN, method === 'GET' || method === 'DELETE' ? undefined : {})).statusCode).toBe(401);
    const cashier = await companyWith('cashier');
    const res = await call(
      method,
      url,
      cashier.headers,
      method === 'GET' || method === 'DELETE' ? undefined : { url: `${receiver.url}/x` },
    );
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'forbidden' });
    expect(await webhookRows(cashier.company.id)).toEqual([]);
    const operator = await makeUser(t.container, { superadmin: true });
    const { cookie } = await login(t.app, operator.email, operator.password);
    expect((await call(method, url, { cookie, ...SAME_ORIGIN })).statusCode).toBe(403);
  });

  it('lets an admin manage an endpoint end to end, with every change audited and no secret shown again', async () => {
    const admin = await companyWith('admin');
    const created = await call('POST', BASE, admin.headers, {
      url: `${receiver.url}/hooks`,
      description: 'Tienda online',
      events: ['product.upserted'],
      headers: { Authorization: 'Bearer tienda-123' },
    });
    expect(created.statusCode).toBe(201);
    const { endpoint, secret } = created.json();
    expect(secret).toMatch(/^mos_whs_/);
    expect(endpoint).toMatchObject({
      url: `${receiver.url}/hooks`,
      events: ['product.upserted'],
      headers: ['Authorization'],
      enabled: true,
    });

    const listed = await call('GET', BASE, admin.headers);
    expect(listed.json().endpoints.map((e: { id: string }) => e.id)).toEqual([endpoint.id]);
    expect(listed.json().events).toContain('sales.paid');
    expect(listed.body).not.toContain(secret);
    expect(listed.body).not.toContain('tienda-123');

    const tested = await call('POST', `${BASE}/${endpoint.id}/test`, admin.headers);
    expect(tested.json().attempt).toMatchObject({
      delivered: true,
      status_code: 200,
      response_body: '{"status":"ok"}',
      error: null,
    });
    expect(receiver.requests[0]!.headers['x-signature']).toBe(hmacHex(secret, receiver.requests[0]!.body));
    expect(receiver.requests[0]!.headers.authorization).toBe('Bearer tienda-123');

    await makeProduct(t.container, admin.company.id);
    await t.container.webhooks.dispatcher.drain();
    const deliveries = (await call('GET', `${BASE}/${endpoint.id}/deliveries?status=delivered`, admin.headers)).json();
    const productDelivery = deliveries.deliveries.find((d: { event: string }) => d.event === 'product.upserted');
    expect(productDelivery).toMatchObject({ status: 'delivered', attempts: 1 });
    const detail = (await call('GET', `${BASE}/${endpoint.id}/deliveries/${productDelivery.id}`, admin.headers)).json();
    expect(detail.attempts).toEqual([expect.objectContaining({ attempt: 1, outcome: 'delivered', status_code: 200 })]);
    expect(detail.payload.event).toBe('product.upserted');

    const again = await call('POST', `${BASE}/${endpoint.id}/redeliver`, admin.headers, { event_id: productDelivery.event_id });
    expect(again.json().delivery).toMatchObject({ status: 'pending', event_id: productDelivery.event_id });
    await t.container.webhooks.dispatcher.drain();
    const productRequests = receiver.requests.filter((r) => r.headers['x-event-id'] === productDelivery.event_id);
    expect(productRequests).toHaveLength(2);

    const rotated = (await call('POST', `${BASE}/${endpoint.id}/rotate-secret`, admin.headers, {})).json();
    expect(rotated.secret).not.toBe(secret);
    expect(rotated.endpoint.previous_secret_expires_at).not.toBeNull();

    const disabled = await call('PATCH', `${BASE}/${endpoint.id}`, admin.headers, { enabled: false });
    expect(disabled.json().endpoint).toMatchObject({ enabled: false, disabled_reason: 'manual' });
    const retry = await call('POST', `${BASE}/${endpoint.id}/retry-failed`, admin.headers, {
      since: '2020-01-01T00:00:00-03:00',
    });
    expect(retry.statusCode).toBe(422);
    expect(retry.json()).toMatchObject({ code: 'invalid_state' });
    await call('PATCH', `${BASE}/${endpoint.id}`, admin.headers, { enabled: true });
    const retried = await call('POST', `${BASE}/${endpoint.id}/retry-failed`, admin.headers, {
      since: '2020-01-01T00:00:00-03:00',
    });
    expect(retried.json()).toEqual({ retried: 0 });

    const removed = await call('DELETE', `${BASE}/${endpoint.id}`, admin.headers);
    expect(removed.json()).toEqual({ removed: { id: endpoint.id } });
    expect((await call('GET', `${BASE}/${endpoint.id}`, admin.headers)).statusCode).toBe(404);

    const audit = await t.container.db.query<{ action: string; actor_email: string; details: unknown }>(
      `SELECT action, actor_email, details FROM audit_log WHERE company_id = $1 AND action LIKE 'webhook.%' ORDER BY id`,
      [admin.company.id],
    );
    expect(audit.map((a) => a.action)).toEqual([
      'webhook.created',
      'webhook.secret_rotated',
      'webhook.disabled',
      'webhook.enabled',
      'webhook.removed',
    ]);
    expect(audit.every((a) => a.actor_email === admin.user.email)).toBe(true);
    expect(JSON.stringify(audit)).not.toContain(secret);
    expect(JSON.stringify(audit)).not.toContain(rotated.secret);
    expect(JSON.stringify(audit)).not.toContain('tienda-123');
  });

  it('answers 404 to an admin of another company for every endpoint route, and changes nothing', async () => {
    const owner = await companyWith('admin');
    const { endpoint } = (await call('POST', BASE, owner.headers, { url: `${receiver.url}/hooks` })).json();
    await makeProduct(t.container, owner.company.id);
    await t.container.webhooks.dispatcher.drain();
    const [delivery] = (await call('GET', `${BASE}/${endpoint.id}/deliveries`, owner.headers)).json().deliveries;
    const stranger = await companyWith('admin');
    const attempts = [
      ['GET', `${BASE}/${endpoint.id}`, undefined],
      ['PATCH', `${BASE}/${endpoint.id}`, { enabled: false }],
      ['DELETE', `${BASE}/${endpoint.id}`, undefined],
      ['POST', `${BASE}/${endpoint.id}/rotate-secret`, {}],
      ['POST', `${BASE}/${endpoint.id}/test`, undefined],
      ['GET', `${BASE}/${endpoint.id}/deliveries`, undefined],
      ['GET', `${BASE}/${endpoint.id}/deliveries/${delivery.id}`, undefined],
      ['POST', `${BASE}/${endpoint.id}/redeliver`, { event_id: delivery.event_id }],
      ['POST', `${BASE}/${endpoint.id}/retry-failed`, { since: '2020-01-01T00:00:00Z' }],
    ] as const;
    for (const [method, url, payload] of attempts) {
      const res = await call(method, url, stranger.headers, payload);
      expect([method, url, res.statusCode]).toEqual([method, url, 404]);
      expect(res.json()).toMatchObject({ code: 'not_found' });
    }
    expect((await call('GET', BASE, stranger.headers)).json().endpoints).toEqual([]);
    expect(receiver.requests).toHaveLength(1); // no test event went out
    expect((await call('GET', `${BASE}/${endpoint.id}`, owner.headers)).json().endpoint).toMatchObject({ enabled: true });
  });

  it.each([
    ['no Origin', { 'sec-fetch-site': 'cross-site' }],
    ['a foreign Origin', { origin: 'https://evil.example' }],
  ])('refuses a cookie-authenticated write from %s (CSRF) and creates nothing', async (_name, extra) => {
    const admin = await companyWith('admin');
    const res = await call('POST', BASE, { cookie: admin.headers.cookie, ...extra }, { url: `${receiver.url}/hooks` });
    expect(res.statusCode).toBe(403);
    expect(await webhookRows(admin.company.id)).toEqual([]);
  });

  it.each([
    [{ url: 'ftp://x.example.com' }, 'url'],
    [{ url: 'https://x.example.com', events: ['sales.refunded'] }, 'events'],
    [{ url: 'https://x.example.com', headers: { 'X-Signature': 'x' } }, 'headers.X-Signature'],
    [{ url: 'https://x.example.com', extra: true }, '/extra'],
    [{}, '/url'],
  ])('answers 422 naming the field for %j, and writes nothing', async (payload, path) => {
    const admin = await companyWith('admin');
    const res = await call('POST', BASE, admin.headers, payload);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({
      code: 'validation_failed',
      details: expect.arrayContaining([expect.objectContaining({ path })]),
    });
    expect(await webhookRows(admin.company.id)).toEqual([]);
  });

  it('checks times: retry-failed needs an RFC 3339 since (422), deliveries a valid before (400)', async () => {
    const admin = await companyWith('admin');
    const { endpoint } = (await call('POST', BASE, admin.headers, { url: `${receiver.url}/hooks` })).json();
    const retry = await call('POST', `${BASE}/${endpoint.id}/retry-failed`, admin.headers, { since: 'ayer' });
    expect(retry.statusCode).toBe(422);
    expect(retry.json().details).toEqual([{ path: 'since', message: 'must be an RFC 3339 date-time with an offset' }]);
    const list = await call('GET', `${BASE}/${endpoint.id}/deliveries?before=2025-01-01`, admin.headers);
    expect(list.statusCode).toBe(400);
    expect((await call('GET', `${BASE}/${endpoint.id}/deliveries?limit=0`, admin.headers)).statusCode).toBe(400);
  });
});
