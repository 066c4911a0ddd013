import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../http/app.types.ts';
import type { Shell } from '../../http/shell.ts';
import type { SurfaceGuard } from '../../http/surfaces.ts';
import type { Config } from '../../config.ts';
import { AppError } from '../../lib/errors.ts';
import { safeEqual } from '../../lib/secrets.ts';
import type { InstagramModule } from './instagram.module.ts';
import type { InstagramResultData } from './oauth-result.ts';
import type { CallbackOutcome, SessionRef } from './instagram.service.ts';
import { parseGraphJson } from './graph.client.ts';
import { verifyChannelsSignature, verifyMetaSignature } from './webhook-ingest.ts';

const API = '/api/superadmin/instagram';
/** Meta batches up to 1000 updates per POST. */
const WEBHOOK_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

function sessionOf(request: FastifyRequest): SessionRef {
  const session = request.authSession!;
  return { sessionId: session.sessionId, userId: session.userId };
}

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * Operator (superadmin) routes: the connection pages and the JSON API. They sit under /superadmin
 * and /api/superadmin, where the access guard admits only a superadmin session.
 */
export function registerInstagramOperatorRoutes(app: App, { instagram, shell }: { instagram: InstagramModule; shell: Shell }) {
  const service = instagram.service;

  app.get(
    '/superadmin/instagram/connect',
    { schema: { hide: true, querystring: Type.Object({ replace: Type.Optional(Type.String({ maxLength: 5 })) }) } },
    async (request, reply) => {
      const status = await service.status();
      if (!status.configured) return resultPage(shell, request, reply, 503, { ok: false, code: 'not_configured' });
      const url = await service.connectUrl(sessionOf(request), { replace: request.query.replace === '1' });
      return reply.header('cache-control', 'no-store').redirect(url, 302);
    },
  );

  app.get(
    '/superadmin/instagram/callback',
    {
      schema: {
        hide: true,
        querystring: Type.Record(Type.String({ maxLength: 40 }), Type.String({ maxLength: 2048 })),
      },
    },
    async (request, reply) => {
      const outcome = await service.callback(sessionOf(request), request.query as Record<string, string>);
      return resultPage(shell, request, reply, outcome.ok ? 200 : outcome.code === 'exchange_failed' ? 502 : 400, outcome);
    },
  );

  app.get(`${API}/status`, { schema: { hide: true } }, async () => ({ status: await service.status() }));

  // The connection state travels beside the list, so the panel can tell "nothing yet" from "not connected".
  app.get(`${API}/conversations`, { schema: { hide: true } }, async () => {
    const status = await service.status();
    return {
      conversations: await service.listConversations(),
      connection: { configured: status.configured, connected: status.connected, reconnect_required: status.reconnect_required },
    };
  });

  app.get(
    `${API}/conversations/:id/messages`,
    { schema: { hide: true, params: Type.Object({ id: Type.String({ format: 'uuid' }) }) } },
    async (request) => service.listMessages(request.params.id),
  );

  app.post(
    `${API}/messages`,
    {
      schema: {
        hide: true,
        body: Type.Object(
          { conversation_id: Type.String({ format: 'uuid' }), text: Type.String({ maxLength: 4000 }) },
          { additionalProperties: false },
        ),
      },
      // Rule 6 comes before the shape of the body: with sending off the answer is always send_disabled.
      preValidation: async () => {
        if (!service.sendEnabled()) {
          throw new AppError('send_disabled', 'sending is off: the inbox is read-only until INSTAGRAM_SEND_ENABLED is on');
        }
      },
    },
    async (request, reply) => reply.code(201).send({ message: await service.send(request.body) }),
  );

  app.get(
    `${API}/attachments`,
    {
      schema: { hide: true, querystring: Type.Object({ id: Type.String({ minLength: 1, maxLength: 600 }) }) },
      // Contract: attachment streaming takes the superadmin cookie only, never a bearer header.
      preHandler: async (request) => {
        if (request.headers.authorization !== undefined) {
          throw new AppError(
            'forbidden',
            'attachments are streamed to the browser session only: send the session cookie, not a bearer token',
          );
        }
      },
    },
    async (request, reply) => {
      const opened = await service.openAttachment(request.query.id, header(request.headers.range) ?? null);
      reply.code(opened.status).headers(opened.headers);
      return reply.send(Readable.fromWeb(opened.body as import('node:stream/web').ReadableStream));
    },
  );
}

