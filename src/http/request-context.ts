import type { FastifyRequest } from 'fastify';
import type { App } from './app.types.ts';

/** Who is calling. Set only by the guard of a surface (never from headers like x-user, the body or the query). */
export type Actor =
  | { kind: 'anonymous' }
  | { kind: 'cli' }
  | { kind: 'integration'; companyId: number }
  | { kind: 'scanner'; companyId: number }
  /** A company API token (`mos_api_…`) on the merchant API. */
  | { kind: 'api-token'; companyId: number; tokenId: number; name: string; scope: 'read' | 'read-write' }
  | {
      kind: 'user';
      userId: number;
      email: string;
      isSuperadmin: boolean;
      /** The company the user acts for, with their role there (null when they have none). */
      companyId: number | null;
      role: 'admin' | 'cashier' | null;
      /** Their number in that company (memberships.member_no), what the company sees; null without one. */
      memberNo: number | null;
    };

/** From where a request came (null fields for the command line), for the audit log. */
export interface RequestOrigin {
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
}

/**
 * The one shape in which the caller travels: built by the guard of the surface a route is
 * registered in, and passed first to every service that records who did what.
 */
export interface RequestCtx {
  requestId: string;
  /** The tenant of this request, from the actor; every repository call is scoped by it. */
  companyId: number | null;
  actor: Actor;
  origin: RequestOrigin;
}

/** A ctx whose company is known (the member, admin, integration and scanner surfaces guarantee it). */
export type CompanyCtx = RequestCtx & { companyId: number };
/** A ctx of a signed-in person. */
export type UserCtx = RequestCtx & { actor: Extract<Actor, { kind: 'user' }> };

declare module 'fastify' {
  interface FastifyRequest {
    ctx: RequestCtx;
  }
}

export function originOf(request: FastifyRequest): RequestOrigin {
  const agent = request.headers['user-agent'];
  return { ip: request.ip ?? null, userAgent: typeof agent === 'string' ? agent : null, requestId: request.id };
}

/**
 * Every request starts anonymous (the guard of its surface replaces the actor) and answers with its
 * `x-request-id` and the security headers; while the process drains (`readiness.draining`, set on
 * SIGTERM) it also answers `Connection: close`, so keep-alive clients reconnect (through the load
 * balancer, to another process) instead of reusing a socket that is about to close. One synchronous
 * hook, the only one every request runs: no promise, and no onSend hook per answer for the drain.
 */
export function registerRequestContext(app: App, headers: Record<string, string>, readiness: { draining: boolean }) {
  const names = Object.keys(headers);
  app.decorateRequest('ctx', null as unknown as RequestCtx);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    for (const name of names) reply.header(name, headers[name]);
    if (readiness.draining) reply.header('connection', 'close');
    request.ctx = { requestId: request.id, actor: { kind: 'anonymous' }, companyId: null, origin: originOf(request) };
    done();
  });
}

/** Sets the authenticated actor (and its company) on the request. */
export function setActor(ctx: RequestCtx, actor: Exclude<Actor, { kind: 'anonymous' | 'cli' }>) {
  ctx.actor = actor;
  ctx.companyId = actor.companyId;
}

/** The ctx of the administration command line: no HTTP origin, no company until a command names one. */
export function cliCtx(companyId: number): CompanyCtx;
export function cliCtx(): RequestCtx;
export function cliCtx(companyId: number | null = null): RequestCtx {
  return { requestId: 'cli', companyId, actor: { kind: 'cli' }, origin: { ip: null, userAgent: null, requestId: null } };
}

/** The ctx of a company's own request: throws when a route outside the company surfaces asks for it. */
export function companyCtx(ctx: RequestCtx): CompanyCtx {
  if (ctx.companyId === null) throw new Error('this route needs a company: register it in a company surface');
  return ctx as CompanyCtx;
}

/** The signed-in person of the request: throws when a route outside the session surfaces asks for it. */
export function userCtx(ctx: RequestCtx): UserCtx {
  if (ctx.actor.kind !== 'user') throw new Error('this route needs a session: register it in a session surface');
  return ctx as UserCtx;
}
