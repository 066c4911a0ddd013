import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SAME_ORIGIN } from '../sessions.ts';
import { buildWhatsappApp, type WhatsappTestApp } from '../whatsapp/helpers.ts';

/**
 * The sales-reply agent on WhatsApp (issue 31), against the fake Cloud API: the same rules as on
 * Instagram (one claim per wamid, delays, designated number and senders, guardrails, shadow log)
 * and the channel's own switch.
 */
const MARTA = '5491155550001';
const JORGE = '5491166660002';
const STRANGER = '5491177770003';
const MINUTE = 60_000;
const NUMBER = '106540352242922';

describe('sales agent on WhatsApp', () => {
  let t: WhatsappTestApp;
  let now = Date.now();
  const clock = { now: () => new Date(now) };
  const api = (method: 'GET' | 'PUT', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: { cookie: t.superadmin, ...SAME_ORIGIN }, ...(payload ? { payload } : {}) });
  const turns = () =>
    t.container.db.query<Record<string, unknown>>('SELECT * FROM sales_agent_turns ORDER BY received_at, inbound_mid');
  const text = (from: string, body: string, opts: { at?: Date; id?: string; name?: string } = {}) =>
    t.fake.inbound(
      from,
      { type: 'text', text: { body } },
      { at: opts.at ?? clock.now(), profileName: opts.name ?? 'Marta Gómez', ...(opts.id ? { id: opts.id } : {}) },
    );
  const sends = () => t.fake.sent.filter((m) => m['type'] === 'text');
  /** The one conversation a test has made (each test starts with none). */
  const onlyConversation = async () => (await t.container.db.query<{ id: string }>('SELECT id FROM whatsapp_conversations'))[0]!;
  /** A person of the team writes to the conversation from the inbox: the answer's status. */
  const operatorWrites = async (conversationId: string, body: string) =>
    (
      await t.app.inject({
        method: 'POST',
        url: '/api/superadmin/whatsapp/messages',
        headers: { cookie: t.superadmin, ...SAME_ORIGIN },
        payload: { conversation_id: conversationId, text: body },
      })
    ).statusCode;
  /** The person's last message was left to the team: skipped with `reason`, the conversation tagged. */
  async function expectTeamHas(conversationId: string, reason: 'human_started' | 'human_replied') {
    expect((await turns()).at(-1)).toMatchObject({ status: 'skipped', reason });
    expect(await t.container.db.query('SELECT conversation_id, reason FROM sales_agent_handoffs')).toEqual([
      { conversation_id: conversationId, reason },
    ]);
  }
  /** Given back from the agent's page, the person's next message is answered. */
  async function expectAnsweredOnceGivenBack(conversationId: string) {
    expect(await giveBack(conversationId)).toBe(200);
    now += MINUTE;
    await t.post(text(MARTA, '¿Y el plan Cadena?').body);
    expect((await turns()).at(-1)).toMatchObject({ status: 'pending' });
    now += 5 * MINUTE;
    expect(await t.container.salesAgent.service.tick()).toMatchObject({ sent: 1 });
  }
  /** The operator gives the conversation back to the agent from its page: the answer's status. */
  const giveBack = async (conversationId: string) =>
    (
      await t.app.inject({
        method: 'POST',
        url: `/api/superadmin/instagram/agent/conversations/${conversationId}/resume`,
        headers: { cookie: t.superadmin, ...SAME_ORIGIN },
      })
    ).statusCode;

  beforeAll(async () => {
    t = await buildWhatsappApp({
      env: {
        WHATSAPP_SEND_ENABLED: 'true',
        SALES_AGENT_ENABLED: 'true',
        // The fake's number (fixed) and two designated contacts: Jorge written without the mobile 9
        // (54 + 10 digits), as people write Argentine numbers; Meta sends his wa_id as 549….
        SALES_AGENT_WHATSAPP_NUMBER_ID: NUMBER,
        SALES_AGENT_WHATSAPP_SENDER_IDS: `${MARTA},${JORGE.replace(/^549/, '54')}`,
      },
      overrides: { clock, salesAgentRandom: (min: number) => min },
    });
    expect(t.fake.phoneNumberId).toBe(NUMBER);
    await t.setup();
  }, 60_000);
  afterAll(() => t?.close());
  beforeEach(async () => {
    await t.container.db.query('DELETE FROM sales_agent_handoffs');
    await t.container.db.query('DELETE FROM sales_agent_turns');
    await t.container.db.query('DELETE FROM whatsapp_messages');
    await t.container.db.query('DELETE FROM whatsapp_conversations');
    t.fake.sent.length = 0;
    expect((await api('PUT', '/api/superadmin/whatsapp/agent', { enabled: true })).statusCode).toBe(200);
  });

  it('claims nothing while the channel switch is off', async () => {
    expect((await api('PUT', '/api/superadmin/whatsapp/agent', { enabled: false })).statusCode).toBe(200);
    expect((await t.post(text(MARTA, '¿Cuánto sale?').body)).statusCode).toBe(200);
    expect(await turns()).toEqual([]);
  });

  it('20 concurrent deliveries of one wamid: one message, one claim', async () => {
    const delivery = text(MARTA, 'Hola, ¿cuánto sale el plan Comercio?');
    const raw = JSON.stringify(delivery.body);
    const answers = await Promise.all(Array.from({ length: 20 }, () => t.post(raw)));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(20).fill(200));
    expect(await t.container.db.query('SELECT wamid FROM whatsapp_messages')).toHaveLength(1);
    const rows = await turns();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      inbound_mid: delivery.wamid,
      channel: 'whatsapp',
      account_id: t.fake.phoneNumberId,
      sender_id: MARTA,
      claimed_by: 'webhook',
      status: 'pending',
      thread_state: 'first',
    });
    // The delay: 60 s at the earliest (pinned to the minimum here).
    expect(new Date(rows[0]!['send_after'] as string).getTime() - now).toBe(MINUTE);
  });

  it('skips other senders and old messages, with the reason in the log', async () => {
    await t.post(text(STRANGER, '¿Cuánto sale?', { name: 'Otra persona' }).body);
    await t.post(text(JORGE, 'mensaje viejo', { at: new Date(now - 60 * MINUTE), name: 'Jorge' }).body);
    // Both turns are received at the same (test clock) instant: compared by sender, not by their random ids' order.
    const rows = (await turns()).map((r) => [r['sender_id'], r['status'], r['reason']]);
    expect(rows.sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual([
      [JORGE, 'skipped', 'not_new'],
      [STRANGER, 'skipped', 'other_sender'],
    ]);
  });

  it('plans the reply while it waits (shown in the log with name and thread link), then sends it once', async () => {
    const delivery = text(MARTA, 'Hola! cuánto sale?');
    await t.post(delivery.body);
    const early = await t.container.salesAgent.service.tick();
    expect(early).toMatchObject({ taken: 0, sent: 0, planned: 1 });
    expect(sends()).toHaveLength(0);
    const log = await api('GET', '/api/superadmin/instagram/agent/turns?channel=whatsapp');
    expect(log.statusCode).toBe(200);
    const [turn] = log.json().turns;
    const conversation = await onlyConversation();
    expect(turn).toMatchObject({
      channel: 'whatsapp',
      status: 'pending',
      decision: 'reply',
      contact_name: `Marta Gómez (+${MARTA})`,
      thread_url: `/superadmin/whatsapp?thread=${conversation.id}`,
    });
    expect(turn.reply).toContain('$\u00a024.900');
    // Found by the number as the operator writes it: without the mobile 9, or with a +.
    for (const sender of [MARTA.replace(/^549/, '54'), `+${MARTA}`]) {
      const found = await api(
        'GET',
        `/api/superadmin/instagram/agent/turns?channel=whatsapp&sender=${encodeURIComponent(sender)}`,
      );
      expect(found.json().turns.map((x: { inbound_mid: string }) => x.inbound_mid)).toEqual([turn.inbound_mid]);
    }

    now += MINUTE;
    const due = await t.container.salesAgent.service.tick();
    expect(due).toMatchObject({ taken: 1, sent: 1 });
    expect(sends()).toEqual([expect.objectContaining({ to: MARTA, text: { preview_url: false, body: turn.reply } })]);
    const [sent] = await turns();
    const outbound = await t.container.db.query<{ wamid: string }>(
      "SELECT wamid FROM whatsapp_messages WHERE direction = 'outbound'",
    );
    expect(sent).toMatchObject({ status: 'sent', reply: turn.reply, sent_mid: outbound[0]!.wamid });
    // A webhook retry of the same message later claims nothing and sends nothing.
    await t.post(delivery.body);
    now += 10 * MINUTE;
    await t.container.salesAgent.service.tick();
    expect(sends()).toHaveLength(1);
    expect(await turns()).toHaveLength(1);
  });

  it('a counter-offer goes to a person: nothing sent, the conversation tagged', async () => {
    await t.post(text(MARTA, 'Te pago 15 mil por mes el plan Comercio, dale?').body);
    now += 5 * MINUTE;
    const run = await t.container.salesAgent.service.tick();
    expect(run).toMatchObject({ handoff: 1, sent: 0 });
    expect(sends()).toHaveLength(0);
    expect((await turns())[0]).toMatchObject({ status: 'handoff', handoff_reason: 'price_negotiation' });
    expect(await t.container.db.query('SELECT channel, reason FROM sales_agent_handoffs')).toEqual([
      { channel: 'whatsapp', reason: 'price_negotiation' },
    ]);
    // While tagged, a new message of that person is logged as skipped.
    await t.post(text(MARTA, '¿Y el Cadena?').body);
    expect((await turns()).at(-1)).toMatchObject({ status: 'skipped', reason: 'handoff_open' });
  });

  it('stays silent when a person of the team answered first, or when the channel switch went off', async () => {
    await t.post(text(MARTA, '¿Maneja stock?').body);
    const conversation = await onlyConversation();
    now += 1000;
    expect(await operatorWrites(conversation.id, 'Hola Marta, sí: stock en todos los planes.')).toBe(201);
    now += 5 * MINUTE;
    expect(await t.container.salesAgent.service.tick()).toMatchObject({ cancelled: 1, sent: 0 });
    expect((await turns())[0]).toMatchObject({ status: 'cancelled', reason: 'human_replied' });
    // The team took the conversation: Marta's next message stays with the person until it is given back.
    now += 1000;
    await t.post(text(MARTA, '¿Y cuánto sale?').body);
    expect((await turns())[1]).toMatchObject({ status: 'skipped', reason: 'handoff_open' });

    // A minute later: on the test's stopped clock both would be received at the same instant,
    // and turns() would order the two by their random wamids.
    now += MINUTE;
    await t.post(text(JORGE, '¿Funciona sin internet?', { name: 'Jorge' }).body);
    await api('PUT', '/api/superadmin/whatsapp/agent', { enabled: false });
    now += 5 * MINUTE;
    await t.container.salesAgent.service.tick();
    expect((await turns()).at(-1)).toMatchObject({ sender_id: JORGE, status: 'cancelled', reason: 'agent_disabled' });
    // Only the operator's reply went out.
    expect(sends()).toHaveLength(1);
  });

  it('stays out of a conversation the team opened: the operator wrote first (a template), then the person answers', async () => {
    // Marta wrote yesterday (history: no reply from the agent), and today the operator writes to her first.
    await t.post(text(MARTA, 'Hola, ayer les consulté', { at: new Date(now - 26 * 60 * MINUTE) }).body);
    const conversation = await onlyConversation();
    now += 1000;
    const template = await t.app.inject({
      method: 'POST',
      url: '/api/superadmin/whatsapp/templates/send',
      headers: { cookie: t.superadmin, ...SAME_ORIGIN },
      payload: { conversation_id: conversation.id, name: 'saludo', language: 'es_AR', parameters: [] },
    });
    expect(template.statusCode).toBe(201);
    now += 2 * MINUTE;
    await t.post(text(MARTA, 'Sí! ¿Cuánto sale el plan Comercio?').body);
    await expectTeamHas(conversation.id, 'human_started');
    now += 5 * MINUTE;
    expect(await t.container.salesAgent.service.tick()).toMatchObject({ taken: 0, sent: 0 });
    expect(sends()).toHaveLength(0);

    // Given back to the agent from its page: the next message is answered, and the rule does not fire again.
    await expectAnsweredOnceGivenBack(conversation.id);
  });

  it('a person of the team who writes after the agent answered takes the conversation, until it is given back', async () => {
    await t.post(text(MARTA, '¿Cuánto sale el plan Comercio?').body);
    const conversation = await onlyConversation();
    now += 5 * MINUTE;
    expect(await t.container.salesAgent.service.tick()).toMatchObject({ sent: 1 });
    // The operator steps in after the agent's reply; Marta answers a minute later.
    now += MINUTE;
    expect(await operatorWrites(conversation.id, 'Hola Marta, soy Laura del equipo: te llamo en un rato.')).toBe(201);
    now += MINUTE;
    await t.post(text(MARTA, 'Dale, gracias!').body);
    await expectTeamHas(conversation.id, 'human_replied');
    now += 5 * MINUTE;
    expect(await t.container.salesAgent.service.tick()).toMatchObject({ sent: 0 });
    expect(sends()).toHaveLength(2);

    // Given back: the operator's earlier message no longer counts, the agent answers again.
    await expectAnsweredOnceGivenBack(conversation.id);
  });

  it('what the team wrote while the conversation was theirs no longer counts once it is given back', async () => {
    // The agent hands a counter-offer to a person, who answers Marta while the conversation is theirs.
    await t.post(text(MARTA, 'Te pago 15 mil por mes el plan Comercio, dale?').body);
    const conversation = await onlyConversation();
    now += 5 * MINUTE;
    expect(await t.container.salesAgent.service.tick()).toMatchObject({ handoff: 1 });
    now += MINUTE;
    expect(await operatorWrites(conversation.id, 'Marta, el precio es el de la lista, pero te regalo la instalación.')).toBe(201);
    now += MINUTE;
    expect(await giveBack(conversation.id)).toBe(200);
    // Given back: a second resume finds no open mark.
    expect(await giveBack(conversation.id)).toBe(404);
    now += MINUTE;
    await t.post(text(MARTA, 'Bueno, ¿maneja stock?').body);
    expect((await turns()).at(-1)).toMatchObject({ status: 'pending', reason: null });
    now += 5 * MINUTE;
    expect(await t.container.salesAgent.service.tick()).toMatchObject({ sent: 1 });
    // The team steps in again: the mark given back is opened again, with the new reason.
    now += MINUTE;
    expect(await operatorWrites(conversation.id, 'Te paso el link de alta.')).toBe(201);
    now += MINUTE;
    await t.post(text(MARTA, 'Gracias!').body);
    expect((await turns()).at(-1)).toMatchObject({ status: 'skipped', reason: 'human_replied' });
    expect(await t.container.db.query('SELECT reason, resumed_at FROM sales_agent_handoffs')).toEqual([
      { reason: 'human_replied', resumed_at: null },
    ]);
  });

  it('a person of the team writing first is caught when the reply is due too (their message stored after the claim)', async () => {
    await t.post(text(MARTA, 'Hola, ayer les consulté', { at: new Date(now - 26 * 60 * MINUTE) }).body);
    const conversation = await onlyConversation();
    now += 1000;
    await t.post(text(MARTA, '¿Cuánto sale el plan Comercio?').body);
    expect((await turns()).at(-1)).toMatchObject({ status: 'pending' });
    // An outbound message stamped before hers (Meta's timestamps are whole seconds), stored only now.
    await t.container.db.query(
      `INSERT INTO whatsapp_messages (wamid, conversation_id, direction, type, text, sent_at, source, stored_at)
       VALUES ('wamid.team-first', $1, 'outbound', 'text', 'Hola Marta, te escribo yo', $2, 'send', $3)`,
      [conversation.id, new Date(now - 10_000), new Date(now)],
    );
    now += 5 * MINUTE;
    expect(await t.container.salesAgent.service.tick()).toMatchObject({ cancelled: 1, sent: 0 });
    expect((await turns()).at(-1)).toMatchObject({ status: 'cancelled', reason: 'human_started' });
    expect(await t.container.db.query('SELECT reason FROM sales_agent_handoffs')).toEqual([{ reason: 'human_started' }]);
    expect(sends()).toHaveLength(0);
  });

  it('holds its replies while Meta refuses the token (190), until the channel is saved again', async () => {
    t.fake.failures.push({
      match: /POST .*\/messages$/,
      status: 401,
      body: { error: { message: 'Error validating access token: Session has expired', type: 'OAuthException', code: 190 } },
    });
    await t.post(text(MARTA, 'Hola! cuánto sale?').body);
    now += 5 * MINUTE;
    expect(await t.container.salesAgent.service.tick()).toMatchObject({ failed: 1, sent: 0 });
    const status = await api('GET', '/api/superadmin/whatsapp/status');
    expect(status.json().status).toMatchObject({ connected: true, reconnect_required: true });

    // The next reply is held without calling Meta.
    const posts = () => t.fake.requests.filter((r) => r.method === 'POST').length;
    const before = posts();
    await t.post(text(JORGE, '¿Maneja stock?', { name: 'Jorge' }).body);
    now += 5 * MINUTE;
    expect(await t.container.salesAgent.service.tick()).toMatchObject({ held: 1, sent: 0 });
    expect((await turns()).at(-1)).toMatchObject({ sender_id: JORGE, status: 'held', reason: 'reconnect_required' });
    expect(posts()).toBe(before);

    // Saved again (a new token): the mark is gone and the agent answers.
    await t.setup();
    await t.post(text(JORGE, '¿Y sin internet?', { name: 'Jorge' }).body);
    now += 5 * MINUTE;
    expect(await t.container.salesAgent.service.tick()).toMatchObject({ sent: 1 });
  });
});
