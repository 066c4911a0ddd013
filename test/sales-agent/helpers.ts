import { createHmac } from 'node:crypto';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeUser } from '../factories.ts';
import { type FakeInstagram, inboundItem, metaDelivery } from '../fakes/instagram.fake.ts';
import { HUB_SECRET, instagramEnv } from '../instagram/helpers.ts';
import { login } from '../sessions.ts';

export const CUSTOMER = '7100000000000001';
export const CUSTOMER_2 = '7100000000000002';
export const CUSTOMER_3 = '7100000000000003';
export const STRANGER = '7199999999999999';

export interface AgentApp extends TestApp {
  superadmin: string;
  clock: { now(): Date; advance(ms: number): void };
  /** Posts a body to the Instagram webhook, signed as Meta signs it: the answer's status. */
  postSigned(raw: string): Promise<number>;
  /** Posts a signed Meta delivery with one inbound message. */
  webhook(mid: string, text: string, options?: { from?: string; at?: number }): Promise<number>;
  hub(mid: string, text: string, options?: { from?: string; at?: number }): Promise<number>;
  turns(): Promise<Record<string, unknown>[]>;
  sends(): number;
}

export async function buildAgentApp(fake: FakeInstagram, env: Record<string, string>): Promise<AgentApp> {
  let now = Date.now();
  const clock = {
    now: () => new Date(now),
    advance: (ms: number) => {
      now += ms;
    },
  };
  const t = await buildTestApp({
    env: instagramEnv(fake, {
      SALES_AGENT_ACCOUNT_ID: fake.account.userId,
      SALES_AGENT_SENDER_IDS: `${CUSTOMER},${CUSTOMER_2},${CUSTOMER_3}`,
      ...env,
    }),
    overrides: { clock, instagramTuning: { readIntervalMs: 0 } },
  });
  const user = await makeUser(t.container, { superadmin: true });
  const superadmin = (await login(t.app, user.email, user.password)).cookie;
  const start = await t.app.inject({ url: '/superadmin/instagram/connect', headers: { cookie: superadmin } });
  const authorize = await fetch(start.headers.location as string, { redirect: 'manual' });
  const callback = new URL((authorize.headers.get('location') ?? '').replace(/#_$/, ''));
  const connected = await t.app.inject({ url: `${callback.pathname}${callback.search}`, headers: { cookie: superadmin } });
  if (connected.statusCode !== 200) throw new Error(`connect failed: ${connected.body}`);
  const delivery = (mid: string, text: string, o: { from?: string; at?: number } = {}) =>
    metaDelivery(fake.account.userId, [inboundItem(fake.account.userId, o.from ?? CUSTOMER, mid, text, o.at ?? now)]);
  const postSigned = async (raw: string) =>
    (
      await t.app.inject({
        method: 'POST',
        url: '/api/webhooks/instagram',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': fake.sign(raw) },
        payload: raw,
      })
    ).statusCode;
  return {
    ...t,
    superadmin,
    clock,
    postSigned,
    webhook: (mid, text, options) => postSigned(delivery(mid, text, options)),
    async hub(mid, text, options) {
      const raw = delivery(mid, text, options);
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/webhooks/channels',
        headers: {
          'content-type': 'application/json',
          'x-channels-signature': createHmac('sha256', HUB_SECRET).update(raw).digest('hex'),
        },
        payload: raw,
      });
      return res.statusCode;
    },
    turns: () => t.container.db.query('SELECT * FROM sales_agent_turns ORDER BY received_at, inbound_mid'),
    sends: () => fake.requests.filter((r) => r.method === 'POST' && /\/messages$/.test(r.path)).length,
  };
}
