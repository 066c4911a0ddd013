import type { App } from '../app.ts';

/** Who is calling. Set only by authentication (never from headers like x-user, the body or the query). */
export type Actor =
  | { kind: 'anonymous' }
  | { kind: 'integration'; companyId: number }
  | { kind: 'scanner'; companyId: number }
  | {
      kind: 'user';
      userId: number;
      email: string;
      isSuperadmin: boolean;
      /** The company the user acts for, with their role there (null when they have none). */
      companyId: number | null;
      role: 'admin' | 'cashier' | null;
    };

export interface RequestCtx {
  requestId: string;
  actor: Actor;
  /** The tenant of this request, from the actor; every repository call is scoped by it. */
  companyId: number | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    ctx: RequestCtx;
  }
}

/** Every request starts anonymous; the auth hook of each surface replaces the actor. */
export function registerRequestContext(app: App) {
  app.decorateRequest('ctx', null as unknown as RequestCtx);
  app.addHook('onRequest', async (request) => {
    request.ctx = { requestId: request.id, actor: { kind: 'anonymous' }, companyId: null };
  });
}

/** Sets the authenticated actor (and its company) on the request. */
export function setActor(ctx: RequestCtx, actor: Exclude<Actor, { kind: 'anonymous' }>) {
  ctx.actor = actor;
  ctx.companyId = actor.companyId;
}
