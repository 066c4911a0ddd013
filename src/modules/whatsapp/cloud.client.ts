import { AppError } from '../../lib/errors.ts';
import { type ParameterFormat, placeholdersOf } from './template-text.ts';

/** Every Graph call is aborted after this long (the operator inbox's rule). */
export const GRAPH_TIMEOUT_MS = 8000;

export interface CloudClientOptions {
  /** https://graph.facebook.com/v23.0 (WHATSAPP_GRAPH_URL + WHATSAPP_GRAPH_VERSION). */
  graphUrl: string;
  timeoutMs?: number;
}

export interface Template {
  name: string;
  language: string;
  status: string;
  category: string | null;
  /** The body's text with its {{1}}… (or {{name}}) placeholders, and how many there are. */
  body: string | null;
  parameters: number;
  /** POSITIONAL ({{1}}, {{2}}) or NAMED ({{nombre}}): named ones are sent with `parameter_name`. */
  parameter_format: ParameterFormat;
  /** The values the body asks for, in the order `parameters` are given (placeholdersOf). */
  placeholders: string[];
  /**
   * Why the service cannot send it (null: it can): a header with a variable or media, a button with
   * a variable, or a component it does not fill. Such templates are not offered.
   */
  unsupported: string | null;
}

/** Buttons whose send needs a value (a URL suffix, a coupon code, a one-time password, a catalogue). */
const BUTTONS_WITH_VALUES = new Set(['COPY_CODE', 'OTP', 'CATALOG', 'MPM']);

