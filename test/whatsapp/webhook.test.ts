import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildWhatsappApp, WA_VERIFY_TOKEN, type WhatsappTestApp } from './helpers.ts';

const CUSTOMER = '5491122334455';

describe('WhatsApp webhook (/api/whatsapp)', () => {
  let t: WhatsappTestApp;
  beforeAll(async () => {
    t = await buildWhatsappApp();
    await t.setup();
  });
  afterAll(() => t?.close());
  beforeEach(async () => {
    await t.container.db.query('DELETE FROM whatsapp_messages');
    await t.container.db.query('DELETE FROM whatsapp_conversations');
    await t.container.db.query('DELETE FROM whatsapp_statuses');
    await t.container.db.query('DELETE FROM whatsapp_reactions');
  });

  const count = async (table: string) =>
    Number((await t.container.db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`))[0]!.n);
  const message = async (wamid: string) =>
    (await t.container.db.query<Record<string, unknown>>('SELECT * FROM whatsapp_messages WHERE wamid = $1', [wamid]))[0];

  describe('verification (GET)', () => {
    it('echoes the challenge with the right token', async () => {
      const res = await t.app.inject({
        url: `/api/whatsapp?hub.mode=subscribe&hub.verify_token=${WA_VERIFY_TOKEN}&hub.challenge=1158201444`,
      });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('1158201444');
      expect(res.headers['content-type']).toContain('text/plain');
    });

    it('refuses a wrong token, a wrong mode or no token with 403', async () => {
      for (const query of [
        'hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1',
        `hub.mode=unsubscribe&hub.verify_token=${WA_VERIFY_TOKEN}&hub.challenge=1`,
        'hub.mode=subscribe&hub.challenge=1',
      ]) {
        const res = await t.app.inject({ url: `/api/whatsapp?${query}` });
        expect(res.statusCode).toBe(403);
        expect(res.json().code).toBe('forbidden');
      }
    });
  });

  describe('signatures (POST)', () => {
    it('stores a delivery with a valid signature; refuses invalid, missing and wrong-secret ones with 403, storing nothing', async () => {
      const { body, wamid } = t.fake.inbound(CUSTOMER, { type: 'text', text: { body: 'Hola, ¿tienen plan anual?' } });
      const raw = JSON.stringify(body);
      const bad = [
        await t.post(raw, { signature: `sha256=${'0'.repeat(64)}` }),
        await t.post(raw, { signature: null }),
        await t.post(raw, { secret: 'another-app-secret' }),
        await t.post(raw, { signature: 'sha1=abc' }),
        // Signed bytes and sent bytes differ (re-serialised body).
        await t.post(JSON.stringify(body, null, 2), { signature: t.fake.sign(raw) }),
      ];
      for (const res of bad) {
        expect(res.statusCode).toBe(403);
        expect(res.json()).toMatchObject({ code: 'invalid_signature' });
      }
      expect(await count('whatsapp_messages')).toBe(0);
      const ok = await t.post(raw);
      expect(ok.statusCode).toBe(200);
      expect(ok.json().received).toMatchObject({ messages: 1, duplicates: 0 });
      expect(await message(wamid)).toMatchObject({ type: 'text', text: 'Hola, ¿tienen plan anual?', direction: 'inbound' });
    });

    it('works end to end through the fake emitter over HTTP', async () => {
      const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
      const { body, wamid } = t.fake.inbound(CUSTOMER, { type: 'text', text: { body: 'por HTTP' } });
      const res = await t.fake.deliver(`${address}/api/whatsapp`, JSON.stringify(body));
      expect(res.status).toBe(200);
      expect(await message(wamid)).toMatchObject({ text: 'por HTTP' });
    });

    it('answers 400 to a signed body that is not JSON', async () => {
      const res = await t.post('{not json');
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('invalid_json');
    });
  });

  it('stores every message type of the research note with its details', async () => {
    const kinds: [string, Record<string, unknown>, string | null][] = [
      ['text', { type: 'text', text: { body: 'hola' } }, 'hola'],
      [
        'image',
        { type: 'image', image: { id: '2001', mime_type: 'image/jpeg', sha256: 'x', caption: 'la vidriera' } },
        'la vidriera',
      ],
      ['video', { type: 'video', video: { id: '2002', mime_type: 'video/mp4', sha256: 'x' } }, null],
      ['audio', { type: 'audio', audio: { id: '2003', mime_type: 'audio/ogg; codecs=opus', sha256: 'x', voice: true } }, null],
      ['sticker', { type: 'sticker', sticker: { id: '2004', mime_type: 'image/webp', sha256: 'x', animated: false } }, null],
      [
        'document',
        {
          type: 'document',
          document: { id: '2005', filename: 'lista.pdf', mime_type: 'application/pdf', sha256: 'x', caption: 'precios' },
        },
        'precios',
      ],
      [
        'location',
        { type: 'location', location: { latitude: -34.6037, longitude: -58.3816, name: 'Obelisco', address: 'Av. 9 de Julio' } },
        'Obelisco',
      ],
      [
        'contacts',
        {
          type: 'contacts',
          contacts: [
            {
              name: { formatted_name: 'Ana Pérez', first_name: 'Ana' },
              phones: [{ phone: '+54 9 11 4444-5555', wa_id: '5491144445555' }],
            },
          ],
        },
        'Ana Pérez',
      ],
      [
        'interactive',
        { type: 'interactive', interactive: { type: 'button_reply', button_reply: { id: 'si', title: 'Sí, quiero' } } },
        'Sí, quiero',
      ],
      [
        'interactive-list',
        {
          type: 'interactive',
          interactive: { type: 'list_reply', list_reply: { id: 'anual', title: 'Plan anual', description: '12 meses' } },
        },
        'Plan anual',
      ],
      ['button', { type: 'button', button: { payload: 'QUIERO_INFO', text: 'Quiero info' } }, 'Quiero info'],
      [
        'unsupported',
        { type: 'unsupported', errors: [{ code: 131051, title: 'Message type unknown', message: 'Message type unknown' }] },
        null,
      ],
    ];
    const wamids: Record<string, string> = {};
    for (const [name, part, _] of kinds) {
      const { body, wamid } = t.fake.inbound(CUSTOMER, part, { profileName: 'Sheena Nelson' });
      wamids[name] = wamid;
      expect((await t.post(body)).statusCode).toBe(200);
    }
    for (const [name, part, text] of kinds) {
      const row = await message(wamids[name]!);
      expect(row, name).toMatchObject({ type: part['type'], text });
    }
    expect((await message(wamids['image']!))!['details']).toMatchObject({ id: '2001', mime_type: 'image/jpeg' });
    expect((await message(wamids['document']!))!['details']).toMatchObject({ filename: 'lista.pdf' });
    expect((await message(wamids['location']!))!['details']).toMatchObject({ latitude: -34.6037, longitude: -58.3816 });
    expect((await message(wamids['contacts']!))!['details']).toMatchObject({
      contacts: [{ phones: [{ wa_id: '5491144445555' }] }],
    });
    expect((await message(wamids['unsupported']!))!['details']).toMatchObject({ errors: [{ code: 131051 }] });
    const [conversation] = await t.container.db.query<Record<string, unknown>>('SELECT * FROM whatsapp_conversations');
    expect(conversation).toMatchObject({ wa_id: CUSTOMER, profile_name: 'Sheena Nelson' });
    expect(await count('whatsapp_conversations')).toBe(1);
  });

  it('keeps replies (context), forwards and reactions (set, changed, removed)', async () => {
    const first = t.fake.inbound(CUSTOMER, { type: 'text', text: { body: 'primero' } });
    await t.post(first.body);
    const reply = t.fake.inbound(CUSTOMER, {
      type: 'text',
      text: { body: 'respondo' },
      context: { from: '15550783881', id: first.wamid, forwarded: true },
    });
    await t.post(reply.body);
    expect(await message(reply.wamid)).toMatchObject({ context_wamid: first.wamid, forwarded: true });
    const react = (emoji?: string, at = new Date()) =>
      t.fake.inbound(CUSTOMER, { type: 'reaction', reaction: { message_id: first.wamid, ...(emoji ? { emoji } : {}) } }, { at })
        .body;
    await t.post(react('👍', new Date(Date.now() - 2000)));
    await t.post(react('❤️', new Date(Date.now() - 1000)));
    const reactions = () => t.container.db.query<{ emoji: string | null }>('SELECT emoji FROM whatsapp_reactions');
    expect(await reactions()).toEqual([{ emoji: '❤️' }]);
    // A late, older reaction does not overwrite the newer one.
    await t.post(react('😮', new Date(Date.now() - 5000)));
    expect(await reactions()).toEqual([{ emoji: '❤️' }]);
    await t.post(react(undefined, new Date()));
    expect(await reactions()).toEqual([{ emoji: null }]);
    // Reactions are not messages.
    expect(await count('whatsapp_messages')).toBe(2);
  });

  it('reads every entry, change, message and status of a batched delivery; ignores other numbers', async () => {
    const a = t.fake.inbound(CUSTOMER, { type: 'text', text: { body: 'uno' } });
    const b = t.fake.inbound('5491199998888', { type: 'text', text: { body: 'dos' } }, { profileName: 'Otro' });
    const s = t.fake.status('wamid.ours-1', 'delivered');
    const other = structuredClone(t.fake.inbound(CUSTOMER, { type: 'text', text: { body: 'otro número' } }).body) as {
      entry: { changes: { value: { metadata: { phone_number_id: string } } }[] }[];
    };
    other.entry[0]!.changes[0]!.value.metadata.phone_number_id = '999999999';
    const batch = {
      object: 'whatsapp_business_account',
      entry: [
        ...(a.body['entry'] as unknown[]),
        {
          ...(b.body['entry'] as Record<string, unknown>[])[0],
          changes: [
            ...(b.body['entry'] as { changes: unknown[] }[])[0]!.changes,
            ...(s['entry'] as { changes: unknown[] }[])[0]!.changes,
          ],
        },
        ...other.entry,
      ],
    };
    const res = await t.post(batch);
    expect(res.json().received).toMatchObject({ messages: 2, statuses: 1, ignored: 1 });
    expect(await count('whatsapp_conversations')).toBe(2);
  });

  it('stores 20 concurrent deliveries of one wamid as one row', async () => {
    const { body, wamid } = t.fake.inbound(CUSTOMER, { type: 'text', text: { body: 'duplicado' } });
    const raw = JSON.stringify(body);
    const answers = await Promise.all(Array.from({ length: 20 }, () => t.post(raw)));
    expect(answers.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    const stored = answers.map((r) => r.json().received.messages as number);
    expect(stored.reduce((x, y) => x + y, 0)).toBe(1);
    expect(await count('whatsapp_messages')).toBe(1);
    expect(await count('whatsapp_conversations')).toBe(1);
    expect(await message(wamid)).toMatchObject({ text: 'duplicado' });
  });

  it('applies statuses in any order: they only move forward, failed keeps its error', async () => {
    const post = (status: 'sent' | 'delivered' | 'read' | 'failed', wamid: string, error?: { code: number; title: string }) =>
      t.post(t.fake.status(wamid, status, error ? { error } : {}));
    const state = async (wamid: string) =>
      (
        await t.container.db.query<Record<string, unknown>>(
          'SELECT status, error_code, error_title FROM whatsapp_statuses WHERE wamid = $1',
          [wamid],
        )
      )[0];
    // read first (delivered never comes), then a late sent: still read.
    await post('read', 'wamid.a');
    await post('sent', 'wamid.a');
    await post('delivered', 'wamid.a');
    expect(await state('wamid.a')).toMatchObject({ status: 'read' });
    // sent → failed with the error; a late delivered does not hide the failure.
    await post('sent', 'wamid.b');
    await post('failed', 'wamid.b', { code: 131047, title: 'Re-engagement message' });
    await post('delivered', 'wamid.b');
    expect(await state('wamid.b')).toMatchObject({ status: 'failed', error_code: 131047, error_title: 'Re-engagement message' });
    // An unknown status value is acknowledged and ignored.
    const res = await t.post(t.fake.status('wamid.c', 'sent'));
    expect(res.statusCode).toBe(200);
    const weird = JSON.parse(JSON.stringify(t.fake.status('wamid.d', 'sent')).replace('"sent"', '"played"'));
    expect((await t.post(weird)).json().received).toMatchObject({ statuses: 0, ignored: 1 });
    // A name every JS object inherits is not a status either (it was a 500).
    const inherited = JSON.parse(JSON.stringify(t.fake.status('wamid.e', 'sent')).replace('"sent"', '"constructor"'));
    const answer = await t.post(inherited);
    expect(answer.statusCode).toBe(200);
    expect(answer.json().received).toMatchObject({ statuses: 0, ignored: 1 });
  });

  it('stores a delivery with text PostgreSQL cannot keep (NUL, half an emoji): cleaned, 200, the other messages too', async () => {
    const bad = t.fake.inbound(CUSTOMER, { type: 'text', text: { body: 'hola\u0000chau \ud83d' } }, { profileName: 'A\u0000na' });
    const good = t.fake.inbound('5491199990000', { type: 'text', text: { body: 'normal' } });
    const doc = t.fake.inbound('5491199990001', {
      type: 'document',
      document: { id: '123', filename: 'x\u0000.pdf', mime_type: 'application/pdf', caption: 'mirá\u0000' },
    });
    const batch = structuredClone(bad.body) as { entry: { changes: { value: { messages: unknown[] } }[] }[] };
    const messagesOf = (b: Record<string, unknown>) =>
      (b['entry'] as { changes: { value: { messages: unknown[] } }[] }[])[0]!.changes[0]!.value.messages;
    batch.entry[0]!.changes[0]!.value.messages.push(...messagesOf(good.body), ...messagesOf(doc.body));
    // Sent as JSON escapes, exactly as Meta writes them (the signature covers these bytes).
    const res = await t.post(JSON.stringify(batch));
    expect(res.statusCode).toBe(200);
    expect(res.json().received).toMatchObject({ messages: 3 });
    expect(await message(bad.wamid)).toMatchObject({ text: 'holachau \ufffd' });
    expect(await message(good.wamid)).toMatchObject({ text: 'normal' });
    expect(await message(doc.wamid)).toMatchObject({ text: 'mirá', details: { filename: 'x.pdf' } });
    const [who] = await t.container.db.query<{ profile_name: string }>(
      'SELECT profile_name FROM whatsapp_conversations WHERE wa_id = $1',
      [CUSTOMER],
    );
    expect(who!.profile_name).toBe('Ana');
  });

  it('a delivery with an item PostgreSQL cannot keep (kilobyte id, far-off time, huge error code) is 200 and keeps the rest', async () => {
    const good = t.fake.inbound(CUSTOMER, { type: 'text', text: { body: 'normal' } });
    const farOff = t.fake.inbound('5491199990000', { type: 'text', text: { body: 'año 33658' } });
    const longId = t.fake.inbound(
      '5491199990001',
      { type: 'text', text: { body: 'id enorme' } },
      { id: `wamid.${'x'.repeat(5000)}` },
    );
    const batch = structuredClone(good.body) as { entry: { changes: { value: Record<string, unknown[]> }[] }[] };
    const value = batch.entry[0]!.changes[0]!.value;
    const messagesOf = (b: Record<string, unknown>) =>
      (b['entry'] as { changes: { value: { messages: Record<string, unknown>[] } }[] }[])[0]!.changes[0]!.value.messages;
    value['messages']!.push({ ...messagesOf(farOff.body)[0]!, timestamp: '999999999999' }, ...messagesOf(longId.body));
    value['statuses'] = [
      { id: 'wamid.ours-far', status: 'delivered', timestamp: 1e20 },
      { id: 'wamid.ours-err', status: 'failed', timestamp: '1700000000', errors: [{ code: 99999999999, title: 'x' }] },
    ];
    const before = Date.now();
    const res = await t.post(batch);
    expect(res.statusCode).toBe(200);
    expect(res.json().received).toMatchObject({ messages: 2, statuses: 2, ignored: 1 });
    expect(await message(good.wamid)).toMatchObject({ text: 'normal' });
    // A time PostgreSQL cannot keep is the arrival time, as a missing one.
    const far = await message(farOff.wamid);
    expect(new Date(far!['sent_at'] as string).getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(await count('whatsapp_messages')).toBe(2);
    const [failed] = await t.container.db.query<{ status: string; error_code: number | null }>(
      "SELECT status, error_code FROM whatsapp_statuses WHERE wamid = 'wamid.ours-err'",
    );
    expect(failed).toMatchObject({ status: 'failed', error_code: null });
  });

  it('a system notice (user_changed_number) opens no thread or window; the thread follows the person to the new number', async () => {
    const OLD = '5491144445555';
    const NEW = '5491166667777';
    const notice = (from: string, at = new Date()) =>
      t.fake.inbound(
        from,
        {
          type: 'system',
          system: { body: `Ana changed from ${from} to ${NEW}`, wa_id: NEW, type: 'user_changed_number' },
        },
        { at },
      );
    // Alone, from a number with no thread: nothing is opened.
    expect((await t.post(notice('5491100001111').body)).json().received).toMatchObject({ messages: 0, ignored: 1 });
    expect(await count('whatsapp_conversations')).toBe(0);

    const wrote = new Date(Date.now() - 30 * 3600_000);
    await t.post(t.fake.inbound(OLD, { type: 'text', text: { body: 'hola' } }, { at: wrote, profileName: 'Ana' }).body);
    const changed = notice(OLD);
    expect((await t.post(changed.body)).statusCode).toBe(200);
    const [thread] = await t.container.db.query<Record<string, unknown>>('SELECT * FROM whatsapp_conversations');
    // The customer did not write: the window stays closed, the preview is still her message.
    expect(thread).toMatchObject({ wa_id: NEW, last_message_text: 'hola', last_message_direction: 'inbound' });
    expect(new Date(thread!['last_inbound_at'] as string).getTime()).toBe(Math.floor(wrote.getTime() / 1000) * 1000);
    expect(await message(changed.wamid)).toMatchObject({ type: 'system', direction: 'inbound' });
    // Later messages from the new number land in the same thread.
    await t.post(t.fake.inbound(NEW, { type: 'text', text: { body: 'soy Ana, número nuevo' } }).body);
    expect(await count('whatsapp_conversations')).toBe(1);
    expect(await count('whatsapp_messages')).toBe(3);
  });

  it('answers 500 when a validly signed delivery cannot be stored, so Meta retries; nothing half-stored', async () => {
    const { body } = t.fake.inbound(CUSTOMER, { type: 'text', text: { body: 'se pierde?' } });
    const two = structuredClone(body) as { entry: { changes: { value: { messages: Record<string, unknown>[] } }[] }[] };
    // The second message's wamid is too long for the table's check: the whole delivery is refused.
    two.entry[0]!.changes[0]!.value.messages.push({
      ...two.entry[0]!.changes[0]!.value.messages[0]!,
      id: `wamid.${'x'.repeat(300)}`,
    });
    const res = await t.post(two);
    expect(res.statusCode).toBe(500);
    expect(res.json().code).toBe('internal');
    expect(await count('whatsapp_messages')).toBe(0);
  });
});

describe('WhatsApp webhook without secrets', () => {
  it('fails closed: every POST is 403 and verification is refused', async () => {
    const t = await buildWhatsappApp({ env: { WHATSAPP_APP_SECRET: '', WHATSAPP_VERIFY_TOKEN: '' } });
    try {
      const { body } = t.fake.inbound(CUSTOMER, { type: 'text', text: { body: 'hola' } });
      expect((await t.post(body)).statusCode).toBe(403);
      expect((await t.post(body, { secret: '' })).statusCode).toBe(403);
      const res = await t.app.inject({ url: '/api/whatsapp?hub.mode=subscribe&hub.verify_token=&hub.challenge=1' });
      expect(res.statusCode).toBe(403);
    } finally {
      await t.close();
    }
  });
});
