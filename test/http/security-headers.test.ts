import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany } from '../factories.ts';
import { sendEvent } from '../integration-helpers.ts';

const HSTS = 'max-age=31536000; includeSubDomains';

/** Issue 25: nosniff on every answer; HSTS on every answer when the public address is https. */
describe('security headers', () => {
  let https: TestApp;
  let plain: TestApp;
  beforeAll(async () => {
    https = await buildTestApp({ env: { PUBLIC_BASE_URL: 'https://mostrador.example.com' } });
    plain = await buildTestApp();
  });
  afterAll(async () => {
    await https?.close();
    await plain?.close();
  });

  // One of each kind of answer: health, a page, a public JSON API, docs, an asset, errors of every
  // origin (route not found, unauthenticated, invalid JSON, a URL that cannot be routed), an integration answer.
  const requests = [
    { name: 'health', method: 'GET', url: '/healthz' },
    { name: 'a page', method: 'GET', url: '/login' },
    { name: 'a JSON API answer', method: 'GET', url: '/api/exchange' },
    { name: 'a 404', method: 'GET', url: '/api/nothing-here' },
    { name: 'a 401', method: 'GET', url: '/api/v1/products' },
    { name: 'invalid JSON', method: 'POST', url: '/api/auth/login', payload: '{', json: true },
    { name: 'an unroutable URL', method: 'GET', url: '/%' },
    { name: 'a redirect', method: 'GET', url: '/settings' },
  ] as const;

  it.each(requests)('$name carries nosniff and HSTS with an https PUBLIC_BASE_URL', async (r) => {
    const res = await https.app.inject({
      method: r.method,
      url: r.url,
      ...('payload' in r ? { payload: r.payload, headers: { 'content-type': 'application/json' } } : {}),
    });
    expect(res.headers['x-content-type-options'], `${r.url} → ${res.statusCode}`).toBe('nosniff');
    expect(res.headers['strict-transport-security'], `${r.url} → ${res.statusCode}`).toBe(HSTS);
  });

  it('an integration answer carries them too', async () => {
    const company = await makeCompany(https.container);
    const res = await sendEvent(https.app, company.integrationKey, { event: 'nope', data: {} });
    expect(res.statusCode).toBe(422);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['strict-transport-security']).toBe(HSTS);
  });

  it.each(requests)('$name carries nosniff and no HSTS with an http PUBLIC_BASE_URL', async (r) => {
    const res = await plain.app.inject({
      method: r.method,
      url: r.url,
      ...('payload' in r ? { payload: r.payload, headers: { 'content-type': 'application/json' } } : {}),
    });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });
});
