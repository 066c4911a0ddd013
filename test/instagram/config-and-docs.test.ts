import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { loadDocFiles } from '../../src/modules/docs/docs.catalog.ts';
import { buildTestApp } from '../app.ts';

const base = { SECRET_KEY: 'x'.repeat(40), DATA_DIR: '.tmp/test-data' };

describe('instagram settings', () => {
  it('is not configured without the app id and secret, and needs both together', () => {
    expect(loadConfig(base).instagram.configured).toBe(false);
    expect(() => loadConfig({ ...base, INSTAGRAM_APP_ID: '123' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, INSTAGRAM_APP_ID: 'abc', INSTAGRAM_APP_SECRET: 's' })).toThrow(/INSTAGRAM_APP_ID/);
    expect(() => loadConfig({ ...base, INSTAGRAM_GRAPH_URL: 'ftp://x' })).toThrow(/INSTAGRAM_GRAPH_URL/);
  });

  it('uses the app secret for the token exchange unless a separate one is set, and accepts META_APP_SECRET on webhooks', () => {
    const one = loadConfig({ ...base, INSTAGRAM_APP_ID: '123', INSTAGRAM_APP_SECRET: 'app' }).instagram;
    expect(one).toMatchObject({ configured: true, tokenExchangeSecret: 'app', webhookSecrets: ['app'] });
    const two = loadConfig({
      ...base,
      INSTAGRAM_APP_ID: '123',
      INSTAGRAM_APP_SECRET: 'app',
      INSTAGRAM_TOKEN_EXCHANGE_SECRET: 'exchange',
      META_APP_SECRET: 'meta',
    }).instagram;
    expect(two).toMatchObject({ tokenExchangeSecret: 'exchange', webhookSecrets: ['app', 'meta'] });
  });
});

describe('the public docs site never shows the operator inbox', () => {
  it('publishes no page about it and answers 404 for the operator guide', async () => {
    const { entries } = loadDocFiles();
    for (const entry of entries) {
      expect(entry.slug).not.toMatch(/instagram|operador/);
      expect(entry.body()).not.toMatch(/superadmin\/instagram|operador\/instagram|bandeja de operaci/i);
    }
    const t = await buildTestApp();
    try {
      for (const url of ['/docs/operador/instagram', '/docs/operador/instagram.md', '/docs/instagram']) {
        expect((await t.app.inject({ url })).statusCode).toBe(404);
      }
      const llms = await t.app.inject({ url: '/llms.txt' });
      expect(llms.body).not.toMatch(/instagram/i);
    } finally {
      await t.close();
    }
  });
});

describe('instagram channel not configured', () => {
  it('says so on the connect page and in the status', async () => {
    const t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000' } });
    try {
      const { makeUser } = await import('../factories.ts');
      const { login } = await import('../sessions.ts');
      const user = await makeUser(t.container, { superadmin: true });
      const { cookie } = await login(t.app, user.email, user.password);
      const page = await t.app.inject({ url: '/superadmin/instagram/connect', headers: { cookie } });
      expect(page.statusCode).toBe(503);
      // The result page is the app's shell with its data; the screen words `not_configured` in Spanish.
      expect(page.body).toContain('superadmin-instagram-result');
      const data = /<script type="application\/json" id="page-data">([\s\S]*?)<\/script>/.exec(page.body)?.[1];
      expect(JSON.parse(data ?? 'null')).toMatchObject({ ok: false, code: 'not_configured' });
      const status = await t.app.inject({ url: '/api/superadmin/instagram/status', headers: { cookie } });
      expect(status.json().status).toMatchObject({ configured: false, connected: false, send_enabled: false });
      const list = await t.app.inject({ url: '/api/superadmin/instagram/conversations', headers: { cookie } });
      // Not an error: an empty list, with the connection state beside it (issue 31).
      expect(list.statusCode).toBe(200);
      expect(list.json()).toEqual({
        conversations: [],
        connection: { configured: false, connected: false, reconnect_required: false },
      });
      // Webhooks fail closed without secrets.
      const hook = await t.app.inject({
        method: 'POST',
        url: '/api/webhooks/instagram',
        payload: { object: 'instagram', entry: [] },
      });
      expect(hook.statusCode).toBe(403);
    } finally {
      await t.close();
    }
  });
});
