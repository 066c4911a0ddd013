import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { merchantAllows } from '../../src/http/merchant-guard.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeUser } from '../factories.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';
import { runCliOn } from '../cli/run-cli.ts';
import { createTokenCache } from '../../src/modules/api-tokens/token-cache.ts';

describe('merchant API access (/api/v1): company API tokens and sessions', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000', AUTH_LOGIN_LIMIT_PER_ACCOUNT: '1000' } });
  });
  afterAll(() => t.close());

  async function companyWithPeople(name = 'Almacén') {
    const company = await makeCompany(t.container, { name });
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const cashier = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    const adminCookie = (await login(t.app, admin.email, admin.password)).cookie;
    const cashierCookie = (await login(t.app, cashier.email, cashier.password)).cookie;
    return {
      company,
      admin,
      asAdmin: { cookie: adminCookie, ...SAME_ORIGIN },
      asCashier: { cookie: cashierCookie, ...SAME_ORIGIN },
    };
  }

  const call = (method: string, url: string, headers: Record<string, string>, payload?: unknown) =>
    t.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

  it('an admin creates a named token shown once, stored hashed, listed with its hint and last use, and audited', async () => {
    const { company, admin, asAdmin } = await companyWithPeople();
    const created = await call('POST', '/api/v1/api-tokens', asAdmin, { name: 'Tienda online', scope: 'read' });
    expect(created.statusCode).toBe(201);
    const { token, secret } = created.json();
    expect(secret).toMatch(/^mos_api_[A-Za-z0-9_-]{43}$/);
    expect(token).toMatchObject({
      name: 'Tienda online',
      scope: 'read',
      created_by: admin.email,
      last_used_at: null,
      revoked_at: null,
    });
    expect(token.hint).toBe(`${secret.slice(0, 12)}…`);

    const stored = await t.container.db.query<{ token_hash: string }>('SELECT token_hash FROM api_tokens WHERE id = $1', [
      token.id,
    ]);
    expect(stored[0]!.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(secret);

    const me = await call('GET', '/api/v1/me', { authorization: `Bearer ${secret}` });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ company: { id: company.id }, via: 'token', token: { id: token.id, scope: 'read' } });

    const list = (await call('GET', '/api/v1/api-tokens', asAdmin)).json().tokens;
    expect(list).toHaveLength(1);
    expect(list[0].last_used_at).not.toBeNull();
    expect(JSON.stringify(list)).not.toContain(secret);

    const audit = await t.container.db.query<{ action: string; actor_email: string; details: unknown }>(
      `SELECT action, actor_email, details FROM audit_log WHERE company_id = $1 AND action LIKE 'api_token.%' ORDER BY id`,
      [company.id],
    );
    expect(audit).toEqual([expect.objectContaining({ action: 'api_token.created', actor_email: admin.email })]);
    expect(JSON.stringify(audit)).not.toContain(secret);
  });

  it('a revoked token stops working at once; unknown and malformed tokens get 401', async () => {
    const { asAdmin } = await companyWithPeople();
    const { token, secret } = (await call('POST', '/api/v1/api-tokens', asAdmin, { name: 'ERP' })).json();
    expect(token.scope).toBe('read-write');
    expect((await call('GET', '/api/v1/me', { authorization: `Bearer ${secret}` })).statusCode).toBe(200);
    const revoked = await call('POST', `/api/v1/api-tokens/${token.id}/revoke`, asAdmin);
    expect(revoked.json().token.revoked_at).not.toBeNull();
    const after = await call('GET', '/api/v1/me', { authorization: `Bearer ${secret}` });
    expect(after.statusCode).toBe(401);
    expect(after.json()).toMatchObject({ code: 'unauthenticated' });
    for (const bad of [`${secret.slice(0, -1)}x`, 'mos_api_short', `${secret}extra`]) {
      const res = await call('GET', '/api/v1/me', { authorization: `Bearer ${bad}` });
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('unauthenticated');
    }
    expect((await call('GET', '/api/v1/me', {})).statusCode).toBe(401);
    expect((await call('GET', '/api/v1/me', { authorization: 'Basic YTpi' })).statusCode).toBe(401);
  });

  it('a token revoked by another process (the CLI, another server) stops working as the revocation commits', async () => {
    const { asAdmin } = await companyWithPeople();
    const { token, secret } = (await call('POST', '/api/v1/api-tokens', asAdmin, { name: 'ERP' })).json();
    const bearer = { authorization: `Bearer ${secret}` };
    // Twice: the second answer comes from this process's copy of the token.
    expect((await call('GET', '/api/v1/me', bearer)).statusCode).toBe(200);
    expect((await call('GET', '/api/v1/me', bearer)).statusCode).toBe(200);
    // Recording a use changes nothing about who the token is: it stays valid.
    await t.container.db.query(`UPDATE api_tokens SET last_used_at = now() WHERE id = $1`, [token.id]);
    expect((await call('GET', '/api/v1/me', bearer)).statusCode).toBe(200);
    // Not through this process's service: as another process would, straight in the database.
    await t.container.db.query('UPDATE api_tokens SET revoked_at = now() WHERE id = $1', [token.id]);
    // The change is announced as it commits; a copy would otherwise live 30 s, so 5 s tells them apart.
    await vi.waitFor(async () => expect((await call('GET', '/api/v1/me', bearer)).statusCode).toBe(401), {
      timeout: 5000,
      interval: 20,
    });
  });

  it('keeps a token only while changes reach it, and never a lookup that a change overtook', async () => {
    const logger = t.container.logger;
    let now = 0;
    const at = (ms: number) => {
      now = ms;
    };
    const cache = createTokenCache(t.container.db, logger, { now: () => new Date(now) });
    const row = { id: 1, company_id: 1, name: 'ERP', scope: 'read' as const, token_hash: 'h' };
    try {
      // The first look starts the listener; nothing is kept until it is up.
      expect(cache.get('h')).toBeUndefined();
      await vi.waitFor(() => {
        at(0);
        cache.put('h', row, cache.generation());
        at(1);
        expect(cache.get('h')).toBe(row);
      });
      at(29_999);
      expect(cache.get('h')).toBe(row);
      at(30_000);
      expect(cache.get('h')).toBeUndefined(); // too old: read again
      // A clock that goes back does not stretch an entry's life.
      at(10_000);
      cache.put('h', row, cache.generation());
      at(9_999);
      expect(cache.get('h')).toBeUndefined();
      at(0);
      // A lookup that began before a change and ended after it is dropped.
      const before = cache.generation();
      cache.forget();
      cache.put('h', row, before);
      at(1);
      expect(cache.get('h')).toBeUndefined();
      at(0);
      cache.put('h', row, cache.generation());
      at(1);
      expect(cache.get('h')).toBe(row);
      // A change committed anywhere empties it.
      await t.container.db.query(`SELECT pg_notify('mostrador_api_tokens', '')`);
      at(2);
      await vi.waitFor(() => expect(cache.get('h')).toBeUndefined());
    } finally {
      await cache.close();
    }
    // Closed: nothing is kept any more.
    at(0);
    cache.put('h', row, cache.generation());
    at(1);
    expect(cache.get('h')).toBeUndefined();
  });

  it('decides access where each route is registered: tokens never manage tokens; cashiers only read and sell', async () => {
    const { asAdmin, asCashier } = await companyWithPeople();
    const { secret: rw } = (await call('POST', '/api/v1/api-tokens', asAdmin, { name: 'rw' })).json();
    expect((await call('GET', '/api/v1/api-tokens', { authorization: `Bearer ${rw}` })).statusCode).toBe(403);
    expect((await call('POST', '/api/v1/api-tokens', { authorization: `Bearer ${rw}` }, { name: 'x' })).statusCode).toBe(403);
    const cashierList = await call('GET', '/api/v1/api-tokens', asCashier);
    expect(cashierList.statusCode).toBe(403);
    expect(cashierList.json().code).toBe('forbidden');
    expect((await call('GET', '/api/v1/me', asCashier)).json()).toMatchObject({ via: 'session', user: { role: 'cashier' } });

    expect(merchantAllows('read', { via: 'token', scope: 'read' })).toBe(true);
    expect(merchantAllows('sell', { via: 'token', scope: 'read' })).toBe(false);
    expect(merchantAllows('write', { via: 'token', scope: 'read' })).toBe(false);
    expect(merchantAllows('sell', { via: 'token', scope: 'read-write' })).toBe(true);
    expect(merchantAllows('write', { via: 'token', scope: 'read-write' })).toBe(true);
    expect(merchantAllows('admin', { via: 'token', scope: 'read-write' })).toBe(false);
    expect(merchantAllows('sell', { via: 'session', role: 'cashier' })).toBe(true);
    expect(merchantAllows('write', { via: 'session', role: 'cashier' })).toBe(false);
    expect(merchantAllows('admin', { via: 'session', role: 'admin' })).toBe(true);
  });

  it('a cookie write from another origin is refused; names are unique among active tokens (409)', async () => {
    const { asAdmin } = await companyWithPeople();
    const cross = await call(
      'POST',
      '/api/v1/api-tokens',
      { cookie: asAdmin.cookie, origin: 'https://evil.example' },
      { name: 'x' },
    );
    expect(cross.statusCode).toBe(403);
    expect((await call('POST', '/api/v1/api-tokens', asAdmin, { name: 'Caja' })).statusCode).toBe(201);
    const twice = await call('POST', '/api/v1/api-tokens', asAdmin, { name: 'caja' });
    expect(twice.statusCode).toBe(409);
    const bad = await call('POST', '/api/v1/api-tokens', asAdmin, { name: 'x', scope: 'all' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toMatchObject({ code: 'validation_failed' });
  });

  it("a company's token never sees or touches another company's tokens", async () => {
    const a = await companyWithPeople('A');
    const b = await companyWithPeople('B');
    const { token } = (await call('POST', '/api/v1/api-tokens', a.asAdmin, { name: 'A1' })).json();
    expect((await call('GET', '/api/v1/api-tokens', b.asAdmin)).json().tokens).toEqual([]);
    const revoke = await call('POST', `/api/v1/api-tokens/${token.id}/revoke`, b.asAdmin);
    expect(revoke.statusCode).toBe(404);
    const still = (await call('GET', '/api/v1/api-tokens', a.asAdmin)).json().tokens[0];
    expect(still.revoked_at).toBeNull();
  });

  it('the CLI creates a token printed once as JSON, and it works on the API', async () => {
    const company = await makeCompany(t.container);
    const { code, out } = await runCliOn(t.container, [
      'token',
      'create',
      '--company',
      String(company.id),
      '--name',
      'Zapier',
      '--read-only',
      '--json',
    ]);
    expect(code).toBe(0);
    const printed = JSON.parse(out);
    expect(printed).toEqual({
      token: { id: expect.any(Number), name: 'Zapier', scope: 'read' },
      secret: expect.stringMatching(/^mos_api_/),
    });
    const me = await call('GET', '/api/v1/me', { authorization: `Bearer ${printed.secret}` });
    expect(me.json()).toMatchObject({ company: { id: company.id }, token: { name: 'Zapier', scope: 'read' } });
  });
});
