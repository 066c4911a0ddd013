import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local Instagram (API with Instagram Login) speaking the wire format of
 * ../shared/research/instagram.md's fact sheet: the authorize page, the code exchange, the
 * long-lived exchange and refresh, /me, conversations, threads, message details, send,
 * subscribed_apps, attachment bytes with Range, and a webhook emitter that signs exact bytes.
 */

export interface FakeAttachment {
  id: string;
  mime_type: string;
  name: string;
  size: number;
  bytes: Buffer;
}

export interface FakeMessage {
  id: string;
  created_time: string;
  from: { id: string; username?: string };
  to: { id: string; username?: string };
  message: string;
  attachments?: FakeAttachment[];
}

export interface FakeConversation {
  id: string;
  updated_time: string;
  participant: { id: string; username?: string };
  /** Newest first, as the Graph answers. */
  messages: FakeMessage[];
}

export interface FakeFailure {
  /** Matched against `METHOD /path` (no query). */
  match: RegExp;
  status: number;
  body: unknown;
  /** How many matching requests fail (default 1). */
  times?: number;
}

export interface FakeStall {
  match: RegExp;
  /** Milliseconds before the headers. */
  headerDelayMs?: number;
  /** Milliseconds between the headers (and half of the body) and the rest of the body. */
  bodyStallMs?: number;
}

export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The raw query string, to check that no token ever travels in a URL. */
  search: string;
  authorization: string | null;
  body: string;
  at: number;
}

export interface FakeKnobs {
  /** `flat` (what clients see) or `data` (the documented `{data:[…]}` envelope) for token and /me answers. */
  envelope: 'flat' | 'data';
  /** The code exchange's user_id as a bare JSON number (Meta does; > 2^53). */
  numericTokenUserId: boolean;
  /** Permissions the user granted, as a comma string or an array. */
  permissions: string | string[];
  /** The authorize page answers as if the user cancelled. */
  deny: boolean;
  /** Long-lived token lifetime in seconds. */
  expiresIn: number;
  /** Page size cap of the conversation list, and an empty page with `next` before the first real one. */
  emptyFirstPage: boolean;
  /** The first media URL handed out answers 403 (an expired CDN URL). */
  expireFirstMediaUrl: boolean;
  /** Sending answers the outside-window error (10 / 2534022). */
  windowClosed: boolean;
  failures: FakeFailure[];
  stalls: FakeStall[];
}

export interface FakeInstagram {
  url: string;
  appId: string;
  appSecret: string;
  account: { userId: string; username: string; appScopedId: string };
  knobs: FakeKnobs;
  conversations: FakeConversation[];
  requests: FakeRequest[];
  subscribedFields: string[];
  /** Tokens the fake issued and still accepts. */
  validTokens: Set<string>;
  /** Called with each message the send endpoint accepted (for echo tests). */
  onSend: ((message: FakeMessage, conversation: FakeConversation) => void | Promise<void>) | null;
  /** Adds a thread with one inbound message; returns it. */
  addConversation(input: {
    participantId: string;
    username?: string;
    text?: string;
    at?: Date;
    attachments?: FakeAttachment[];
  }): FakeConversation;
  /** A long-lived token valid on this fake (skips the OAuth dance in tests). */
  issueToken(): string;
  /** Signs bytes the way Meta does: `sha256=<lowercase hex>`. */
  sign(raw: string | Buffer, secret?: string): string;
  /** POSTs exactly `raw` to a webhook URL with the Meta signature header. */
  deliverWebhook(url: string, raw: string, options?: { secret?: string; header?: string; signature?: string }): Promise<Response>;
  reset(): void;
  close(): Promise<void>;
}

export const FAKE_GRAPH_VERSION_PATTERN = /^\/v\d+\.\d+/;

