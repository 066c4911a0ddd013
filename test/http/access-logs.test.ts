import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, captureLogs, type TestApp } from '../app.ts';
import { makeCompany, makeUser } from '../factories.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

describe('logs of people and access', () => {
  const logs = captureLogs();
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ overrides: { logger: logs.logger } });
  });
  afterAll(() => t.close());

  it('never contain a password, session token, cookie, integration key or scanner token', async () => {
    const secrets: string[] = [];
    const company = await makeCompany(t.container);
    secrets.push(company.integrationKey, company.scannerToken);
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin', password: 'admin-password-7Q' });
    const operator = await makeUser(t.container, { superadmin: true, password: 'operator-password-9Z' });
    secrets.push(admin.password, operator.password);

    await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: SAME_ORIGIN,
      payload: { email: admin.email, password: 'wrong-password-3X' },
    });
    secrets.push('wrong-password-3X');
    const a = await login(t.app, admin.email, admin.password);
    const o = await login(t.app, operator.email, operator.password);
    secrets.push(a.token, o.token);
    const adminHeaders = { cookie: a.cookie, ...SAME_ORIGIN };

    await t.app.inject({ url: '/settings/integrations', headers: adminHeaders });
    await t.app.inject({ method: 'POST', url: '/api/settings/integrations/key/reveal', headers: adminHeaders });
    const rotated = await t.app.inject({ method: 'POST', url: '/api/settings/integrations/key/rotate', headers: adminHeaders });
    const token = await t.app.inject({
      method: 'POST',
      url: '/api/settings/integrations/scanner-token/rotate',
      headers: adminHeaders,
    });
    secrets.push(rotated.json().integration_key, token.json().scanner_token);
    await t.app.inject({
      method: 'POST',
      url: '/api/settings/integrations/key/rotate',
      headers: { cookie: a.cookie, origin: 'https://evil.example' },
    });
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/superadmin/companies',
      headers: { authorization: `Bearer ${o.token}` },
      payload: { name: 'Logueada' },
    });
    secrets.push(created.json().integration_key, created.json().scanner_token);
    await t.app.inject({
      url: `/api/superadmin/companies?token=${o.token}`,
      headers: { cookie: `mostrador_session=${o.token}x` },
    });
    await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: adminHeaders });

    const text = logs.lines.join('\n');
    expect(logs.lines.length).toBeGreaterThan(10);
    expect(text).toContain('/api/settings/integrations/key/reveal');
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(text).not.toContain('mostrador_session=');
    expect(text).not.toMatch(/mos_int_[A-Za-z0-9_-]{20}/);
    expect(text).not.toMatch(/mos_scn_[A-Za-z0-9_-]{20}/);
    expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\.eyJ/);
  });
});
