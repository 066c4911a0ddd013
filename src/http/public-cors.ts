import type { FastifyReply, FastifyRequest } from 'fastify';

/** Public GET endpoints are read by kiosks and agents on other origins: CORS open, nothing cached. */
export async function openCorsNoStore(_request: FastifyRequest, reply: FastifyReply) {
  reply.header('access-control-allow-origin', '*');
  reply.header('cache-control', 'no-store');
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
