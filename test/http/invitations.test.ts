import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/lib/time.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeUser } from '../factories.ts';
import { login, manualClock, SAME_ORIGIN, sessionCookieFrom } from '../sessions.ts';

/** Issue 25: people join a company by invitation; inviting tells nothing about the email's account. */
describe('invitations', () => {
  let t: TestApp;
  const clock = manualClock();
  beforeAll(async () => {
    t = await buildTestApp({
      env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000', AUTH_LOGIN_LIMIT_PER_ACCOUNT: '1000' },
      overrides: { clock },
    });
  });
  afterAll(() => t.close());

  type Headers = Record<string, string>;
  const call = (method: string, url: string, headers: Headers, payload?: Record<string, unknown>) =>
    t.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload } : {}) });

  async function adminOf(name = 'Almacén') {
    const company = await makeCompany(t.container, { name });
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const { cookie } = await login(t.app, admin.email, admin.password);
    return { company, admin, headers: { cookie, ...SAME_ORIGIN } };
  }
  async function signIn(email: string, password: string): Promise<Headers> {
    return { cookie: (await login(t.app, email, password)).cookie, ...SAME_ORIGIN };
  }
  const tokenOf = (link: string) => new URL(link).hash.slice(1);
  const invite = async (headers: Headers, email: string, role = 'cashier') => {
    const res = await call('POST', '/api/settings/members', headers, { email, role });
    expect(res.statusCode, res.body).toBe(201);
    return { body: res.json(), token: tokenOf(res.json().link) };
  };
  const membership = async (companyId: number, email: string) =>
    (
      await t.container.db.query<{ role: string }>(
        'SELECT m.role FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.company_id = $1 AND u.email = $2',
        [companyId, email],
      )
    )[0] ?? null;
  const auditOf = (companyId: number | null) =>
    t.container.db.query<{ action: string; actor_email: string | null; details: Record<string, unknown> }>(
      `SELECT action, actor_email, details FROM audit_log WHERE company_id IS NOT DISTINCT FROM $1 AND action LIKE 'invitation.%' ORDER BY id`,
      [companyId],
    );
  /** The answer's shape: every key, recursively, with the type of its value. */
  const shape = (value: unknown): unknown =>
    value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v)])) : typeof value;

  it('answers the same for a new email, an existing, a blocked and an operator account, and creates nothing else', async () => {
    const { company, headers } = await adminOf();
    const elsewhere = await makeCompany(t.container);
    const existing = await makeUser(t.container, { companyId: elsewhere.id, role: 'admin' });
    const blocked = await makeUser(t.container, { companyId: elsewhere.id, role: 'cashier' });
    await t.container.users.disableUser(
      { requestId: 't', companyId: null, actor: { kind: 'cli' }, origin: { ip: null, userAgent: null, requestId: null } },
      blocked.email,
    );
    const operator = await makeUser(t.container, { superadmin: true });
    const usersBefore = (await t.container.db.query<{ n: string }>('SELECT count(*)::text AS n FROM users'))[0]!.n;
    const answers = [];
    for (const email of ['nueva@example.com', existing.email, blocked.email, operator.email]) {
      const res = await call('POST', '/api/settings/members', headers, { email: email.toUpperCase(), role: 'admin' });
      answers.push({ status: res.statusCode, body: res.json(), headerNames: Object.keys(res.headers).sort(), email });
    }
    for (const a of answers) {
      expect(a.status).toBe(201);
      expect(a.headerNames).toEqual(answers[0]!.headerNames);
      expect(shape(a.body)).toEqual(shape(answers[0]!.body));
      expect(Object.keys(a.body).sort()).toEqual(['invitation', 'link']);
      expect(Object.keys(a.body.invitation).sort()).toEqual(['email', 'expires_at', 'id', 'role']);
      expect(a.body.invitation).toMatchObject({ email: a.email.toLowerCase(), role: 'admin' });
      expect(new Date(a.body.invitation.expires_at).getTime()).toBe(clock.now().getTime() + 7 * DAY_MS);
      expect(a.body.link).toMatch(/^http:\/\/localhost:3000\/invitacion#mos_inv_[A-Za-z0-9_-]{43}$/);
    }
    // No account made, no membership: only invitations, audited without their links.
    expect((await t.container.db.query<{ n: string }>('SELECT count(*)::text AS n FROM users'))[0]!.n).toBe(usersBefore);
    for (const a of answers) expect(await membership(company.id, a.email.toLowerCase())).toBeNull();
    const audit = await auditOf(company.id);
    expect(audit.map((a) => a.action)).toEqual(Array(4).fill('invitation.created'));
    const stored = JSON.stringify([audit, await t.container.db.query('SELECT * FROM invitations')]);
    for (const a of answers) expect(stored).not.toContain(tokenOf(a.body.link));
    const listed = (await call('GET', '/api/settings/members/invitations', headers)).json().invitations;
    expect(listed.map((i: { email: string }) => i.email).sort()).toEqual(answers.map((a) => a.email.toLowerCase()).sort());
    expect(JSON.stringify(listed)).not.toContain('mos_inv_');
  });

  it('a new person sets a password and joins; the link works once', async () => {
    const { company, headers } = await adminOf('Kiosco Ana');
    const { token } = await invite(headers, 'Cajera@Example.com');
    const view = await call('POST', '/api/invitations/view', {}, { token });
    expect(view.statusCode).toBe(200);
    expect(view.json()).toEqual({
      invitation: { company: 'Kiosco Ana', email: 'cajera@example.com', role: 'cashier', expires_at: expect.any(String) },
    });
    const short = await call('POST', '/api/invitations/accept-new', SAME_ORIGIN, { token, password: 'corta' });
    expect(short.statusCode).toBe(422);
    expect(await t.container.users.findUserByEmail('cajera@example.com')).toBeNull();
    const crossSite = await call(
      'POST',
      '/api/invitations/accept-new',
      { origin: 'https://evil.example' },
      { token, password: 'una-clave-larga' },
    );
    expect(crossSite.statusCode).toBe(403);

    const joined = await call('POST', '/api/invitations/accept-new', SAME_ORIGIN, {
      token,
      password: 'una-clave-larga',
      display_name: ' Ana ',
    });
    expect(joined.statusCode, joined.body).toBe(201);
    expect(joined.json()).toMatchObject({
      user: { email: 'cajera@example.com', display_name: 'Ana' },
      company: { id: company.id, role: 'cashier' },
    });
    const cookie = sessionCookieFrom(joined)!;
    expect((await call('GET', '/api/auth/me', { cookie })).json().company.id).toBe(company.id);
    expect(await membership(company.id, 'cajera@example.com')).toEqual({ role: 'cashier' });
    expect((await login(t.app, 'cajera@example.com', 'una-clave-larga')).cookie).toBeTruthy();

    for (const [url, body] of [
      ['/api/invitations/view', { token }],
      ['/api/invitations/accept-new', { token, password: 'otra-clave-larga' }],
    ] as const) {
      const again = await call('POST', url, SAME_ORIGIN, body);
      expect([url, again.statusCode, again.json().code]).toEqual([url, 410, 'invitation_used']);
    }
    expect((await call('GET', '/api/settings/members/invitations', headers)).json().invitations).toEqual([]);
    expect((await auditOf(company.id)).map((a) => [a.action, a.actor_email])).toEqual([
      ['invitation.created', expect.any(String)],
      ['invitation.accepted', 'cajera@example.com'],
    ]);
  });

  it('an existing account logs in with the invited email and accepts; the link never sets its password', async () => {
    const { company, headers } = await adminOf();
    const elsewhere = await makeCompany(t.container);
    const person = await makeUser(t.container, { companyId: elsewhere.id, role: 'admin' });
    const stranger = await makeUser(t.container, { companyId: elsewhere.id, role: 'cashier' });
    const { token } = await invite(headers, person.email, 'admin');

    const takeover = await call('POST', '/api/invitations/accept-new', SAME_ORIGIN, {
      token,
      password: 'me-quedo-con-tu-cuenta',
    });
    expect([takeover.statusCode, takeover.json().code]).toEqual([409, 'invitation_needs_login']);
    expect((await login(t.app, person.email, person.password)).cookie).toBeTruthy();
    expect(await membership(company.id, person.email)).toBeNull();

    const wrong = await call('POST', '/api/invitations/accept', await signIn(stranger.email, stranger.password), { token });
    expect([wrong.statusCode, wrong.json().code]).toEqual([403, 'invitation_wrong_account']);
    expect(await membership(company.id, stranger.email)).toBeNull();
    expect((await call('POST', '/api/invitations/accept', SAME_ORIGIN, { token })).statusCode).toBe(401);

    const own = await signIn(person.email, person.password);
    const accepted = await call('POST', '/api/invitations/accept', own, { token });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json().company).toMatchObject({ id: company.id, role: 'admin' });
    expect(accepted.json().companies).toHaveLength(2);
    expect(await membership(company.id, person.email)).toEqual({ role: 'admin' });
    expect((await call('POST', '/api/invitations/accept', own, { token })).json().code).toBe('invitation_used');
  });

  it('an existing account declines: no membership, the link stops working, the company sees it', async () => {
    const { company, headers } = await adminOf();
    const person = await makeUser(t.container, { companyId: (await makeCompany(t.container)).id, role: 'cashier' });
    const { token } = await invite(headers, person.email);
    const own = await signIn(person.email, person.password);
    expect((await call('POST', '/api/invitations/decline', own, { token })).statusCode).toBe(204);
    expect(await membership(company.id, person.email)).toBeNull();
    const after = await call('POST', '/api/invitations/accept', own, { token });
    expect([after.statusCode, after.json().code]).toEqual([410, 'invitation_used']);
    expect((await call('GET', '/api/settings/members/invitations', headers)).json().invitations).toEqual([]);
    expect((await auditOf(company.id)).map((a) => a.action)).toEqual(['invitation.created', 'invitation.declined']);
  });

  it('an operator account can never join a company by invitation, and the company is not told why', async () => {
    const { company, headers } = await adminOf();
    const operator = await makeUser(t.container, { superadmin: true });
    const { token, body } = await invite(headers, operator.email, 'admin');
    const asNew = await call('POST', '/api/invitations/accept-new', SAME_ORIGIN, { token, password: 'una-clave-larga' });
    expect(asNew.json().code).toBe('invitation_needs_login');
    const op = await signIn(operator.email, operator.password);
    const refused = await call('POST', '/api/invitations/accept', op, { token });
    expect([refused.statusCode, refused.json().code]).toEqual([403, 'invitation_refused']);
    expect(refused.body).not.toMatch(/superadmin|operator/i);
    expect(await membership(company.id, operator.email)).toBeNull();
    // Still pending for the company, like any invitation nobody answered; the refusal is in the operators' log only.
    const pending = (await call('GET', '/api/settings/members/invitations', headers)).json().invitations;
    expect(pending.map((i: { id: string }) => i.id)).toEqual([body.invitation.id]);
    expect((await auditOf(company.id)).map((a) => a.action)).toEqual(['invitation.created']);
    const settingsAudit = (await call('GET', '/api/settings/audit', headers)).body;
    expect(settingsAudit).not.toMatch(/refused|superadmin/);
    expect((await auditOf(null)).at(-1)).toMatchObject({
      action: 'invitation.refused',
      details: { company_id: company.id, reason: 'superadmin' },
    });
  });

  it('revokes: the link stops at once; inviting the same email again replaces the pending link', async () => {
    const { company, headers } = await adminOf();
    const first = await invite(headers, 'cajero@example.com');
    const second = await invite(headers, 'cajero@example.com', 'admin');
    const replaced = await call('POST', '/api/invitations/view', {}, { token: first.token });
    expect([replaced.statusCode, replaced.json().code]).toEqual([410, 'invitation_revoked']);
    const pending = (await call('GET', '/api/settings/members/invitations', headers)).json().invitations;
    expect(pending).toEqual([expect.objectContaining({ id: second.body.invitation.id, role: 'admin', expired: false })]);

    const revoked = await call('DELETE', `/api/settings/members/invitations/${second.body.invitation.id}`, headers);
    expect(revoked.statusCode).toBe(204);
    const dead = await call('POST', '/api/invitations/accept-new', SAME_ORIGIN, {
      token: second.token,
      password: 'una-clave-larga',
    });
    expect([dead.statusCode, dead.json().code]).toEqual([410, 'invitation_revoked']);
    expect(await t.container.users.findUserByEmail('cajero@example.com')).toBeNull();
    expect((await call('DELETE', `/api/settings/members/invitations/${second.body.invitation.id}`, headers)).statusCode).toBe(
      404,
    );
    expect((await call('GET', '/api/settings/members/invitations', headers)).json().invitations).toEqual([]);
    expect((await auditOf(company.id)).map((a) => a.action)).toEqual([
      'invitation.created',
      'invitation.created',
      'invitation.revoked',
    ]);
    expect((await auditOf(company.id))[1]?.details.replaced).toBe(first.body.invitation.id);
  });

  it('refuses unknown links, people already in the company, cashiers and bad input', async () => {
    const { company, admin, headers } = await adminOf();
    for (const token of ['x', 'mos_inv_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']) {
      const res = await call('POST', '/api/invitations/view', {}, { token });
      expect([res.statusCode, res.json().code]).toEqual([404, 'not_found']);
    }
    const already = await call('POST', '/api/settings/members', headers, { email: admin.email, role: 'cashier' });
    expect([already.statusCode, already.json().code]).toEqual([409, 'already_member']);
    for (const payload of [
      { email: 'nobody', role: 'cashier' },
      { email: 'a@example.com', role: 'owner' },
      { email: 'a@example.com' },
      { email: 'a@example.com', role: 'cashier', display_name: 'Ana' },
    ]) {
      expect((await call('POST', '/api/settings/members', headers, payload)).statusCode).toBe(422);
    }
    const cashier = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    const asCashier = await signIn(cashier.email, cashier.password);
    expect((await call('POST', '/api/settings/members', asCashier, { email: 'b@example.com', role: 'admin' })).statusCode).toBe(
      403,
    );
    expect((await call('GET', '/api/settings/members/invitations', headers)).json().invitations).toEqual([]);
  });

  it('an operator invites into any company; 404 for a company that does not exist', async () => {
    const company = await makeCompany(t.container);
    const operator = await makeUser(t.container, { superadmin: true });
    const op = await signIn(operator.email, operator.password);
    const res = await call('POST', `/api/superadmin/companies/${company.id}/members`, op, {
      email: 'duena@example.com',
      role: 'admin',
    });
    expect(res.statusCode).toBe(201);
    expect(Object.keys(res.json()).sort()).toEqual(['invitation', 'link']);
    const listed = await call('GET', `/api/superadmin/companies/${company.id}/members/invitations`, op);
    expect(listed.json().invitations).toEqual([
      expect.objectContaining({ email: 'duena@example.com', invited_by: operator.email }),
    ]);
    expect((await auditOf(company.id)).map((a) => [a.action, a.actor_email])).toEqual([['invitation.created', operator.email]]);
    const missing = await call('POST', '/api/superadmin/companies/999999/members', op, { email: 'x@example.com', role: 'admin' });
    expect(missing.statusCode).toBe(404);
    const joined = await call('POST', '/api/invitations/accept-new', SAME_ORIGIN, {
      token: tokenOf(res.json().link),
      password: 'una-clave-larga',
    });
    expect(joined.json().company).toMatchObject({ id: company.id, role: 'admin' });
  });

  it('a company makes at most 50 invitations a day (429 invitation_limit), revoked ones included; a day later, again', async () => {
    const { headers, admin } = await adminOf('Muchas invitaciones');
    for (let n = 0; n < 50; n++) await invite(headers, `persona${n}@example.com`);
    const refused = await call('POST', '/api/settings/members', headers, { email: 'otra@example.com', role: 'cashier' });
    expect([refused.statusCode, refused.json().code]).toEqual([429, 'invitation_limit']);
    clock.advance(DAY_MS);
    const fresh = await signIn(admin.email, admin.password);
    const again = await call('POST', '/api/settings/members', fresh, { email: 'otra@example.com', role: 'cashier' });
    expect(again.statusCode, again.body).toBe(201);
  });

  it('a link expires after 7 days: the page says so and the list marks it', async () => {
    const { headers, admin } = await adminOf();
    const { token } = await invite(headers, 'tarde@example.com');
    clock.advance(7 * DAY_MS - 60_000);
    expect((await call('POST', '/api/invitations/view', {}, { token })).statusCode).toBe(200);
    clock.advance(60_000);
    const late = await call('POST', '/api/invitations/view', {}, { token });
    expect([late.statusCode, late.json().code]).toEqual([410, 'invitation_expired']);
    const accept = await call('POST', '/api/invitations/accept-new', SAME_ORIGIN, { token, password: 'una-clave-larga' });
    expect(accept.json().code).toBe('invitation_expired');
    expect(await t.container.users.findUserByEmail('tarde@example.com')).toBeNull();
    const fresh = await signIn(admin.email, admin.password);
    const list = (await call('GET', '/api/settings/members/invitations', fresh)).json().invitations;
    expect(list).toEqual([expect.objectContaining({ email: 'tarde@example.com', expired: true })]);
  });
});
