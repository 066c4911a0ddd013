import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectRows } from '../../src/db/client.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeUser } from '../factories.ts';
import { login, manualClock, SAME_ORIGIN, sessionCookieFrom } from '../sessions.ts';
import { cliCtx } from '../../src/http/request-context.ts';

const clock = manualClock();

describe('login and logout', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000' }, overrides: { clock } });
  });
  afterAll(() => t.close());

  const attempt = (email: string, password: string, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { ...SAME_ORIGIN, ...headers },
      payload: { email, password },
    });

  it('logs in with the right password and sets an HttpOnly, SameSite=Lax session cookie', async () => {
    const company = await makeCompany(t.container, { name: 'Almacén Don Tito' });
    const user = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const res = await attempt(user.email.toUpperCase(), user.password);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.user).toEqual({ id: user.memberNo, email: user.email, display_name: null, is_superadmin: false });
    expect(body.company).toEqual({ id: company.id, name: 'Almacén Don Tito', role: 'admin' });
    expect(body.companies).toEqual([{ id: company.id, name: 'Almacén Don Tito', role: 'admin' }]);
    expect(new Date(body.session.expires_at).getTime() - clock.now().getTime()).toBe(12 * 3600 * 1000);
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/^mostrador_session=[\w-]+\.[\w-]+\.[\w-]+;/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Lax');
    expect(setCookie).toContain('Path=/');
    expect(setCookie).not.toContain('Secure');
    expect(JSON.stringify(body)).not.toContain(sessionCookieFrom(res)!.split('=')[1]!);
  });

  it.each([
    ['a wrong password', async () => ({ email: (await makeUser(t.container)).email, password: 'not-the-password' })],
    ['an unknown email', async () => ({ email: 'nobody-here@example.com', password: 'whatever-password' })],
    [
      'a disabled user',
      async () => {
        const u = await makeUser(t.container);
        await t.container.users.disableUser(cliCtx(), u.email);
        return { email: u.email, password: u.password };
      },
    ],
    [
      'a user without a password',
      async () => {
        const u = await makeUser(t.container);
        await t.container.db.orm.execute(sql`UPDATE users SET password_hash = NULL WHERE id = ${u.id}`);
        return { email: u.email, password: u.password };
      },
    ],
  ])('refuses %s with the same generic 401 and no cookie', async (_name, make) => {
    const { email, password } = await make();
    const res = await attempt(email, password);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'email or password is incorrect', code: 'unauthenticated' });
    expect(sessionCookieFrom(res)).toBeNull();
  });

  it('records failed logins in the audit log with the reason, and successful ones', async () => {
    const user = await makeUser(t.container);
    await attempt(user.email, 'wrong-password-here', { 'user-agent': 'audit-test/1.0' });
    await attempt(user.email, user.password, { 'user-agent': 'audit-test/1.0' });
    const rows = await selectRows<{
      action: string;
      actor_email: string;
      ip: string;
      user_agent: string;
      details: { reason?: string };
    }>(
      t.container.db.orm,
      sql`SELECT action, actor_email, ip, user_agent, details FROM audit_log WHERE actor_user_id = ${user.id} ORDER BY id`,
    );
    expect(rows.map((r) => r.action)).toEqual(['auth.login_failed', 'auth.login']);
    expect(rows[0]!.details.reason).toBe('wrong_password');
    expect(rows[1]).toMatchObject({ actor_email: user.email, ip: '127.0.0.1', user_agent: 'audit-test/1.0' });
  });

  it.each([
    ['missing password', { email: 'a@example.com' }, 422],
    ['empty email', { email: '', password: 'x' }, 422],
    ['password of the wrong type', { email: 'a@example.com', password: { x: 1 } }, 422],
  ])('answers %s with a validation error', async (_name, payload, status) => {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/login', headers: SAME_ORIGIN, payload });
    expect(res.statusCode).toBe(status);
    expect(res.json().code).toBe('validation_failed');
  });

  it('answers a body that is not JSON with 400', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      headers: { ...SAME_ORIGIN, 'content-type': 'application/json' },
      payload: '{"email":',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('invalid_json');
  });

  it('refuses a login posted from another site (login CSRF), accepts one without browser headers', async () => {
    const user = await makeUser(t.container);
    expect((await attempt(user.email, user.password, { origin: 'https://evil.example' })).statusCode).toBe(403);
    expect((await attempt(user.email, user.password, { origin: '', 'sec-fetch-site': 'cross-site' })).statusCode).toBe(403);
    const plain = await t.app.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: user.email, password: user.password },
    });
    expect(plain.statusCode).toBe(200);
  });

  it('logs out: clears the cookie and the token stops working', async () => {
    const user = await makeUser(t.container, { superadmin: true });
    const { cookie } = await login(t.app, user.email, user.password);
    expect((await t.app.inject({ url: '/api/auth/me', headers: { cookie } })).statusCode).toBe(200);
    const out = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie, ...SAME_ORIGIN } });
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/^mostrador_session=;.*Expires=Thu, 01 Jan 1970/);
    expect((await t.app.inject({ url: '/api/auth/me', headers: { cookie } })).statusCode).toBe(401);
    expect((await t.app.inject({ url: '/api/superadmin/companies', headers: { cookie } })).statusCode).toBe(401);
    const [row] = await selectRows<{ n: number }>(
      t.container.db.orm,
      sql`SELECT count(*)::int AS n FROM audit_log WHERE actor_user_id = ${user.id} AND action = 'auth.logout'`,
    );
    expect(row!.n).toBe(1);
  });

  it('refuses a cross-site logout (CSRF) and keeps the session', async () => {
    const user = await makeUser(t.container);
    const { cookie } = await login(t.app, user.email, user.password);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/logout',
      headers: { cookie, origin: 'https://evil.example' },
    });
    expect(res.statusCode).toBe(403);
    expect((await t.app.inject({ url: '/api/auth/me', headers: { cookie } })).statusCode).toBe(200);
  });

  it('answers logout without a session with 204', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: SAME_ORIGIN });
    expect(res.statusCode).toBe(204);
  });
});

