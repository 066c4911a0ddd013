import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import { AppError } from '../lib/errors.ts';
import type { Metrics } from './metrics.ts';

/** Counts every answered request by route pattern (unmatched URLs share one label: bounded cardinality). */
export function registerRequestMetrics(app: FastifyInstance, metrics: Metrics) {
  // Synchronous (it runs on every answer): no promise per request.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
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
