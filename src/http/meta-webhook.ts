import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../lib/errors.ts';
import { hmacSha256Hex, safeEqual } from '../lib/secrets.ts';
import type { App } from './app.types.ts';

/** Meta batches up to 1000 updates per POST. */
const WEBHOOK_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

/**
 * Meta's `X-Hub-Signature-256: sha256=<hex>` over the exact bytes received, with any of the
 * configured secrets (the channel's app secret, META_APP_SECRET). Meta sends lowercase hex; the
 * comparison ignores case. No secret configured: nothing verifies (fail-closed).
 */
export function verifyMetaSignature(raw: Buffer, header: string | undefined, secrets: readonly string[]): boolean {
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(header?.trim() ?? '');
  if (!match) return false;
  const given = match[1]!.toLowerCase();
  let ok = false;
  for (const secret of secrets) ok = safeEqual(hmacSha256Hex(secret, raw), given) || ok;
  return ok;
}

/** One webhook endpoint that speaks Meta's protocol (the Instagram and WhatsApp channels, the hub's relay). */
export interface MetaWebhook {
  path: string;
  /** The token the GET handshake must name (hub.verify_token); none configured refuses every handshake. */
  verifyToken: string | null;
  /** The header that signs the raw body, and whether its value signs these bytes (fail-closed). */
  signature: { header: string; verify: (raw: Buffer, value: string | undefined) => boolean };
  /** The body's JSON as the channel reads it (Instagram keeps its long ids exact); JSON.parse by default. */
  parse?: (text: string) => unknown;
  /** Stores a verified delivery; what it answers goes back as `{received}`. */
  ingest: (body: unknown) => Promise<unknown>;
}

/**
 * `GET path` answers Meta's subscription handshake (hub.mode=subscribe and the verify token, in
 * constant time; the challenge echoed as plain text). `POST path` keeps the exact bytes received,
 * checks their signature before parsing anything (403 otherwise), and answers 500 when a verified
 * delivery cannot be stored, so that Meta retries it.
 */
export function registerMetaWebhook(app: App, webhook: MetaWebhook) {
  const parse = webhook.parse ?? JSON.parse;
  app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
    // The signature covers the exact bytes received: keep them, parse only after verifying.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT_BYTES }, (_request, body, done) =>
      done(null, body),
    );
    scope.get(webhook.path, { schema: { hide: true } }, async (request, reply) => {
      const q = request.query as Record<string, string | undefined>;
      const token = q['hub.verify_token'];
      const challenge = q['hub.challenge'];
      if (q['hub.mode'] !== 'subscribe' || !token || !webhook.verifyToken || !safeEqual(token, webhook.verifyToken)) {
        throw new AppError('forbidden', 'webhook verification refused: wrong hub.mode or hub.verify_token');
      }
      // The challenge is echoed: only plain tokens, so nothing can be reflected into a page.
      if (!challenge || !/^[A-Za-z0-9_-]{1,256}$/.test(challenge)) {
        throw new AppError('bad_request', 'hub.challenge is missing or is not alphanumeric');
      }
      return reply.code(200).type('text/plain; charset=utf-8').send(challenge);
    });
    scope.post(webhook.path, { schema: { hide: true }, bodyLimit: WEBHOOK_BODY_LIMIT_BYTES }, async (request) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      if (!webhook.signature.verify(raw, headerValue(request, webhook.signature.header))) {
        throw new AppError('invalid_signature', `missing or invalid ${webhook.signature.header}`);
      }
      let body: unknown;
      try {
        body = parse(raw.toString('utf8'));
      } catch {
        throw new AppError('invalid_json', 'webhook body is not valid JSON');
      }
      try {
        return { received: await webhook.ingest(body) };
      } catch (err) {
        // After a valid signature, a failure to store is a 500 so that Meta (or the hub) retries.
        throw new AppError('internal', 'the webhook could not be stored; retry later', { cause: err });
      }
    });
  });
}

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
