import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../factories.ts';
import { login } from '../sessions.ts';
import { buildWhatsappApp, type WhatsappTestApp } from './helpers.ts';

const readPageData = (html: string) =>
  JSON.parse(/<script type="application\/json" id="page-data">([\s\S]*?)<\/script>/.exec(html)![1]!.replace(/\\u003c/g, '<'));

/** The WhatsApp tab of the operator inbox (/superadmin/whatsapp): its first paint. */
describe('the WhatsApp inbox page (/superadmin/whatsapp)', () => {
  let t: WhatsappTestApp;
  beforeAll(async () => {
    t = await buildWhatsappApp();
  });
  afterAll(() => t?.close());

  it('before a number is saved: the channel state and no threads', async () => {
    const res = await t.app.inject({ url: '/superadmin/whatsapp', headers: { cookie: t.superadmin } });
    expect(res.statusCode).toBe(200);
    const data = readPageData(res.body);
    expect(data.status).toMatchObject({ configured: true, connected: false, send_enabled: false });
    expect(data).toMatchObject({ conversations: [], list_timeout_ms: 15_000, max_text_chars: 4096 });
  });

  it('gives the stored threads in the first paint with names and the window, never the token', async () => {
    await t.setup();
    await t.post(t.fake.inbound('5491155550001', { type: 'text', text: { body: 'hola' } }, { profileName: 'Marta' }).body);
    const res = await t.app.inject({ url: '/superadmin/whatsapp', headers: { cookie: t.superadmin } });
    const data = readPageData(res.body);
    expect(data.status).toMatchObject({ connected: true, display_phone_number: t.fake.displayPhoneNumber });
    expect(data.conversations).toMatchObject([
      { wa_id: '5491155550001', profile_name: 'Marta', last_message_text: 'hola', window_open: true },
    ]);
    expect(res.body).not.toContain(t.fake.token);
    expect(res.headers['content-security-policy']).toContain("img-src 'self'");
  });

  it('sends anyone but a superadmin away', async () => {
    const admin = await makeUser(t.container);
    const cookie = (await login(t.app, admin.email, admin.password)).cookie;
    const res = await t.app.inject({ url: '/superadmin/whatsapp', headers: { cookie } });
    expect(res.statusCode).toBe(302);
    expect((await t.app.inject({ url: '/superadmin/whatsapp' })).statusCode).toBe(302);
  });
});
