import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeCompany, makeUser } from '../factories.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';
import { buildWhatsappApp, type WhatsappTestApp } from './helpers.ts';

const CUSTOMER = '5491122334455';
const API = '/api/superadmin/whatsapp';

describe('WhatsApp operator API', () => {
  let t: WhatsappTestApp;
  beforeAll(async () => {
    t = await buildWhatsappApp({ env: { WHATSAPP_SEND_ENABLED: 'yes' }, timeoutMs: 3000 });
  });
  afterAll(() => t?.close());
  beforeEach(() => t.fake.reset());

  const get = (url: string) => t.app.inject({ url, headers: { cookie: t.superadmin } });
  const post = (url: string, payload: object) =>
    t.app.inject({ method: 'POST', url, headers: { cookie: t.superadmin, ...SAME_ORIGIN }, payload });
  const conversationId = async (waId = CUSTOMER) =>
    (await t.container.db.query<{ id: string }>('SELECT id FROM whatsapp_conversations WHERE wa_id = $1', [waId]))[0]!.id;

  it('lists nothing (200) before a number is set up, with the connection state', async () => {
    const res = await get(`${API}/conversations`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      conversations: [],
      connection: { configured: true, connected: false, reconnect_required: false },
    });
    // A delivery for a number not set up is acknowledged and ignored.
    const hook = await t.post(t.fake.inbound(CUSTOMER, { type: 'text', text: { body: 'antes' } }).body);
    expect(hook.json().received).toMatchObject({ messages: 0, ignored: 1 });
  });

  it('refuses bad channel settings with 422 and the fields, storing nothing', async () => {
    const res = await t.app.inject({
      method: 'PUT',
      url: `${API}/channel`,
      headers: { cookie: t.superadmin, ...SAME_ORIGIN },
      payload: { phone_number_id: 'abc', waba_id: '12', token: 'short' },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe('validation_failed');
    expect(
      res
        .json()
        .details.map((d: { path: string }) => d.path)
        .sort(),
    ).toEqual(['phone_number_id', 'token']);
    expect(await t.container.db.query('SELECT 1 FROM whatsapp_channel')).toEqual([]);
  });

  it('stores the channel with the token encrypted and never gives the token back', async () => {
    await t.setup();
    const [row] = await t.container.db.query<{ token_encrypted: string }>('SELECT token_encrypted FROM whatsapp_channel');
    expect(row!.token_encrypted).not.toContain(t.fake.token);
    expect(t.container.cipher.decrypt(row!.token_encrypted)).toBe(t.fake.token);
    const status = await get(`${API}/status`);
    expect(status.json().status).toMatchObject({
      connected: true,
      phone_number_id: t.fake.phoneNumberId,
      waba_id: t.fake.wabaId,
      send_enabled: true,
      agent_enabled: false,
    });
    expect(status.body).not.toContain(t.fake.token);
  });

  it('only a superadmin reaches it', async () => {
    const company = await makeCompany(t.container);
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const { cookie } = await login(t.app, admin.email, admin.password);
    expect((await t.app.inject({ url: `${API}/conversations`, headers: { cookie } })).statusCode).toBe(403);
    expect((await t.app.inject({ url: `${API}/conversations` })).statusCode).toBe(401);
  });

  it('lists threads with the profile name, the "ours" mark, the window and delivery ticks', async () => {
    const inbound = t.fake.inbound(CUSTOMER, { type: 'text', text: { body: '¿Cuánto sale?' } }, { profileName: 'Ana' });
    await t.post(inbound.body);
    const sent = await post(`${API}/messages`, {
      conversation_id: await conversationId(),
      text: 'Hola Ana, te paso los planes.',
    });
    expect(sent.statusCode).toBe(201);
    const ours = sent.json().message.wamid as string;
    expect(t.fake.sent.at(-1)).toMatchObject({ to: CUSTOMER, type: 'text', text: { body: 'Hola Ana, te paso los planes.' } });
    await t.post(t.fake.status(ours, 'delivered'));
    await t.post(t.fake.status(ours, 'read'));
    const list = (await get(`${API}/conversations`)).json().conversations;
    expect(list).toMatchObject([
      { wa_id: CUSTOMER, profile_name: 'Ana', last_message_direction: 'outbound', window_open: true, channel: 'whatsapp' },
    ]);
    const thread = (await get(`${API}/conversations/${list[0].id}/messages`)).json();
    expect(thread.messages.map((m: { direction: string; status: string | null }) => [m.direction, m.status])).toEqual([
      ['inbound', null],
      ['outbound', 'read'],
    ]);
  });

  it('refuses free text outside the 24-hour window (before calling Meta) and sends an approved template', async () => {
    const old = new Date(Date.now() - 25 * 3600_000);
    await t.post(t.fake.inbound('5491133334444', { type: 'text', text: { body: 'viejo' } }, { at: old }).body);
    const id = await conversationId('5491133334444');
    const text = await post(`${API}/messages`, { conversation_id: id, text: 'hola' });
    expect(text.statusCode).toBe(422);
    expect(text.json()).toMatchObject({ code: 'window_closed', details: [{ path: 'meta_code', message: '131047' }] });
    expect(t.fake.requests.filter((r) => r.method === 'POST')).toEqual([]);

    const templates = (await get(`${API}/templates`)).json().templates;
    // Paged in the fake (2 a page): all read, only the approved ones offered.
    expect(templates.map((x: { name: string }) => x.name)).toEqual(['seguimiento_consulta', 'saludo']);
    expect(templates[0]).toMatchObject({ parameters: 2, language: 'es_AR' });

    const wrongCount = await post(`${API}/templates/send`, {
      conversation_id: id,
      name: 'seguimiento_consulta',
      language: 'es_AR',
      parameters: ['Ana'],
    });
    expect(wrongCount.statusCode).toBe(422);
    expect(wrongCount.json().details).toEqual([{ path: 'parameters', message: 'exactly 2 non-empty values' }]);
    const pending = await post(`${API}/templates/send`, {
      conversation_id: id,
      name: 'promo_pendiente',
      language: 'es_AR',
      parameters: ['x'],
    });
    expect(pending.statusCode).toBe(422);

    const ok = await post(`${API}/templates/send`, {
      conversation_id: id,
      name: 'seguimiento_consulta',
      language: 'es_AR',
      parameters: ['Ana', 'el plan anual'],
    });
    expect(ok.statusCode).toBe(201);
    expect(ok.json().message).toMatchObject({
      type: 'template',
      text: 'Hola Ana, te escribimos de Mostrador por tu consulta sobre el plan anual.',
    });
    expect(t.fake.sent.at(-1)).toMatchObject({
      type: 'template',
      template: {
        name: 'seguimiento_consulta',
        components: [{ type: 'body', parameters: [{ text: 'Ana' }, { text: 'el plan anual' }] }],
      },
    });
  });

  it("turns Meta's errors into codes the screen words in Spanish (window 131047, rate 130429, token 190)", async () => {
    await t.post(t.fake.inbound(CUSTOMER, { type: 'text', text: { body: 'hola' } }).body);
    const id = await conversationId();
    // The fake forgot the window (the service thinks it is open): Meta's own 131047.
    t.fake.lastInbound.clear();
    const window = await post(`${API}/messages`, { conversation_id: id, text: 'hola' });
    expect(window.json()).toMatchObject({ code: 'window_closed', details: [{ path: 'meta_code', message: '131047' }] });
    t.fake.failures.push({
      match: /POST .*\/messages$/,
      status: 429,
      body: { error: { code: 130429, message: 'Rate limit hit', type: 'OAuthException' } },
    });
    const rate = await post(`${API}/messages`, { conversation_id: id, text: 'hola' });
    expect(rate.statusCode).toBe(429);
    expect(rate.json()).toMatchObject({ code: 'rate_limited', details: [{ message: '130429' }] });
    expect(rate.headers['retry-after']).toBe('60');
    // The Graph API's own throttling codes (app, user, page limits) and the WABA's, answered with HTTP 400.
    for (const code of [4, 17, 32, 613, 80007]) {
      t.fake.failures.push({
        match: /POST .*\/messages$/,
        status: 400,
        body: { error: { code, message: 'Application request limit reached', type: 'OAuthException' } },
      });
      const limited = await post(`${API}/messages`, { conversation_id: id, text: 'hola' });
      expect(limited.statusCode, `code ${code}`).toBe(429);
      expect(limited.json()).toMatchObject({ code: 'rate_limited', details: [{ message: String(code) }] });
      expect(limited.headers['retry-after']).toBe('60');
    }
    t.fake.failures.push({ match: /POST .*\/messages$/, status: 401, body: { error: { code: 190, message: 'Token expired' } } });
    const token = await post(`${API}/messages`, { conversation_id: id, text: 'hola' });
    expect(token.json()).toMatchObject({ code: 'reconnect_required', details: [{ message: '190' }] });
  });

  it('Argentine mobiles: 549… and 54… are one thread; a 131030 send is retried once with the other form, which is kept', async () => {
    await t.setup();
    const mobile = '5491166667777';
    await t.post(t.fake.inbound(mobile, { type: 'text', text: { body: 'hola' } }).body);
    // The same person written without the 9 lands in the same thread.
    await t.post(t.fake.inbound('541166667777', { type: 'text', text: { body: 'sigo' } }).body);
    const threads = await t.container.db.query<{ id: string }>(
      "SELECT id FROM whatsapp_conversations WHERE wa_id IN ('5491166667777', '541166667777')",
    );
    expect(threads).toHaveLength(1);
    const id = threads[0]!.id;

    // Development mode: Meta lists the number as 54 + 10 digits and refuses the 549 form with 131030.
    t.fake.allowedRecipients = ['541166667777'];
    const first = await post(`${API}/messages`, { conversation_id: id, text: 'primera' });
    expect(first.statusCode).toBe(201);
    const tos = () => t.fake.requests.filter((r) => r.method === 'POST').map((r) => JSON.parse(r.body).to);
    expect(tos()).toEqual(['5491166667777', '541166667777']);
    // The form that worked is remembered: the next send goes straight to it.
    const second = await post(`${API}/messages`, { conversation_id: id, text: 'segunda' });
    expect(second.statusCode).toBe(201);
    expect(tos()).toEqual(['5491166667777', '541166667777', '541166667777']);
    expect(t.fake.sent.map((m) => (m['text'] as { body: string }).body)).toEqual(['primera', 'segunda']);

    // Neither form allowed: its own code (not "the number does not use WhatsApp"), after one retry only.
    t.fake.allowedRecipients = ['5491100000000'];
    t.fake.requests.length = 0;
    const refused = await post(`${API}/messages`, { conversation_id: id, text: 'tercera' });
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toMatchObject({ code: 'recipient_not_allowed', details: [{ path: 'meta_code', message: '131030' }] });
    expect(tos()).toEqual(['541166667777', '5491166667777']);
  });

  it('templates: values by placeholder number or name, parameter_name for named ones; header or button values not offered (422)', async () => {
    await t.setup();
    t.fake.templates.push(
      {
        name: 'pedido_listo',
        language: 'es_AR',
        status: 'APPROVED',
        category: 'UTILITY',
        body: 'Tu pedido {{2}} está listo, {{1}}. Gracias {{1}}!',
      },
      {
        name: 'pedido_nombrado',
        language: 'es_AR',
        status: 'APPROVED',
        category: 'UTILITY',
        parameter_format: 'NAMED',
        body: 'Hola {{nombre}}, tu pedido {{pedido}} está listo.',
      },
      {
        name: 'promo_imagen',
        language: 'es_AR',
        status: 'APPROVED',
        category: 'MARKETING',
        header: { format: 'IMAGE' },
        body: 'Mirá {{1}}',
      },
      {
        name: 'seguimiento_link',
        language: 'es_AR',
        status: 'APPROVED',
        category: 'UTILITY',
        body: 'Seguí tu envío',
        buttons: [{ type: 'URL', text: 'Ver', url: 'https://envios.example/{{1}}' }],
      },
    );
    await t.post(t.fake.inbound(CUSTOMER, { type: 'text', text: { body: 'hola' } }).body);
    const id = await conversationId();

    const offered = (await get(`${API}/templates`)).json().templates as { name: string; placeholders: string[] }[];
    expect(offered.map((x) => x.name)).toEqual(['seguimiento_consulta', 'saludo', 'pedido_listo', 'pedido_nombrado']);
    expect(offered.find((x) => x.name === 'pedido_nombrado')).toMatchObject({
      parameter_format: 'NAMED',
      placeholders: ['nombre', 'pedido'],
    });

    const positional = await post(`${API}/templates/send`, {
      conversation_id: id,
      name: 'pedido_listo',
      language: 'es_AR',
      parameters: ['Ana', '123'],
    });
    expect(positional.statusCode).toBe(201);
    // Stored as Meta delivers it: {{1}} is the first value wherever it appears.
    expect(positional.json().message.text).toBe('Tu pedido 123 está listo, Ana. Gracias Ana!');

    const named = await post(`${API}/templates/send`, {
      conversation_id: id,
      name: 'pedido_nombrado',
      language: 'es_AR',
      parameters: ['Ana', '123'],
    });
    expect(named.statusCode).toBe(201);
    expect(named.json().message.text).toBe('Hola Ana, tu pedido 123 está listo.');
    expect(t.fake.sent.at(-1)).toMatchObject({
      template: {
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', parameter_name: 'nombre', text: 'Ana' },
              { type: 'text', parameter_name: 'pedido', text: '123' },
            ],
          },
        ],
      },
    });

    for (const name of ['promo_imagen', 'seguimiento_link']) {
      const refused = await post(`${API}/templates/send`, { conversation_id: id, name, language: 'es_AR', parameters: [] });
      expect(refused.statusCode).toBe(422);
      expect(refused.json().code).toBe('template_unsupported');
    }
    expect(t.fake.sent).toHaveLength(2);
  });

  it('a refused token (190 or HTTP 401) marks the channel to reconnect: shown, sends refused before Meta, cleared on save', async () => {
    await t.setup();
    await t.post(t.fake.inbound(CUSTOMER, { type: 'text', text: { body: 'hola' } }).body);
    const id = await conversationId();
    t.fake.failures.push({
      match: /POST .*\/messages$/,
      status: 401,
      body: { error: { message: 'Error validating access token: Session has expired', type: 'OAuthException', code: 190 } },
    });
    const refused = await post(`${API}/messages`, { conversation_id: id, text: 'hola' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().code).toBe('reconnect_required');
    const status = (await get(`${API}/status`)).json().status;
    expect(status).toMatchObject({ connected: true, reconnect_required: true });
    expect(status.reconnect_reason).toContain('190');
    expect((await get(`${API}/conversations`)).json().connection).toEqual({
      configured: true,
      connected: true,
      reconnect_required: true,
    });
    // While it holds, nothing is sent to Meta.
    const posts = t.fake.requests.filter((r) => r.method === 'POST').length;
    expect((await post(`${API}/messages`, { conversation_id: id, text: 'otra' })).json().code).toBe('reconnect_required');
    const template = await post(`${API}/templates/send`, {
      conversation_id: id,
      name: 'saludo',
      language: 'es_AR',
      parameters: [],
    });
    expect(template.json().code).toBe('reconnect_required');
    expect(t.fake.requests.filter((r) => r.method === 'POST')).toHaveLength(posts);
    // Saving the channel (a new token) clears it.
    await t.setup();
    expect((await get(`${API}/status`)).json().status).toMatchObject({ reconnect_required: false, reconnect_reason: null });
    expect((await post(`${API}/messages`, { conversation_id: id, text: 'ya está' })).statusCode).toBe(201);
  });

  it('aborts a Graph call that does not answer in time (upstream_timeout)', async () => {
    await t.post(t.fake.inbound(CUSTOMER, { type: 'text', text: { body: 'hola' } }).body);
    t.fake.stalls.push({ match: /message_templates/, delayMs: 6000 });
    const res = await get(`${API}/templates`);
    expect(res.statusCode).toBe(504);
    expect(res.json().code).toBe('upstream_timeout');
  });

  it('streams media through the server: the token never reaches the browser; each view takes a fresh URL', async () => {
    const bytes = Buffer.from('OggS fake voice note '.repeat(100));
    const media = t.fake.addMedia('audio/ogg', bytes);
    const { wamid } = t.fake.inbound(CUSTOMER, {
      type: 'audio',
      audio: { id: media.id, mime_type: 'audio/ogg', sha256: 'x', voice: true },
    });
    await t.post(
      t.fake.inbound(
        CUSTOMER,
        { type: 'audio', audio: { id: media.id, mime_type: 'audio/ogg', sha256: 'x', voice: true } },
        { id: wamid },
      ).body,
    );
    const thread = (await get(`${API}/conversations/${await conversationId()}/messages`)).json();
    const audio = thread.messages.find((m: { wamid: string }) => m.wamid === wamid);
    expect(audio.media_url).toBe(`${API}/media?id=${media.id}`);
    // Each view asks Graph for a fresh short-lived URL (they last 5 minutes): none is kept.
    for (let i = 0; i < 2; i += 1) {
      const res = await get(audio.media_url);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('audio/ogg');
      expect(res.rawPayload.equals(bytes)).toBe(true);
      expect(JSON.stringify(res.headers)).not.toContain(t.fake.token);
    }
    expect(t.fake.requests.filter((r) => r.path === `/v23.0/${media.id}`)).toHaveLength(2);
    // Graph saw the token only in the Authorization header, never in a URL.
    for (const r of t.fake.requests) {
      expect(r.authorization).toBe(`Bearer ${t.fake.token}`);
      expect(r.search).not.toContain(t.fake.token);
    }
    expect(JSON.stringify(thread)).not.toContain(t.fake.token);
    // Only media of stored messages; and never with a bearer header.
    expect((await get(`${API}/media?id=999`)).statusCode).toBe(404);
    const bearer = await t.app.inject({ url: audio.media_url, headers: { cookie: t.superadmin, authorization: 'Bearer x' } });
    expect(bearer.statusCode).toBe(403);
  });

  it('never lets a file a customer sent run on our origin: HTML is a download, nothing runs scripts (CSP sandbox)', async () => {
    const page = t.fake.addMedia('text/html', Buffer.from('<script>fetch("/api/superadmin/whatsapp/status")</script>'));
    const svg = t.fake.addMedia('image/svg+xml', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'));
    const photo = t.fake.addMedia('image/jpeg', Buffer.from('jpeg'));
    for (const [media, type] of [
      [page, 'document'],
      [svg, 'image'],
      [photo, 'image'],
    ] as const) {
      await t.post(t.fake.inbound(CUSTOMER, { type, [type]: { id: media.id, mime_type: media.mime_type, sha256: 'x' } }).body);
    }
    const open = (id: string) => get(`${API}/media?id=${id}`);
    for (const media of [page, svg]) {
      const res = await open(media.id);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-disposition']).toBe('attachment');
      expect(res.headers['content-security-policy']).toBe('sandbox');
    }
    const shown = await open(photo.id);
    expect(shown.headers['content-type']).toBe('image/jpeg');
    expect(shown.headers['content-disposition']).toBe('inline');
    expect(shown.headers['content-security-policy']).toBe('sandbox');
  });

  it('answers a download URL that expired before use as upstream_failed, not a broken stream', async () => {
    const media = t.fake.addMedia('image/jpeg', Buffer.from('jpeg'));
    await t.post(t.fake.inbound(CUSTOMER, { type: 'image', image: { id: media.id, mime_type: 'image/jpeg', sha256: 'x' } }).body);
    t.fake.mediaUrlTtlMs = -1;
    const res = await get(`${API}/media?id=${media.id}`);
    expect(res.statusCode).toBe(502);
    expect(res.json().code).toBe('upstream_failed');
  });

  it('is read-only with WHATSAPP_SEND_ENABLED off (any value but true/1/yes)', async () => {
    // One value that is not true/1/yes (config.test-style checks of the others would need no app).
    for (const value of ['on']) {
      const off = await buildWhatsappApp({ env: { WHATSAPP_SEND_ENABLED: value } });
      try {
        expect(off.container.config.whatsapp.sendEnabled).toBe(false);
        const res = await off.app.inject({
          method: 'POST',
          url: `${API}/messages`,
          headers: { cookie: off.superadmin, ...SAME_ORIGIN },
          payload: { nonsense: true },
        });
        expect(res.statusCode).toBe(403);
        expect(res.json().code).toBe('send_disabled');
      } finally {
        await off.close();
      }
    }
  }, 90_000);
});
