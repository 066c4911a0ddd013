import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inboundItem, metaDelivery } from '../fakes/instagram.fake.ts';
import { SAME_ORIGIN } from '../sessions.ts';
import { buildInstagramApp, CRON_SECRET, type InstagramTestApp } from './helpers.ts';

const API = '/api/superadmin/instagram';

describe('instagram operator API', () => {
  let t: InstagramTestApp;
  let off: InstagramTestApp;
  beforeAll(async () => {
    t = await buildInstagramApp({ env: { INSTAGRAM_SEND_ENABLED: 'YES' } });
    expect((await t.connect()).status).toBe(200);
    off = await buildInstagramApp({ env: { INSTAGRAM_SEND_ENABLED: 'maybe' }, fake: t.fake });
    expect((await off.connect()).status).toBe(200);
  });
  afterAll(async () => {
    await off.close();
    await t.close();
    await t.fake.close();
  });
  beforeEach(async () => {
    t.fake.reset();
    t.fake.validTokens.add(
      t.container.cipher.decrypt(
        (await t.container.db.query<{ t: string }>('SELECT token_encrypted AS t FROM instagram_channel'))[0]!.t,
      ),
    );
    await t.container.db.query('DELETE FROM instagram_conversations');
    await t.container.db.query(
      'UPDATE instagram_channel SET reconnect_required = false, sync_lease_until = NULL, last_sync_at = NULL',
    );
  });

  const as = (cookie: string) => ({ cookie, ...SAME_ORIGIN });
  const get = (url: string, cookie = t.superadmin) => t.app.inject({ url, headers: as(cookie) });
  const send = (payload: unknown, app = t) =>
    app.app.inject({ method: 'POST', url: `${API}/messages`, headers: as(app.superadmin), payload: payload as object });
  const customer = '6543210987654321';
  const deliver = (mid: string, text: string) => {
    const raw = metaDelivery(t.fake.account.userId, [inboundItem(t.fake.account.userId, customer, mid, text)]);
    return t.app.inject({
      method: 'POST',
      url: '/api/webhooks/instagram',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': t.fake.sign(raw) },
      payload: raw,
    });
  };
  const conversationId = async () =>
    (await t.container.db.query<{ id: string }>('SELECT id FROM instagram_conversations'))[0]!.id;

  describe('access', () => {
    const routes = [
      ['GET', `${API}/status`],
      ['GET', `${API}/conversations`],
      ['GET', `${API}/conversations/00000000-0000-4000-8000-000000000000/messages`],
      ['POST', `${API}/messages`],
      ['GET', `${API}/attachments?id=1`],
    ] as const;
    it.each(routes)('%s %s: 401 without a session, 403 for cashiers, admins, and never trusts x-user', async (method, url) => {
      const payload = method === 'POST' ? { conversation_id: '00000000-0000-4000-8000-000000000000', text: 'x' } : undefined;
      const anonymous = await t.app.inject({ method, url, headers: SAME_ORIGIN, ...(payload ? { payload } : {}) });
      expect(anonymous.statusCode).toBe(401);
      const xuser = await t.app.inject({
        method,
        url,
        headers: { ...SAME_ORIGIN, 'x-user': '1', 'x-user-id': '1' },
        ...(payload ? { payload } : {}),
      });
      expect(xuser.statusCode).toBe(401);
      for (const cookie of [t.cookies.cashier, t.cookies.admin]) {
        const res = await t.app.inject({ method, url, headers: as(cookie), ...(payload ? { payload } : {}) });
        expect(res.statusCode).toBe(403);
        expect(res.json().code).toBe('forbidden');
      }
    });

    it('redirects non-superadmins away from the connection pages', async () => {
      for (const url of ['/superadmin/instagram/connect', '/superadmin/instagram/callback?code=x&state=y']) {
        expect((await t.app.inject({ url })).headers.location).toMatch(/^\/login\?next=/);
        const cashier = await t.app.inject({ url, headers: { cookie: t.cookies.cashier } });
        expect(cashier.statusCode).toBe(302);
        expect(cashier.headers.location).toBe('/');
      }
    });
  });

  it('status tells the connection, the send flag and when webhooks and syncs last happened', async () => {
    const res = await get(`${API}/status`);
    expect(res.json().status).toMatchObject({
      configured: true,
      connected: true,
      account: { id: '17841400774391234', username: 'mostrador.ar' },
      reconnect_required: false,
      send_enabled: true,
      subscribed: true,
    });
    expect(JSON.stringify(res.json())).not.toMatch(/IGAA|token_encrypted/);
    expect((await off.app.inject({ url: `${API}/status`, headers: as(off.superadmin) })).json().status.send_enabled).toBe(false);
  });

  it('lists stored threads first (empty is valid), then syncs with the Graph in the background without /me', async () => {
    t.fake.addConversation({ participantId: customer, username: 'cliente', text: 'hola desde Graph' });
    const first = await get(`${API}/conversations`);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({
      conversations: [],
      connection: { configured: true, connected: true, reconnect_required: false },
    });
    await t.container.instagram.service.idle();
    const second = await get(`${API}/conversations`);
    expect(second.json().conversations).toMatchObject([
      { participant_id: customer, participant_username: 'cliente', last_message_text: 'hola desde Graph' },
    ]);
    await t.container.instagram.service.idle();
    // Rule 4: the professional id is stored, so opening the inbox never asks /me.
    expect(t.fake.requests.some((r) => r.path.endsWith('/me'))).toBe(false);
    // Rule 1: the list poll asks participants and the last-message preview only.
    const list = t.fake.requests.find((r) => r.path.endsWith('/conversations'))!;
    expect(list.query.get('fields')).toBe('participants,updated_time,messages.limit(1){id,message,created_time,from}');
  });

  it('shows only threads of the connected account (rule 5)', async () => {
    await t.container.db.query(
      `INSERT INTO instagram_conversations (id, account_id, participant_id, updated_at, created_at)
       VALUES ('11111111-1111-4111-8111-111111111111', '5550001', '42', now(), now())`,
    );
    expect((await get(`${API}/conversations`)).json().conversations).toEqual([]);
    expect((await get(`${API}/conversations/11111111-1111-4111-8111-111111111111/messages`)).statusCode).toBe(404);
    await t.container.instagram.service.idle();
  });

  it('opens a thread: reads the Graph with attachment fields, stores once, labels authors', async () => {
    const audio = Buffer.from('0123456789abcdef');
    const conversation = t.fake.addConversation({
      participantId: customer,
      username: 'cliente',
      text: '',
      attachments: [{ id: '777001', mime_type: 'audio/mp4', name: 'audioclip.mp4', size: audio.length, bytes: audio }],
    });
    await deliver(conversation.messages[0]!.id, '');
    const id = await conversationId();
    const res = await get(`${API}/conversations/${id}/messages`);
    expect(res.statusCode).toBe(200);
    const [message] = res.json().messages;
    expect(message).toMatchObject({ id: conversation.messages[0]!.id, direction: 'inbound', author: '@cliente' });
    expect(message.attachments).toEqual([{ id: '777001', type: null, mime_type: 'audio/mp4', name: 'audioclip.mp4', size: 16 }]);
    expect(res.json().messages).toHaveLength(1);
  });

  describe('attachments', () => {
    const setup = async () => {
      const audio = Buffer.from(Array.from({ length: 100 }, (_, i) => i));
      const conversation = t.fake.addConversation({
        participantId: customer,
        text: '',
        attachments: [{ id: '888001', mime_type: 'audio/mp4', name: 'a.mp4', size: 100, bytes: audio }],
      });
      await get(`${API}/conversations`);
      await t.container.instagram.service.idle();
      await get(`${API}/conversations/${await conversationId()}/messages`);
      return { audio, conversation };
    };

    it('streams the bytes with the content type and Range support, fetching a fresh URL each time', async () => {
      const { audio } = await setup();
      const full = await get(`${API}/attachments?id=888001`);
      expect(full.statusCode).toBe(200);
      expect(full.headers['content-type']).toBe('audio/mp4');
      expect(full.rawPayload.equals(audio)).toBe(true);
      const part = await t.app.inject({
        url: `${API}/attachments?id=888001`,
        headers: { ...as(t.superadmin), range: 'bytes=10-19' },
      });
      expect(part.statusCode).toBe(206);
      expect(part.headers['content-range']).toBe('bytes 10-19/100');
      expect(part.rawPayload.equals(audio.subarray(10, 20))).toBe(true);
      const detailReads = t.fake.requests.filter((r) => r.query.get('fields')?.includes('file_url'));
      expect(detailReads).toHaveLength(2);
      // The token never reaches the browser: no redirect to the CDN, no token in headers or body.
      for (const res of [full, part]) {
        expect(res.headers.location).toBeUndefined();
        expect(JSON.stringify(res.headers)).not.toMatch(/IGAA|cdn/);
      }
    });

    it('never lets a file the customer sent run on our origin: HTML is a download, nothing runs scripts', async () => {
      t.fake.addConversation({
        participantId: customer,
        text: '',
        attachments: [
          { id: '888101', mime_type: 'text/html', name: 'x.html', size: 20, bytes: Buffer.from('<script>alert(1)</script>') },
          { id: '888102', mime_type: 'audio/mp4', name: 'a.mp4', size: 3, bytes: Buffer.from('mp4') },
        ],
      });
      await get(`${API}/conversations`);
      await t.container.instagram.service.idle();
      await get(`${API}/conversations/${await conversationId()}/messages`);
      const page = await get(`${API}/attachments?id=888101`);
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-disposition']).toBe('attachment');
      expect(page.headers['content-security-policy']).toBe('sandbox');
      const audio = await get(`${API}/attachments?id=888102`);
      expect(audio.headers['content-type']).toBe('audio/mp4');
      expect(audio.headers['content-disposition']).toBe('inline');
      expect(audio.headers['content-security-policy']).toBe('sandbox');
    });

    it('asks for a fresh URL once when the CDN URL expired', async () => {
      const { audio } = await setup();
      t.fake.knobs.expireFirstMediaUrl = true;
      const res = await get(`${API}/attachments?id=888001`);
      expect(res.statusCode).toBe(200);
      expect(res.rawPayload.equals(audio)).toBe(true);
    });

    it('streams an attachment a webhook brought (no Graph id yet) by its position in the message', async () => {
      const audio = Buffer.from('webhook audio bytes');
      const conversation = t.fake.addConversation({
        participantId: customer,
        text: '',
        attachments: [{ id: '999001', mime_type: 'audio/mp4', name: 'v.mp4', size: audio.length, bytes: audio }],
      });
      const mid = conversation.messages[0]!.id;
      const raw = metaDelivery(t.fake.account.userId, [
        {
          sender: { id: customer },
          recipient: { id: t.fake.account.userId },
          timestamp: Date.now(),
          message: { mid, attachments: [{ type: 'audio', payload: { url: 'https://lookaside.fbsbx.com/x' } }] },
        },
      ]);
      await t.app.inject({
        method: 'POST',
        url: '/api/webhooks/instagram',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': t.fake.sign(raw) },
        payload: raw,
      });
      const res = await get(`${API}/attachments?id=${encodeURIComponent(`${mid}.0`)}`);
      expect(res.statusCode).toBe(200);
      expect(res.rawPayload.equals(audio)).toBe(true);
      expect(res.headers['content-type']).toBe('audio/mp4');
    });

    it('refuses a bearer header (superadmin cookie only) and unknown ids', async () => {
      await setup();
      const token = t.superadmin.split('=')[1]!;
      const bearer = await t.app.inject({ url: `${API}/attachments?id=888001`, headers: { authorization: `Bearer ${token}` } });
      expect(bearer.statusCode).toBe(403);
      const both = await t.app.inject({
        url: `${API}/attachments?id=888001`,
        headers: { ...as(t.superadmin), authorization: `Bearer ${token}` },
      });
      expect(both.statusCode).toBe(403);
      expect((await get(`${API}/attachments?id=nope`)).statusCode).toBe(404);
    });
  });

  describe('sending', () => {
    it('is refused with send_disabled when the flag is off, and nothing reaches Instagram', async () => {
      const before = t.fake.requests.length;
      const res = await send({ conversation_id: '00000000-0000-4000-8000-000000000000', text: 'hola' }, off);
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('send_disabled');
      expect((await send({ text: 'x'.repeat(5000) }, off)).json().code).toBe('send_disabled');
      expect(t.fake.requests.length).toBe(before);
    });

    it('reads only true, 1 and yes (any case) as on', async () => {
      const { loadConfig } = await import('../../src/config.ts');
      const read = (value: string) =>
        loadConfig({ SECRET_KEY: 'x'.repeat(40), INSTAGRAM_SEND_ENABLED: value }).instagram.sendEnabled;
      expect(['true', 'TRUE', '1', 'yes', 'Yes'].map(read)).toEqual([true, true, true, true, true]);
      expect(['on', 'si', '0', 'false', 'no', 'y'].map(read)).toEqual([false, false, false, false, false, false]);
      expect(loadConfig({ SECRET_KEY: 'x'.repeat(40) }).instagram.sendEnabled).toBe(false);
    });

    it('sends, stores the returned message_id once even when the echo arrives before the answer', async () => {
      t.fake.addConversation({ participantId: customer, username: 'cliente' });
      await deliver('m-in-1', 'hola');
      const id = await conversationId();
      t.fake.onSend = async (message) => {
        const echo = metaDelivery(t.fake.account.userId, [
          {
            sender: { id: t.fake.account.userId },
            recipient: { id: customer },
            timestamp: Date.now(),
            message: { mid: message.id, text: message.message, is_echo: true },
          },
        ]);
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/webhooks/instagram',
          headers: { 'content-type': 'application/json', 'x-hub-signature-256': t.fake.sign(echo) },
          payload: echo,
        });
        expect(res.statusCode).toBe(200);
      };
      const res = await send({ conversation_id: id, text: 'Gracias 🙌' });
      expect(res.statusCode).toBe(201);
      const { message } = res.json();
      expect(message).toMatchObject({
        direction: 'outbound',
        text: 'Gracias 🙌',
        author: '@mostrador.ar',
        from_instagram_app: false,
      });
      const rows = await t.container.db.query<{ n: number }>('SELECT count(*)::int AS n FROM instagram_messages WHERE mid = $1', [
        message.id,
      ]);
      expect(rows[0]?.n).toBe(1);
      // The echo arriving later is a duplicate too.
      expect(
        (await get(`${API}/conversations/${id}/messages`)).json().messages.filter((m: { id: string }) => m.id === message.id),
      ).toHaveLength(1);
    });

    it('counts the 1,000-byte limit in UTF-8 bytes (422 above), locally', async () => {
      await deliver('m-in-2', 'hola');
      const id = await conversationId();
      const before = t.fake.requests.length;
      const tooLong = await send({ conversation_id: id, text: '🙂'.repeat(251) }); // 1004 bytes, 251 characters
      expect(tooLong.statusCode).toBe(422);
      expect(tooLong.json().details).toEqual([{ path: '/text', message: 'must be 1 to 1000 bytes in UTF-8' }]);
      // Spaces only: blank, not "too long".
      const blank = await send({ conversation_id: id, text: '   ' });
      expect([blank.statusCode, blank.json().details]).toEqual([422, [{ path: '/text', message: 'must not be blank' }]]);
      expect(t.fake.requests.length).toBe(before);
      t.fake.addConversation({ participantId: customer });
      expect((await send({ conversation_id: id, text: '🙂'.repeat(250) })).statusCode).toBe(201);
    });

    it('answers clear codes: window closed, user not found, reconnect required (190 marks the channel)', async () => {
      await deliver('m-in-3', 'hola');
      const id = await conversationId();
      const nobody = await send({ conversation_id: id, text: 'hola' });
      expect(nobody.json().code).toBe('recipient_not_found');
      t.fake.addConversation({ participantId: customer });
      t.fake.knobs.windowClosed = true;
      const closed = await send({ conversation_id: id, text: 'hola' });
      expect(closed.statusCode).toBe(422);
      expect(closed.json().code).toBe('window_closed');
      t.fake.knobs.windowClosed = false;
      t.fake.validTokens.clear();
      const expired = await send({ conversation_id: id, text: 'hola' });
      expect(expired.statusCode).toBe(409);
      expect(expired.json().code).toBe('reconnect_required');
      expect((await get(`${API}/status`)).json().status.reconnect_required).toBe(true);
    });
  });

  describe('cron backup poll', () => {
    const path = '/api/cron/instagram-inbox-sync';
    it.each(['GET', 'POST'] as const)('%s needs Bearer CRON_SECRET (401 otherwise)', async (method) => {
      expect((await t.app.inject({ method, url: path })).statusCode).toBe(401);
      expect((await t.app.inject({ method, url: path, headers: { authorization: 'Bearer wrong' } })).statusCode).toBe(401);
      expect((await t.app.inject({ method, url: path, headers: { cookie: t.superadmin } })).statusCode).toBe(401);
      const ok = await t.app.inject({ method, url: path, headers: { authorization: `Bearer ${CRON_SECRET}` } });
      expect(ok.statusCode).toBe(200);
      expect(ok.json().sync.ran).toBe(true);
    });

    it('backfills messages the webhooks missed and re-subscribes a lost subscription', async () => {
      const conversation = t.fake.addConversation({ participantId: customer, username: 'cliente', text: 'primero' });
      conversation.messages.unshift({
        ...conversation.messages[0]!,
        id: 'm-missed-2',
        message: 'segundo',
        created_time: conversation.messages[0]!.created_time,
      });
      await t.container.db.query('UPDATE instagram_channel SET subscription_checked_at = NULL');
      t.fake.subscribedFields = [];
      const res = await t.app.inject({ method: 'POST', url: path, headers: { authorization: `Bearer ${CRON_SECRET}` } });
      expect(res.json().sync).toMatchObject({ ran: true, resubscribed: true });
      expect(t.fake.subscribedFields).toContain('messages');
      const mids = (await t.container.db.query<{ mid: string }>('SELECT mid FROM instagram_messages ORDER BY mid')).map(
        (r) => r.mid,
      );
      expect(mids).toEqual(expect.arrayContaining([conversation.messages[1]!.id, 'm-missed-2']));
    });

    it('runs once across processes: a second claim while one holds the lease is busy', async () => {
      await t.container.db.query("UPDATE instagram_channel SET sync_lease_until = now() + interval '30 seconds'");
      const res = await t.app.inject({ method: 'POST', url: path, headers: { authorization: `Bearer ${CRON_SECRET}` } });
      expect(res.json().sync).toEqual({ ran: false, reason: 'busy' });
      await t.container.db.query('UPDATE instagram_channel SET sync_lease_until = NULL');
      const runs = await Promise.all(Array.from({ length: 4 }, () => t.container.instagram.service.sync({ scheduled: true })));
      expect(runs.filter((r) => r.ran)).toHaveLength(1);
      expect(runs.filter((r) => r.reason === 'busy')).toHaveLength(3);
      // The next minute's run is not skipped.
      await t.container.db.query("UPDATE instagram_channel SET last_sync_at = now() - interval '50 seconds'");
      expect((await t.container.instagram.service.sync({ scheduled: true })).ran).toBe(true);
    });
  });
});
