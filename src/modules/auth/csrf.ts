import type { FastifyRequest } from 'fastify';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function isUnsafeMethod(method: string): boolean {
  return !SAFE_METHODS.has(method.toUpperCase());
}

/** Our own origins: the configured public one and the one this request was addressed to. */
function ownOrigins(request: FastifyRequest, publicBaseUrl: string): string[] {
  const origins = [new URL(publicBaseUrl).origin.toLowerCase()];
  if (request.host) origins.push(`${request.protocol}://${request.host}`.toLowerCase());
  return origins;
}

/**
 * True when a browser says the request comes from one of our own pages: `Origin` names our
 * origin, or (without Origin) `Sec-Fetch-Site: same-origin`. A request with neither is not
 * proven same-origin. A cookie-authenticated write must pass this (CSRF).
 */
export function isSameOriginRequest(request: FastifyRequest, publicBaseUrl: string): boolean {
  const fetchSite = request.headers['sec-fetch-site'];
  if (fetchSite !== undefined && fetchSite !== 'same-origin') return false;
  const origin = request.headers.origin;
  if (origin !== undefined) return ownOrigins(request, publicBaseUrl).includes(origin.toLowerCase());
  return fetchSite === 'same-origin';
}

/**
 * True when a browser says the request comes from another site. Used where no cookie
 * authenticates the request yet (login): scripts and curl send neither header and pass.
 */
export function isCrossSiteRequest(request: FastifyRequest, publicBaseUrl: string): boolean {
  const fetchSite = request.headers['sec-fetch-site'];
  if (fetchSite !== undefined && fetchSite !== 'same-origin' && fetchSite !== 'none') return true;
  const origin = request.headers.origin;
  return origin !== undefined && !ownOrigins(request, publicBaseUrl).includes(origin.toLowerCase());
}
