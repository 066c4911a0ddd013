import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

/**
 * Public GET endpoints are read by kiosks and agents on other origins: CORS open, nothing cached.
 * Synchronous (the scanner runs it on every lookup): no promise per request.
 */
export function openCorsNoStore(_request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
  reply.header('access-control-allow-origin', '*');
  reply.header('cache-control', 'no-store');
  done();
}

/** Answer to a CORS preflight of a public GET endpoint. */
export function preflight(reply: FastifyReply) {
  return reply
    .code(204)
    .header('access-control-allow-origin', '*')
    .header('access-control-allow-methods', 'GET, OPTIONS')
    .header('access-control-allow-headers', 'accept, content-type, x-request-id')
    .header('access-control-max-age', '86400')
    .send();
}
