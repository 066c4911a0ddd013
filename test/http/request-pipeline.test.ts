import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import type { App } from '../../src/http/app.types.ts';
import { registerSurface } from '../../src/http/surfaces.ts';
import { buildTestApp, captureLogs, type TestApp } from '../app.ts';
import { makeUser } from '../factories.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

/** The value of one sample line of a Prometheus text answer (null when absent). */
function sample(text: string, line: string): number | null {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? null : Number(found.slice(line.length + 1));
}

const setCookies = (header: string | string[] | undefined) => (Array.isArray(header) ? header : header ? [header] : []);

// The pipeline's work moved from application-wide hooks to the routes that need it (issue 33):
// what each answer must still carry, wherever it comes from.
describe('the request pipeline', () => {
  let t: TestApp;
  let app: App;
  const logs = captureLogs();
  beforeAll(async () => {
    t = await buildTestApp({ overrides: { logger: logs.logger } });
    // Routes registered after the application is built get the same hooks (the benchmark's does).
    app = await buildApp(t.container);
    await registerSurface(app, 'public', {}, (scope) => {
      scope.get('/pipeline/things/:id', { schema: { hide: true } }, async () => ({ ok: true }));
      scope.post('/pipeline/echo', { schema: { hide: true } }, async (request) => ({ got: request.body }));
    });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await t.close();
  });

  it('closes every connection while draining: routes, not-found answers and refusals alike', async () => {
    t.container.readiness.draining = true;
    try {
      for (const url of ['/healthz', '/pipeline/things/1', '/no/such/route', '/pipeline/things/a%00b']) {
        const res = await app.inject({ method: 'GET', url });
        expect(res.headers.connection, url).toBe('close');
        expect(res.headers['x-request-id'], url).toBeTruthy();
        expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      }
    } finally {
      t.container.readiness.draining = false;
    }
    expect((await app.inject({ method: 'GET', url: '/healthz' })).headers.connection).not.toBe('close');
  });

  it('applies the input rules to every route and to URLs no route matches', async () => {
    const inPath = await app.inject({ method: 'GET', url: '/pipeline/things/a%00b' });
    expect(inPath.statusCode).toBe(400);
    expect(inPath.json().details[0].path).toBe('/id');
    const inQuery = await app.inject({ method: 'GET', url: '/healthz?x=%00' });
    expect(inQuery.statusCode).toBe(400);
    expect(inQuery.json().details[0].path).toBe('/x');
    const unmatched = await app.inject({ method: 'GET', url: '/no/such/a%00b' });
    expect(unmatched.statusCode).toBe(400);
    expect(unmatched.headers['x-request-id']).toBeTruthy();
    const inBody = await app.inject({ method: 'POST', url: '/pipeline/echo', payload: { name: 'a\u0000b' } });
    expect(inBody.statusCode).toBe(422);
    expect(inBody.json().details[0].path).toBe('/name');
    const clean = await app.inject({ method: 'POST', url: '/pipeline/echo', payload: { name: 'ab' } });
    expect(clean.json()).toEqual({ got: { name: 'ab' } });
  });

  it('counts each route under its pattern, HEAD and not-found answers included, with cumulative buckets', async () => {
    // A route of its own: the other tests here answer on the other ones.
    const counted = await buildApp(t.container);
    await registerSurface(counted, 'public', {}, (scope) => {
      scope.get('/pipeline/counted/:id', { schema: { hide: true } }, async () => ({ ok: true }));
    });
    await counted.ready();
    await counted.inject({ method: 'GET', url: '/pipeline/counted/1' });
    await counted.inject({ method: 'GET', url: '/pipeline/counted/2' });
    await counted.inject({ method: 'HEAD', url: '/pipeline/counted/3' });
    await counted.inject({ method: 'GET', url: '/no/such/thing-98765' });
    const text = (await counted.inject({ method: 'GET', url: '/metrics' })).body;
    await counted.close();
    const labels = (method: string, route: string, status: number) => `{method="${method}",route="${route}",status="${status}"}`;
    const get = labels('GET', '/pipeline/counted/:id', 200);
    expect(sample(text, `mostrador_http_requests_total${get}`)).toBe(2);
    expect(sample(text, `mostrador_http_requests_total${labels('HEAD', '/pipeline/counted/:id', 200)}`)).toBe(1);
    expect(sample(text, `mostrador_http_requests_total${labels('GET', 'unmatched', 404)}`)).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain('98765');
    const duration = 'mostrador_http_request_duration_seconds';
    expect(text).toContain(`# TYPE ${duration} histogram`);
    expect(text).toContain('# TYPE mostrador_http_requests_total counter');
    expect(sample(text, `${duration}_count${get}`)).toBe(2);
    expect(sample(text, `${duration}_sum${get}`)).toBeGreaterThan(0);
    const inf = sample(text, `${duration}_bucket{le="+Inf",method="GET",route="/pipeline/counted/:id",status="200"}`);
    expect(inf).toBe(2);
    const buckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10].map((le) =>
      sample(text, `${duration}_bucket{le="${le}",method="GET",route="/pipeline/counted/:id",status="200"}`),
    );
    expect(buckets.every((n) => n !== null && n <= 2)).toBe(true);
    expect(buckets).toEqual([...buckets].sort((a, b) => a! - b!));
  });

  it('writes each request id on its log lines', async () => {
    const res = await app.inject({ method: 'GET', url: '/pipeline/things/7' });
    const id = res.headers['x-request-id'];
    expect(id).toBeTruthy();
    expect(logs.lines.some((line) => line.includes(`"reqId":"${id}"`))).toBe(true);
  });

  it('sets the session cookie only where a session is made or ended, once per answer', async () => {
    const user = await makeUser(t.container);
    const { cookie, res } = await login(t.app, user.email, user.password);
    expect(setCookies(res.headers['set-cookie'])).toHaveLength(1);
    expect((await t.app.inject({ method: 'GET', url: '/healthz', headers: { cookie } })).headers['set-cookie']).toBeUndefined();
    const out = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie, ...SAME_ORIGIN } });
    expect(out.statusCode).toBe(204);
    const cleared = setCookies(out.headers['set-cookie']);
    expect(cleared).toHaveLength(1);
    expect(cleared[0]).toMatch(
      /^mostrador_session=; Max-Age=0; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax$/,
    );
  });
});
