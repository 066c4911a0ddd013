import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { sql } from 'drizzle-orm';
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectRows } from '../../src/db/client.ts';
import { buildTestApp, captureLogs, type TestApp } from '../app.ts';
import { makeCompany, makeUser } from '../factories.ts';
import { IDP_AUDIENCE, IDP_ISSUER, startJwksServer } from '../fakes/jwks-server.ts';
import { SAME_ORIGIN } from '../sessions.ts';
import { cliCtx } from '../../src/http/request-context.ts';

describe('sessions signed by an external identity provider (AUTH_JWKS_URL)', () => {
  let idp: Awaited<ReturnType<typeof startJwksServer>>;
  let t: TestApp;
  beforeAll(async () => {
    idp = await startJwksServer();
    t = await buildTestApp({ env: { AUTH_JWKS_URL: idp.url, AUTH_JWT_ISSUER: IDP_ISSUER, AUTH_JWT_AUDIENCE: IDP_AUDIENCE } });
  });
  afterAll(async () => {
    await t.close();
    await idp.close();
  });

  const operatorList = (headers: Record<string, string>) => t.app.inject({ url: '/api/superadmin/companies', headers });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const cookie = (token: string) => ({ cookie: `mostrador_session=${token}` });

  it('maps a token to a user by verified email, links the subject, and applies that user’s roles', async () => {
    const user = await makeUser(t.container, { superadmin: true });
    const sub = randomUUID();
    const token = await idp.sign({ sub, email: user.email.toUpperCase(), email_verified: true });
    expect((await operatorList(bearer(token))).statusCode).toBe(200);
    expect((await operatorList(cookie(token))).statusCode).toBe(200);
    const links = await selectRows<{ user_id: number }>(
      t.container.db.orm,
      sql`SELECT user_id FROM user_identities WHERE issuer = ${IDP_ISSUER} AND subject = ${sub}`,
    );
    expect(links).toEqual([{ user_id: user.id }]);
    // Later tokens map by subject, whatever email they carry.
    const later = await idp.sign({ sub, email: 'renamed@elsewhere.example' });
    const me = await t.app.inject({ url: '/api/auth/me', headers: bearer(later) });
    // An operator with no company has no number of a company (users.id is never shown).
    expect(me.json().user).toMatchObject({ id: null, is_superadmin: true });
    expect(me.json().session.kind).toBe('external');
  });

  it('gives a company admin from the provider the settings and a cashier a 403', async () => {
    const company = await makeCompany(t.container);
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const cashier = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    const adminToken = await idp.sign({ sub: randomUUID(), email: admin.email });
    const cashierToken = await idp.sign({ sub: randomUUID(), email: cashier.email });
    expect((await t.app.inject({ url: '/api/settings/integrations', headers: bearer(adminToken) })).statusCode).toBe(200);
    expect((await t.app.inject({ url: '/api/settings/integrations', headers: bearer(cashierToken) })).statusCode).toBe(403);
    expect((await operatorList(bearer(adminToken))).statusCode).toBe(403);
  });

  it.each([
    ['an unknown person (no account is created)', async () => idp.sign({ sub: randomUUID(), email: 'stranger@example.com' })],
    ['no email and an unlinked subject', async () => idp.sign({ sub: randomUUID() })],
    [
      'an email the provider marks unverified',
      async () =>
        idp.sign({ sub: randomUUID(), email: (await makeUser(t.container, { superadmin: true })).email, email_verified: false }),
    ],
    [
      'another issuer',
      async () =>
        idp.sign({
          sub: randomUUID(),
          email: (await makeUser(t.container, { superadmin: true })).email,
          iss: 'https://evil.example/',
        }),
    ],
    [
      'another audience',
      async () =>
        idp.sign({ sub: randomUUID(), email: (await makeUser(t.container, { superadmin: true })).email, aud: 'other-app' }),
    ],
    [
      'an expired token',
      async () =>
        idp.sign({ sub: randomUUID(), email: (await makeUser(t.container, { superadmin: true })).email, expSeconds: -120 }),
    ],
    [
      'a key that is not in the published set (same kid)',
      async () => {
        const { privateKey } = await generateKeyPair('RS256');
        return idp.sign({ sub: randomUUID(), email: (await makeUser(t.container, { superadmin: true })).email }, privateKey);
      },
    ],
    [
      'HS256 signed with the provider’s public key (algorithm confusion)',
      async () => {
        const user = await makeUser(t.container, { superadmin: true });
        const secret = new TextEncoder().encode(JSON.stringify(idp.publicJwk));
        const now = Math.floor(Date.now() / 1000);
        return new SignJWT({ email: user.email })
          .setProtectedHeader({ alg: 'HS256' })
          .setSubject(randomUUID())
          .setIssuer(IDP_ISSUER)
          .setAudience(IDP_AUDIENCE)
          .setIssuedAt(now)
          .setExpirationTime(now + 600)
          .sign(secret);
      },
    ],
  ])('refuses %s', async (_name, make) => {
    const token = await make();
    expect((await operatorList(bearer(token))).statusCode).toBe(401);
    expect((await operatorList(cookie(token))).statusCode).toBe(401);
  });

  it('refuses a disabled user at once', async () => {
    const user = await makeUser(t.container, { superadmin: true });
    const token = await idp.sign({ sub: randomUUID(), email: user.email });
    expect((await operatorList(bearer(token))).statusCode).toBe(200);
    await t.container.users.disableUser(cliCtx(), user.email);
    expect((await operatorList(bearer(token))).statusCode).toBe(401);
  });

  it('logs out an external session: the same token is refused afterwards', async () => {
    const user = await makeUser(t.container, { superadmin: true });
    const token = await idp.sign({ sub: randomUUID(), email: user.email });
    expect((await operatorList(cookie(token))).statusCode).toBe(200);
    const out = await t.app.inject({ method: 'POST', url: '/api/auth/logout', headers: { ...cookie(token), ...SAME_ORIGIN } });
    expect(out.statusCode).toBe(204);
    expect((await operatorList(cookie(token))).statusCode).toBe(401);
    expect((await operatorList(bearer(token))).statusCode).toBe(401);
  });

  it('applies the CSRF check to external tokens sent as a cookie', async () => {
    const user = await makeUser(t.container, { superadmin: true });
    const token = await idp.sign({ sub: randomUUID(), email: user.email });
    const post = (headers: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: '/api/superadmin/companies',
        headers: { ...cookie(token), ...headers },
        payload: { name: 'IdP SA' },
      });
    expect((await post({ origin: 'https://evil.example' })).statusCode).toBe(403);
    expect((await post(SAME_ORIGIN)).statusCode).toBe(201);
  });
});

