import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeInstagram, startFakeInstagram } from '../fakes/instagram.fake.ts';
import { CRON_SECRET } from '../instagram/helpers.ts';
import { SAME_ORIGIN } from '../sessions.ts';
import { type AgentApp, buildAgentApp, CUSTOMER, CUSTOMER_2, CUSTOMER_3, STRANGER } from './helpers.ts';

const S = 1000;
let seq = 0;
const mid = () => {
  seq += 1;
  return `aWdfagent${Date.now()}x${seq}`;
};

describe('sales agent on the operator inbox', () => {
  let fake: FakeInstagram;
  let on: AgentApp;
  let held: AgentApp;
  let off: AgentApp;

  beforeAll(async () => {
    fake = await startFakeInstagram();
    on = await buildAgentApp(fake, { SALES_AGENT_ENABLED: 'true', INSTAGRAM_SEND_ENABLED: 'true' });
    held = await buildAgentApp(fake, { SALES_AGENT_ENABLED: 'true', INSTAGRAM_SEND_ENABLED: 'false' });
    off = await buildAgentApp(fake, { INSTAGRAM_SEND_ENABLED: 'true' });
  }, 120_000);

  afterAll(async () => {
    await on?.close();
    await held?.close();
    await off?.close();
    await fake?.close();
  });

  beforeEach(async () => {
    fake.requests.length = 0;
    fake.conversations.length = 0;
    for (const t of [on, held, off]) {
      await t.container.db.query('DELETE FROM sales_agent_handoffs');
      await t.container.db.query('DELETE FROM sales_agent_turns');
      await t.container.db.query('DELETE FROM instagram_conversations');
      await t.container.db.query('UPDATE instagram_channel SET sync_lease_until = NULL, last_sync_at = NULL');
    }
    // Instagram answers a send only to someone with a thread with the account.
    for (const participantId of [CUSTOMER, CUSTOMER_3]) fake.addConversation({ participantId, text: 'hola', at: new Date(0) });
  });

  const tick = (t: AgentApp) => t.container.salesAgent.service.tick();

  it('flag off: no claim, no log row, no reply', async () => {
    expect(await off.webhook(mid(), '¿Cuánto sale el plan Comercio?')).toBe(200);
    expect(await off.turns()).toHaveLength(0);
    off.clock.advance(400 * S);
    expect(await tick(off)).toMatchObject({ ran: false, reason: 'disabled', taken: 0 });
    expect(await off.turns()).toHaveLength(0);
    expect(off.sends()).toBe(0);
  });

  it('first message: send_after 60–300 s; the claim never sends; the minute job sends it once when due', async () => {
    const m = mid();
    await on.webhook(m, 'Hola, ¿cuánto sale el plan Comercio?');
    const [turn] = await on.turns();
    expect(turn).toMatchObject({ inbound_mid: m, status: 'pending', thread_state: 'first', claimed_by: 'webhook' });
    const delay = new Date(turn!['send_after'] as Date).getTime() - new Date(turn!['claimed_at'] as Date).getTime();
    expect(delay).toBeGreaterThanOrEqual(60 * S);
    expect(delay).toBeLessThanOrEqual(300 * S);
    expect(on.sends()).toBe(0);
    on.clock.advance(delay - S);
    expect((await tick(on)).taken).toBe(0);
    expect(on.sends()).toBe(0);
    on.clock.advance(2 * S);
    expect(await tick(on)).toMatchObject({ taken: 1, sent: 1 });
    expect(await tick(on)).toMatchObject({ taken: 0, sent: 0 });
    expect(on.sends()).toBe(1);
    const sent = fake.requests.find((r) => /\/messages$/.test(r.path))!;
    const body = JSON.parse(sent.body) as { recipient: { id: string }; message: { text: string } };
    expect(body.recipient.id).toBe(CUSTOMER);
    expect(body.message.text).toContain('$\u00a024.900');
    const [after] = await on.turns();
    expect(after).toMatchObject({ status: 'sent', decision: 'reply', brain: 'rules' });
    expect(after!['sent_mid']).toBeTruthy();
    expect(after!['reply']).toBe(body.message.text);
  });

  it('follow-up in an active thread (we wrote in the last 30 minutes): send_after 15–60 s', async () => {
    await on.webhook(mid(), '¿Tiene control de stock?');
    on.clock.advance(301 * S);
    expect((await tick(on)).sent).toBe(1);
    on.clock.advance(60 * S);
    const follow = mid();
    await on.webhook(follow, '¿Y sirve para varias sucursales?');
    const turn = (await on.turns()).find((t) => t['inbound_mid'] === follow)!;
    expect(turn['thread_state']).toBe('active');
    const delay = new Date(turn['send_after'] as Date).getTime() - new Date(turn['claimed_at'] as Date).getTime();
    expect(delay).toBeGreaterThanOrEqual(15 * S);
    expect(delay).toBeLessThanOrEqual(60 * S);
  });

  it('delays stay inside their windows over many claims', async () => {
    const svc = on.container.salesAgent.service;
    const conv = (
      await on.container.db.query<{ id: string }>(
        `INSERT INTO instagram_conversations (id, account_id, participant_id, updated_at, created_at)
       VALUES (gen_random_uuid(), $1, $2, now(), now()) RETURNING id`,
        [fake.account.userId, CUSTOMER_3],
      )
    )[0]!.id;
    for (let i = 0; i < 40; i += 1) {
      const m = mid();
      await on.container.db.rawTransaction(async (tx) => {
        await tx.query(
          `INSERT INTO instagram_messages (mid, conversation_id, account_id, direction, sender_id, text, sent_at, source, stored_at)
           VALUES ($1, $2, $3, 'inbound', $4, 'hola', $5, 'webhook', $5)`,
          [m, conv, fake.account.userId, CUSTOMER_3, on.clock.now()],
        );
        await svc.claim(
          tx,
          {
            mid: m,
            conversationId: conv,
            accountId: fake.account.userId,
            participantId: CUSTOMER_3,
            participantUsername: null,
            direction: 'inbound',
            senderId: CUSTOMER_3,
            text: 'hola',
            sentAt: on.clock.now(),
            isUnsupported: false,
            isExternalEcho: false,
            replyToMid: null,
            attachments: [],
            source: 'webhook',
          },
          on.clock.now(),
        );
      });
    }
    const delays = (await on.turns()).map(
      (t) => new Date(t['send_after'] as Date).getTime() - new Date(t['claimed_at'] as Date).getTime(),
    );
    expect(delays).toHaveLength(40);
    for (const d of delays) expect(d >= 60 * S && d <= 300 * S).toBe(true);
    expect(new Set(delays).size).toBeGreaterThan(5);
  });

  it('a due reply the minute job reaches more than 10 minutes late (workers down) is cancelled, never sent', async () => {
    await on.webhook(mid(), '¿Cuánto sale el plan Comercio?');
    const [claimed] = await on.turns();
    // The job did not run for a while: now is 10 minutes and a second past the turn's send_after.
    on.clock.advance(new Date(claimed!['send_after'] as string).getTime() - on.clock.now().getTime() + 601 * S);
    expect(await tick(on)).toMatchObject({ taken: 1, cancelled: 1, sent: 0 });
    expect((await on.turns())[0]).toMatchObject({ status: 'cancelled', reason: 'too_late' });
    expect(on.sends()).toBe(0);
  });

  it('with INSTAGRAM_SEND_ENABLED off the due reply is decided and logged as held, never sent', async () => {
    await held.webhook(mid(), '¿Tienen prueba gratis?');
    held.clock.advance(301 * S);
    expect(await tick(held)).toMatchObject({ taken: 1, held: 1, sent: 0 });
    const [turn] = await held.turns();
    expect(turn).toMatchObject({ status: 'held', reason: 'send_disabled', decision: 'reply' });
    expect(turn!['reply']).toContain('30 días');
    expect(held.sends()).toBe(0);
  });

  it.each([
    ['stamped on time', 0],
    // A timestamp ahead of our clock is taken as the message arriving now.
    ['stamped an hour ahead of our clock', 3_600_000],
  ])('a human reply in the meantime cancels the pending one (a message %s)', async (_name, ahead) => {
    await on.webhook(mid(), '¿Cuánto sale el plan Cadena?', ahead ? { at: on.clock.now().getTime() + ahead } : {});
    const [turn] = await on.turns();
    const res = await on.app.inject({
      method: 'POST',
      url: '/api/superadmin/instagram/messages',
      headers: { cookie: on.superadmin, ...SAME_ORIGIN },
      payload: { conversation_id: turn!['conversation_id'], text: 'Hola! Te respondo yo, Caro del equipo.' },
    });
    expect(res.statusCode).toBe(201);
    on.clock.advance(301 * S);
    expect(await tick(on)).toMatchObject({ taken: 1, cancelled: 1, sent: 0 });
    expect((await on.turns())[0]).toMatchObject({ status: 'cancelled', reason: 'human_replied' });
    // The conversation is the person's now: the next message is not answered 15 s later behind their back.
    await on.webhook(mid(), 'Gracias Caro, ¿y el plan anual?');
    expect((await on.turns())[1]).toMatchObject({ status: 'skipped', reason: 'handoff_open' });
    on.clock.advance(301 * S);
    expect(await tick(on)).toMatchObject({ taken: 0, sent: 0 });
    const [tag] = await on.container.db.query('SELECT reason FROM sales_agent_handoffs WHERE conversation_id = $1', [
      turn!['conversation_id'],
    ]);
    expect(tag).toMatchObject({ reason: 'human_replied' });
    expect(on.sends()).toBe(1); // only the person's message
  });

  it('a conversation a person of the team opened (from the Instagram app) stays theirs: the reply to it is not answered', async () => {
    const account = fake.account.userId;
    const raw = JSON.stringify({
      object: 'instagram',
      entry: [
        {
          id: account,
          time: on.clock.now().getTime(),
          messaging: [
            {
              sender: { id: account },
              recipient: { id: CUSTOMER_2 },
              timestamp: on.clock.now().getTime(),
              message: { mid: mid(), text: 'Hola! Vimos tu consulta en la publicación, ¿te paso los planes?', is_echo: true },
            },
          ],
        },
      ],
    });
    expect(await on.postSigned(raw)).toBe(200);
    on.clock.advance(60 * S);
    await on.webhook(mid(), 'Sí, ¿cuánto sale el plan Comercio?', { from: CUSTOMER_2 });
    const [turn] = await on.turns();
    expect(turn).toMatchObject({ status: 'skipped', reason: 'human_started' });
    const [tag] = await on.container.db.query('SELECT reason FROM sales_agent_handoffs WHERE conversation_id = $1', [
      turn!['conversation_id'],
    ]);
    expect(tag).toMatchObject({ reason: 'human_started' });
    on.clock.advance(301 * S);
    expect(await tick(on)).toMatchObject({ taken: 0, sent: 0 });
    expect(on.sends()).toBe(0);
  });

  it('several messages in a row: the newest is answered once, with all of them as input', async () => {
    const first = mid();
    const second = mid();
    await on.webhook(first, 'Hola!');
    on.clock.advance(10 * S);
    await on.webhook(second, '¿Cuánto sale el plan Inicial?');
    on.clock.advance(400 * S);
    expect(await tick(on)).toMatchObject({ taken: 2, sent: 1, superseded: 1 });
    const turns = await on.turns();
    expect(turns.find((t) => t['inbound_mid'] === first)).toMatchObject({ status: 'superseded' });
    const answered = turns.find((t) => t['inbound_mid'] === second)!;
    expect(answered).toMatchObject({ status: 'sent' });
    expect(answered['input_text']).toBe('Hola!\n¿Cuánto sale el plan Inicial?');
    expect(on.sends()).toBe(1);
  });

  it('other senders are skipped and logged, and get no reply; old messages (backfill) are never claimed', async () => {
    await on.webhook(mid(), '¿Precio?', { from: STRANGER });
    const old = mid();
    await on.webhook(old, '¿Precio?', { at: on.clock.now().getTime() - 3_600_000 });
    await on.webhook(mid(), 'viejo de otro', { from: STRANGER, at: on.clock.now().getTime() - 3_600_000 });
    const turns = await on.turns();
    expect(turns.map((t) => [t['status'], t['reason']]).sort()).toEqual([
      ['skipped', 'not_new'],
      ['skipped', 'other_sender'],
    ]);
    on.clock.advance(400 * S);
    expect((await tick(on)).taken).toBe(0);
    expect(on.sends()).toBe(0);
  });

  it('only inbound human messages are claimed: echoes, reactions, reads, unsupported and deleted items are not answered', async () => {
    const account = fake.account.userId;
    const at = on.clock.now().getTime();
    const m = mid();
    const items = [
      {
        sender: { id: account },
        recipient: { id: CUSTOMER },
        timestamp: at,
        message: { mid: mid(), text: 'eco desde la app', is_echo: true },
      },
      {
        sender: { id: CUSTOMER },
        recipient: { id: account },
        timestamp: at,
        reaction: { mid: m, action: 'react', reaction: 'love', emoji: '❤️' },
      },
      { sender: { id: CUSTOMER }, recipient: { id: account }, timestamp: at, read: { mid: m } },
      { sender: { id: CUSTOMER }, recipient: { id: account }, timestamp: at, message: { mid: mid(), is_unsupported: true } },
      { sender: { id: CUSTOMER }, recipient: { id: account }, timestamp: at, message: { mid: mid(), is_deleted: true } },
    ];
    const raw = JSON.stringify({ object: 'instagram', entry: [{ id: account, time: at, messaging: items }] });
    expect(await on.postSigned(raw)).toBe(200);
    expect((await on.turns()).map((t) => t['reason'])).toEqual(['unsupported']);
    // A message unsent by the person before its reply was due: cancelled, nothing sent.
    const gone = mid();
    await on.webhook(gone, '¿Cuánto sale?');
    const del = JSON.stringify({
      object: 'instagram',
      entry: [
        {
          id: account,
          time: at,
          messaging: [
            { sender: { id: CUSTOMER }, recipient: { id: account }, timestamp: at + 5, message: { mid: gone, is_deleted: true } },
          ],
        },
      ],
    });
    await on.app.inject({
      method: 'POST',
      url: '/api/webhooks/instagram',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': fake.sign(del) },
      payload: del,
    });
    on.clock.advance(301 * S);
    expect(await tick(on)).toMatchObject({ taken: 1, cancelled: 1, sent: 0 });
    expect((await on.turns()).find((t) => t['inbound_mid'] === gone)).toMatchObject({
      status: 'cancelled',
      reason: 'message_deleted',
    });
    expect(on.sends()).toBe(0);
  });

  it('handoff: the conversation is tagged, no reply, and later messages stay with the person until resumed', async () => {
    await on.webhook(mid(), 'Prefiero hablar con una persona, ¿me llaman?');
    on.clock.advance(301 * S);
    expect(await tick(on)).toMatchObject({ handoff: 1, sent: 0 });
    const [turn] = await on.turns();
    expect(turn).toMatchObject({ status: 'handoff', decision: 'handoff', handoff_reason: 'asked_for_human' });
    await on.webhook(mid(), '¿hola?');
    expect((await on.turns())[1]).toMatchObject({ status: 'skipped', reason: 'handoff_open' });
    // The operator page shows both and lets the operator give the conversation back.
    const page = await on.app.inject({ url: '/superadmin/instagram/agent?status=handoff', headers: { cookie: on.superadmin } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Agente de ventas');
    const api = await on.app.inject({
      url: '/api/superadmin/instagram/agent/turns?decision=handoff',
      headers: { cookie: on.superadmin },
    });
    expect(api.json().turns).toHaveLength(1);
    // A search text is matched literally: % and _ are not wildcards.
    const search = async (q: string) =>
      (
        await on.app.inject({
          url: `/api/superadmin/instagram/agent/turns?q=${encodeURIComponent(q)}`,
          headers: { cookie: on.superadmin },
        })
      ).json().turns.length;
    expect(await search('persona')).toBe(1);
    expect(await search('%')).toBe(0);
    expect(await search('_')).toBe(0);
    const resume = await on.app.inject({
      method: 'POST',
      url: `/api/superadmin/instagram/agent/conversations/${turn!['conversation_id']}/resume`,
      headers: { cookie: on.superadmin, ...SAME_ORIGIN },
    });
    expect(resume.statusCode).toBe(200);
    await on.webhook(mid(), '¿Tiene facturación electrónica?');
    expect((await on.turns())[2]).toMatchObject({ status: 'pending' });
    expect(on.sends()).toBe(0);
  });

  it('the operator API and page are superadmin only; the cron route needs the cron secret', async () => {
    expect((await on.app.inject({ url: '/api/superadmin/instagram/agent/turns' })).statusCode).toBe(401);
    expect((await on.app.inject({ url: '/api/cron/sales-agent' })).statusCode).toBe(401);
    const run = await on.app.inject({ url: '/api/cron/sales-agent', headers: { authorization: `Bearer ${CRON_SECRET}` } });
    expect(run.statusCode).toBe(200);
    expect(run.json().run).toMatchObject({ ran: true });
  });

  it('the turns API and page refuse a before that is no instant in years 0001-9999 with 400, not a 500', async () => {
    // Ajv's date-time lets through leap seconds (an Invalid Date) and offsets to ±23:59 that carry
    // 9999-12-31 into year 10000: both were a 500 (found by hand while replaying FUZZ_SEED=1726161440).
    const headers = { cookie: off.superadmin };
    for (const before of ['2016-12-31T23:59:60Z', '9999-12-31T23:59:59-23:59', '2024-01-01T00:00:00%2B20:00']) {
      for (const url of [
        `/api/superadmin/instagram/agent/turns?before=${before}`,
        `/superadmin/instagram/agent?before=${before}`,
      ]) {
        const res = await off.app.inject({ url, headers });
        expect(res.statusCode, `${url} → ${res.body}`).toBe(400);
        expect(res.json()).toMatchObject({ code: 'bad_request', error: expect.stringContaining('before') });
      }
    }
    const ok = await off.app.inject({ url: '/api/superadmin/instagram/agent/turns?before=9999-12-31T23:59:59Z', headers });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toEqual({ turns: [] });
  });

  it('one reply at most per mid when webhook, hub, graph sync and the minute poll race (20 concurrent paths)', async () => {
    fake.conversations.length = 0;
    const conversation = fake.addConversation({ participantId: CUSTOMER_2, text: '¿Qué planes tienen?', at: on.clock.now() });
    const m = conversation.messages[0]!.id;
    const text = conversation.messages[0]!.message;
    const svc = on.container.instagram.service;
    const paths: Promise<unknown>[] = [];
    for (let i = 0; i < 5; i += 1) {
      paths.push(on.webhook(m, text, { from: CUSTOMER_2 }));
      paths.push(on.hub(m, text, { from: CUSTOMER_2 }));
      paths.push(svc.sync());
      paths.push(on.app.inject({ url: '/api/cron/instagram-inbox-sync', headers: { authorization: `Bearer ${CRON_SECRET}` } }));
    }
    await Promise.all(paths);
    const turns = await on.turns();
    expect(turns).toHaveLength(1);
    expect(turns[0]).toMatchObject({ inbound_mid: m, status: 'pending' });
    on.clock.advance(301 * S);
    // The worker's minute job and the external cron at once: still one reply.
    await Promise.all([
      tick(on),
      tick(on),
      on.app.inject({ url: '/api/cron/sales-agent', headers: { authorization: `Bearer ${CRON_SECRET}` } }),
    ]);
    await tick(on);
    expect(on.sends()).toBe(1);
    expect((await on.turns())[0]).toMatchObject({ status: 'sent' });
  });
});
