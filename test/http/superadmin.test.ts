import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectRows } from '../../src/db/client.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

type Role = 'visitor' | 'cashier' | 'admin' | 'superadmin';

describe('operator surface', () => {
  let t: TestApp;
  const cookies: Record<Exclude<Role, 'visitor'>, string> = { cashier: '', admin: '', superadmin: '' };
  let superadminId = 0;
  beforeAll(async () => {
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000' } });
    const company = await makeCompany(t.container);
    const cashier = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const superadmin = await makeUser(t.container, { superadmin: true });
    superadminId = superadmin.id;
    cookies.cashier = (await login(t.app, cashier.email, cashier.password)).cookie;
    cookies.admin = (await login(t.app, admin.email, admin.password)).cookie;
    cookies.superadmin = (await login(t.app, superadmin.email, superadmin.password)).cookie;
  });
  afterAll(() => t.close());

  const as = (role: Role) => (role === 'visitor' ? {} : { cookie: cookies[role] });

  describe.each([
    ['GET', '/api/superadmin/companies'],
    ['POST', '/api/superadmin/companies'],
    ['GET', '/api/superadmin/not-yet-a-route'],
    ['POST', '/api/superadmin/instagram/messages'],
  ] as const)('API %s %s', (method, url) => {
    it.each([
      ['visitor', 401],
      ['cashier', 403],
      ['admin', 403],
    ] as const)('answers a %s with %i', async (role, status) => {
      const res = await t.app.inject({
        method,
        url,
        headers: { ...as(role), ...SAME_ORIGIN },
        payload: method === 'POST' ? { name: 'X' } : undefined,
      });
      expect(res.statusCode).toBe(status);
      expect(res.json().code).toBe(status === 401 ? 'unauthenticated' : 'forbidden');
      expect(res.headers['cache-control']).toBe('no-store');
    });
  });

  it('lets a superadmin through to the handlers (unknown operator routes are then 404)', async () => {
    expect((await t.app.inject({ url: '/api/superadmin/companies', headers: as('superadmin') })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/superadmin/not-yet-a-route', headers: as('superadmin') })).statusCode).toBe(404);
  });

  describe.each([
    '/superadmin',
    '/superadmin/companies',
    '/superadmin/companies?q=al',
    '/superadmin/instagram',
    '/superadmin/whatsapp',
  ])('page %s', (url) => {
    it('sends a visitor to the login page with next', async () => {
      const res = await t.app.inject({ url });
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe(`/login?next=${encodeURIComponent(url)}`);
    });

    it.each(['cashier', 'admin'] as const)('sends a %s to /', async (role) => {
      const res = await t.app.inject({ url, headers: as(role) });
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe('/');
    });
  });

  it('guards percent-encoded spellings of operator paths (matched by route, not only by the raw path)', async () => {
    const res = await t.app.inject({ url: '/%73uperadmin/companies', headers: as('cashier') });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/');
    const api = await t.app.inject({ url: '/api/%73uperadmin/companies', headers: as('cashier') });
    expect(api.statusCode).toBe(403);
  });

  it('shows the superadmin the companies page in Spanish', async () => {
    const company = await makeCompany(t.container, { name: 'Ferretería <El Tornillo>' });
    const res = await t.app.inject({ url: '/superadmin/companies', headers: as('superadmin') });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<title>Empresas · Mostrador</title>');
    // The rows come as the page's data, escaped so no markup of a company name can run or close the block.
    expect(res.body).toContain('"name":"Ferretería \\u003cEl Tornillo>"');
    expect(res.body).not.toContain('<El Tornillo>');
    expect(res.body).toContain(`"id":${company.id}`);
    expect(res.body).toContain('Cerrar sesión');
    expect((await t.app.inject({ url: '/superadmin', headers: as('superadmin') })).headers.location).toBe(
      '/superadmin/companies',
    );
  });

  it('lists companies with CUIT, creation time and counts of products and events', async () => {
    const company = await makeCompany(t.container, { name: 'Kiosco Las Heras', cuit: '30-71234567-1' });
    await makeProduct(t.container, company.id, { stock: 5 });
    await makeProduct(t.container, company.id);
    const res = await t.app.inject({ url: '/api/superadmin/companies?q=las%20heras', headers: as('superadmin') });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.total).toBe(1);
    const [row] = body.companies;
    expect(row).toMatchObject({ id: company.id, name: 'Kiosco Las Heras', cuit: '30712345671', products_count: 2 });
    expect(new Date(row.created_at).toISOString()).toBe(row.created_at);
    const [outbound] = await selectRows<{ n: number }>(
      t.container.db.orm,
      sql`SELECT count(*)::int AS n FROM outbox_events WHERE company_id = ${company.id}`,
    );
    expect(row.outbound_events_count).toBe(outbound!.n);
    expect(outbound!.n).toBeGreaterThan(0);
    const [exists] = await selectRows<{ found: boolean }>(
      t.container.db.orm,
      sql`SELECT to_regclass('inbound_events') IS NOT NULL AS found`,
    );
    if (exists!.found) expect(row.inbound_events_count).toBe(0);
    else expect(row.inbound_events_count).toBeNull();
    const byCuit = await t.app.inject({ url: '/api/superadmin/companies?q=30-7123', headers: as('superadmin') });
    expect(byCuit.json().companies.map((c: { id: number }) => c.id)).toContain(company.id);
  });

  it('pages the list and refuses a bad limit', async () => {
    for (let i = 0; i < 3; i++) await makeCompany(t.container, { name: `Paginada ${i}` });
    const page = await t.app.inject({ url: '/api/superadmin/companies?q=Paginada&limit=2&offset=0', headers: as('superadmin') });
    expect(page.json()).toMatchObject({ total: 3, limit: 2, offset: 0 });
    expect(page.json().companies.map((c: { name: string }) => c.name)).toEqual(['Paginada 2', 'Paginada 1']);
    const next = await t.app.inject({ url: '/api/superadmin/companies?q=Paginada&limit=2&offset=2', headers: as('superadmin') });
    expect(next.json().companies.map((c: { name: string }) => c.name)).toEqual(['Paginada 0']);
    expect((await t.app.inject({ url: '/api/superadmin/companies?limit=0', headers: as('superadmin') })).statusCode).toBe(400);
  });

  it('creates a company, returns its working secrets once and audits it', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/superadmin/companies',
      headers: { ...as('superadmin'), ...SAME_ORIGIN, 'user-agent': 'ops-browser' },
      payload: { name: 'Dietética Sol', cuit: '20-12345678-6' },
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.company).toMatchObject({
      name: 'Dietética Sol',
      cuit: '20123456786',
      timezone: 'America/Argentina/Buenos_Aires',
    });
    expect(await t.container.companies.findCompanyIdByIntegrationKey(body.integration_key)).toBe(body.company.id);
    expect(await t.container.companies.findCompanyIdByScannerToken(body.scanner_token)).toBe(body.company.id);
    const [audit] = await selectRows<{ actor_user_id: number; action: string; ip: string; user_agent: string; details: object }>(
      t.container.db.orm,
      sql`SELECT actor_user_id, action, ip, user_agent, details FROM audit_log WHERE company_id = ${body.company.id}`,
    );
    expect(audit).toMatchObject({
      actor_user_id: superadminId,
      action: 'company.created',
      ip: '127.0.0.1',
      user_agent: 'ops-browser',
    });
    expect(JSON.stringify(audit)).not.toContain(body.integration_key);
    const dup = await t.app.inject({
      method: 'POST',
      url: '/api/superadmin/companies',
      headers: { ...as('superadmin'), ...SAME_ORIGIN },
      payload: { name: 'Otra', cuit: '20123456786' },
    });
    expect(dup.statusCode).toBe(409);
  });

  it.each([
    ['an empty name', { name: '' }],
    ['an invalid CUIT', { name: 'Con CUIT malo', cuit: '20-12345678-0' }],
    ['an unknown time zone', { name: 'Zona', timezone: 'Mars/Olympus' }],
  ])('refuses %s with 422 and creates nothing', async (_name, payload) => {
    const before = await selectRows<{ n: number }>(t.container.db.orm, sql`SELECT count(*)::int AS n FROM companies`);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/superadmin/companies',
      headers: { ...as('superadmin'), ...SAME_ORIGIN },
      payload,
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe('validation_failed');
    const after = await selectRows<{ n: number }>(t.container.db.orm, sql`SELECT count(*)::int AS n FROM companies`);
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  it.each([
    ['no Origin and no Sec-Fetch-Site', {}, 403],
    ['another Origin', { origin: 'https://evil.example' }, 403],
    ['Origin null', { origin: 'null' }, 403],
    ['a cross-site Sec-Fetch-Site', { 'sec-fetch-site': 'cross-site' }, 403],
    ['a same-site (not same-origin) Sec-Fetch-Site', { 'sec-fetch-site': 'same-site' }, 403],
    ['same Origin but cross-site Sec-Fetch-Site', { ...SAME_ORIGIN, 'sec-fetch-site': 'cross-site' }, 403],
    ['the public base URL as Origin', SAME_ORIGIN, 201],
    ['the request host as Origin', { origin: 'http://shop.internal:8080', host: 'shop.internal:8080' }, 201],
    ['Sec-Fetch-Site same-origin without Origin', { 'sec-fetch-site': 'same-origin' }, 201],
  ])('CSRF: a cookie-authenticated write with %s gets %o', async (_name, headers, status) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/superadmin/companies',
      headers: { ...as('superadmin'), ...headers },
      payload: { name: `CSRF ${status}` },
    });
    expect(res.statusCode).toBe(status);
    if (status === 403) expect(res.json().code).toBe('forbidden');
  });
});
