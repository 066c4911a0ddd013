import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import type { Container } from './container.ts';
import type { App } from './http/app.types.ts';
import { type AssetCatalog, loadAssets } from './http/assets.ts';
import { answerClientError } from './http/client-error.ts';
import { recordAllowedMethods } from './http/allowed-methods.ts';
import { type ErrorPage, handleFrameworkError, registerErrorHandling, registerNotFound } from './http/error-handler.ts';
import { renderErrorPage } from './http/shell.ts';
import { registerInputGuard } from './http/input-guard.ts';
import { registerRequestContext } from './http/request-context.ts';
import { registerRoutes } from './http/routes.ts';
import { securityHeaders } from './http/security-headers.ts';
import { enforceSurfaces, type RouteSurface } from './http/surfaces.ts';
import { registerRequestMetrics } from './metrics/metrics.routes.ts';
import { addPrecisionKeyword } from './lib/precision.ts';
import { bodyValidators } from './http/body-validators.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;

declare module 'fastify' {
  interface FastifyInstance {
    /** Every registered route with its surface (for the test that walks them). */
    routeSurfaces(): RouteSurface[];
  }
  interface FastifyRequest {
    /** The session behind this request (set by a session guard; null when anonymous). */
    authSession: import('./modules/auth/auth.service.ts').AuthSession | null;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Builds the HTTP application on a container. Never listens: main.ts and tests decide that. */
export async function buildApp(container: Container, assets?: AssetCatalog): Promise<App> {
  const security = securityHeaders(container.config.http);
  const catalog = assets ?? (await loadAssets());
  // A browser opening an address that fails reads a page in Spanish; the API answers JSON (error-handler.ts).
  const errorPage: ErrorPage = (err, request) =>
    renderErrorPage(catalog, err, { id: String(request.id), path: request.url.split('?')[0]! });
  const app = Fastify({
    loggerInstance: container.logger as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    // Client addresses (rate limits, audit) come from X-Forwarded-For only behind a configured proxy.
    // Fastify accepts a hop count at run time (proxy-addr); its types list only the other forms.
    trustProxy: container.config.http.trustProxy as boolean | string[],
    requestIdHeader: false,
    // A request's child logger only binds its id to the lines it writes: with nothing to write
    // (LOG_LEVEL=silent, no level of the route's own) the request logs through the logger itself.
    // pino builds a child per request otherwise (~1.7 µs: the redaction runs over the bindings).
    childLoggerFactory: (logger, bindings, opts) =>
      logger.level === 'silent' && (opts.level === undefined || opts.level === 'silent') && opts.serializers === undefined
        ? logger
        : logger.child(bindings, opts),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // Scalars in query strings and params are coerced (`?limit=5`); never to arrays (`'array'` turned
    // `events: null` into `[""]`): no query string here takes an array. A JSON body is never coerced
    // (bodyValidators): its types are the client's own, and `null` for a price is not 0.
    // x-precision (src/lib/precision.ts): a body's amount or quantity that rounds to 0 is refused.
    ajv: {
      customOptions: { allErrors: true, removeAdditional: false, coerceTypes: true, useDefaults: true },
      plugins: [addPrecisionKeyword],
    },
    schemaController: { compilersFactory: { buildValidator: bodyValidators } },
    // Routing failures answer before any hook runs: they get the same headers here.
    frameworkErrors: (err, request, reply) => handleFrameworkError(err, request, reply.headers(security), errorPage),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // What Node's HTTP parser refuses is answered with {error, code} too (client-error.ts).
    clientErrorHandler: answerClientError,
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('routeSurfaces', enforceSurfaces(app));
  registerErrorHandling(app, errorPage);
  // One application-wide hook (onRequest: ids, headers, ctx, the drain); the input rules and the
  // request metrics are hooks of each route, given as it is registered, and of the not-found answer.
  registerRequestContext(app, security, container.readiness);
  const unmatchedInput = registerInputGuard(app);
  const unmatchedMetrics = registerRequestMetrics(app, container.metrics);
  // Every route is also recorded with its methods (an onRoute hook, before any route): a known
  // address asked with another method answers 405 with Allow.
  const methods = recordAllowedMethods(app);
  await registerNotFound(app, { preValidation: unmatchedInput, onResponse: unmatchedMetrics }, errorPage, methods);

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

  // No cookie plugin: the session guard parses the Cookie header where it reads it and writes
  // Set-Cookie where it sets one (src/http/auth-guard.ts), so no answer runs a cookie hook.
  app.decorateRequest('authSession', null);
  await registerRoutes(app, container, catalog);

  return app;
}
