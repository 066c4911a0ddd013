import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectRows } from '../../src/db/client.ts';
import { hmacSha256Hex } from '../../src/lib/secrets.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeUser } from '../factories.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

const ROUTES = [
  ['GET', '/api/settings/integrations'],
  ['POST', '/api/settings/integrations/key/reveal'],
  ['POST', '/api/settings/integrations/key/rotate'],
  ['POST', '/api/settings/integrations/scanner-token/rotate'],
  ['GET', '/api/settings/audit'],
] as const;

describe('merchant settings: integrations', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000', TRUST_PROXY: 'true' } });
  });
  afterAll(() => t.close());

  async function companyWith(role: 'admin' | 'cashier') {
    const company = await makeCompany(t.container);
    const user = await makeUser(t.container, { companyId: company.id, role });
    const { cookie } = await login(t.app, user.email, user.password);
    return { company, user, cookie, headers: { cookie, ...SAME_ORIGIN } };
  }

  const auditRows = (companyId: number) =>
    selectRows<{
      action: string;
      actor_user_id: number;
      actor_email: string;
      ip: string;
      user_agent: string;
      at: Date;
      details: Record<string, unknown>;
    }>(
      t.container.db.orm,
      sql`SELECT action, actor_user_id, actor_email, ip, user_agent, at, details FROM audit_log WHERE company_id = ${companyId} ORDER BY id`,
    );

  it.each(ROUTES)(
    '%s %s: 401 for a visitor, 403 for a cashier, 403 for a superadmin without the company',
    async (method, url) => {
      expect((await t.app.inject({ method, url, headers: SAME_ORIGIN })).statusCode).toBe(401);
      const cashier = await companyWith('cashier');
      const res = await t.app.inject({ method, url, headers: cashier.headers });
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('forbidden');
      const sa = await makeUser(t.container, { superadmin: true });
      const { cookie } = await login(t.app, sa.email, sa.password);
      expect((await t.app.inject({ method, url, headers: { cookie, ...SAME_ORIGIN } })).statusCode).toBe(403);
      expect(await auditRows(cashier.company.id)).toEqual([]);
    },
  );

  it('shows the admin the masked key, never the whole of it', async () => {
    const { company, headers, cookie } = await companyWith('admin');
    const res = await t.app.inject({ url: '/api/settings/integrations', headers });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.company).toEqual({ id: company.id, name: company.company.name });
    expect(body.integration_key.masked).toBe(`mos_int_••••••••${company.integrationKey.slice(-4)}`);
    expect(res.body).not.toContain(company.integrationKey);
    expect(body.endpoints.integration).toBe('http://localhost:3000/api/integration/in');
    const page = await t.app.inject({ url: '/settings/integrations', headers: { cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<title>Integraciones · Mostrador</title>');
    expect(page.body).toContain(body.integration_key.masked);
    expect(page.body).not.toContain(company.integrationKey);
    expect(page.body).not.toContain(company.scannerToken);
  });

  it('reveals the key with signed examples and audits who, when, what and from where', async () => {
    const { company, user, headers } = await companyWith('admin');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/settings/integrations/key/reveal',
      headers: { ...headers, 'user-agent': 'Firefox/140', 'x-forwarded-for': '203.0.113.9' },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.integration_key).toBe(company.integrationKey);
    expect(body.examples.signature).toBe(hmacSha256Hex(company.integrationKey, body.examples.body));
    expect(body.examples.curl_signed).toContain(`Bearer ${company.integrationKey}`);
    expect(res.headers['cache-control']).toBe('no-store');
    const [row] = await auditRows(company.id);
    expect(row).toMatchObject({
      action: 'integration_key.revealed',
      actor_user_id: user.id,
      actor_email: user.email,
      ip: '203.0.113.9',
      user_agent: 'Firefox/140',
    });
    expect(Date.now() - new Date(row!.at).getTime()).toBeLessThan(60_000);
    expect(JSON.stringify(row)).not.toContain(company.integrationKey);
  });

  it('rotates the key: the old one stops working, the new one works, and it is audited', async () => {
    const { company, headers } = await companyWith('admin');
    const res = await t.app.inject({ method: 'POST', url: '/api/settings/integrations/key/rotate', headers });
    expect(res.statusCode).toBe(200);
    const fresh = res.json().integration_key;
    expect(fresh).not.toBe(company.integrationKey);
    expect(await t.container.companies.findCompanyIdByIntegrationKey(company.integrationKey)).toBeNull();
    expect(await t.container.companies.findCompanyIdByIntegrationKey(fresh)).toBe(company.id);
    expect(res.json().examples.signature).toBe(hmacSha256Hex(fresh, res.json().examples.body));
    expect((await auditRows(company.id)).map((r) => r.action)).toEqual(['integration_key.rotated']);
  });

  it('rotates the scanner token, shows the new one once, and audits it', async () => {
    const { company, headers } = await companyWith('admin');
    const res = await t.app.inject({ method: 'POST', url: '/api/settings/integrations/scanner-token/rotate', headers });
    expect(res.statusCode).toBe(200);
    const token = res.json().scanner_token;
    expect(res.json().examples.kiosk_url).toBe(`http://localhost:3000/scanner?token=${encodeURIComponent(token)}`);
    expect(await t.container.companies.findCompanyIdByScannerToken(company.scannerToken)).toBeNull();
    expect(await t.container.companies.findCompanyIdByScannerToken(token)).toBe(company.id);
    const again = await t.app.inject({ url: '/api/settings/integrations', headers });
    expect(again.body).not.toContain(token);
    expect((await auditRows(company.id)).map((r) => r.action)).toEqual(['scanner_token.rotated']);
  });

  it('refuses a cross-site rotation (CSRF) and changes nothing', async () => {
    const { company, cookie } = await companyWith('admin');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/settings/integrations/key/rotate',
      headers: { cookie, origin: 'https://evil.example' },
    });
    expect(res.statusCode).toBe(403);
    expect(await t.container.companies.findCompanyIdByIntegrationKey(company.integrationKey)).toBe(company.id);
    expect(await auditRows(company.id)).toEqual([]);
  });

  it('acts only on the session’s company whatever company the body or query names', async () => {
    const mine = await companyWith('admin');
    const other = await makeCompany(t.container);
    const reveal = await t.app.inject({
      method: 'POST',
      url: `/api/settings/integrations/key/reveal?company_id=${other.id}&companyId=${other.id}`,
      headers: mine.headers,
      payload: { company_id: other.id, companyId: other.id },
    });
    expect(reveal.json().integration_key).toBe(mine.company.integrationKey);
    const rotate = await t.app.inject({
      method: 'POST',
      url: `/api/settings/integrations/key/rotate?company_id=${other.id}`,
      headers: mine.headers,
      payload: { company_id: other.id },
    });
    expect(rotate.statusCode).toBe(200);
    expect(await t.container.companies.findCompanyIdByIntegrationKey(other.integrationKey)).toBe(other.id);
    const audit = await t.app.inject({ url: `/api/settings/audit?company_id=${other.id}`, headers: mine.headers });
    expect(audit.json().entries.map((e: { action: string }) => e.action)).toEqual([
      'integration_key.rotated',
      'integration_key.revealed',
    ]);
    expect(await auditRows(other.id)).toEqual([]);
  });

  it('lists the company’s audit entries newest first, and pages back', async () => {
    const { headers } = await companyWith('admin');
    for (let i = 0; i < 3; i++) await t.app.inject({ method: 'POST', url: '/api/settings/integrations/key/reveal', headers });
    await t.app.inject({ method: 'POST', url: '/api/settings/integrations/scanner-token/rotate', headers });
    const first = (await t.app.inject({ url: '/api/settings/audit?limit=2', headers })).json().entries;
    expect(first.map((e: { action: string }) => e.action)).toEqual(['scanner_token.rotated', 'integration_key.revealed']);
    expect(first[0]).toMatchObject({ ip: '127.0.0.1', actor_email: expect.stringContaining('@') });
    const rest = (await t.app.inject({ url: `/api/settings/audit?limit=10&before=${first[1].id}`, headers })).json().entries;
    expect(rest.map((e: { action: string }) => e.action)).toEqual(['integration_key.revealed', 'integration_key.revealed']);
  });

  it('sends a visitor to log in and shows a cashier a Spanish “not allowed” page', async () => {
    const visitor = await t.app.inject({ url: '/settings/integrations' });
    expect(visitor.statusCode).toBe(302);
    expect(visitor.headers.location).toBe('/login?next=%2Fsettings%2Fintegrations');
    const { cookie, company } = await companyWith('cashier');
    const page = await t.app.inject({ url: '/settings/integrations', headers: { cookie } });
    expect(page.statusCode).toBe(403);
    expect(page.body).toContain('<title>Sin permiso · Mostrador</title>');
    expect(page.body).toContain('"role":"cashier"');
    expect(page.body).not.toContain(company.integrationKey.slice(-4));
  });
});