export async function startFakeInstagram(
  options: { appId?: string; appSecret?: string; port?: number } = {},
): Promise<FakeInstagram> {
  const appId = options.appId ?? '990602627938098';
  const appSecret = options.appSecret ?? 'fake-instagram-app-secret';
  // Larger than 2^53: JSON.parse would round it.
  const account = { userId: '17841400774391234', username: 'mostrador.ar', appScopedId: '9007199254740993' };
  const defaults = (): FakeKnobs => ({
    envelope: 'flat',
    numericTokenUserId: true,
    permissions: 'instagram_business_basic,instagram_business_manage_messages',
    deny: false,
    expiresIn: 5183944,
    emptyFirstPage: false,
    expireFirstMediaUrl: false,
    windowClosed: false,
    failures: [],
    stalls: [],
  });
  const codes = new Map<string, { used: boolean; redirectUri: string }>();
  const shortTokens = new Set<string>();
  const mediaUrls = new Map<string, { attachment: FakeAttachment; expired: boolean }>();
  let mediaHanded = 0;
  let seq = 0;

  const fake: FakeInstagram = {
    url: '',
    appId,
    appSecret,
    account,
    knobs: defaults(),
    conversations: [],
    requests: [],
    subscribedFields: [],
    validTokens: new Set(),
    onSend: null,
    addConversation({ participantId, username, text = 'Hola, ¿precio?', at = new Date(), attachments }) {
      seq += 1;
      const conversation: FakeConversation = {
        id: `aWdfZAG06Conv${seq}`,
        updated_time: graphTime(at),
        participant: { id: participantId, ...(username ? { username } : {}) },
        messages: [
          {
            id: `aWdfZAG1mid${seq}x${randomBytes(4).toString('hex')}`,
            created_time: graphTime(at),
            from: { id: participantId, ...(username ? { username } : {}) },
            to: { id: account.userId, username: account.username },
            message: text,
            ...(attachments ? { attachments } : {}),
          },
        ],
      };
      fake.conversations.push(conversation);
      return conversation;
    },
    issueToken() {
      const token = `IGAA${randomBytes(24).toString('base64url')}`;
      fake.validTokens.add(token);
      return token;
    },
    sign(raw, secret = appSecret) {
      return `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
    },
    deliverWebhook(url, raw, { secret, header = 'x-hub-signature-256', signature } = {}) {
      return fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [header]: signature ?? fake.sign(raw, secret) },
        body: raw,
      });
    },
    reset() {
      fake.knobs = defaults();
      fake.conversations.length = 0;
      fake.requests.length = 0;
      fake.subscribedFields = [];
      fake.onSend = null;
      mediaHanded = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  const tokenOf = (req: FakeRequest) => /^Bearer (.+)$/.exec(req.authorization ?? '')?.[1] ?? req.query.get('access_token');

  async function handle(req: FakeRequest, res: ServerResponse): Promise<void> {
    const where = `${req.method} ${req.path}`;
    const failure = fake.knobs.failures.find((f) => f.match.test(where) && (f.times ?? 1) > 0);
    if (failure) {
      failure.times = (failure.times ?? 1) - 1;
      return json(res, failure.status, failure.body);
    }
    const stall = fake.knobs.stalls.find((s) => s.match.test(where));
    if (stall?.headerDelayMs) await new Promise((r) => setTimeout(r, stall.headerDelayMs));
    const send = (status: number, body: unknown) =>
      stall?.bodyStallMs ? stalled(res, status, body, stall.bodyStallMs) : json(res, status, body);

    // 1. Authorize page: approves at once (or cancels), redirecting with `#_` like Instagram.
    if (req.method === 'GET' && req.path === '/oauth/authorize') {
      const redirect = req.query.get('redirect_uri') ?? '';
      const state = req.query.get('state');
      const target = new URL(redirect);
      if (state !== null) target.searchParams.set('state', state);
      if (fake.knobs.deny) {
        target.searchParams.set('error', 'access_denied');
        target.searchParams.set('error_reason', 'user_denied');
        target.searchParams.set('error_description', 'The user denied your request');
        res.writeHead(302, { location: target.toString() }).end();
        return;
      }
      const code = randomBytes(18).toString('base64url');
      codes.set(code, { used: false, redirectUri: redirect });
      target.searchParams.set('code', code);
      res.writeHead(302, { location: `${target.toString()}#_` }).end();
      return;
    }
    // 2. Code exchange (POST form only).
    if (req.path === '/oauth/access_token') {
      if (req.method !== 'POST') {
        return json(res, 400, {
          error: { message: 'Unsupported request - method type: get', type: 'IGApiException', code: 100 },
        });
      }
      const form = new URLSearchParams(req.body);
      const entry = codes.get(form.get('code') ?? '');
      if (
        form.get('client_id') !== appId ||
        form.get('client_secret') !== appSecret ||
        form.get('grant_type') !== 'authorization_code'
      ) {
        return json(res, 400, { error_type: 'OAuthException', code: 400, error_message: 'Invalid client_id or client_secret' });
      }
      if (!entry || entry.used || entry.redirectUri !== form.get('redirect_uri')) {
        return json(res, 400, {
          error_type: 'OAuthException',
          code: 400,
          error_message: 'Matching code was not found or was already used',
        });
      }
      entry.used = true;
      const token = `IGAAshort${randomBytes(16).toString('base64url')}`;
      shortTokens.add(token);
      const inner = `{"access_token":${JSON.stringify(token)},"user_id":${fake.knobs.numericTokenUserId ? '17841400774391299' : '"17841400774391299"'},"permissions":${JSON.stringify(fake.knobs.permissions)}}`;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(fake.knobs.envelope === 'data' ? `{"data":[${inner}]}` : inner);
      return;
    }
    // 3. Long-lived exchange.
    if (req.method === 'GET' && req.path === '/access_token') {
      const short = tokenOf(req);
      if (
        req.query.get('grant_type') !== 'ig_exchange_token' ||
        req.query.get('client_secret') !== appSecret ||
        !short ||
        !shortTokens.has(short)
      ) {
        return send(400, { error: { message: 'Invalid OAuth access token.', type: 'OAuthException', code: 190 } });
      }
      shortTokens.delete(short);
      return send(200, { access_token: fake.issueToken(), token_type: 'bearer', expires_in: fake.knobs.expiresIn });
    }
    // 4. Refresh.
    if (req.method === 'GET' && req.path === '/refresh_access_token') {
      const token = tokenOf(req);
      if (req.query.get('grant_type') !== 'ig_refresh_token' || !token || !fake.validTokens.has(token)) {
        return send(400, { error: { message: 'Unsupported request - method type: get', type: 'IGApiException', code: 100 } });
      }
      fake.validTokens.delete(token);
      return send(200, { access_token: fake.issueToken(), token_type: 'bearer', expires_in: fake.knobs.expiresIn });
    }

    const version = FAKE_GRAPH_VERSION_PATTERN.exec(req.path);
    const path = version ? req.path.slice(version[0].length) : req.path;
    const token = tokenOf(req);
    if (!token || !fake.validTokens.has(token)) {
      return send(400, {
        error: {
          message: 'Error validating access token: Session has expired',
          type: 'OAuthException',
          code: 190,
          error_subcode: 463,
        },
      });
    }
    // 5. /me
    if (req.method === 'GET' && path === '/me') {
      const me = { user_id: account.userId, username: account.username, id: account.appScopedId };
      return send(200, fake.knobs.envelope === 'data' ? { data: [me] } : me);
    }
    const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    // 10. subscribed_apps
    if (parts.length === 2 && parts[1] === 'subscribed_apps' && parts[0] === account.userId) {
      if (req.method === 'POST') {
        fake.subscribedFields = (req.query.get('subscribed_fields') ?? '').split(',').filter(Boolean);
        return send(200, { success: true });
      }
      return send(200, {
        data: fake.subscribedFields.length ? [{ subscribed_fields: fake.subscribedFields, id: appId, name: 'Mostrador' }] : [],
      });
    }
    // 6. Conversations list (or the lookup by participant).
    if (
      req.method === 'GET' &&
      parts.length === 2 &&
      parts[1] === 'conversations' &&
      (parts[0] === account.userId || parts[0] === 'me')
    ) {
      const byUser = req.query.get('user_id');
      if (byUser)
        return send(200, { data: fake.conversations.filter((c) => c.participant.id === byUser).map((c) => ({ id: c.id })) });
      const limit = Number(req.query.get('limit') ?? 25);
      const after = req.query.get('after');
      const sorted = [...fake.conversations].sort((a, b) => b.updated_time.localeCompare(a.updated_time));
      if (fake.knobs.emptyFirstPage && after === null) {
        return send(200, { data: [], paging: { cursors: { before: 'e0', after: 'p0' }, next: nextUrl(req, 'p0', token) } });
      }
      const start = after && after !== 'p0' ? Number(after.slice(1)) : 0;
      const page = sorted.slice(start, start + limit);
      const end = start + page.length;
      return send(200, {
        data: page.map((c) => ({
          id: c.id,
          updated_time: c.updated_time,
          participants: { data: [{ id: account.userId, username: account.username }, c.participant] },
          messages: { data: c.messages.slice(0, 1).map(({ attachments: _a, to: _t, ...m }) => m) },
        })),
        paging: {
          cursors: { before: `p${start}`, after: `p${end}` },
          ...(end < sorted.length ? { next: nextUrl(req, `p${end}`, token) } : {}),
        },
      });
    }
    // 9. Send.
    if (
      req.method === 'POST' &&
      parts.length === 2 &&
      parts[1] === 'messages' &&
      (parts[0] === account.userId || parts[0] === 'me')
    ) {
      const body = JSON.parse(req.body || '{}') as { recipient?: { id?: string }; message?: { text?: string } };
      const conversation = fake.conversations.find((c) => c.participant.id === body.recipient?.id);
      if (!conversation)
        return send(400, { error: { message: 'The requested user cannot be found.', type: 'IGApiException', code: 100 } });
      if (fake.knobs.windowClosed) {
        return send(403, {
          error: {
            message: 'This message is sent outside of allowed window.',
            type: 'IGApiException',
            code: 10,
            error_subcode: 2534022,
            fbtrace_id: 'A1',
          },
        });
      }
      seq += 1;
      const message: FakeMessage = {
        id: `aWdfZAG1sent${seq}x${randomBytes(4).toString('hex')}`,
        created_time: graphTime(new Date()),
        from: { id: account.userId, username: account.username },
        to: conversation.participant,
        message: body.message?.text ?? '',
      };
      conversation.messages.unshift(message);
      conversation.updated_time = message.created_time;
      if (fake.onSend) await fake.onSend(message, conversation);
      return send(200, { recipient_id: conversation.participant.id, message_id: message.id });
    }
    // 7. A thread, 8. one message.
    if (req.method === 'GET' && parts.length === 1) {
      const conversation = fake.conversations.find((c) => c.id === parts[0]);
      if (conversation) {
        const limit = Number(/messages\.limit\((\d+)\)/.exec(req.query.get('fields') ?? '')?.[1] ?? 20);
        return send(200, {
          id: conversation.id,
          messages: {
            data: conversation.messages.slice(0, limit).map((m) => ({
              id: m.id,
              created_time: m.created_time,
              from: m.from,
              to: { data: [m.to] },
              message: m.message,
              ...(m.attachments ? { attachments: { data: m.attachments.map(({ bytes: _b, ...a }) => a) } } : {}),
            })),
          },
        });
      }
      for (const c of fake.conversations) {
        const index = c.messages.findIndex((m) => m.id === parts[0]);
        if (index < 0) continue;
        if (index >= 20)
          return send(400, { error: { message: 'The message has been deleted', type: 'IGApiException', code: 100 } });
        const m = c.messages[index]!;
        return send(200, {
          id: m.id,
          attachments: {
            data: (m.attachments ?? []).map((attachment) => {
              mediaHanded += 1;
              const key = randomBytes(12).toString('hex');
              mediaUrls.set(key, { attachment, expired: fake.knobs.expireFirstMediaUrl && mediaHanded === 1 });
              const { bytes: _bytes, ...shown } = attachment;
              return { ...shown, file_url: `${fake.url}/cdn/${key}?oe=${Date.now() + 3_600_000}` };
            }),
          },
        });
      }
      return send(400, {
        error: { message: 'Unsupported get request. Object does not exist', type: 'IGApiException', code: 100 },
      });
    }
    return send(404, { error: { message: `fake instagram: no route ${where}`, type: 'IGApiException', code: 100 } });
  }

  function serveMedia(key: string, req: IncomingMessage, res: ServerResponse) {
    const entry = mediaUrls.get(key);
    if (!entry || entry.expired) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('URL signature expired');
      return;
    }
    const bytes = entry.attachment.bytes;
    const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
    if (range) {
      const start = range[1] === '' ? Math.max(0, bytes.length - Number(range[2])) : Number(range[1]);
      const end = range[1] === '' || range[2] === '' ? bytes.length - 1 : Math.min(Number(range[2]), bytes.length - 1);
      if (start > end || start >= bytes.length) {
        res.writeHead(416, { 'content-range': `bytes */${bytes.length}` }).end();
        return;
      }
      res.writeHead(206, {
        'content-type': entry.attachment.mime_type,
        'content-length': String(end - start + 1),
        'content-range': `bytes ${start}-${end}/${bytes.length}`,
        'accept-ranges': 'bytes',
      });
      res.end(bytes.subarray(start, end + 1));
      return;
    }
    res.writeHead(200, {
      'content-type': entry.attachment.mime_type,
      'content-length': String(bytes.length),
      'accept-ranges': 'bytes',
    });
    res.end(bytes);
  }

  const server: Server = createServer((incoming, res) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (c: Buffer) => chunks.push(c));
    incoming.on('end', () => {
      const url = new URL(incoming.url ?? '/', 'http://fake');
      const cdn = /^\/cdn\/([0-9a-f]+)$/.exec(url.pathname);
      if (cdn) return serveMedia(cdn[1]!, incoming, res);
      const req: FakeRequest = {
        method: incoming.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        search: url.search,
        authorization: incoming.headers.authorization ?? null,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      fake.requests.push(req);
      handle(req, res).catch((err) => {
        if (!res.headersSent) json(res, 500, { error: { message: String(err), code: 1 } });
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

/** Graph's time format: ISO 8601 with `+0000`. */
export function graphTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, '+0000');
}

/** The `next` URL as Graph writes it: absolute and with the token in it (a client must not follow or log it). */
function nextUrl(req: FakeRequest, after: string, token: string): string {
  const query = new URLSearchParams(req.query);
  query.set('after', after);
  query.set('access_token', token);
  return `https://graph.instagram.com${req.path}?${query.toString()}`;
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

/** Sends the headers and half the body, then stalls before the rest. */
function stalled(res: ServerResponse, status: number, body: unknown, stallMs: number) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.write(text.slice(0, Math.floor(text.length / 2)));
  const timer = setTimeout(() => res.end(text.slice(Math.floor(text.length / 2))), stallMs);
  res.on('close', () => clearTimeout(timer));
}

/** A Meta webhook body (messaging[] items under one entry of `accountId`), written with Meta's escaping. */
export function metaDelivery(
  accountId: string,
  items: unknown[],
  options: { field?: 'messaging' | 'standby'; time?: number } = {},
): string {
  const body = {
    object: 'instagram',
    entry: [{ id: accountId, time: options.time ?? Date.now(), [options.field ?? 'messaging']: items }],
  };
  return metaEscape(JSON.stringify(body));
}

/** Meta signs "the raw escaped unicode version": non-ASCII as \uXXXX, and `/`, `<`, `%`, `@` escaped too. */
export function metaEscape(json: string): string {
  return json
    .replace(/[\u007f-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/\//g, '\\/')
    .replace(/</g, '\\u003C')
    .replace(/%/g, '\\u0025')
    .replace(/@/g, '\\u0040');
}

export function inboundItem(accountId: string, senderId: string, mid: string, text: string, timestamp = Date.now()) {
  return { sender: { id: senderId }, recipient: { id: accountId }, timestamp, message: { mid, text } };
}
