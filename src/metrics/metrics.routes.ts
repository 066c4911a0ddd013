import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, onResponseHookHandler } from 'fastify';
import type { Config } from '../config.ts';
import { AppError } from '../lib/errors.ts';
import type { Metrics } from './metrics.ts';

/**
 * Counts every answered request by route pattern: each route gets its own onResponse hook as it is
 * registered, holding its series (no route lookup, no label key per answer). URLs no route matches
 * share the `unmatched` series: the hook returned here, for the not-found answer (src/http/error-handler.ts).
 */
export function registerRequestMetrics(app: FastifyInstance, metrics: Metrics): onResponseHookHandler {
  const counting = (route: string): onResponseHookHandler => {
    const requests = metrics.requestsOf(route);
    // Synchronous (it runs on every answer): no promise per request.
    return (request, reply, done) => {
      requests.observe(request.method, reply.statusCode, reply.elapsedTime / 1000);
      done();
    };
  };
  app.addHook('onRoute', (route) => {
    // First, as the application-wide hook it replaces ran before any route's own; a new array, since
    // fastify copies a GET's options (and this array) into the HEAD route it adds.
    route.onResponse = [counting(route.url), ...([] as onResponseHookHandler[]).concat(route.onResponse ?? [])];
  });
  return counting('unmatched');
}

/**
 * GET /metrics in Prometheus text. With METRICS_TOKEN set it asks for `Authorization: Bearer <token>`;
 * without it, it is open (see docs/operacion.md: aggregate counts only, no tenant data).
 */
export function registerMetricsRoutes(app: FastifyInstance, { metrics, config }: { metrics: Metrics; config: Config }) {
  const expected = config.metricsToken === null ? null : Buffer.from(`Bearer ${config.metricsToken}`);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (expected !== null) {
      const given = Buffer.from(request.headers.authorization ?? '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw new AppError('unauthenticated', 'a valid metrics token is required');
      }
    }
    const text = await metrics.render();
    return reply.header('content-type', metrics.registry.contentType).header('cache-control', 'no-store').send(text);
  });
}
