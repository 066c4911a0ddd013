import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ENABLE_FB_LOGIN } from '../../src/modules/instagram/instagram.service.ts';
import { buildInstagramApp, CRON_SECRET, type InstagramTestApp } from './helpers.ts';

describe('instagram connection (OAuth)', () => {
  let t: InstagramTestApp;
  beforeAll(async () => {
    t = await buildInstagramApp();
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    t.fake.reset();
    await t.container.db.query('DELETE FROM instagram_channel');
  });

  const channel = async () =>
    (await t.container.db.query<Record<string, unknown>>('SELECT * FROM instagram_channel'))[0] as
      | Record<string, unknown>
      | undefined;
  /** The result page is the app's shell (header, navigation) with its data for the screen, worded by `code`. */
  const resultOf = (body: string) => {
    expect(body).toContain('class="shell-header"');
    expect(body).toContain('superadmin-instagram-result');
    const json = /<script type="application\/json" id="page-data">([\s\S]*?)<\/script>/.exec(body)?.[1];
    return JSON.parse(json ?? 'null') as { ok: boolean; code: string | null; account: string | null; subscribed: boolean };
  };

  it('redirects to the authorize URL with each required parameter exactly once', async () => {
    const res = await t.app.inject({ url: '/superadmin/instagram/connect', headers: { cookie: t.superadmin } });
    expect(res.statusCode).toBe(302);
    const url = new URL(res.headers.location as string);
    expect(`${url.origin}${url.pathname}`).toBe(`${t.fake.url}/oauth/authorize`);
    const q = url.searchParams;
    for (const key of ['client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'force_reauth', 'enable_fb_login']) {
      expect(q.getAll(key)).toHaveLength(1);
    }
    expect(q.get('client_id')).toBe(t.fake.appId);
    expect(q.get('redirect_uri')).toBe('http://localhost:3000/superadmin/instagram/callback');
    expect(q.get('response_type')).toBe('code');
    expect(q.get('scope')).toBe('instagram_business_basic,instagram_business_manage_messages');
    expect(q.get('force_reauth')).toBe('true');
    expect(q.get('enable_fb_login')).toBe('false');
    expect(ENABLE_FB_LOGIN).toBe('false');
    expect(q.get('state')!.length).toBeGreaterThanOrEqual(32);
  });

  it('defaults the authorize host to www.instagram.com', async () => {
    const { loadConfig } = await import('../../src/config.ts');
    const config = loadConfig({ SECRET_KEY: 'x'.repeat(40), DATA_DIR: '.tmp/test-data' });
    expect(config.instagram.authorizeUrl).toBe('https://www.instagram.com/oauth/authorize');
    expect(config.instagram.configured).toBe(false);
  });

  it('connects: exchanges the code, takes the long-lived token, reads /me, subscribes, stores the token encrypted', async () => {
    const res = await t.connect();
    expect(res.status).toBe(200);
    expect(resultOf(res.body)).toMatchObject({ ok: true, code: null, account: '@mostrador.ar' });
    const row = await channel();
    // /me user_id, digits intact (> 2^53), not the token's user_id.
    expect(row?.['account_id']).toBe('17841400774391234');
    expect(row?.['token_encrypted']).toMatch(/^v1\./);
    const token = t.container.cipher.decrypt(row?.['token_encrypted'] as string);
    expect(t.fake.validTokens.has(token)).toBe(true);
    expect(row?.['permissions']).toContain('instagram_business_manage_messages');
    expect(t.fake.subscribedFields).toEqual(['messages', 'message_reactions', 'messaging_seen']);
    const expires = new Date(row?.['token_expires_at'] as string).getTime();
    expect(expires - Date.now()).toBeGreaterThan(5183944 * 1000 - 60_000);
    // The code exchange was a POST form; no token ever travelled in a URL.
    const exchange = t.fake.requests.find((r) => r.path === '/oauth/access_token')!;
    expect(exchange.method).toBe('POST');
    expect(new URLSearchParams(exchange.body).get('redirect_uri')).toBe('http://localhost:3000/superadmin/instagram/callback');
    for (const r of t.fake.requests) expect(r.search).not.toMatch(/access_token=/);
    // Nothing of the token reaches the page.
    expect(res.body).not.toContain(token);
  });

  it('accepts the documented {data:[…]} envelope and string user ids and permission arrays', async () => {
    t.fake.knobs.envelope = 'data';
    t.fake.knobs.numericTokenUserId = false;
    t.fake.knobs.permissions = ['instagram_business_basic', 'instagram_business_manage_messages'];
    expect((await t.connect()).status).toBe(200);
    expect((await channel())?.['account_id']).toBe('17841400774391234');
  });

  it('strips the #_ Instagram appends to the code', async () => {
    const res = await t.connect({ mangle: (url) => url.searchParams.set('code', `${url.searchParams.get('code')}#_`) });
    expect(res.status).toBe(200);
  });

  it('refuses when the messages permission was not granted, storing nothing', async () => {
    t.fake.knobs.permissions = 'instagram_business_basic';
    const res = await t.connect();
    expect(res.status).toBe(400);
    expect(resultOf(res.body)).toMatchObject({ ok: false, code: 'missing_permission' });
    expect(await channel()).toBeUndefined();
  });

  it('handles a cancel (error=access_denied)', async () => {
    t.fake.knobs.deny = true;
    const res = await t.connect();
    expect(res.status).toBe(400);
    expect(resultOf(res.body)).toMatchObject({ ok: false, code: 'denied', account: null });
    expect(t.fake.requests.some((r) => r.path === '/oauth/access_token')).toBe(false);
  });

  it('refuses a missing, forged, replayed or other-session state', async () => {
    expect((await t.connect({ mangle: (u) => u.searchParams.delete('state') })).status).toBe(400);
    expect((await t.connect({ mangle: (u) => u.searchParams.set('state', 'forged') })).status).toBe(400);
    // Another superadmin's session cannot use this session's state.
    const start = await t.app.inject({ url: '/superadmin/instagram/connect', headers: { cookie: t.superadmin } });
    const authorize = await fetch(start.headers.location as string, { redirect: 'manual' });
    const callback = new URL((authorize.headers.get('location') ?? '').replace(/#_$/, ''));
    const path = `${callback.pathname}${callback.search}`;
    const foreign = await t.app.inject({ url: path, headers: { cookie: t.cookies.otherSuperadmin } });
    expect(foreign.statusCode).toBe(400);
    expect(resultOf(foreign.body)).toMatchObject({ ok: false, code: 'state_invalid' });
    // The state was consumed by that attempt: replaying it in the right session fails too.
    expect((await t.app.inject({ url: path, headers: { cookie: t.superadmin } })).statusCode).toBe(400);
    expect(await channel()).toBeUndefined();
  });

  it('reports a reused code (double callback) without storing', async () => {
    let code = '';
    await t.connect({
      mangle: (u) => {
        code = u.searchParams.get('code')!;
      },
    });
    await t.container.db.query('DELETE FROM instagram_channel');
    const res = await t.connect({ mangle: (u) => u.searchParams.set('code', code) });
    expect(res.status).toBe(502);
    expect(await channel()).toBeUndefined();
  });

  it('does not keep the 1 h token when the long-lived exchange fails', async () => {
    t.fake.knobs.failures.push({ match: /^GET \/access_token$/, status: 500, body: { error: { message: 'boom', code: 2 } } });
    const res = await t.connect();
    expect(res.status).toBe(502);
    expect(await channel()).toBeUndefined();
  });

  it('updates the record on a reconnection of the same account and re-subscribes', async () => {
    await t.connect();
    await t.container.db.query("UPDATE instagram_channel SET reconnect_required = true, reconnect_reason = 'x'");
    t.fake.subscribedFields = [];
    const before = (await channel())?.['token_encrypted'];
    expect((await t.connect()).status).toBe(200);
    const after = await channel();
    expect(after?.['token_encrypted']).not.toBe(before);
    expect(after?.['reconnect_required']).toBe(false);
    expect(t.fake.subscribedFields).toContain('messages');
  });

  it('replaces another account only after explicit confirmation', async () => {
    await t.container.db.query(
      `INSERT INTO instagram_channel (account_id, username, token_encrypted, token_expires_at, token_issued_at, connected_at, updated_at)
       VALUES ('111', 'vieja', 'v1.x.y.z', now() + interval '30 days', now(), now(), now())`,
    );
    const refused = await t.connect();
    expect(refused.status).toBe(400);
    expect(resultOf(refused.body)).toMatchObject({ ok: false, code: 'other_account', account: '@vieja' });
    // Inside the app's layout: the navigation leads back to the inbox (the screen adds "Volver a la bandeja").
    expect(refused.body).toContain('href="/superadmin/instagram" aria-current="page">Instagram');
    expect((await channel())?.['account_id']).toBe('111');
    expect((await t.connect({ replace: true })).status).toBe(200);
    expect((await channel())?.['account_id']).toBe('17841400774391234');
  });

  describe('token refresh (backup sync)', () => {
    const cron = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/cron/instagram-inbox-sync',
        headers: { authorization: `Bearer ${CRON_SECRET}` },
      });

    it('refreshes a token at least 24 h old with fewer than 10 days left', async () => {
      await t.connect();
      await t.container.db.query(
        "UPDATE instagram_channel SET token_issued_at = now() - interval '50 days', token_expires_at = now() + interval '9 days'",
      );
      const res = await cron();
      expect(res.json().sync.refreshed).toBe(true);
      expect(t.fake.requests.filter((r) => r.path === '/refresh_access_token')).toHaveLength(1);
      const row = await channel();
      expect(new Date(row?.['token_expires_at'] as string).getTime()).toBeGreaterThan(Date.now() + 50 * 86_400_000);
    });

    it('does not refresh a young token nor one with 10 days or more left', async () => {
      await t.connect();
      await t.container.db.query(
        "UPDATE instagram_channel SET token_issued_at = now() - interval '2 hours', token_expires_at = now() + interval '5 days'",
      );
      expect((await cron()).json().sync).toMatchObject({ ran: true, refreshed: false });
      await t.container.db.query(
        "UPDATE instagram_channel SET token_issued_at = now() - interval '3 days', token_expires_at = now() + interval '11 days', last_sync_at = NULL",
      );
      expect((await cron()).json().sync).toMatchObject({ ran: true, refreshed: false });
      expect(t.fake.requests.some((r) => r.path === '/refresh_access_token')).toBe(false);
    });

    it('marks reconnect required when the refresh is refused (code 100) or the token is rejected (190)', async () => {
      await t.connect();
      await t.container.db.query(
        "UPDATE instagram_channel SET token_issued_at = now() - interval '50 days', token_expires_at = now() + interval '2 days'",
      );
      t.fake.validTokens.clear();
      const res = await cron();
      expect(res.json().sync.reason).toBe('reconnect_required');
      expect((await channel())?.['reconnect_required']).toBe(true);
      const status = await t.app.inject({ url: '/api/superadmin/instagram/status', headers: { cookie: t.superadmin } });
      expect(status.json().status.reconnect_required).toBe(true);
    });
  });
});
