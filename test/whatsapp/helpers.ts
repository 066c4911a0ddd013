import type { LightMyRequestResponse } from 'fastify';
import { buildTestApp, type TestApp, type TestAppOptions } from '../app.ts';
import { makeUser } from '../factories.ts';
import { type FakeWhatsapp, startFakeWhatsapp } from '../fakes/whatsapp.fake.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

export const WA_VERIFY_TOKEN = 'wa-verify-token-123';

export interface WhatsappTestApp extends TestApp {
  fake: FakeWhatsapp;
  superadmin: string;
  /** Sets up the channel (phone number id, WABA id, token) through the operator API. */
  setup(): Promise<void>;
  /** Injects exactly `raw` at POST /api/whatsapp, signed with the app secret unless told otherwise. */
  post(raw: string | object, options?: { secret?: string; signature?: string | null }): Promise<LightMyRequestResponse>;
}

export async function buildWhatsappApp(
  options: { env?: Record<string, string>; timeoutMs?: number; overrides?: TestAppOptions['overrides'] } = {},
): Promise<WhatsappTestApp> {
  const fake = await startFakeWhatsapp();
  const t = await buildTestApp({
    env: {
      WHATSAPP_APP_SECRET: fake.appSecret,
      WHATSAPP_VERIFY_TOKEN: WA_VERIFY_TOKEN,
      WHATSAPP_GRAPH_URL: fake.url,
      WHATSAPP_GRAPH_VERSION: fake.version,
      AUTH_LOGIN_LIMIT_PER_CLIENT: '1000',
      ...options.env,
    },
    overrides: { ...options.overrides, ...(options.timeoutMs ? { whatsappTuning: { timeoutMs: options.timeoutMs } } : {}) },
  });
  const user = await makeUser(t.container, { superadmin: true });
  const superadmin = (await login(t.app, user.email, user.password)).cookie;
  return {
    ...t,
    fake,
    superadmin,
    async setup() {
      const res = await t.app.inject({
        method: 'PUT',
        url: '/api/superadmin/whatsapp/channel',
        headers: { cookie: superadmin, ...SAME_ORIGIN },
        payload: {
          phone_number_id: fake.phoneNumberId,
          waba_id: fake.wabaId,
          token: fake.token,
          display_phone_number: fake.displayPhoneNumber,
        },
      });
      if (res.statusCode !== 200) throw new Error(`channel setup answered ${res.statusCode}: ${res.body}`);
    },
    async post(payload, opts = {}) {
      const raw = typeof payload === 'string' ? payload : JSON.stringify(payload);
      const signature = opts.signature === undefined ? fake.sign(raw, opts.secret) : opts.signature;
      return t.app.inject({
        method: 'POST',
        url: '/api/whatsapp',
        headers: { 'content-type': 'application/json', ...(signature === null ? {} : { 'x-hub-signature-256': signature }) },
        payload: raw,
      });
    },
    async close() {
      await t.close();
      await fake.close();
    },
  };
}