describe('external sessions when the provider cannot be reached', () => {
  it('refuses the token and logs a warning without the token', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const p = (probe.address() as { port: number }).port;
        probe.close(() => resolve(p));
      });
    });
    const idp = await startJwksServer();
    const logs = captureLogs();
    const t = await buildTestApp({
      env: { AUTH_JWKS_URL: `http://127.0.0.1:${port}/jwks.json`, AUTH_JWT_ISSUER: IDP_ISSUER },
      overrides: { logger: logs.logger },
    });
    try {
      const user = await makeUser(t.container, { superadmin: true });
      const token = await idp.sign({ sub: randomUUID(), email: user.email });
      const res = await t.app.inject({ url: '/api/superadmin/companies', headers: { authorization: `Bearer ${token}` } });
      expect(res.statusCode).toBe(401);
      expect(logs.lines.some((l) => l.includes('identity provider keys unavailable'))).toBe(true);
      expect(logs.lines.join('\n')).not.toContain(token);
    } finally {
      await t.close();
      await idp.close();
    }
  });
});

describe('without AUTH_JWKS_URL', () => {
  it('refuses tokens of any external issuer', async () => {
    const idp = await startJwksServer();
    const t = await buildTestApp();
    try {
      const user = await makeUser(t.container, { superadmin: true });
      const token = await idp.sign({ sub: randomUUID(), email: user.email });
      const res = await t.app.inject({ url: '/api/superadmin/companies', headers: { authorization: `Bearer ${token}` } });
      expect(res.statusCode).toBe(401);
      expect(idp.requests).toBe(0);
    } finally {
      await t.close();
      await idp.close();
    }
  });
});
