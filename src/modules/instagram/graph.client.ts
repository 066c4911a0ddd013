import { storableDate } from '../../lib/storable.ts';
import { sleep } from '../../lib/time.ts';

/** The Graph API version of every versioned call (one constant: move it here when Meta retires it). */
export const GRAPH_VERSION = 'v25.0';
/** Inbox rule 2: every Graph call is aborted after this long, reading the body included. */
export const GRAPH_TIMEOUT_MS = 8000;
/** At most this many conversation reads start per second for one account (Conversations API limit). */
export const CONVERSATION_READS_PER_SECOND = 2;
/** After a rate-limit answer, reads of that account are refused locally for this long. */
export const RATE_LIMIT_BACKOFF_MS = 60_000;
/** Webhook fields the channel subscribes the account to. */
export const SUBSCRIBED_FIELDS = ['messages', 'message_reactions', 'messaging_seen'] as const;

export type GraphErrorKind =
  | 'reconnect_required'
  | 'rate_limited'
  | 'window_closed'
  | 'not_found'
  | 'timeout'
  | 'unavailable'
  | 'refused';

/** A failed Graph exchange. Messages never carry a token or a full URL. */
export class GraphError extends Error {
  constructor(
    readonly kind: GraphErrorKind,
    message: string,
    readonly detail: { status?: number; code?: number; subcode?: number; retryAfterMs?: number } = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'GraphError';
  }
}

export const isGraphError = (err: unknown, kind?: GraphErrorKind): err is GraphError =>
  err instanceof GraphError && (kind === undefined || err.kind === kind);

/**
 * JSON.parse that never loses digits: integers of 16 or more digits (beyond 2^53) outside strings
 * become strings. Meta sends ids such as the token's `user_id` as bare numbers; Node 20's
 * JSON.parse has no access to the source text of a number, so this rewrites them first.
 */
export function parseGraphJson(text: string): unknown {
  return JSON.parse(
    text.replace(/("(?:[^"\\]|\\.)*")|(-?\d{16,})(?=\s*[,}\]]|\s*$)/g, (match, quoted: string | undefined, digits: string) =>
      quoted !== undefined ? match : `"${digits}"`,
    ),
  );
}

