import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { keepBytes } from '../../http/input-guard.ts';
import type { FastifyRequest } from 'fastify';
import type { App } from '../../http/app.types.ts';
import type { SurfaceGuard } from '../../http/surfaces.ts';
import type { IntegrationService } from './integration.service.ts';
import type { Metrics } from '../../metrics/metrics.ts';
import { setActor } from '../../http/request-context.ts';
import { AppError } from '../../lib/errors.ts';
import { EventEnvelope } from './events.schemas.ts';
import { bearerToken, headerValue } from './integration.checks.ts';
import { ErrorBody, IngestHeaders, IngestOk, PollQuery, PollResponse, SECURITY } from './integration.schemas.ts';

const PATH = '/api/integration/in';
/** Design §4: bodies over 1 MiB are refused with 413 while they are read. */
export const INGEST_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * The guard of the integration surface: the company's integration key as a bearer (401 otherwise).
 * It runs before the body is read, so an unknown caller costs no parsing.
 */
export function integrationGuard(integration: IntegrationService): SurfaceGuard {
  return {
    onRequest: async (request: FastifyRequest) => {
      const key = integrationKeyOf(request);
      const companyId = key === null ? null : await integration.authenticate(key);
      if (companyId === null) {
        throw new AppError(
          'unauthenticated',
          'missing or invalid integration key: send Authorization: Bearer <integration_key>',
          {
            headers: { 'www-authenticate': 'Bearer realm="integration"' },
          },
        );
      }
      setActor(request.ctx, { kind: 'integration', companyId });
    },
  };
}

/** POST and GET /api/integration/in, in their own scope (raw-body JSON parser); registered in the integration surface. */
export function registerIntegrationRoutes(app: App, integration: IntegrationService, metrics: Metrics) {
  app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
    // The signature covers the exact bytes: keep them, and parse JSON only after the checks that
    // come first (design §4). Fastify enforces the size limit while reading (413).
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: INGEST_BODY_LIMIT_BYTES }, keepBytes);

    scope.post(
      PATH,
      {
        bodyLimit: INGEST_BODY_LIMIT_BYTES,
        schema: {
          operationId: 'sendIntegrationEvent',
          summary: 'Send one event',
          description:
            'Checks, in order: integration key (401), size ≤ 1 MiB (413), x-signature (401), x-sent-at (400), ' +
            'JSON (400), event (422), data (422), idempotency (200 idempotent), business rules (422).',
          tags: ['Integration'],
          security: SECURITY,
          headers: IngestHeaders,
          body: EventEnvelope,
          response: {
            200: IngestOk,
            400: ErrorBody,
            401: ErrorBody,
            413: ErrorBody,
            415: ErrorBody,
            422: ErrorBody,
            500: ErrorBody,
          },
        },
        // The schemas above document the request; the checks run in the handler, in the contract's
        // order and over the raw bytes, so Fastify's own validation is switched off for this route.
        validatorCompiler: () => () => true,
      },
      async (request, reply) => {
        let result: Awaited<ReturnType<typeof integration.ingest>>;
        try {
          result = await integration.ingest({
            companyId: request.ctx.companyId!,
            integrationKey: integrationKeyOf(request)!,
            rawBody: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
            signature: headerValue(request.headers['x-signature']),
            sentAt: headerValue(request.headers['x-sent-at']),
            idempotencyKey: headerValue(request.headers['x-idempotency-key']),
          });
        } catch (err) {
          metrics.countEvent('refused', err instanceof AppError ? err.code : 'internal');
          throw err;
        }
        metrics.countEvent(result.idempotent ? 'duplicate' : 'accepted', 'ok');
        reply.header('x-event-id', result.eventId);
        if (result.bodyMismatch) reply.header('x-idempotency-mismatch', 'body differs from the stored event');
        return result.idempotent ? { status: 'ok' as const, idempotent: true as const } : { status: 'ok' as const };
      },
    );

    scope.get(
      PATH,
      {
        schema: {
          operationId: 'pollIntegrationEvents',
          summary: 'Poll received events',
          description:
            'Events of the key’s company, ascending by received_at. Loop with since = meta.next_since while ' +
            'meta.has_more is true; then wait and ask again.',
          tags: ['Integration'],
          security: SECURITY,
          querystring: PollQuery,
          response: { 200: PollResponse, 400: ErrorBody, 401: ErrorBody, 500: ErrorBody },
        },
      },
      // The page comes as JSON text (stored payloads spliced in verbatim): sent as it is.
      async (request, reply) => {
        const page = await integration.poll(request.ctx.companyId!, request.query);
        // The typed send expects the schema's object; the text is that object already serialized.
        return reply.type('application/json; charset=utf-8').send(page as never);
      },
    );
  });
}

function integrationKeyOf(request: FastifyRequest): string | null {
  return bearerToken(headerValue(request.headers.authorization));
}
