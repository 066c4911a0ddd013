import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface CacheableBody {
  body: string;
  contentType: string;
  /** A strong validator; computed from the body when absent (pass it for bodies served often). */
  etag?: string;
  cacheControl: string;
  vary?: string;
}

/** A strong ETag for a body: its SHA-256, quoted. */
export function etagOf(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
}

/** Whether If-None-Match names this ETag: in a list, weak (W/) or `*` (RFC 9110 §13.1.2, weak comparison). */
export function ifNoneMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === etag || tag === '*');
}

/** Sends a text body with its validators; a matching If-None-Match gets 304 without the body. */
export function sendCacheable(request: FastifyRequest, reply: FastifyReply, item: CacheableBody) {
  const etag = item.etag ?? etagOf(item.body);
  reply.header('etag', etag).header('cache-control', item.cacheControl);
  if (item.vary) reply.header('vary', item.vary);
  if (ifNoneMatches(request.headers['if-none-match'], etag)) return reply.code(304).send();
  return reply.type(item.contentType).send(item.body);
}
