import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { graphTime, inboundItem, metaDelivery, metaEscape } from '../fakes/instagram.fake.ts';
import { buildInstagramApp, CRON_SECRET, HUB_SECRET, type InstagramTestApp, META_SECRET, VERIFY_TOKEN } from './helpers.ts';

describe('instagram webhooks', () => {
  let t: InstagramTestApp;
  let account = '';
  const customer = '6543210987654321';
  beforeAll(async () => {
    t = await buildInstagramApp();
    expect((await t.connect()).status).toBe(200);
    account = t.fake.account.userId;
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    await t.container.db.query('DELETE FROM instagram_conversations');
    await t.container.db.query('DELETE FROM instagram_reactions');
  });

  const post = (raw: string, headers: Record<string, string>, url = '/api/webhooks/instagram') =>
    t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload: raw });
  const signed = (raw: string, secret = t.fake.appSecret) => post(raw, { 'x-hub-signature-256': t.fake.sign(raw, secret) });
  const messages = () =>
    t.container.db.query<{
      mid: string;
      text: string | null;
      direction: string;
      is_deleted: boolean;
      is_external_echo: boolean;
      source: string;
    }>('SELECT mid, text, direction, is_deleted, is_external_echo, source FROM instagram_messages ORDER BY sent_at, mid');

  describe('GET verification', () => {
    it.each(['/api/webhooks/instagram', '/api/webhooks/channels'])('%s answers the challenge as plain text', async (url) => {
      const res = await t.app.inject({
        url: `${url}?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1158201444`,
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.body).toBe('1158201444');
    });

    it('refuses a wrong token, a wrong mode, missing parameters and a non-alphanumeric challenge', async () => {
      const base = '/api/webhooks/instagram';
      expect((await t.app.inject({ url: `${base}?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1` })).statusCode).toBe(
        403,
      );
      expect(
        (await t.app.inject({ url: `${base}?hub.mode=unsubscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1` })).statusCode,
      ).toBe(403);
      expect((await t.app.inject({ url: base })).statusCode).toBe(403);
      const xss = await t.app.inject({
        url: `${base}?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=%3Cscript%3E`,
      });
      expect(xss.statusCode).toBe(400);
      expect(xss.body).not.toContain('<script>');
    });
  });

  describe('POST signature (fail-closed)', () => {
    const raw = () => metaDelivery(account, [inboundItem(account, customer, `m-sig-${Date.now()}`, 'hola')]);

    it('stores nothing and answers 403 without the header, with a wrong prefix, a wrong secret or re-serialized bytes', async () => {
      const body = raw();
      expect((await post(body, {})).statusCode).toBe(403);
      const sha1 = `sha1=${createHmac('sha1', t.fake.appSecret).update(body).digest('hex')}`;
      expect((await post(body, { 'x-hub-signature-256': sha1 })).statusCode).toBe(403);
      expect((await post(body, { 'x-hub-signature-256': t.fake.sign(body).replace('sha256=', '') })).statusCode).toBe(403);
      const wrong = await signed(body, 'not-the-secret');
      expect(wrong.statusCode).toBe(403);
      expect(wrong.json()).toMatchObject({ code: 'invalid_signature' });
      expect(await messages()).toEqual([]);
    });

    it('verifies the exact escaped bytes Meta sends (\\u00e4, \\/), not a re-serialization', async () => {
      const body = metaDelivery(account, [inboundItem(account, customer, 'm-escaped', 'Hä / <ok> 50% @tienda')]);
      expect(body).toContain('\\u00e4');
      expect(body).toContain('\\/');
      const reserialized = JSON.stringify(JSON.parse(body));
      expect((await post(body, { 'x-hub-signature-256': t.fake.sign(reserialized) })).statusCode).toBe(403);
      expect((await signed(body)).statusCode).toBe(200);
      expect((await messages())[0]?.text).toBe('Hä / <ok> 50% @tienda');
    });

    it('accepts the Instagram app secret and META_APP_SECRET; hex case does not matter', async () => {
      expect((await signed(raw())).statusCode).toBe(200);
      expect((await signed(raw(), META_SECRET)).statusCode).toBe(200);
      const body = raw();
      expect((await post(body, { 'x-hub-signature-256': `sha256=${t.fake.sign(body).slice(7).toUpperCase()}` })).statusCode).toBe(
        200,
      );
      expect(await messages()).toHaveLength(3);
    });

    it('answers 500 when storing fails after a valid signature, so Meta retries', async () => {
      await t.container.db.query('ALTER TABLE instagram_messages RENAME TO instagram_messages_away');
      try {
        const res = await signed(raw());
        expect(res.statusCode).toBe(500);
      } finally {
        await t.container.db.query('ALTER TABLE instagram_messages_away RENAME TO instagram_messages');
      }
    });
  });

  describe('payloads', () => {
    it('ignores other objects, other accounts and the dashboard test payload (200, nothing stored)', async () => {
      const other = metaDelivery('999', [inboundItem('999', customer, 'm-other', 'x')]);
      expect((await signed(other)).json().received).toMatchObject({ stored: 0, ignored: 1 });
      const page = metaEscape(
        JSON.stringify({ object: 'page', entry: [{ id: account, messaging: [inboundItem(account, customer, 'm-p', 'x')] }] }),
      );
      expect((await signed(page)).statusCode).toBe(200);
      const test = JSON.stringify({
        object: 'instagram',
        entry: [
          {
            id: '0',
            time: 1,
            changes: [
              {
                field: 'messages',
                value: {
                  sender: { id: '1' },
                  recipient: { id: '2' },
                  timestamp: '1527459824',
                  message: { mid: 'random_mid', text: 'random_text' },
                },
              },
            ],
          },
        ],
      });
      expect((await signed(test)).statusCode).toBe(200);
      expect(await messages()).toEqual([]);
    });

    it('stores standby[] items, several entries and several items per POST, and notes the last webhook', async () => {
      const body = JSON.stringify({
        object: 'instagram',
        entry: [
          {
            id: account,
            time: Date.now(),
            messaging: [inboundItem(account, customer, 'm-a', 'uno'), inboundItem(account, '777', 'm-b', 'dos')],
          },
          { id: account, time: Date.now(), standby: [inboundItem(account, customer, 'm-c', 'tres')] },
        ],
      });
      expect((await signed(body)).json().received.stored).toBe(3);
      expect((await messages()).map((m) => m.mid).sort()).toEqual(['m-a', 'm-b', 'm-c']);
      const status = await t.app.inject({ url: '/api/superadmin/instagram/status', headers: { cookie: t.superadmin } });
      expect(status.json().status.last_webhook_at).not.toBeNull();
    });

    it('stores messages with text PostgreSQL cannot keep (NUL, half an emoji) cleaned: 200 and every event of the POST', async () => {
      const body = metaDelivery(account, [
        inboundItem(account, customer, 'm-1', 'ok'),
        inboundItem(account, '222', 'm-nul', 'a\u0000b \udc00'),
        inboundItem(account, '333', 'm-3', 'after'),
      ]);
      const res = await signed(body);
      expect(res.statusCode).toBe(200);
      expect(res.json().received.stored).toBe(3);
      const stored = await messages();
      expect(stored.map((m) => m.mid).sort()).toEqual(['m-1', 'm-3', 'm-nul']);
      expect(stored.find((m) => m.mid === 'm-nul')).toMatchObject({ text: 'ab \ufffd' });
    });

    it('a POST with an item PostgreSQL cannot keep (kilobyte mid, far-off or invalid time) is 200 and keeps the rest', async () => {
      const before = Date.now();
      const body = metaDelivery(account, [
        inboundItem(account, customer, 'm-ok', 'ok'),
        inboundItem(account, '222', `m-${'x'.repeat(5000)}`, 'mid enorme'),
        inboundItem(account, '333', 'm-far', 'año 255479', 8e15),
        { ...inboundItem(account, '444', 'm-iso', 'año 275760'), timestamp: '+275760-09-13T00:00:00.000Z' },
        inboundItem(account, '555', 'm-after', 'after'),
      ]);
      const res = await signed(body);
      expect(res.statusCode).toBe(200);
      expect(res.json().received).toMatchObject({ stored: 4, ignored: 1 });
      expect((await messages()).map((m) => m.mid).sort()).toEqual(['m-after', 'm-far', 'm-iso', 'm-ok']);
      const times = await t.container.db.query<{ sent_at: string }>(
        "SELECT sent_at FROM instagram_messages WHERE mid IN ('m-far', 'm-iso')",
      );
      for (const row of times) expect(new Date(row.sent_at).getTime()).toBeGreaterThanOrEqual(before - 1000);
    });

    it('stores an echo written in the Instagram app as outbound', async () => {
      const echo = {
        sender: { id: account },
        recipient: { id: customer },
        timestamp: Date.now(),
        message: { mid: 'm-echo', text: 'desde la app', is_echo: true },
      };
      await signed(metaDelivery(account, [echo]));
      expect(await messages()).toMatchObject([{ mid: 'm-echo', direction: 'outbound', is_external_echo: true }]);
      const conversations = await t.container.db.query<{ participant_id: string }>(
        'SELECT participant_id FROM instagram_conversations',
      );
      expect(conversations).toEqual([{ participant_id: customer }]);
    });

    it('keeps a deleted message deleted, whether the delete comes after or before the message', async () => {
      const at = Date.now();
      await signed(
        metaDelivery(account, [
          {
            ...inboundItem(account, customer, 'm-del', 'secreto', at),
            message: { mid: 'm-del', text: 'secreto', attachments: [{ type: 'image', payload: { url: 'https://cdn/x' } }] },
          },
        ]),
      );
      await signed(
        metaDelivery(account, [
          {
            sender: { id: customer },
            recipient: { id: account },
            timestamp: at + 1,
            message: { mid: 'm-del', is_deleted: true },
          },
        ]),
      );
      await signed(
        metaDelivery(account, [
          {
            sender: { id: customer },
            recipient: { id: account },
            timestamp: at,
            message: { mid: 'm-first-del', is_deleted: true },
          },
        ]),
      );
      await signed(metaDelivery(account, [inboundItem(account, customer, 'm-first-del', 'llegó tarde', at)]));
      const rows = await messages();
      expect(rows.map((m) => [m.mid, m.is_deleted, m.text])).toEqual(
        expect.arrayContaining([
          ['m-del', true, null],
          ['m-first-del', true, null],
        ]),
      );
      expect(await t.container.db.query("SELECT 1 FROM instagram_attachments WHERE message_mid = 'm-del'")).toEqual([]);
    });

    it('keeps reply_to, is_unsupported and attachments of each type (no CDN URL stored)', async () => {
      const types = ['audio', 'image', 'video', 'file', 'share', 'story_mention', 'ig_reel', 'reel'];
      const item = {
        sender: { id: customer },
        recipient: { id: account },
        timestamp: Date.now(),
        message: {
          mid: 'm-att',
          reply_to: { mid: 'm-prev' },
          quick_reply: { payload: 'P' },
          referral: { ref: 'r', source: 'ADS', type: 'OPEN_THREAD' },
          attachments: types.map((type) => ({
            type,
            payload: { url: `https://lookaside.fbsbx.com/ig_messaging_cdn/?asset_id=${type}` },
          })),
        },
      };
      const unsupported = { ...inboundItem(account, customer, 'm-unsup', ''), message: { mid: 'm-unsup', is_unsupported: true } };
      await signed(metaDelivery(account, [item, unsupported]));
      const [row] = await t.container.db.query<{ reply_to_mid: string }>(
        "SELECT reply_to_mid FROM instagram_messages WHERE mid = 'm-att'",
      );
      expect(row?.reply_to_mid).toBe('m-prev');
      const attachments = await t.container.db.query<{ id: string; type: string }>(
        "SELECT id, type FROM instagram_attachments WHERE message_mid = 'm-att' ORDER BY position",
      );
      expect(attachments.map((a) => a.type)).toEqual(types);
      expect(attachments[0]?.id).toBe('m-att.0');
      expect(JSON.stringify(await t.container.db.query('SELECT * FROM instagram_attachments'))).not.toContain('lookaside');
      const [unsup] = await t.container.db.query<{ is_unsupported: boolean }>(
        "SELECT is_unsupported FROM instagram_messages WHERE mid = 'm-unsup'",
      );
      expect(unsup?.is_unsupported).toBe(true);
      const [conversation] = await t.container.db.query<{ last_message_text: string }>(
        'SELECT last_message_text FROM instagram_conversations',
      );
      expect(conversation?.last_message_text).toMatch(/^\[|^$/);
    });

    it('keeps reactions and reads even when they arrive before the message, newest first', async () => {
      const at = Date.now();
      const react = (action: string, ts: number) => ({
        sender: { id: customer },
        recipient: { id: account },
        timestamp: ts,
        reaction: { mid: 'm-r', action, reaction: 'love', emoji: '❤️' },
      });
      await signed(metaDelivery(account, [react('react', at + 5)]));
      await signed(
        metaDelivery(account, [
          { sender: { id: customer }, recipient: { id: account }, timestamp: at + 6, read: { mid: 'm-r' } },
        ]),
      );
      await signed(metaDelivery(account, [inboundItem(account, customer, 'm-r', 'hola', at)]));
      await signed(metaDelivery(account, [react('unreact', at + 1)])); // older: ignored
      const conversation = (
        await t.container.db.query<{ id: string; read_mid: string }>('SELECT id, read_mid FROM instagram_conversations')
      )[0]!;
      expect(conversation.read_mid).toBe('m-r');
      const thread = await t.app.inject({
        url: `/api/superadmin/instagram/conversations/${conversation.id}/messages`,
        headers: { cookie: t.superadmin },
      });
      expect(thread.json().messages[0].reactions).toEqual([{ reactor_id: customer, reaction: 'love', emoji: '❤️' }]);
      await signed(metaDelivery(account, [react('unreact', at + 9)]));
      const again = await t.app.inject({
        url: `/api/superadmin/instagram/conversations/${conversation.id}/messages`,
        headers: { cookie: t.superadmin },
      });
      expect(again.json().messages[0].reactions).toEqual([]);
    });

    it('keeps the newest preview when deliveries come out of order and ignores duplicates', async () => {
      const at = Date.now();
      const newer = metaDelivery(account, [inboundItem(account, customer, 'm-new', 'segundo', at + 1000)]);
      await signed(newer);
      await signed(metaDelivery(account, [inboundItem(account, customer, 'm-old', 'primero', at)]));
      await signed(newer);
      const [conversation] = await t.container.db.query<{ last_message_text: string }>(
        'SELECT last_message_text FROM instagram_conversations',
      );
      expect(conversation?.last_message_text).toBe('segundo');
      expect((await messages()).map((m) => m.mid)).toEqual(['m-old', 'm-new']);
    });
  });

  describe('hub fan-out (X-Channels-Signature)', () => {
    const hub = (raw: string, signature?: string) =>
      post(raw, signature === undefined ? {} : { 'x-channels-signature': signature }, '/api/webhooks/channels');
    const hex = (raw: string) => createHmac('sha256', HUB_SECRET).update(raw).digest('hex');

    it('accepts bare hex and the sha256= prefix, over the Meta payload as is', async () => {
      const one = metaDelivery(account, [inboundItem(account, customer, 'm-hub-1', 'uno')]);
      const two = metaDelivery(account, [inboundItem(account, customer, 'm-hub-2', 'dos')]);
      expect((await hub(one, hex(one))).statusCode).toBe(200);
      expect((await hub(two, `sha256=${hex(two)}`)).statusCode).toBe(200);
      expect((await messages()).map((m) => [m.mid, m.source])).toEqual([
        ['m-hub-1', 'hub'],
        ['m-hub-2', 'hub'],
      ]);
    });

    it('refuses a missing or wrong signature with 403 invalid_signature', async () => {
      const raw = metaDelivery(account, [inboundItem(account, customer, 'm-hub-x', 'x')]);
      for (const signature of [undefined, 'abc', hex(`${raw} `), t.fake.sign(raw)]) {
        const res = await hub(raw, signature);
        expect(res.statusCode).toBe(403);
        expect(res.json()).toEqual({ error: expect.any(String), code: 'invalid_signature' });
      }
      expect(await messages()).toEqual([]);
    });
  });

  it('stores one message for 20 concurrent deliveries of the same mid through webhook, hub and sync', async () => {
    const conversation = t.fake.addConversation({ participantId: customer, username: 'cliente', text: 'una sola vez' });
    const mid = conversation.messages[0]!.id;
    const at = new Date(conversation.messages[0]!.created_time.replace('+0000', 'Z')).getTime();
    const raw = metaDelivery(account, [inboundItem(account, customer, mid, 'una sola vez', at)]);
    const cron = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/cron/instagram-inbox-sync',
        headers: { authorization: `Bearer ${CRON_SECRET}` },
      });
    const deliveries = Array.from({ length: 20 }, (_, i) =>
      i % 3 === 0
        ? signed(raw)
        : i % 3 === 1
          ? post(
              raw,
              { 'x-channels-signature': createHmac('sha256', HUB_SECRET).update(raw).digest('hex') },
              '/api/webhooks/channels',
            )
          : cron(),
    );
    const answers = await Promise.all(deliveries);
    for (const res of answers) expect(res.statusCode).toBe(200);
    const rows = await t.container.db.query<{ n: number }>('SELECT count(*)::int AS n FROM instagram_messages WHERE mid = $1', [
      mid,
    ]);
    expect(rows[0]?.n).toBe(1);
    expect(await t.container.db.query('SELECT 1 FROM instagram_conversations')).toHaveLength(1);
    expect(graphTime(new Date(at))).toBe(conversation.messages[0]!.created_time);
    t.fake.reset();
  });
});
