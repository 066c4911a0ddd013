import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { DELIVERY_TIMEOUT_MS } from './retry-policy.ts';
import { guardedLookup, isPrivateAddress, PrivateTargetError, urlHost } from './target-guard.ts';

export const RESPONSE_BODY_LIMIT_BYTES = 1024;
/** Past this much answer the connection is dropped instead of drained for reuse. */
const DRAIN_LIMIT_BYTES = 64 * 1024;

export interface SendRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface SendResult {
  /** The HTTP status, when an answer arrived. */
  statusCode: number | null;
  durationMs: number;
  /** The first 1 KB of the answer. */
  responseBody: string | null;
  /** Why the attempt did not complete (timeout, refused, private target…); null when an answer was read. */
  error: string | null;
  retryAfter: string | null;
  location: string | null;
}

export interface WebhookSender {
  send(request: SendRequest): Promise<SendResult>;
  close(): void;
}

export interface SenderOptions {
  allowPrivateTargets: boolean;
  timeoutMs?: number;
  maxSockets?: number;
}

/**
 * POSTs deliveries with node:http(s) rather than fetch: the socket's DNS lookup is where private
 * targets are refused, so the checked address is the one connected to. Redirects are never
 * followed (node:http does not), and AbortSignal.timeout bounds the whole exchange, body included.
 */
export function createWebhookSender(options: SenderOptions): WebhookSender {
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const lookup = guardedLookup(options.allowPrivateTargets);
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 64, lookup };
  const agents = { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) };

  function send(request: SendRequest): Promise<SendResult> {
    const started = performance.now();
    const failed = (error: string, statusCode: number | null = null): SendResult => ({
      statusCode,
      durationMs: Math.round(performance.now() - started),
      responseBody: null,
      error,
      retryAfter: null,
      location: null,
    });
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return Promise.resolve(failed(`invalid URL ${request.url}`));
    }
    const protocol = url.protocol as 'http:' | 'https:';
    if (!(protocol in agents)) return Promise.resolve(failed(`unsupported protocol ${url.protocol}`));
    // IP literals never reach the lookup: check them here.
    const host = urlHost(url);
    if (!options.allowPrivateTargets && isPrivateAddress(host)) {
      return Promise.resolve(failed(new PrivateTargetError(host, host).message));
    }
    const signal = AbortSignal.timeout(timeoutMs);
    const client = protocol === 'https:' ? https : http;
    const attempt = (retried: boolean): Promise<SendResult> =>
      new Promise((resolve) => {
        const req = client.request(url, {
          method: 'POST',
          agent: agents[protocol],
          headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
          signal,
        });
        let answered = false;
        req.on('error', (err) => {
          // A kept-alive socket the receiver closed while this request was being written (its idle
          // timeout and our send crossed): nothing was answered, so it goes once more on a new socket.
          // The receiver may have read it; the delivery's x-idempotency-key makes that harmless.
          const code = (err as { code?: string }).code;
          if (!retried && !answered && req.reusedSocket && !signal.aborted && (code === 'ECONNRESET' || code === 'EPIPE')) {
            resolve(attempt(true));
            return;
          }
          resolve(failed(describeError(err, signal, timeoutMs)));
        });
        req.on('response', (res) => {
          answered = true;
          const chunks: Buffer[] = [];
          let kept = 0;
          let seen = 0;
          res.on('data', (chunk: Buffer) => {
            seen += chunk.length;
            if (kept < RESPONSE_BODY_LIMIT_BYTES) {
              chunks.push(chunk.subarray(0, RESPONSE_BODY_LIMIT_BYTES - kept));
              kept += Math.min(chunk.length, RESPONSE_BODY_LIMIT_BYTES - kept);
            }
            if (seen > DRAIN_LIMIT_BYTES) res.destroy();
          });
          const finish = (error: string | null) =>
            resolve({
              statusCode: res.statusCode ?? null,
              durationMs: Math.round(performance.now() - started),
              responseBody: decodePrefix(Buffer.concat(chunks)),
              error,
              retryAfter: header(res.headers['retry-after']),
              location: header(res.headers.location),
            });
          res.on('end', () => finish(null));
          res.on('error', (err) => finish(describeError(err, signal, timeoutMs)));
          res.on('close', () => {
            if (!res.complete)
              finish(seen > DRAIN_LIMIT_BYTES ? null : describeError(new Error('answer cut short'), signal, timeoutMs));
          });
        });
        req.end(request.body);
      });
    return attempt(false);
  }

  return {
    send,
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}

function header(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

/** UTF-8 text of a prefix cut at 1 KB, without a broken last character. */
function decodePrefix(bytes: Buffer): string {
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes).replace(/\uFFFD$/, '');
}

function describeError(err: Error, signal: AbortSignal, timeoutMs: number): string {
  if (signal.aborted) return `timed out after ${timeoutMs} ms`;
  if (err instanceof PrivateTargetError || (err as { code?: string }).code === 'ERR_WEBHOOK_PRIVATE_TARGET') return err.message;
  return err.message || String(err);
}
