import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeUser, memberNoOf } from '../factories.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

/** Joining by invitation: invitations.test.ts. Here, what admins do with the people already in. */
describe('people of a company', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000', AUTH_LOGIN_LIMIT_PER_ACCOUNT: '1000' } });
  });
  afterAll(() => t.close());

  async function adminOf(name = 'Almacén') {
    const company = await makeCompany(t.container, { name });
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const { cookie } = await login(t.app, admin.email, admin.password);
    return { company, admin, headers: { cookie, ...SAME_ORIGIN } };
  }

  const call = (method: string, url: string, headers: Record<string, string>, payload?: Record<string, unknown>) =>
    t.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload } : {}) });

  const auditOf = (companyId: number) =>
    t.container.db.query<{ action: string; actor_email: string | null; details: Record<string, unknown> }>(
      `SELECT action, actor_email, details FROM audit_log WHERE company_id = $1 AND (action LIKE 'member.%' OR action = 'user.password_reset') ORDER BY id`,
      [companyId],
    );

  it('turns a person’s access off at once and on again; their other company is untouched', async () => {
    const { company, headers } = await adminOf();
    const other = await makeCompany(t.container);
    const person = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    await t.container.users.addMembership(person.id, other.id, 'cashier');
    const { cookie } = await login(t.app, person.email, person.password);
    await t.app.inject({
      method: 'POST',
      url: '/api/auth/company',
      headers: { cookie, ...SAME_ORIGIN },
      payload: { company_id: company.id },
    });
    const off = await call('POST', `/api/settings/members/${person.memberNo}/disable`, headers);
    expect(off.statusCode).toBe(200);
    expect(off.json().member.disabled_at).not.toBeNull();
    const me = (await t.app.inject({ url: '/api/auth/me', headers: { cookie } })).json();
    expect(me.company.id).toBe(other.id);
    expect(me.companies.map((c: { id: number }) => c.id)).toEqual([other.id]);
    const on = await call('POST', `/api/settings/members/${person.memberNo}/enable`, headers);
    expect(on.json().member.disabled_at).toBeNull();
    expect((await auditOf(company.id)).map((a) => a.action)).toEqual(['member.disabled', 'member.enabled']);
  });

  it("shows a person's last login in this company only, never their logins to another company", async () => {
    const { company, headers } = await adminOf();
    const other = await makeCompany(t.container);
    const person = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    await t.container.users.addMembership(person.id, other.id, 'cashier');
    const lastLogin = async () =>
      (await call('GET', '/api/settings/members', headers))
        .json()
        .members.find((m: { user_id: number }) => m.user_id === person.memberNo).last_login_at as string | null;
    const signIn = async (companyId: number) => {
      const { cookie } = await login(t.app, person.email, person.password);
      const chosen = await call('POST', '/api/auth/company', { cookie, ...SAME_ORIGIN }, { company_id: companyId });
      expect(chosen.statusCode, chosen.body).toBeLessThan(300);
    };
    await signIn(other.id);
    expect(await lastLogin()).toBeNull();
    await signIn(company.id);
    expect(await lastLogin()).not.toBeNull();
  });

  it('shows the last login of a person whose only company this is (the login picks no company: it is the only one)', async () => {
    const { company, admin, headers } = await adminOf();
    const person = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    const members = async () =>
      (await call('GET', '/api/settings/members', headers)).json().members as { user_id: number; last_login_at: string | null }[];
    expect((await members()).find((m) => m.user_id === person.memberNo)?.last_login_at).toBeNull();
    await login(t.app, person.email, person.password);
    const seen = await members();
    expect(seen.find((m) => m.user_id === person.memberNo)?.last_login_at).not.toBeNull();
    // The admin signed in too (adminOf), also without choosing a company.
    expect(seen.find((m) => m.user_id === admin.memberNo)?.last_login_at).not.toBeNull();
    // Once the person belongs to another company as well, a login that chose none could have been to
    // either: it is not told here (a login to the other company is never this one's fact).
    const other = await makeCompany(t.container);
    await t.container.users.addMembership(person.id, other.id, 'cashier');
    expect((await members()).find((m) => m.user_id === person.memberNo)?.last_login_at).toBeNull();
  });

  it('changes roles, but never leaves the company without an admin nor lets admins act on themselves', async () => {
    const { company, admin, headers } = await adminOf();
    const person = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    const promoted = await call('PATCH', `/api/settings/members/${person.memberNo}`, headers, { role: 'admin' });
    expect(promoted.json().member.role).toBe('admin');
    expect((await call('POST', `/api/settings/members/${admin.memberNo}/disable`, headers)).statusCode).toBe(409);
    expect((await call('PATCH', `/api/settings/members/${admin.memberNo}`, headers, { role: 'cashier' })).statusCode).toBe(409);
    // The other admin demotes the first; then the last admin cannot be demoted by anyone but an operator… nor by themselves.
    const { cookie } = await login(t.app, person.email, person.password);
    const second = { cookie, ...SAME_ORIGIN };
    expect((await call('PATCH', `/api/settings/members/${admin.memberNo}`, second, { role: 'cashier' })).statusCode).toBe(200);
    expect((await call('PATCH', `/api/settings/members/${person.memberNo}`, second, { role: 'cashier' })).statusCode).toBe(409);
    const operator = await makeUser(t.container, { superadmin: true });
    const op = { cookie: (await login(t.app, operator.email, operator.password)).cookie, ...SAME_ORIGIN };
    const last = await call('POST', `/api/superadmin/companies/${company.id}/members/${person.memberNo}/disable`, op);
    expect(last.statusCode).toBe(409);
    expect(last.json()).toMatchObject({ code: 'last_admin' });
    expect(last.json().error).toMatch(/last admin/);
  });

  it('assigns a temporary password that ends the person’s sessions; only operators do it for people of other companies', async () => {
    const { company, headers } = await adminOf();
    const person = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    const old = await login(t.app, person.email, person.password);
    const reset = await call('POST', `/api/settings/members/${person.memberNo}/reset-password`, headers);
    expect(reset.statusCode).toBe(200);
    expect(reset.json().ended_sessions).toBe(1);
    expect((await t.app.inject({ url: '/api/auth/me', headers: { cookie: old.cookie } })).statusCode).toBe(401);
    await expect(login(t.app, person.email, person.password)).rejects.toThrow(/401/);
    expect((await login(t.app, person.email, reset.json().temporary_password)).cookie).toBeTruthy();

    const elsewhere = await makeCompany(t.container);
    const shared = await makeUser(t.container, { companyId: elsewhere.id, role: 'admin' });
    await t.container.users.addMembership(shared.id, company.id, 'cashier');
    const sharedNo = await memberNoOf(t.container, company.id, shared.id);
    const refused = await call('POST', `/api/settings/members/${sharedNo}/reset-password`, headers);
    expect(refused.statusCode).toBe(403);
    expect((await login(t.app, shared.email, shared.password)).cookie).toBeTruthy();
    const operator = await makeUser(t.container, { superadmin: true });
    const op = { cookie: (await login(t.app, operator.email, operator.password)).cookie, ...SAME_ORIGIN };
    const byOperator = await call('POST', `/api/superadmin/companies/${company.id}/members/${sharedNo}/reset-password`, op);
    expect(byOperator.statusCode).toBe(200);
    const audit = await auditOf(company.id);
    expect(audit.filter((a) => a.action === 'user.password_reset').map((a) => a.actor_email)).toEqual([
      expect.any(String),
      operator.email,
    ]);
  });

  it('answers 404 for a person of another company, for every change, and changes nothing', async () => {
    const { headers } = await adminOf('Uno');
    const { company: otherCompany } = await adminOf('Dos');
    const stranger = await makeUser(t.container, { companyId: otherCompany.id, role: 'cashier' });
    for (const [method, path, payload] of [
      ['PATCH', '', { role: 'admin' }],
      ['POST', '/disable', undefined],
      ['POST', '/enable', undefined],
      ['POST', '/reset-password', undefined],
    ] as const) {
      const res = await call(method, `/api/settings/members/${stranger.memberNo}${path}`, headers, payload);
      expect([path, res.statusCode]).toEqual([path, 404]);
    }
    expect((await login(t.app, stranger.email, stranger.password)).cookie).toBeTruthy();
    expect(await auditOf(otherCompany.id)).toEqual([]);
  });

  it('answers 404 for a company that does not exist on the operator routes', async () => {
    const operator = await makeUser(t.container, { superadmin: true });
    const op = { cookie: (await login(t.app, operator.email, operator.password)).cookie, ...SAME_ORIGIN };
    expect((await call('GET', '/api/superadmin/companies/999999/members', op)).statusCode).toBe(404);
    expect((await call('GET', '/api/superadmin/companies/999999/members/invitations', op)).statusCode).toBe(404);
  });

  it('lets a person change their own password: the current one is checked, other sessions end, this one stays', async () => {
    const { admin, headers } = await adminOf();
    const other = await login(t.app, admin.email, admin.password);
    const wrong = await call('POST', '/api/auth/password', headers, {
      current_password: 'nope',
      new_password: 'a-new-password-1',
    });
    expect(wrong.statusCode).toBe(422);
    const short = await call('POST', '/api/auth/password', headers, { current_password: admin.password, new_password: 'short' });
    expect(short.statusCode).toBe(422);
    const ok = await call('POST', '/api/auth/password', headers, {
      current_password: admin.password,
      new_password: 'a-new-password-1',
    });
    expect(ok.json()).toEqual({ ended_sessions: 1 });
    expect((await t.app.inject({ url: '/api/auth/me', headers })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/auth/me', headers: { cookie: other.cookie } })).statusCode).toBe(401);
    expect((await login(t.app, admin.email, 'a-new-password-1')).cookie).toBeTruthy();
  });
});
