import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local WhatsApp Business Cloud API speaking the wire format of ../shared/research/whatsapp.md:
 * the send endpoint (text only inside the contact's 24-hour window, approved templates with their
 * parameter count), the template list with paging, media lookup with download URLs that expire,
 * errors and stalls on demand, and a webhook emitter that signs the exact bytes it sends.
 */

export interface FakeTemplate {
  name: string;
  language: string;
  status: 'APPROVED' | 'PENDING' | 'REJECTED' | 'PAUSED';
  category: string;
  body: string;
  /** Meta's default is POSITIONAL ({{1}}); NAMED ({{nombre}}) takes `parameter_name` on each value. */
  parameter_format?: 'POSITIONAL' | 'NAMED';
  /** A HEADER component: TEXT (maybe with {{1}}) or media (IMAGE, VIDEO, DOCUMENT: a value is required). */
  header?: { format: 'TEXT' | 'IMAGE' | 'VIDEO' | 'DOCUMENT' | 'LOCATION'; text?: string };
  /** A BUTTONS component (a URL with {{1}} needs a `button` component with the value). */
  buttons?: { type: 'QUICK_REPLY' | 'URL' | 'PHONE_NUMBER' | 'COPY_CODE'; text: string; url?: string }[];
}

export interface FakeMedia {
  id: string;
  mime_type: string;
  bytes: Buffer;
}

export interface FakeWaRequest {
  method: string;
  path: string;
  search: string;
  authorization: string | null;
  body: string;
}

export interface FakeWaFailure {
  /** Matched against `METHOD /path` (no query). */
  match: RegExp;
  status: number;
  body: unknown;
  times?: number;
}

export interface FakeWhatsapp {
  url: string;
  /** The Graph base the service is pointed at (WHATSAPP_GRAPH_URL). */
  graphUrl: string;
  version: string;
  phoneNumberId: string;
  wabaId: string;
  displayPhoneNumber: string;
  token: string;
  appSecret: string;
  templates: FakeTemplate[];
  media: Map<string, FakeMedia>;
  /** Message bodies the send endpoint accepted, in order. */
  sent: Record<string, unknown>[];
  requests: FakeWaRequest[];
  failures: FakeWaFailure[];
  /** Milliseconds before the headers of matching requests. */
  stalls: { match: RegExp; delayMs: number }[];
  /** How long a media download URL lives (Meta: 5 minutes). */
  mediaUrlTtlMs: number;
  /** Opens the contact's 24-hour window as an inbound message does. */
  lastInbound: Map<string, number>;
  /**
   * Development mode: only these numbers, spelled exactly so, may receive (others: 131030, "Recipient
   * phone number not in allowed list"). Meta lists an Argentine mobile as 54 + 10 digits while its
   * wa_id is 549 + 10 digits. null: live mode, any number.
   */
  allowedRecipients: string[] | null;
  addMedia(mimeType: string, bytes: Buffer): FakeMedia;
  /** A `messages` delivery from `waId` (the window opens); `message` is the type-specific part. */
  inbound(
    waId: string,
    message: Record<string, unknown>,
    options?: { profileName?: string; at?: Date; id?: string },
  ): { wamid: string; body: Record<string, unknown> };
  /** A `statuses` delivery for one of our messages. */
  status(
    wamid: string,
    status: 'sent' | 'delivered' | 'read' | 'failed',
    options?: { recipientId?: string; at?: Date; error?: { code: number; title: string } },
  ): Record<string, unknown>;
  sign(raw: string | Buffer, secret?: string): string;
  /** POSTs exactly `raw` with X-Hub-Signature-256 (or the given header value; null: none). */
  deliver(url: string, raw: string, options?: { secret?: string; signature?: string | null }): Promise<Response>;
  reset(): void;
  close(): Promise<void>;
}

const VERSION = 'v23.0';
const PAGE_SIZE = 2;

/** 54 + 10 digits and 549 + 10 digits are one Argentine mobile; its wa_id is the 549 form. */
const sameUser = (waId: string) => waId.replace(/^54(\d{10})$/, '549$1');

const keysOf = (text: string | undefined) => [...new Set([...(text ?? '').matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]!))];

