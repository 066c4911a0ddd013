import { AppError, type ErrorDetail } from '../../lib/errors.ts';
import { OUTBOUND_EVENTS, isOutboundEvent } from './webhook-events.ts';
import { isPrivateAddress, urlHost } from './target-guard.ts';

/** What a company admin (API, page or CLI) gives for an endpoint. */
export interface EndpointInput {
  url: string;
  description?: string;
  /** null or absent: every event. */
  events?: string[] | null;
  /** Extra headers sent with every delivery (for example `Authorization: Bearer …`). */
  headers?: Record<string, string>;
  /** Your own secret instead of a generated one (for a receiver with a fixed key, such as another Mostrador). */
  secret?: string;
}

export type EndpointPatch = Partial<Omit<EndpointInput, 'secret'>> & { enabled?: boolean };

/** Headers Mostrador sets itself on every delivery: an endpoint cannot replace them. */
export const RESERVED_HEADERS = [
  'content-type',
  'content-length',
  'transfer-encoding',
  'connection',
  'host',
  'user-agent',
  'x-idempotency-key',
  'x-sent-at',
  'x-signature',
  'x-event-id',
  'x-caused-by',
] as const;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/;
// Visible ASCII, spaces and tabs, and Latin-1 letters; never CR or LF (header injection).
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]{0,4096}$/;
const MAX_HEADERS = 20;
const MIN_SECRET_LENGTH = 24;

export interface TargetRules {
  allowPrivateTargets: boolean;
}

/** A target URL: http(s), a host, no credentials in it, not a private literal (DNS is checked when sending). */
export function checkUrl(value: unknown, rules: TargetRules, problems: ErrorDetail[]): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') {
    problems.push({ path: 'url', message: 'is required' });
    return undefined;
  }
  const text = value.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    problems.push({ path: 'url', message: `"${text.slice(0, 200)}" is not a valid URL` });
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') problems.push({ path: 'url', message: 'must use http or https' });
  else if (url.username || url.password) problems.push({ path: 'url', message: 'must not carry credentials; use a header' });
  else if (text.length > 2048) problems.push({ path: 'url', message: 'must have at most 2048 characters' });
  else if (!rules.allowPrivateTargets && (isPrivateAddress(urlHost(url)) || /^localhost\.?$/i.test(url.hostname))) {
    problems.push({
      path: 'url',
      message: `${url.hostname} is a private or loopback address (allowed only with ALLOW_PRIVATE_WEBHOOK_TARGETS=true)`,
    });
  }
  return url.toString();
}

export function checkEvents(value: unknown, problems: ErrorDetail[]): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || value.length === 0) {
    problems.push({ path: 'events', message: 'must list at least one event, or be null for every event' });
    return null;
  }
  const unknown = value.filter((name) => typeof name !== 'string' || !isOutboundEvent(name));
  if (unknown.length > 0) {
    problems.push({
      path: 'events',
      message: `unknown event ${unknown.map((n) => JSON.stringify(n)).join(', ')}; known: ${OUTBOUND_EVENTS.join(', ')}`,
    });
    return null;
  }
  return [...new Set(value as string[])];
}

export function checkHeaders(value: unknown, problems: ErrorDetail[]): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    problems.push({ path: 'headers', message: 'must be an object of header names to values' });
    return {};
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_HEADERS) problems.push({ path: 'headers', message: `must have at most ${MAX_HEADERS} headers` });
  const seen = new Set<string>();
  const headers: Record<string, string> = {};
  for (const [name, headerValue] of entries) {
    const lower = name.toLowerCase();
    if (!HEADER_NAME.test(name)) problems.push({ path: `headers.${name}`, message: 'is not a valid header name' });
    else if ((RESERVED_HEADERS as readonly string[]).includes(lower)) {
      problems.push({ path: `headers.${name}`, message: 'is set by Mostrador on every delivery and cannot be replaced' });
    } else if (seen.has(lower)) problems.push({ path: `headers.${name}`, message: 'is repeated' });
    else if (typeof headerValue !== 'string' || !HEADER_VALUE.test(headerValue)) {
      problems.push({ path: `headers.${name}`, message: 'must be text without line breaks, at most 4096 characters' });
    } else headers[name] = headerValue;
    seen.add(lower);
  }
  return headers;
}

export function checkSecret(value: unknown, problems: ErrorDetail[]): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH || value.length > 256 || /\s/.test(value)) {
    problems.push({ path: 'secret', message: `must have ${MIN_SECRET_LENGTH} to 256 characters without spaces` });
    return undefined;
  }
  return value;
}

export function checkDescription(value: unknown, problems: ErrorDetail[]): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string' || value.length > 500) {
    problems.push({ path: 'description', message: 'must be text of at most 500 characters' });
    return '';
  }
  return value.trim();
}

export function throwIfProblems(problems: ErrorDetail[]) {
  if (problems.length > 0) {
    throw new AppError('validation_failed', problems.map((p) => `${p.path} ${p.message}`).join('; '), { details: problems });
  }
}
