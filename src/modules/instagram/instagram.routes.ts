import { Readable } from 'node:stream';
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
import { verifyChannelsSignature } from './webhook-ingest.ts';
import { registerMetaWebhook, verifyMetaSignature } from '../../http/meta-webhook.ts';

const API = '/api/superadmin/instagram';

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
  const common = { verifyToken: settings.verifyToken, parse: parseGraphJson };
  registerMetaWebhook(app, {
    ...common,
    path: '/api/webhooks/instagram',
    signature: {
      header: 'X-Hub-Signature-256',
      verify: (raw, value) => verifyMetaSignature(raw, value, settings.webhookSecrets),
    },
    ingest: (body) => service.ingest(body, 'webhook'),
  });
  registerMetaWebhook(app, {
    ...common,
    path: '/api/webhooks/channels',
    signature: {
      header: 'X-Channels-Signature',
      verify: (raw, value) => verifyChannelsSignature(raw, value, settings.channelsConsumerSecret),
    },
    ingest: (body) => service.ingest(body, 'hub'),
  });
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
