import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { AppError } from '../lib/errors.ts';
import type { ApiTokenService } from '../modules/api-tokens/api-tokens.service.ts';
import { API_TOKEN_PREFIX } from '../modules/api-tokens/api-tokens.service.ts';
import type { AuthService } from '../modules/auth/auth.service.ts';
import { authenticateRequest, refusedForPasswordChange } from './auth-guard.ts';
import { setActor } from './request-context.ts';
import type { SurfaceGuard } from './surfaces.ts';

/**
 * What a merchant API route (/api/v1) lets do, declared where the route is registered
 * (`config: { access: 'read' }`); a route without one stops the application from starting.
 * - `read`: any member of the company (admin or cashier) and any company API token;
 * - `sell`: any member and read-write tokens (the register: sales, payments, box sessions);
 * - `write`: admins and read-write tokens (catalogue, prices, stock);
 * - `admin`: admins signed in only, never a token (people, tokens).
 */
export const MERCHANT_ACCESS = ['read', 'sell', 'write', 'admin'] as const;
export type MerchantAccess = (typeof MERCHANT_ACCESS)[number];

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Merchant API routes only: who may call the route (src/http/merchant-guard.ts). */
    access?: MerchantAccess;
  }
}

const REFUSED: Record<MerchantAccess, string> = {
  read: 'only members of the company may use this',
  sell: 'this needs a member of the company or a read-write API token',
  write: 'this needs a company admin or a read-write API token',
  admin: 'only a company admin, signed in, may do this (API tokens cannot)',
};

type Caller = { via: 'token'; scope: 'read' | 'read-write' } | { via: 'session'; role: 'admin' | 'cashier' };

export function merchantAllows(access: MerchantAccess, caller: Caller): boolean {
  if (caller.via === 'token') return access === 'read' || (access !== 'admin' && caller.scope === 'read-write');
  if (access === 'read' || access === 'sell') return true;
  return caller.role === 'admin';
}

function accessOf(request: FastifyRequest): MerchantAccess {
  const access = request.routeOptions.config.access;
  // Every route declares one (checked at registration); a missing one refuses, never allows.
  if (!access) throw new AppError('forbidden', 'this route declares no access');
  return access;
}

/**
 * The merchant API's guard: a company API token (`Authorization: Bearer mos_api_…`) or the
 * session (cookie with the same-origin check on writes, or an identity provider's bearer JWT).
 * 401 without either, 403 when the caller may not use the route.
 */
export function merchantGuard(deps: { auth: AuthService; config: Config; tokens: ApiTokenService }): SurfaceGuard {
  return {
    route(route) {
      const access = route.config?.access;
      if (!access || !MERCHANT_ACCESS.includes(access)) {
        const method = ([] as string[]).concat(route.method).join(',');
        throw new Error(`merchant route ${method} ${route.url} must declare config.access (${MERCHANT_ACCESS.join(', ')})`);
      }
    },
    onRequest: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const access = accessOf(request);
      const authorization = request.headers.authorization ?? '';
      if (authorization.startsWith(`Bearer ${API_TOKEN_PREFIX}`)) {
        const token = await deps.tokens.authenticate(authorization.slice('Bearer '.length));
        if (!token) throw new AppError('unauthenticated', 'unknown or revoked API token');
        setActor(request.ctx, {
          kind: 'api-token',
          companyId: token.companyId,
          tokenId: token.id,
          name: token.name,
          scope: token.scope,
        });
        if (!merchantAllows(access, { via: 'token', scope: token.scope })) throw new AppError('forbidden', REFUSED[access]);
        return;
      }
      const session = await authenticateRequest(request, reply, deps);
      if (!session) {
        throw new AppError(
          'unauthenticated',
          authorization
            ? 'unrecognised Authorization header: send "Bearer mos_api_…" (a company API token)'
            : 'send a company API token ("Authorization: Bearer mos_api_…") or sign in',
        );
      }
      refusedForPasswordChange(request, reply, session);
      if (session.companyId === null || session.role === null) throw new AppError('forbidden', REFUSED.read);
      if (!merchantAllows(access, { via: 'session', role: session.role })) throw new AppError('forbidden', REFUSED[access]);
    },
  };
}