/** Meta's webhook and the hub fan-out: signature-authenticated, each in its own raw-body scope. */
export function registerInstagramWebhookRoutes(
  app: App,
  { instagram, config }: { instagram: InstagramModule; config: Pick<Config, 'instagram'> },
) {
  const service = instagram.service;
  const settings = config.instagram;

  const verify = (request: FastifyRequest, reply: FastifyReply) => {
    const q = request.query as Record<string, string | undefined>;
    const challenge = q['hub.challenge'];
    const token = q['hub.verify_token'];
    if (q['hub.mode'] !== 'subscribe' || !token || !settings.verifyToken || !safeEqual(token, settings.verifyToken)) {
      throw new AppError('forbidden', 'webhook verification refused: wrong hub.mode or hub.verify_token');
    }
    // The challenge is echoed: only plain tokens, so nothing can be reflected into a page.
    if (!challenge || !/^[A-Za-z0-9_-]{1,256}$/.test(challenge)) {
      throw new AppError('bad_request', 'hub.challenge is missing or is not alphanumeric');
    }
    return reply.code(200).type('text/plain; charset=utf-8').send(challenge);
  };

  const ingest = async (raw: Buffer, source: 'webhook' | 'hub') => {
    let body: unknown;
    try {
      body = parseGraphJson(raw.toString('utf8'));
    } catch {
      throw new AppError('invalid_json', 'webhook body is not valid JSON');
    }
    try {
      return await service.ingest(body, source);
    } catch (err) {
      // After a valid signature, a failure to store is a 500 so that Meta (or the hub) retries.
      throw new AppError('internal', 'the webhook could not be stored; retry later', { cause: err });
    }
  };

  for (const path of ['/api/webhooks/instagram', '/api/webhooks/channels'] as const) {
    app.register(async (plain) => {
      const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
      // The signature covers the exact bytes received: keep them, parse only after verifying.
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT_BYTES }, (_request, body, done) =>
        done(null, body),
      );
      scope.get(path, { schema: { hide: true } }, async (request, reply) => verify(request, reply));
      scope.post(path, { schema: { hide: true }, bodyLimit: WEBHOOK_BODY_LIMIT_BYTES }, async (request) => {
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        if (path === '/api/webhooks/instagram') {
          if (!verifyMetaSignature(raw, header(request.headers['x-hub-signature-256']), settings.webhookSecrets)) {
            throw new AppError('invalid_signature', 'missing or invalid X-Hub-Signature-256');
          }
          return { received: await ingest(raw, 'webhook') };
        }
        if (!verifyChannelsSignature(raw, header(request.headers['x-channels-signature']), settings.channelsConsumerSecret)) {
          throw new AppError('invalid_signature', 'missing or invalid X-Channels-Signature');
        }
        return { received: await ingest(raw, 'hub') };
      });
    });
  }
}

/** The guard of the cron surface: Authorization: Bearer CRON_SECRET, compared in constant time (401 otherwise). */
export function cronGuard({ config }: { config: Pick<Config, 'instagram'> }): SurfaceGuard {
  return {
    onRequest: async (request: FastifyRequest) => {
      const secret = config.instagram.cronSecret;
      const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
      if (!secret || !given || !safeEqual(given, secret)) {
        throw new AppError('unauthenticated', 'missing or invalid cron secret: send Authorization: Bearer <CRON_SECRET>', {
          headers: { 'www-authenticate': 'Bearer realm="cron"' },
        });
      }
    },
  };
}

/** The backup poll for an external scheduler; registered in the cron surface. */
export function registerInstagramCronRoutes(app: App, { instagram }: { instagram: InstagramModule }) {
  const path = '/api/cron/instagram-inbox-sync';
  const handler = async () => ({ sync: await instagram.service.sync({ scheduled: true }) });
  app.get(path, { schema: { hide: true } }, handler);
  app.post(path, { schema: { hide: true } }, handler);
}

/** The OAuth result page, inside the app's layout (the shell); the screen words it by `code`. */
function resultPage(shell: Shell, request: FastifyRequest, reply: FastifyReply, status: number, outcome: CallbackOutcome) {
  const data: InstagramResultData = outcome.ok
    ? {
        ok: true,
        code: null,
        account: outcome.username ? `@${outcome.username}` : outcome.accountId,
        subscribed: outcome.subscribed,
      }
    : {
        ok: false,
        code: outcome.code,
        account: outcome.code === 'other_account' ? (outcome.detail ?? null) : null,
        subscribed: false,
      };
  reply.header('cache-control', 'no-store');
  return shell.send(request, reply, {
    title: outcome.ok ? 'Instagram conectado' : 'Conexión de Instagram',
    entry: 'superadmin-instagram-result',
    data,
    status,
  });
}
