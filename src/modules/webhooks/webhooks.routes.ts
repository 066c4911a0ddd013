import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../http/app.types.ts';
import { type CompanyCtx, companyCtx } from '../../http/request-context.ts';
import { AppError } from '../../lib/errors.ts';
import { parseRfc3339 } from '../../lib/time.ts';
import type { WebhooksModule } from './webhooks.module.ts';
import { OUTBOUND_EVENTS } from './webhook-events.ts';

// Registered in the company-admin surface: only an admin of the session's company gets here, and a
// cookie-authenticated write must come from our own origin (CSRF). The company is always the
// session's; another company's endpoint or delivery is a 404.

const BASE = '/api/settings/integrations/webhooks';
const Events = Type.Union([Type.Array(Type.String({ maxLength: 100 }), { maxItems: 50 }), Type.Null()]);
const Headers = Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 4096 }));
const CreateBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048 }),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    events: Type.Optional(Events),
    headers: Type.Optional(Headers),
    secret: Type.Optional(Type.String({ maxLength: 256 })),
  },
  { additionalProperties: false },
);
const UpdateBody = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    events: Type.Optional(Events),
    headers: Type.Optional(Headers),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const RotateBody = Type.Object(
  { secret: Type.Optional(Type.String({ maxLength: 256 })), keep_previous: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
const RedeliverBody = Type.Object({ event_id: Type.String({ maxLength: 64 }) }, { additionalProperties: false });
const RetryBody = Type.Object({ since: Type.String({ maxLength: 64 }) }, { additionalProperties: false });
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
const DeliveryParams = Type.Object({ id: Type.String({ maxLength: 64 }), deliveryId: Type.String({ maxLength: 64 }) });
const DeliveriesQuery = Type.Object({
  event: Type.Optional(Type.String({ maxLength: 100 })),
  event_id: Type.Optional(Type.String({ maxLength: 64 })),
  status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')])),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
  before: Type.Optional(Type.String({ maxLength: 64 })),
});

function companyOf(request: FastifyRequest): number {
  return companyCtx(request.ctx).companyId;
}

function ctxOf(request: FastifyRequest): CompanyCtx {
  return companyCtx(request.ctx);
}

function timestamp(value: string, field: string, code: 'validation_failed' | 'bad_request'): Date {
  const date = parseRfc3339(value);
  if (!date) {
    throw new AppError(
      code,
      `${field} must be an RFC 3339 date-time with an offset, like 2025-03-01T09:00:00-03:00 (got "${value}")`,
      {
        details: [{ path: field, message: 'must be an RFC 3339 date-time with an offset' }],
      },
    );
  }
  return date;
}

/** The company admin's JSON API for outbound webhooks (the settings page uses it). */
export function registerWebhookRoutes(app: App, webhooks: Pick<WebhooksModule, 'endpoints' | 'deliveries'>) {
  const { endpoints, deliveries } = webhooks;

  app.get(BASE, { schema: { hide: true } }, async (request) => ({
    endpoints: await endpoints.listEndpoints(companyOf(request)),
    events: OUTBOUND_EVENTS,
  }));

  app.post(BASE, { schema: { hide: true, body: CreateBody } }, async (request, reply) =>
    reply.code(201).send(await endpoints.createEndpoint(ctxOf(request), request.body)),
  );

  app.get(`${BASE}/:id`, { schema: { hide: true, params: IdParams } }, async (request) => ({
    endpoint: await endpoints.getEndpoint(companyOf(request), request.params.id),
  }));

  app.patch(`${BASE}/:id`, { schema: { hide: true, params: IdParams, body: UpdateBody } }, async (request) => ({
    endpoint: await endpoints.updateEndpoint(ctxOf(request), request.params.id, request.body),
  }));

  app.delete(`${BASE}/:id`, { schema: { hide: true, params: IdParams } }, async (request) => ({
    removed: await endpoints.removeEndpoint(ctxOf(request), request.params.id),
  }));

  app.post(`${BASE}/:id/rotate-secret`, { schema: { hide: true, params: IdParams, body: RotateBody } }, async (request) => {
    const { secret, keep_previous: keepPrevious } = request.body ?? {};
    return endpoints.rotateSecret(ctxOf(request), request.params.id, {
      ...(secret !== undefined ? { secret } : {}),
      ...(keepPrevious !== undefined ? { keepPrevious } : {}),
    });
  });

  app.post(`${BASE}/:id/test`, { schema: { hide: true, params: IdParams } }, async (request) => {
    const report = await deliveries.sendTest(companyOf(request), request.params.id);
    return {
      attempt: {
        delivery_id: report.deliveryId,
        delivered: report.delivered,
        status_code: report.statusCode,
        duration_ms: report.durationMs,
        response_body: report.responseBody,
        error: report.error,
      },
    };
  });

  app.get(
    `${BASE}/:id/deliveries`,
    { schema: { hide: true, params: IdParams, querystring: DeliveriesQuery } },
    async (request) => {
      const q = request.query;
      return deliveries.listDeliveries(companyOf(request), {
        endpointId: request.params.id,
        limit: q.limit,
        ...(q.event !== undefined ? { event: q.event } : {}),
        ...(q.event_id !== undefined ? { eventId: q.event_id } : {}),
        ...(q.status !== undefined ? { status: q.status } : {}),
        ...(q.before !== undefined ? { before: timestamp(q.before, 'before', 'bad_request') } : {}),
      });
    },
  );

  app.get(`${BASE}/:id/deliveries/:deliveryId`, { schema: { hide: true, params: DeliveryParams } }, async (request) => {
    const found = await deliveries.getDelivery(companyOf(request), request.params.deliveryId);
    if (found.delivery.endpoint_id !== request.params.id) {
      throw new AppError('not_found', `webhook delivery ${request.params.deliveryId} not found`);
    }
    return found;
  });

  app.post(`${BASE}/:id/redeliver`, { schema: { hide: true, params: IdParams, body: RedeliverBody } }, async (request) => ({
    delivery: await deliveries.redeliver(companyOf(request), request.params.id, request.body.event_id),
  }));

  app.post(`${BASE}/:id/retry-failed`, { schema: { hide: true, params: IdParams, body: RetryBody } }, async (request) =>
    deliveries.retryFailedSince(
      companyOf(request),
      request.params.id,
      timestamp(request.body.since, 'since', 'validation_failed'),
    ),
  );
}