/**
 * What Meta says about a template send's `components` (null: accepted): each component a lowercase
 * header/body/button with its parameters; the body's values counted, named ones each with the
 * `parameter_name` of a placeholder (positional ones without); a header with a variable or media
 * and a URL button with a variable need their own component.
 */
function templateProblem(template: FakeTemplate, components: unknown): { code: number; message: string } | null {
  const invalid = { code: 100, message: 'Invalid parameter' };
  const mismatch = { code: 132000, message: 'Number of parameters does not match the expected number of params' };
  if (components !== undefined && !Array.isArray(components)) return invalid;
  const given = (components ?? []) as Record<string, unknown>[];
  for (const c of given) {
    if (!c || typeof c !== 'object' || !['header', 'body', 'button'].includes(String(c['type']))) return invalid;
    if (!Array.isArray(c['parameters'])) return invalid;
  }
  const named = template.parameter_format === 'NAMED';
  const wanted = keysOf(template.body);
  const body = (given.find((c) => c['type'] === 'body')?.['parameters'] ?? []) as Record<string, unknown>[];
  if (body.length !== wanted.length) return mismatch;
  for (const p of body) {
    if (p['type'] !== 'text' || typeof p['text'] !== 'string' || p['text'] === '') return invalid;
    if (named && (typeof p['parameter_name'] !== 'string' || !wanted.includes(p['parameter_name'])))
      return { code: 132000, message: 'Parameter name is missing or does not match the template' };
    if (!named && p['parameter_name'] !== undefined) return invalid;
  }
  if (named && new Set(body.map((p) => p['parameter_name'])).size !== wanted.length) return mismatch;
  const headerNeeds = template.header ? template.header.format !== 'TEXT' || keysOf(template.header.text).length > 0 : false;
  if (headerNeeds && !given.some((c) => c['type'] === 'header' && (c['parameters'] as unknown[]).length > 0)) return mismatch;
  const buttonNeeds = (template.buttons ?? []).some((b) => b.type === 'COPY_CODE' || keysOf(b.url).length > 0);
  if (buttonNeeds && !given.some((c) => c['type'] === 'button')) return mismatch;
  return null;
}

export function defaultTemplates(): FakeTemplate[] {
  return [
    {
      name: 'seguimiento_consulta',
      language: 'es_AR',
      status: 'APPROVED',
      category: 'UTILITY',
      body: 'Hola {{1}}, te escribimos de Mostrador por tu consulta sobre {{2}}.',
    },
    {
      name: 'saludo',
      language: 'es_AR',
      status: 'APPROVED',
      category: 'MARKETING',
      body: '¡Hola! ¿Seguís interesado en Mostrador?',
    },
    { name: 'promo_pendiente', language: 'es_AR', status: 'PENDING', category: 'MARKETING', body: 'Promo {{1}}' },
  ];
}