describe('a user in several companies', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  it('with several companies starts in none (never "admin first"), picks one, can switch, and the role follows the company', async () => {
    const shopA = await makeCompany(t.container, { name: 'A Cafetería' });
    const shopB = await makeCompany(t.container, { name: 'B Librería' });
    const user = await makeUser(t.container, { companyId: shopA.id, role: 'cashier' });
    await t.container.users.addMembership(user.id, shopB.id, 'admin');
    const { cookie } = await login(t.app, user.email, user.password);
    const headers = { cookie, ...SAME_ORIGIN };

    const me = (await t.app.inject({ url: '/api/auth/me', headers })).json();
    expect(me.company).toBeNull();
    expect(me.companies.map((c: { id: number }) => c.id)).toEqual([shopA.id, shopB.id]);
    expect((await t.app.inject({ url: '/api/settings/integrations', headers })).statusCode).toBe(403);
    const picked = await t.app.inject({ method: 'POST', url: '/api/auth/company', headers, payload: { company_id: shopB.id } });
    expect(picked.json().company).toEqual({ id: shopB.id, name: 'B Librería', role: 'admin' });
    expect((await t.app.inject({ url: '/api/settings/integrations', headers })).json().company.id).toBe(shopB.id);

    const switched = await t.app.inject({ method: 'POST', url: '/api/auth/company', headers, payload: { company_id: shopA.id } });
    expect(switched.statusCode).toBe(200);
    expect(switched.json().company).toEqual({ id: shopA.id, name: 'A Cafetería', role: 'cashier' });
    expect((await t.app.inject({ url: '/api/settings/integrations', headers })).statusCode).toBe(403);
    const page = await t.app.inject({ url: '/settings/integrations', headers: { cookie } });
    expect(page.body).toContain('id="company-switch"');

    const stranger = await makeCompany(t.container);
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/auth/company',
      headers,
      payload: { company_id: stranger.id },
    });
    expect(refused.statusCode).toBe(404);
    const crossSite = await t.app.inject({
      method: 'POST',
      url: '/api/auth/company',
      headers: { cookie, origin: 'https://evil.example' },
      payload: { company_id: shopB.id },
    });
    expect(crossSite.statusCode).toBe(403);
    expect((await t.app.inject({ url: '/api/auth/me', headers })).json().company.id).toBe(shopA.id);
  });

  it('falls back to another membership when the chosen one is removed', async () => {
    const shopA = await makeCompany(t.container);
    const shopB = await makeCompany(t.container);
    const user = await makeUser(t.container, { companyId: shopA.id, role: 'admin' });
    await t.container.users.addMembership(user.id, shopB.id, 'cashier');
    const { cookie } = await login(t.app, user.email, user.password);
    const headers = { cookie, ...SAME_ORIGIN };
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/auth/company', headers, payload: { company_id: shopB.id } })).statusCode,
    ).toBe(200);
    await t.container.db.orm.execute(sql`DELETE FROM memberships WHERE user_id = ${user.id} AND company_id = ${shopB.id}`);
    const me = (await t.app.inject({ url: '/api/auth/me', headers })).json();
    expect(me.company).toMatchObject({ id: shopA.id, role: 'admin' });
  });
});