/** Graph times: ISO 8601 with `+0000` (no colon), unix seconds, or milliseconds. */
export function parseGraphTime(value: unknown): Date | null {
  if (typeof value === 'number' || (typeof value === 'string' && /^\d{9,16}$/.test(value))) {
    const n = Number(value);
    return storableDate(new Date(n < 1e12 ? n * 1000 : n));
  }
  if (typeof value !== 'string') return null;
  return storableDate(new Date(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2')));
}

type Json = Record<string, unknown>;
const obj = (value: unknown): Json => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
const list = (value: unknown): Json[] => (Array.isArray(value) ? value.map(obj) : []);
const idText = (value: unknown): string | null =>
  typeof value === 'string' && value !== ''
    ? value
    : typeof value === 'number' && Number.isSafeInteger(value)
      ? String(value)
      : null;
const textOf = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The documented `{data:[{…}]}` envelope and the flat object seen in practice both occur. */
function unwrap(body: unknown, key: string): Json {
  const top = obj(body);
  if (key in top) return top;
  const first = list(top['data'])[0];
  return first ?? top;
}

function classify(status: number, body: unknown): GraphError {
  const top = obj(body);
  const error = obj(top['error']);
  const code = Number(error['code'] ?? top['code'] ?? Number.NaN);
  const subcode = Number(error['error_subcode'] ?? Number.NaN);
  const raw = textOf(error['message']) ?? textOf(top['error_message']) ?? `HTTP ${status}`;
  const message = raw.slice(0, 300);
  const detail = {
    status,
    ...(Number.isFinite(code) ? { code } : {}),
    ...(Number.isFinite(subcode) ? { subcode } : {}),
  };
  if (code === 190) return new GraphError('reconnect_required', `Instagram token rejected: ${message}`, detail);
  if ([4, 17, 32, 613].includes(code) || status === 429) {
    return new GraphError('rate_limited', `Instagram rate limit: ${message}`, { ...detail, retryAfterMs: RATE_LIMIT_BACKOFF_MS });
  }
  if (code === 10 || subcode === 2534022)
    return new GraphError('window_closed', `Instagram messaging window closed: ${message}`, detail);
  if (code === 100) return new GraphError('not_found', `Instagram refused the request: ${message}`, detail);
  if (status >= 500) return new GraphError('unavailable', `Instagram answered HTTP ${status}: ${message}`, detail);
  return new GraphError('refused', `Instagram refused the request: ${message}`, detail);
}

export interface GraphClientOptions {
  apiUrl: string;
  graphUrl: string;
  /** Defaults to GRAPH_TIMEOUT_MS; tests shorten it. */
  timeoutMs?: number;
  /** Minimum spacing of conversation reads per account; defaults to 1000 / CONVERSATION_READS_PER_SECOND. */
  readIntervalMs?: number;
  fetchImpl?: typeof fetch;
}

export interface TokenGrant {
  accessToken: string;
  /** The token's `user_id` (Instagram-scoped user id); informative only, never the account key. */
  userId: string | null;
  permissions: string[];
}

export interface LongLivedToken {
  accessToken: string;
  expiresInSeconds: number;
}

export interface GraphProfile {
  /** `/me.user_id`: the professional account id, equal to webhook entry[].id. */
  userId: string;
  username: string | null;
}

export interface GraphAttachment {
  id: string | null;
  mimeType: string | null;
  name: string | null;
  size: number | null;
}

export interface GraphMessage {
  mid: string;
  createdAt: Date | null;
  fromId: string | null;
  fromUsername: string | null;
  toId: string | null;
  text: string | null;
  attachments: GraphAttachment[];
}

export interface GraphConversation {
  graphId: string;
  updatedAt: Date | null;
  participantId: string | null;
  participantUsername: string | null;
  /** The newest message, when the list expansion returned one. */
  last: GraphMessage | null;
}

export interface GraphMedia {
  id: string | null;
  mimeType: string | null;
  url: string | null;
}

export interface GraphClient {
  readonly timeoutMs: number;
  exchangeCode(input: { appId: string; secret: string; redirectUri: string; code: string }): Promise<TokenGrant>;
  exchangeLongLived(input: { secret: string; shortToken: string }): Promise<LongLivedToken>;
  refresh(token: string): Promise<LongLivedToken>;
  me(token: string): Promise<GraphProfile>;
  listConversations(
    account: string,
    token: string,
    options?: { pageSize?: number; maxPages?: number },
  ): Promise<GraphConversation[]>;
  findConversation(account: string, token: string, participantId: string): Promise<string | null>;
  threadMessages(account: string, token: string, graphId: string, limit?: number): Promise<GraphMessage[]>;
  messageMedia(account: string, token: string, mid: string): Promise<GraphMedia[]>;
  send(
    account: string,
    token: string,
    recipientId: string,
    text: string,
  ): Promise<{ messageId: string; recipientId: string | null }>;
  subscribedFields(account: string, token: string): Promise<string[]>;
  subscribe(account: string, token: string): Promise<void>;
  /** Fetches media bytes from a CDN URL the Graph gave; the same 8 s limit covers the whole body. */
  fetchMedia(url: string, range: string | null): Promise<Response>;
}

interface CallOptions {
  method?: 'GET' | 'POST';
  query?: Record<string, string>;
  token?: string;
  form?: Record<string, string>;
  json?: unknown;
}

export function createGraphClient(options: GraphClientOptions): GraphClient {
  const timeoutMs = options.timeoutMs ?? GRAPH_TIMEOUT_MS;
  // A little over 1000 / 2 ms: network jitter must not bring two reads of a window closer than a second.
  const readIntervalMs = options.readIntervalMs ?? 1000 / CONVERSATION_READS_PER_SECOND + 25;
  const fetchImpl = options.fetchImpl ?? fetch;
  const nextReadAt = new Map<string, number>();
  const blockedUntil = new Map<string, number>();

  async function call(
    base: string,
    path: string,
    { method = 'GET', query = {}, token, form, json }: CallOptions,
  ): Promise<unknown> {
    const url = new URL(base + path);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'Mostrador/1.0 (+instagram)' };
    // The token goes in the header only: URLs reach proxies, logs and error messages.
    if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
    let body: string | undefined;
    if (form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(form).toString();
    } else if (json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(json);
    }
    const where = `${method} ${path}`;
    // One signal for the headers and the body: a server that stalls mid-body is cut at the limit too.
    const signal = AbortSignal.timeout(timeoutMs);
    let status: number;
    let text: string;
    try {
      const res = await fetchImpl(url, { method, headers, ...(body !== undefined ? { body } : {}), signal, redirect: 'error' });
      status = res.status;
      text = await res.text();
    } catch (err) {
      const name = (err as Error).name;
      if (name === 'TimeoutError' || name === 'AbortError' || signal.aborted) {
        throw new GraphError('timeout', `Instagram did not answer ${where} within ${timeoutMs} ms`, {}, { cause: err });
      }
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      throw new GraphError('unavailable', `Instagram unreachable on ${where}${cause ? ` (${cause})` : ''}`, {}, { cause: err });
    }
    let parsed: unknown = {};
    if (text.trim() !== '') {
      try {
        parsed = parseGraphJson(text);
      } catch (err) {
        if (status >= 200 && status < 300) {
          throw new GraphError(
            'unavailable',
            `Instagram answered ${where} with something that is not JSON`,
            { status },
            { cause: err },
          );
        }
      }
    }
    if (status < 200 || status >= 300 || 'error' in obj(parsed) || 'error_type' in obj(parsed)) throw classify(status, parsed);
    return parsed;
  }

  const graph = (path: string, opts: CallOptions) => call(options.graphUrl, `/${GRAPH_VERSION}${path}`, opts);

  /** Conversation reads of one account start at most CONVERSATION_READS_PER_SECOND times a second. */
  async function read(account: string, path: string, opts: CallOptions): Promise<Json> {
    const now = Date.now();
    const blocked = blockedUntil.get(account) ?? 0;
    if (blocked > now) {
      throw new GraphError('rate_limited', 'Instagram rate limit: waiting before reading again', { retryAfterMs: blocked - now });
    }
    const start = Math.max(now, nextReadAt.get(account) ?? 0);
    nextReadAt.set(account, start + readIntervalMs);
    if (start > now) await sleep(start - now);
    try {
      return obj(await graph(path, opts));
    } catch (err) {
      if (isGraphError(err, 'rate_limited'))
        blockedUntil.set(account, Date.now() + (err.detail.retryAfterMs ?? RATE_LIMIT_BACKOFF_MS));
      throw err;
    }
  }

  return {
    timeoutMs,

    async exchangeCode({ appId, secret, redirectUri, code }) {
      const body = unwrap(
        await call(options.apiUrl, '/oauth/access_token', {
          method: 'POST',
          form: { client_id: appId, client_secret: secret, grant_type: 'authorization_code', redirect_uri: redirectUri, code },
        }),
        'access_token',
      );
      const accessToken = textOf(body['access_token']);
      if (!accessToken) throw new GraphError('unavailable', 'Instagram code exchange answered without access_token');
      const raw = body['permissions'];
      const permissions = (Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : [])
        .map((p) => String(p).trim())
        .filter(Boolean);
      return { accessToken, userId: idText(body['user_id']), permissions };
    },

    async exchangeLongLived({ secret, shortToken }) {
      return longLived(
        // The token endpoints are unversioned in Meta's documentation.
        await call(options.graphUrl, '/access_token', {
          query: { grant_type: 'ig_exchange_token', client_secret: secret },
          token: shortToken,
        }),
      );
    },

    async refresh(token) {
      return longLived(
        await call(options.graphUrl, '/refresh_access_token', { query: { grant_type: 'ig_refresh_token' }, token }),
      );
    },

    async me(token) {
      const body = unwrap(await graph('/me', { query: { fields: 'user_id,username' }, token }), 'user_id');
      const userId = idText(body['user_id']);
      if (!userId || !/^\d+$/.test(userId)) throw new GraphError('unavailable', 'Instagram /me answered without a user_id');
      return { userId, username: textOf(body['username']) };
    },

    async listConversations(account, token, { pageSize = 25, maxPages = 20 } = {}) {
      const found: GraphConversation[] = [];
      let after: string | null = null;
      for (let page = 0; page < maxPages; page += 1) {
        const body = await read(account, `/${account}/conversations`, {
          token,
          query: {
            platform: 'instagram',
            fields: 'participants,updated_time,messages.limit(1){id,message,created_time,from}',
            limit: String(pageSize),
            ...(after ? { after } : {}),
          },
        });
        for (const item of list(body['data'])) {
          const graphId = idText(item['id']);
          if (!graphId) continue;
          const people = list(obj(item['participants'])['data']);
          const other = people.find((p) => idText(p['id']) !== account) ?? null;
          const last = list(obj(item['messages'])['data'])[0];
          found.push({
            graphId,
            updatedAt: parseGraphTime(item['updated_time']),
            participantId: other ? idText(other['id']) : null,
            participantUsername: other ? textOf(other['username']) : null,
            last: last ? toMessage(last) : null,
          });
        }
        // The `next` URL embeds the token: only its presence is used; the request is rebuilt from the cursor.
        const paging = obj(body['paging']);
        const cursor = textOf(obj(paging['cursors'])['after']);
        if (!paging['next'] || !cursor || cursor === after) break;
        after = cursor;
      }
      return found;
    },

    async findConversation(account, token, participantId) {
      const body = await read(account, `/${account}/conversations`, {
        token,
        query: { platform: 'instagram', user_id: participantId },
      });
      return idText(list(body['data'])[0]?.['id']);
    },

    async threadMessages(account, token, graphId, limit = 20) {
      const body = await read(account, `/${graphId}`, {
        token,
        query: { fields: `messages.limit(${limit}){id,created_time,from,to,message,attachments{id,mime_type,name,size}}` },
      });
      return list(obj(body['messages'])['data'])
        .map(toMessage)
        .filter((m) => m.mid !== '');
    },

    async messageMedia(account, token, mid) {
      const body = await read(account, `/${encodeURIComponent(mid)}`, {
        token,
        query: { fields: 'id,attachments{id,mime_type,file_url,image_data,video_data}' },
      });
      return list(obj(body['attachments'])['data']).map((a) => ({
        id: idText(a['id']),
        mimeType: textOf(a['mime_type']),
        url: textOf(a['file_url']) ?? textOf(obj(a['video_data'])['url']) ?? textOf(obj(a['image_data'])['url']),
      }));
    },

    async send(account, token, recipientId, text) {
      const body = obj(
        await graph(`/${account}/messages`, {
          method: 'POST',
          token,
          json: { recipient: { id: recipientId }, message: { text } },
        }),
      );
      const messageId = idText(body['message_id']);
      if (!messageId) throw new GraphError('unavailable', 'Instagram send answered without message_id');
      return { messageId, recipientId: idText(body['recipient_id']) };
    },

    async subscribedFields(account, token) {
      const body = obj(await graph(`/${account}/subscribed_apps`, { token }));
      return list(body['data']).flatMap((app) =>
        Array.isArray(app['subscribed_fields']) ? app['subscribed_fields'].map(String) : [],
      );
    },

    async subscribe(account, token) {
      const body = obj(
        await graph(`/${account}/subscribed_apps`, {
          method: 'POST',
          token,
          query: { subscribed_fields: SUBSCRIBED_FIELDS.join(',') },
        }),
      );
      if (body['success'] !== true) throw new GraphError('refused', 'Instagram did not confirm the webhook subscription');
    },

    async fetchMedia(url, range) {
      const signal = AbortSignal.timeout(timeoutMs);
      try {
        return await fetchImpl(url, { headers: range ? { range } : {}, signal, redirect: 'follow' });
      } catch (err) {
        if (signal.aborted)
          throw new GraphError('timeout', `the media server did not answer within ${timeoutMs} ms`, {}, { cause: err });
        throw new GraphError('unavailable', 'the media server is unreachable', {}, { cause: err });
      }
    },
  };
}

function longLived(raw: unknown): LongLivedToken {
  const body = unwrap(raw, 'access_token');
  const accessToken = textOf(body['access_token']);
  const expires = Number(body['expires_in']);
  if (!accessToken || !Number.isFinite(expires) || expires <= 0) {
    throw new GraphError('unavailable', 'Instagram token answer has no access_token or expires_in');
  }
  return { accessToken, expiresInSeconds: expires };
}

function toMessage(raw: Json): GraphMessage {
  const from = obj(raw['from']);
  const to = list(obj(raw['to'])['data'])[0] ?? {};
  return {
    mid: idText(raw['id']) ?? '',
    createdAt: parseGraphTime(raw['created_time']),
    fromId: idText(from['id']),
    fromUsername: textOf(from['username']),
    toId: idText(to['id']),
    text: textOf(raw['message']),
    attachments: list(obj(raw['attachments'])['data']).map((a) => ({
      id: idText(a['id']),
      mimeType: textOf(a['mime_type']),
      name: textOf(a['name']),
      size:
        typeof a['size'] === 'number'
          ? a['size']
          : a['size'] !== undefined && /^\d+$/.test(String(a['size']))
            ? Number(a['size'])
            : null,
    })),
  };
}