describe('login rate limits', () => {
  let t: TestApp;
  const limitClock = manualClock();
  beforeAll(async () => {
    t = await buildTestApp({
      env: { AUTH_LOGIN_LIMIT_PER_ACCOUNT: '3', AUTH_LOGIN_LIMIT_PER_CLIENT: '6', AUTH_LOGIN_WINDOW_SECONDS: '600' },
      overrides: { clock: limitClock },
    });
  });
  afterAll(() => t.close());

  const attempt = (email: string, password: string, ip: string) =>
    t.app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress: ip, payload: { email, password } });

  it('limits failures per account and client (429 with Retry-After, even with the right password from that client) until the window ends', async () => {
    const user = await makeUser(t.container);
    for (let i = 0; i < 3; i++) expect((await attempt(user.email, 'wrong-password', '10.0.0.1')).statusCode).toBe(401);
    const limited = await attempt(user.email, user.password, '10.0.0.1');
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({ error: 'too many login attempts; try again later', code: 'rate_limited' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(600);
    limitClock.advance(601_000);
    expect((await attempt(user.email, user.password, '10.0.0.1')).statusCode).toBe(200);
  });

  it('a flood against one account from other addresses slows them and never refuses the owner’s right password', async () => {
    const owner = await makeUser(t.container);
    for (const ip of ['10.0.3.1', '10.0.3.2', '10.0.3.3']) {
      for (let i = 0; i < 3; i++) expect((await attempt(owner.email, 'wrong-password', ip)).statusCode).toBe(401);
      expect((await attempt(owner.email, 'wrong-password', ip)).statusCode).toBe(429);
      expect((await attempt(owner.email, owner.password, ip)).statusCode).toBe(429);
    }
    expect((await attempt(owner.email, owner.password, '10.0.3.9')).statusCode).toBe(200);
  });

  it('a client’s successful logins never count against it', async () => {
    const user = await makeUser(t.container);
    for (let i = 0; i < 10; i++) expect((await attempt(user.email, user.password, '10.0.4.1')).statusCode).toBe(200);
  });

  it('limits attempts per client across accounts', async () => {
    const ip = '10.0.1.1';
    for (let i = 0; i < 6; i++) expect((await attempt(`someone-${i}@example.com`, 'x-password', ip)).statusCode).toBe(401);
    const user = await makeUser(t.container);
    expect((await attempt(user.email, user.password, ip)).statusCode).toBe(429);
    expect((await attempt(user.email, user.password, '10.0.1.2')).statusCode).toBe(200);
  });

  it('forgets the account count after a successful login', async () => {
    const user = await makeUser(t.container);
    await attempt(user.email, 'wrong-password', '10.0.2.1');
    await attempt(user.email, 'wrong-password', '10.0.2.1');
    expect((await attempt(user.email, user.password, '10.0.2.1')).statusCode).toBe(200);
    expect((await attempt(user.email, 'wrong-password', '10.0.2.1')).statusCode).toBe(401);
    expect((await attempt(user.email, user.password, '10.0.2.1')).statusCode).toBe(200);
  });
});

describe('login page', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  it('serves a Spanish login form that returns to a same-site next', async () => {
    const res = await t.app.inject({ url: '/login?next=%2Fsuperadmin%2Fcompanies' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(res.body).toContain('<title>Ingresar · Mostrador</title>');
    expect(res.body).toContain('"next":"/superadmin/companies"');
    expect(res.body).toContain('"signed_in":null');
  });

  it.each(['https://evil.example/', '//evil.example', '/\\evil.example'])('ignores the off-site next %s', async (next) => {
    const res = await t.app.inject({ url: `/login?next=${encodeURIComponent(next)}` });
    expect(res.body).toContain('"next":"/"');
    expect(res.body).not.toContain('evil.example');
  });

  it('tells someone already logged in who they are, with the way on and the way to switch accounts', async () => {
    const user = await makeUser(t.container);
    const { cookie } = await login(t.app, user.email, user.password);
    const res = await t.app.inject({ url: '/login?next=%2Fsettings%2Fintegrations', headers: { cookie } });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('"next":"/settings/integrations"');
    expect(res.body).toContain(`"signed_in":{"email":"${user.email}"`);
  });
});