/** What in a template's components needs a value the service cannot give (only body text is filled). */
export function unsupportedParts(components: Record<string, unknown>[]): string | null {
  for (const c of components) {
    const type = String(c['type']).toUpperCase();
    if (type === 'BODY' || type === 'FOOTER') continue;
    if (type === 'HEADER') {
      const format = String(c['format'] ?? 'TEXT').toUpperCase();
      if (format !== 'TEXT') return `a ${format.toLowerCase()} header`;
      if (typeof c['text'] === 'string' && /\{\{/.test(c['text'])) return 'a header with a variable';
      continue;
    }
    if (type === 'BUTTONS') {
      for (const b of Array.isArray(c['buttons']) ? (c['buttons'] as Record<string, unknown>[]) : []) {
        const kind = String(b['type']).toUpperCase();
        if (kind === 'URL' && typeof b['url'] === 'string' && /\{\{/.test(b['url'])) return 'a URL button with a variable';
        if (BUTTONS_WITH_VALUES.has(kind)) return `a ${kind.toLowerCase()} button`;
      }
      continue;
    }
    return `a ${type.toLowerCase()} component`;
  }
  return null;
}

export interface MediaInfo {
  url: string;
  mimeType: string | null;
  size: number | null;
}

/**
 * Meta's throttling codes: the Graph API's app, user and page limits (4, 17, 32, 613: the same ones
 * the Instagram client reads), the WhatsApp Business account's (80007), the Cloud API's throughput
 * (130429), per-user pair (131056) and spam (131048) limits.
 */
const RATE_LIMIT_CODES = new Set([4, 17, 32, 613, 80007, 130429, 131056, 131048]);
/** What the API answers as Retry-After for them (Meta gives no delay; Instagram waits a minute too). */
export const RATE_LIMIT_RETRY_AFTER_S = 60;

/**
 * Meta's error answers as AppErrors the screens can word by code: the Graph error code travels in
 * `details` (path `meta_code`), never Meta's English title as the thing a person reads.
 */
export function metaError(status: number, code: number | null, message: string): AppError {
  const details = [{ path: 'meta_code', message: String(code ?? status) }];
  const text = `WhatsApp refused the request (${code ?? status}): ${message}`;
  if (code === 131047) return new AppError('window_closed', text, { details });
  if (code === 131026) return new AppError('recipient_not_found', text, { details });
  // Development mode: the number is not in the app's list of allowed recipients (not "no WhatsApp").
  if (code === 131030) return new AppError('recipient_not_allowed', text, { details });
  if ((code !== null && RATE_LIMIT_CODES.has(code)) || status === 429)
    return new AppError('rate_limited', text, { details, headers: { 'retry-after': String(RATE_LIMIT_RETRY_AFTER_S) } });
  if (code === 190 || status === 401) return new AppError('reconnect_required', text, { details });
  if (code === 132000 || code === 132001 || code === 132012 || code === 100)
    return new AppError('validation_failed', text, { details });
  return new AppError('upstream_failed', text, { details });
}

/** A real HTTP client of the WhatsApp Business Cloud API (the token only ever goes to Graph). */
export function createCloudClient(options: CloudClientOptions) {
  const base = options.graphUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? GRAPH_TIMEOUT_MS;

  async function call(url: string, token: string, init: { method?: string; body?: unknown } = {}): Promise<Response> {
    const label = `${init.method ?? 'GET'} ${new URL(url).pathname}`;
    try {
      return await fetch(url, {
        method: init.method ?? 'GET',
        headers: {
          authorization: `Bearer ${token}`,
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      const timedOut = (err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError';
      throw new AppError(
        timedOut ? 'upstream_timeout' : 'upstream_failed',
        timedOut ? `WhatsApp did not answer ${label} within ${timeoutMs} ms` : `WhatsApp could not be reached (${label})`,
        { cause: err },
      );
    }
  }

  async function json(res: Response): Promise<Record<string, unknown>> {
    let body: Record<string, unknown> = {};
    try {
      body = (await res.json()) as Record<string, unknown>;
    } catch {
      // An answer that is not JSON: judged by its status below.
    }
    if (!res.ok) {
      const error = (body['error'] ?? {}) as { code?: unknown; message?: unknown };
      const code = typeof error.code === 'number' ? error.code : null;
      throw metaError(res.status, code, typeof error.message === 'string' ? error.message : `HTTP ${res.status}`);
    }
    return body;
  }

  return {
    timeoutMs,

    /** POST /{phone-number-id}/messages: a text, or an approved template; the new wamid back. */
    async send(phoneNumberId: string, token: string, message: Record<string, unknown>): Promise<string> {
      const body = await json(
        await call(`${base}/${phoneNumberId}/messages`, token, {
          method: 'POST',
          body: { messaging_product: 'whatsapp', recipient_type: 'individual', ...message },
        }),
      );
      const sent = (body['messages'] as { id?: unknown }[] | undefined)?.[0]?.id;
      if (typeof sent !== 'string' || sent === '')
        throw new AppError('upstream_failed', 'WhatsApp accepted the send but gave no message id');
      return sent;
    },

    /** GET /{waba-id}/message_templates, following paging.next. */
    async templates(wabaId: string, token: string): Promise<Template[]> {
      const out: Template[] = [];
      let url: string | null = `${base}/${wabaId}/message_templates?limit=100`;
      for (let page = 0; url && page < 20; page += 1) {
        const body: Record<string, unknown> = await json(await call(url, token));
        for (const t of (body['data'] as Record<string, unknown>[] | undefined) ?? []) {
          const components = (t['components'] as Record<string, unknown>[] | undefined) ?? [];
          const bodyText = components.find((c) => String(c['type']).toUpperCase() === 'BODY')?.['text'];
          const text = typeof bodyText === 'string' ? bodyText : null;
          const format: ParameterFormat = String(t['parameter_format']).toUpperCase() === 'NAMED' ? 'NAMED' : 'POSITIONAL';
          const placeholders = placeholdersOf(text, format);
          out.push({
            name: String(t['name'] ?? ''),
            language: String(t['language'] ?? ''),
            status: String(t['status'] ?? ''),
            category: typeof t['category'] === 'string' ? t['category'] : null,
            body: text,
            parameters: placeholders.length,
            parameter_format: format,
            placeholders,
            unsupported: unsupportedParts(components),
          });
        }
        const next = (body['paging'] as { next?: unknown } | undefined)?.next;
        // Only follow pages on the same Graph host: the token goes with the request.
        url = typeof next === 'string' && new URL(next).origin === new URL(base).origin ? next : null;
      }
      return out;
    },

    /** GET /{media-id}: the short-lived download URL (5 minutes) and the type. */
    async mediaInfo(mediaId: string, token: string): Promise<MediaInfo> {
      const body = await json(await call(`${base}/${encodeURIComponent(mediaId)}`, token));
      const url = body['url'];
      if (typeof url !== 'string') throw new AppError('upstream_failed', 'WhatsApp gave no media URL');
      const size = Number(body['file_size']);
      return {
        url,
        mimeType: typeof body['mime_type'] === 'string' ? body['mime_type'] : null,
        size: Number.isFinite(size) ? size : null,
      };
    },

    /** Downloads the media URL with the same bearer token (the file itself, streamed). */
    async download(url: string, token: string): Promise<Response> {
      const res = await call(url, token);
      if (!res.ok) {
        await res.body?.cancel();
        throw metaError(res.status, null, `media download answered HTTP ${res.status}`);
      }
      return res;
    },
  };
}

export type CloudClient = ReturnType<typeof createCloudClient>;
