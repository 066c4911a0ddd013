import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeUser } from '../factories.ts';
import { login } from '../sessions.ts';
import { buildInstagramApp, type InstagramTestApp, syncNow } from './helpers.ts';

const readPageData = (html: string) =>
  JSON.parse(/<script type="application\/json" id="page-data">([\s\S]*?)<\/script>/.exec(html)![1]!.replace(/\\u003c/g, '<'));

describe('the inbox page (/superadmin/instagram)', () => {
  let t: InstagramTestApp;
  let bare: TestApp;
  beforeAll(async () => {
    t = await buildInstagramApp();
    bare = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000' } });
  });
  afterAll(async () => {
    await t?.close();
    await bare?.close();
  });

  it('names the missing settings when the channel is not configured', async () => {
    const user = await makeUser(bare.container, { superadmin: true });
    const { cookie } = await login(bare.app, user.email, user.password);
    const res = await bare.app.inject({ url: '/superadmin/instagram', headers: { cookie } });
    expect(res.statusCode).toBe(200);
    const data = readPageData(res.body);
    expect(data.status).toMatchObject({ configured: false, connected: false });
    expect(data.status.missing_settings).toEqual(['INSTAGRAM_APP_ID', 'INSTAGRAM_APP_SECRET']);
    expect(data.list_timeout_ms).toBe(15_000);
    expect(data.conversations).toEqual([]);
    const api = await bare.app.inject({ url: '/api/superadmin/instagram/status', headers: { cookie } });
    expect(api.json().status.missing_settings).toEqual(['INSTAGRAM_APP_ID', 'INSTAGRAM_APP_SECRET']);
  });

  it('lists no conversations (200, not an error) while configured but before an account is connected', async () => {
    const res = await t.app.inject({ url: '/api/superadmin/instagram/conversations', headers: { cookie: t.superadmin } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      conversations: [],
      connection: { configured: true, connected: false, reconnect_required: false },
    });
  });

  it('gives the stored threads of the connected account in the first paint, never the token', async () => {
    expect((await t.connect()).status).toBe(200);
    t.fake.addConversation({ participantId: '7100000000000009', username: 'guardada', text: 'hola' });
    await syncNow(t.container.instagram.service);
    const res = await t.app.inject({ url: '/superadmin/instagram', headers: { cookie: t.superadmin } });
    const data = readPageData(res.body);
    expect(data.status).toMatchObject({ configured: true, connected: true, missing_settings: [], send_enabled: false });
    expect(data.conversations).toMatchObject([{ participant_username: 'guardada', last_message_text: 'hola' }]);
    for (const token of t.fake.validTokens) expect(res.body).not.toContain(token);
    expect(res.headers['content-security-policy']).toContain("media-src 'self'");
  });

  it('sends admins and cashiers back to their home, and 403s their API calls', async () => {
    for (const cookie of [t.cookies.admin, t.cookies.cashier]) {
      const page = await t.app.inject({ url: '/superadmin/instagram', headers: { cookie } });
      expect(page.statusCode).toBe(302);
      expect(page.headers.location).toBe('/');
      const api = await t.app.inject({ url: '/api/superadmin/instagram/conversations', headers: { cookie } });
      expect(api.statusCode).toBe(403);
    }
  });
});
