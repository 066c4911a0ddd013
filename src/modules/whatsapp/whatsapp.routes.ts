import { Readable } from 'node:stream';
import { Type } from 'typebox';
import type { Config } from '../../config.ts';
import type { App } from '../../http/app.types.ts';
import { AppError } from '../../lib/errors.ts';
import { registerMetaWebhook, verifyMetaSignature } from '../../http/meta-webhook.ts';
import type { WhatsappModule } from './whatsapp.module.ts';

const API = '/api/superadmin/whatsapp';

/**
 * `GET/POST /api/whatsapp`: the Cloud API webhook of the service's number. The GET answers Meta's
 * verification with WHATSAPP_VERIFY_TOKEN; the POST is verified by X-Hub-Signature-256 over the exact
 * raw bytes (fail-closed 403), and a valid delivery that cannot be stored is a 500 so Meta retries.
 */
export function registerWhatsappWebhookRoutes(
  app: App,
  { whatsapp, config }: { whatsapp: WhatsappModule; config: Pick<Config, 'whatsapp'> },
) {
  const settings = config.whatsapp;
  registerMetaWebhook(app, {
    path: '/api/whatsapp',
    verifyToken: settings.verifyToken,
    signature: {
      header: 'X-Hub-Signature-256',
      verify: (raw, value) => verifyMetaSignature(raw, value, settings.webhookSecrets),
    },
    ingest: (body) => whatsapp.service.ingest(body),
  });
}

/** The operator's JSON API (superadmin surface): channel setup, threads, media proxy, sending. */
export function registerWhatsappOperatorRoutes(app: App, { whatsapp }: { whatsapp: WhatsappModule }) {
  const service = whatsapp.service;

  app.get(`${API}/status`, { schema: { hide: true } }, async () => ({ status: await service.status() }));

  app.put(
    `${API}/channel`,
    {
      schema: {
        hide: true,
        body: Type.Object(
          {
            phone_number_id: Type.String({ maxLength: 30 }),
            waba_id: Type.String({ maxLength: 30 }),
            token: Type.String({ maxLength: 1000 }),
            display_phone_number: Type.Optional(Type.Union([Type.String({ maxLength: 25 }), Type.Null()])),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => ({ status: await service.setupChannel(request.body) }),
  );

  app.put(
    `${API}/agent`,
    { schema: { hide: true, body: Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false }) } },
    async (request) => ({ status: await service.setAgentEnabled(request.body.enabled) }),
  );

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

  app.get(`${API}/templates`, { schema: { hide: true } }, async () => ({ templates: await service.templates() }));

  const sendGuard = async () => {
    if (!service.sendEnabled()) {
      throw new AppError('send_disabled', 'sending is off: WhatsApp is read-only until WHATSAPP_SEND_ENABLED is on');
    }
  };

  app.post(
    `${API}/messages`,
    {
      schema: {
        hide: true,
        body: Type.Object(
          { conversation_id: Type.String({ format: 'uuid' }), text: Type.String({ maxLength: 8000 }) },
          { additionalProperties: false },
        ),
      },
      preValidation: sendGuard,
    },
    async (request, reply) => reply.code(201).send({ message: await service.sendText(request.body) }),
  );

  app.post(
    `${API}/templates/send`,
    {
      schema: {
        hide: true,
        body: Type.Object(
          {
            conversation_id: Type.String({ format: 'uuid' }),
            name: Type.String({ minLength: 1, maxLength: 512 }),
            language: Type.String({ minLength: 2, maxLength: 16 }),
            parameters: Type.Array(Type.String({ maxLength: 1024 }), { maxItems: 20 }),
          },
          { additionalProperties: false },
        ),
      },
      preValidation: sendGuard,
    },
    async (request, reply) => reply.code(201).send({ message: await service.sendTemplate(request.body) }),
  );

  app.get(
    `${API}/media`,
    {
      schema: { hide: true, querystring: Type.Object({ id: Type.String({ pattern: '^[0-9A-Za-z._-]{1,128}$' }) }) },
      // Like the Instagram attachments: the browser session only, never a bearer header.
      preHandler: async (request) => {
        if (request.headers.authorization !== undefined) {
          throw new AppError('forbidden', 'media is streamed to the browser session only: send the session cookie');
        }
      },
    },
    async (request, reply) => {
      const opened = await service.openMedia(request.query.id);
      reply.code(200).headers(opened.headers);
      if (!opened.body) return reply.send('');
      return reply.send(Readable.fromWeb(opened.body as import('node:stream/web').ReadableStream));
    },
  );
}
