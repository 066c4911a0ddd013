import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { SURFACES } from '../../src/http/surfaces.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeUser } from '../factories.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

type Role = 'visitor' | 'cashier' | 'admin' | 'superadmin';

describe('access is decided where a route is registered', () => {
  let t: TestApp;
  const cookies: Record<Exclude<Role, 'visitor'>, string> = { cashier: '', admin: '', superadmin: '' };
  beforeAll(async () => {
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000' } });
    const company = await makeCompany(t.container);
    const cashier = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const operator = await makeUser(t.container, { superadmin: true });
    cookies.cashier = (await login(t.app, cashier.email, cashier.password)).cookie;
    cookies.admin = (await login(t.app, admin.email, admin.password)).cookie;
    cookies.superadmin = (await login(t.app, operator.email, operator.password)).cookie;
  });
  afterAll(() => t.close());

  it('puts every registered route in exactly one surface', () => {
    const routes = t.app.routeSurfaces();
    expect(routes.length).toBeGreaterThan(40);
    const wrong = routes.filter((r) => r.surfaces.length !== 1);
    expect(wrong).toEqual([]);
    for (const r of routes) expect(SURFACES).toContain(r.surfaces[0]);
  });

  it('keeps each kind of route in its surface', () => {
    const surfaceOf = (method: string, url: string) =>
      t.app.routeSurfaces().find((r) => r.method === method && r.url === url)?.surfaces[0];
    expect(surfaceOf('GET', '/api/public/scanner')).toBe('scanner');
    expect(surfaceOf('POST', '/api/integration/in')).toBe('integration');
    expect(surfaceOf('GET', '/api/integration/in')).toBe('integration');
    expect(surfaceOf('GET', '/api/exchange')).toBe('public');
    expect(surfaceOf('GET', '/docs/*')).toBe('public');
    expect(surfaceOf('GET', '/login')).toBe('public');
    expect(surfaceOf('GET', '/cuenta')).toBe('session');
    expect(surfaceOf('GET', '/settings/integrations')).toBe('admin');
    expect(surfaceOf('POST', '/api/settings/integrations/webhooks')).toBe('admin');
    expect(surfaceOf('GET', '/superadmin/companies')).toBe('superadmin');
    expect(surfaceOf('POST', '/api/superadmin/companies')).toBe('superadmin');
  });

  it('refuses to start when a route was registered outside every surface', async () => {
    const app = await buildApp(t.container);
    app.get('/forgotten', async () => ({ secret: 'anyone could read this' }));
    await expect(app.ready()).rejects.toThrow(/GET \/forgotten \(no surface\)/);
    await app.close();
  });

  const as = (role: Role) => (role === 'visitor' ? {} : { cookie: cookies[role] });

  // [method, url, status by role: visitor, cashier, admin, superadmin]
  const API: [string, string, number[]][] = [
    ['GET', '/api/auth/me', [401, 200, 200, 200]],
    ['GET', '/api/settings/integrations', [401, 403, 200, 403]],
    ['GET', '/api/settings/members', [401, 403, 200, 403]],
    ['GET', '/api/settings/integrations/webhooks', [401, 403, 200, 403]],
    ['GET', '/api/superadmin/companies', [401, 403, 403, 200]],
    ['GET', '/api/superadmin/anything-else', [401, 403, 403, 404]],
  ];
  it.each(API)('answers %s %s by role', async (method, url, statuses) => {
    const roles: Role[] = ['visitor', 'cashier', 'admin', 'superadmin'];
    for (const [i, role] of roles.entries()) {
      const res = await t.app.inject({ method: method as 'GET', url, headers: { ...as(role), ...SAME_ORIGIN } });
      expect([role, res.statusCode]).toEqual([role, statuses[i]]);
      if (res.statusCode >= 400) expect(res.json()).toMatchObject({ error: expect.any(String), code: expect.any(String) });
    }
  });

  // Pages: a visitor goes to log in; a person without the role gets a page that says so (403) or,
  // on operator pages, is sent to `/`.
  const PAGES: [string, (number | string)[]][] = [
    ['/cuenta', ['login', 200, 200, 200]],
    ['/settings/integrations', ['login', 403, 200, 403]],
    ['/settings/people', ['login', 403, 200, 403]],
    ['/superadmin/companies', ['login', '/', '/', 200]],
  ];
  it.each(PAGES)('serves the page %s by role', async (url, expected) => {
    const roles: Role[] = ['visitor', 'cashier', 'admin', 'superadmin'];
    for (const [i, role] of roles.entries()) {
      const res = await t.app.inject({ url, headers: as(role) });
      const want = expected[i];
      if (want === 'login') {
        expect(res.statusCode).toBe(302);
        expect(res.headers.location).toBe(`/login?next=${encodeURIComponent(url)}`);
      } else if (typeof want === 'string') {
        expect([role, res.statusCode, res.headers.location]).toEqual([role, 302, want]);
      } else {
        expect([role, res.statusCode]).toEqual([role, want]);
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(res.headers['cache-control']).toBe('no-store');
      }
    }
  });

  it('never takes identity from an x-user header', async () => {
    const res = await t.app.inject({ url: '/api/superadmin/companies', headers: { 'x-user': '1', 'x-user-id': '1' } });
    expect(res.statusCode).toBe(401);
  });
});
