import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RawServerDefault } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Container } from './container.ts';
import { handleFrameworkError, registerErrorHandling } from './http/error-handler.ts';
import { registerHealthRoutes } from './http/health.routes.ts';
import { registerHomeRoute } from './http/home.routes.ts';
import { registerRequestContext } from './http/request-context.ts';
import { registerAccess } from './modules/auth/access.module.ts';
import { registerWebhookRoutes } from './modules/webhooks/webhooks.routes.ts';
import { registerPublicSurface } from './modules/public-surface.ts';
import { registerIntegrationRoutes } from './modules/integration/integration.routes.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;
/** The application instance every route module registers on (TypeBox-typed routes). */
export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Builds the HTTP application on a container. Never listens: main.ts and tests decide that. */
export async function buildApp(container: Container): Promise<App> {
  const app = Fastify({
    loggerInstance: container.logger as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    // Client addresses (rate limits, audit) come from X-Forwarded-For only behind a configured proxy.
    // Fastify accepts a hop count at run time (proxy-addr); its types list only the other forms.
    trustProxy: container.config.http.trustProxy as boolean | string[],
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // Scalars in query strings and params are coerced (`?limit=5`); never to arrays (`'array'` turned
    // `events: null` into `[""]`): no query string here takes an array.
    ajv: { customOptions: { allErrors: true, removeAdditional: false, coerceTypes: true, useDefaults: true } },
    frameworkErrors: handleFrameworkError,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  registerErrorHandling(app);
  registerRequestContext(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Mostrador API',
        version: '1.0.0',
        description: 'Gestión comercial multiempresa para Argentina: escáner de precios, cotización, integraciones.',
      },
      servers: [{ url: container.config.http.publicBaseUrl }],
      tags: [
        { name: 'Public', description: 'Sin autenticación' },
        { name: 'Docs', description: 'Documentación y recursos para agentes' },
        { name: 'Integration', description: 'Eventos entrantes y consulta de eventos recibidos (clave de integración)' },
      ],
      components: {
        securitySchemes: {
          integrationKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'Clave de integración de la empresa (Configuración → Integraciones): Authorization: Bearer <clave>',
          },
        },
      },
    },
  });

  registerHealthRoutes(app, container);
  await registerAccess(app, container);
  registerWebhookRoutes(app, container);
  registerHomeRoute(app, container);
  registerPublicSurface(app, container);
  registerIntegrationRoutes(app, container);

  return app;
}
