import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeUser } from '../factories.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

describe('health and error shape', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  it('answers /healthz while the process is up', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('answers /readyz when the database answers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(200);
  });

  it('answers unknown routes with a 404 JSON error', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/nope?token=abc' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'route GET /nope not found', code: 'not_found' });
  });

  it('answers a known address asked with another method with 405 and Allow, never a 404 that says it does not exist', async () => {
    for (const [method, url, allow] of [
      ['DELETE', '/api/integration/in', 'GET, HEAD, POST'],
      ['PUT', '/api/public/scanner?barcode=1', 'GET, HEAD, OPTIONS'],
      ['POST', '/api/exchange', 'GET, HEAD, OPTIONS'],
      ['POST', '/docs/llms.txt', 'GET, HEAD'],
      ['GET', '/api/v1/sales/12/invoice', 'POST'],
    ] as const) {
      const res = await t.app.inject({ method, url });
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(405);
      expect(res.headers.allow).toBe(allow);
      const path = url.split('?')[0];
      expect(res.json()).toEqual({
        error: `method ${method} is not allowed on ${path}; it takes ${allow}`,
        code: 'method_not_allowed',
      });
    }
    // A HEAD gets the status and Allow, without a body.
    const head = await t.app.inject({ method: 'HEAD', url: '/api/v1/sales/12/invoice' });
    expect([head.statusCode, head.headers.allow, head.body]).toEqual([405, 'POST', '']);
    // An address no method answers is still a 404.
    const nothing = await t.app.inject({ method: 'DELETE', url: '/api/v1/nothing-here' });
    expect(nothing.statusCode).toBe(404);
    expect(nothing.headers.allow).toBeUndefined();
  });

  it('a route that takes no body refuses a body that is not JSON with 415, as its description says', async () => {
    const company = await makeCompany(t.container);
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const cookie = (await login(t.app, admin.email, admin.password)).cookie;
    for (const [method, url] of [
      ['POST', '/api/v1/fiscal/check'],
      ['POST', '/api/v1/invoices/1/credit-note'],
    ] as const) {
      const res = await t.app.inject({
        method,
        url,
        headers: { cookie, ...SAME_ORIGIN, 'content-type': 'application/xml' },
        payload: '<hola/>',
      });
      // The response check of the test app fails the test when the status is not in the document.
      expect([res.statusCode, res.json().code], `${method} ${url}`).toEqual([415, 'unsupported_media_type']);
    }
  });

  it('keeps a valid caller request id', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers['x-request-id']).toBe('abc-123');
  });
});