export async function startFakeWhatsapp(options: { port?: number } = {}): Promise<FakeWhatsapp> {
  const token = `EAAG${randomBytes(24).toString('hex')}`;
  const appSecret = 'fake-whatsapp-app-secret';
  const downloads = new Map<string, { mediaId: string; expiresAt: number }>();
  let counter = 0;
  const wamid = () =>
    `wamid.${Buffer.from(`fake-${Date.now()}-${++counter}-${randomBytes(4).toString('hex')}`).toString('base64')}`;

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(text);
  };
  const graphError = (res: ServerResponse, status: number, code: number, message: string) =>
    send(res, status, {
      error: { message, type: 'OAuthException', code, error_data: { details: message }, fbtrace_id: 'AbCdEf' },
    });

  const fake: FakeWhatsapp = {
    url: '',
    graphUrl: '',
    version: VERSION,
    phoneNumberId: '106540352242922',
    wabaId: '102290129340398',
    displayPhoneNumber: '+54 9 11 5555-0000',
    token,
    appSecret,
    templates: defaultTemplates(),
    media: new Map(),
    sent: [],
    requests: [],
    failures: [],
    stalls: [],
    mediaUrlTtlMs: 5 * 60_000,
    lastInbound: new Map(),
    allowedRecipients: null,
    addMedia(mimeType, bytes) {
      const id = String(1_000_000_000_000 + fake.media.size + 1);
      const media = { id, mime_type: mimeType, bytes };
      fake.media.set(id, media);
      return media;
    },
    inbound(waId, message, opts = {}) {
      const at = opts.at ?? new Date();
      const id = opts.id ?? wamid();
      fake.lastInbound.set(waId, at.getTime());
      const body = {
        object: 'whatsapp_business_account',
        entry: [
          {
            id: fake.wabaId,
            changes: [
              {
                field: 'messages',
                value: {
                  messaging_product: 'whatsapp',
                  metadata: {
                    display_phone_number: fake.displayPhoneNumber.replace(/\D/g, ''),
                    phone_number_id: fake.phoneNumberId,
                  },
                  contacts: [{ profile: { name: opts.profileName ?? 'Cliente Demo' }, wa_id: waId }],
                  messages: [{ from: waId, id, timestamp: String(Math.floor(at.getTime() / 1000)), ...message }],
                },
              },
            ],
          },
        ],
      };
      return { wamid: id, body };
    },
    status(id, status, opts = {}) {
      const at = opts.at ?? new Date();
      return {
        object: 'whatsapp_business_account',
        entry: [
          {
            id: fake.wabaId,
            changes: [
              {
                field: 'messages',
                value: {
                  messaging_product: 'whatsapp',
                  metadata: {
                    display_phone_number: fake.displayPhoneNumber.replace(/\D/g, ''),
                    phone_number_id: fake.phoneNumberId,
                  },
                  statuses: [
                    {
                      id,
                      status,
                      timestamp: String(Math.floor(at.getTime() / 1000)),
                      recipient_id: opts.recipientId ?? '5491122334455',
                      ...(opts.error
                        ? {
                            errors: [
                              {
                                ...opts.error,
                                href: 'https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/',
                              },
                            ],
                          }
                        : {}),
                    },
                  ],
                },
              },
            ],
          },
        ],
      };
    },
    sign: (raw, secret = appSecret) => `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`,
    async deliver(url, raw, opts = {}) {
      const signature = opts.signature === undefined ? fake.sign(raw, opts.secret) : opts.signature;
      return fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(signature === null ? {} : { 'x-hub-signature-256': signature }) },
        body: raw,
      });
    },
    reset() {
      fake.templates = defaultTemplates();
      fake.sent.length = 0;
      fake.requests.length = 0;
      fake.failures.length = 0;
      fake.stalls.length = 0;
      fake.lastInbound.clear();
      fake.allowedRecipients = null;
      fake.mediaUrlTtlMs = 5 * 60_000;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', fake.url);
    const key = `${req.method} ${url.pathname}`;
    fake.requests.push({
      method: req.method ?? '',
      path: url.pathname,
      search: url.search,
      authorization: req.headers.authorization ?? null,
      body,
    });
    for (const stall of fake.stalls) {
      if (stall.match.test(key)) await new Promise((r) => setTimeout(r, stall.delayMs));
    }
    const failure = fake.failures.find((f) => f.match.test(key) && (f.times ?? 1) > 0);
    if (failure) {
      failure.times = (failure.times ?? 1) - 1;
      return send(res, failure.status, failure.body);
    }
    if (req.headers.authorization !== `Bearer ${token}`) return graphError(res, 401, 190, 'Invalid OAuth access token.');

    // The download URL (another host at Meta: lookaside.fbsbx.com), signed and short-lived.
    if (req.method === 'GET' && url.pathname === '/whatsapp_business/attachments/') {
      const ticket = downloads.get(url.searchParams.get('mid') ?? '');
      if (!ticket || ticket.expiresAt < Date.now()) return send(res, 404, { error: 'URL signature expired' });
      const media = fake.media.get(ticket.mediaId)!;
      res.writeHead(200, { 'content-type': media.mime_type, 'content-length': String(media.bytes.length) });
      return res.end(media.bytes);
    }
    const path = url.pathname.replace(new RegExp(`^/${VERSION.replace('.', '\\.')}`), '');
    if (path === url.pathname) return graphError(res, 400, 2500, 'Unknown path components');

    if (req.method === 'POST' && path === `/${fake.phoneNumberId}/messages`) {
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(body) as Record<string, unknown>;
      } catch {
        return graphError(res, 400, 100, 'Invalid parameter');
      }
      if (message['messaging_product'] !== 'whatsapp' || typeof message['to'] !== 'string') {
        return graphError(res, 400, 100, 'Invalid parameter');
      }
      const to = message['to'];
      if (fake.allowedRecipients && !fake.allowedRecipients.includes(to)) {
        return send(res, 400, {
          error: {
            message: '(#131030) Recipient phone number not in allowed list',
            type: 'OAuthException',
            code: 131030,
            error_data: {
              messaging_product: 'whatsapp',
              details: 'Recipient phone number not in allowed list: Add recipient phone number to recipient list and try again.',
            },
            fbtrace_id: 'AbCdEf',
          },
        });
      }
      // Meta knows both spellings of an Argentine mobile (549… and 54…) as the same user.
      const user = sameUser(to);
      if (message['type'] === 'text') {
        const times = [...fake.lastInbound].filter(([waId]) => sameUser(waId) === user).map(([, at]) => at);
        const since = times.length ? Math.max(...times) : undefined;
        if (since === undefined || Date.now() - since >= 24 * 3600_000) {
          return graphError(
            res,
            400,
            131047,
            'Re-engagement message: more than 24 hours have passed since the recipient last replied.',
          );
        }
      } else if (message['type'] === 'template') {
        const t = message['template'] as {
          name?: string;
          language?: { code?: string };
          components?: unknown;
        };
        const template = fake.templates.find((x) => x.name === t.name && x.language === t.language?.code);
        if (template?.status !== 'APPROVED')
          return graphError(res, 404, 132001, 'Template name does not exist in the translation');
        const problem = templateProblem(template, t.components);
        if (problem) return graphError(res, 400, problem.code, problem.message);
      } else {
        return graphError(res, 400, 100, 'Invalid parameter');
      }
      fake.sent.push(message);
      return send(res, 200, {
        messaging_product: 'whatsapp',
        contacts: [{ input: to, wa_id: user }],
        messages: [{ id: wamid(), message_status: 'accepted' }],
      });
    }

    if (req.method === 'GET' && path === `/${fake.wabaId}/message_templates`) {
      const after = Number(url.searchParams.get('after') ?? 0);
      const page = fake.templates.slice(after, after + PAGE_SIZE);
      const next =
        after + PAGE_SIZE < fake.templates.length
          ? `${fake.graphUrl}/${fake.wabaId}/message_templates?after=${after + PAGE_SIZE}`
          : null;
      return send(res, 200, {
        data: page.map((t, i) => ({
          name: t.name,
          parameter_format: t.parameter_format ?? 'POSITIONAL',
          components: [
            ...(t.header ? [{ type: 'HEADER', ...t.header }] : []),
            { type: 'BODY', text: t.body },
            ...(t.buttons ? [{ type: 'BUTTONS', buttons: t.buttons }] : []),
          ],
          language: t.language,
          status: t.status,
          category: t.category,
          id: String(800_000 + after + i),
        })),
        paging: { cursors: { before: 'QVFI', after: 'QVFJ' }, ...(next ? { next } : {}) },
      });
    }

    const mediaMatch = /^\/(\d+)$/.exec(path);
    if (req.method === 'GET' && mediaMatch) {
      const media = fake.media.get(mediaMatch[1]!);
      if (!media) return graphError(res, 400, 100, 'Unsupported get request. Object does not exist');
      const mid = randomBytes(12).toString('hex');
      downloads.set(mid, { mediaId: media.id, expiresAt: Date.now() + fake.mediaUrlTtlMs });
      return send(res, 200, {
        messaging_product: 'whatsapp',
        url: `${fake.url}/whatsapp_business/attachments/?mid=${mid}&ext=${Math.floor(Date.now() / 1000) + 300}&hash=ATtest`,
        mime_type: media.mime_type,
        sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
        file_size: String(media.bytes.length),
        id: media.id,
      });
    }
    return graphError(res, 400, 100, 'Unsupported request');
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) send(res, 500, { error: { message: String(err), code: 1 } });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.graphUrl = `${fake.url}/${VERSION}`;
  return fake;
}
