import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../app.ts';
import type { Config } from '../config.ts';
import type { Container } from '../container.ts';
import { AppError } from '../lib/errors.ts';
import type { AuditOrigin } from '../modules/audit/audit.repo.ts';
import type { AuthSession, IssuedToken } from '../modules/auth/auth.service.ts';
import { isSameOriginRequest, isUnsafeMethod } from '../modules/auth/csrf.ts';
import { setActor } from './request-context.ts';

/**
 * The one guard of every session surface. A request whose path (as sent, or as routed) starts
 * with a prefix below is authenticated here before any handler runs, so a route added later
 * under `/api/superadmin` or `/superadmin` is protected without doing anything.
 */
export type Requirement = 'user' | 'superadmin' | 'company_admin';

export interface GuardedSurface {
  prefix: string;
  /** 'api': 401/403 JSON. 'page': visitors go to /login?next=…, the rest of the refused to `/`. */
  kind: 'api' | 'page';
  requires: Requirement;
}

export const ACCESS_SURFACES: readonly GuardedSurface[] = [
  { prefix: '/api/superadmin', kind: 'api', requires: 'superadmin' },
  { prefix: '/superadmin', kind: 'page', requires: 'superadmin' },
  { prefix: '/api/settings', kind: 'api', requires: 'company_admin' },
  // The settings pages show a cashier a "not allowed here" view with a company switch.
  { prefix: '/settings', kind: 'page', requires: 'user' },
  { prefix: '/api/auth/me', kind: 'api', requires: 'user' },
  { prefix: '/api/auth/company', kind: 'api', requires: 'user' },
];

declare module 'fastify' {
  interface FastifyRequest {
    /** The session behind this request (set by the guard; null when anonymous). */
    authSession: AuthSession | null;
  }
}

export function sessionCookieName(config: Config): string {
  // __Host- makes browsers refuse the cookie unless Secure, host-only and Path=/.
  return config.http.isHttps ? '__Host-mostrador_session' : 'mostrador_session';
}

export function setSessionCookie(reply: FastifyReply, config: Config, issued: IssuedToken) {
  reply.setCookie(sessionCookieName(config), issued.token, {
    httpOnly: true,
    sameSite: 'lax',
    secure: config.http.isHttps,
    path: '/',
    expires: issued.expiresAt,
  });
}

export function clearSessionCookie(reply: FastifyReply, config: Config) {
  reply.clearCookie(sessionCookieName(config), { httpOnly: true, sameSite: 'lax', secure: config.http.isHttps, path: '/' });
}

/** From where the request came, for the audit log. */
export function requestOrigin(request: FastifyRequest): AuditOrigin {
  const agent = request.headers['user-agent'];
  return { ip: request.ip ?? null, userAgent: typeof agent === 'string' ? agent : null, requestId: request.id };
}

const BEARER_JWT = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/;

function readToken(request: FastifyRequest, config: Config): { token: string; via: 'bearer' | 'cookie' } | null {
  // A bearer token cannot be attached by another site's page, so it needs no CSRF check.
  const bearer = BEARER_JWT.exec(request.headers.authorization ?? '');
  if (bearer) return { token: bearer[1]!, via: 'bearer' };
  const cookie = request.cookies[sessionCookieName(config)];
  return cookie ? { token: cookie, via: 'cookie' } : null;
}

/**
 * Authenticates from the session cookie (or a bearer JWT) only: identity never comes from headers
 * like x-user, the body or the query. Sets `request.ctx`. A cookie-authenticated write must come
 * from our own origin (403). An old cookie is reissued so sessions in use do not lapse.
 */
export async function authenticateRequest(
  request: FastifyRequest,
  reply: FastifyReply,
  { auth, config }: Container,
): Promise<AuthSession | null> {
  const found = readToken(request, config);
  if (!found) return null;
  const session = await auth.authenticate(found.token, requestOrigin(request));
  if (!session) {
    if (found.via === 'cookie') clearSessionCookie(reply, config);
    return null;
  }
  if (found.via === 'cookie' && isUnsafeMethod(request.method) && !isSameOriginRequest(request, config.http.publicBaseUrl)) {
    throw new AppError('forbidden', 'cross-site request refused: send it from the Mostrador page itself (Origin check)');
  }
  setActor(request.ctx, {
    kind: 'user',
    userId: session.userId,
    email: session.email,
    isSuperadmin: session.isSuperadmin,
    companyId: session.companyId,
    role: session.role,
  });
  request.authSession = session;
  if (found.via === 'cookie') {
    const refreshed = await auth.refreshIfDue(session);
    if (refreshed) setSessionCookie(reply, config, refreshed);
  }
  return session;
}

export function meetsRequirement(session: AuthSession, requires: Requirement): boolean {
  if (requires === 'superadmin') return session.isSuperadmin;
  if (requires === 'company_admin') return session.companyId !== null && session.role === 'admin';
  return true;
}

export function findSurface(request: FastifyRequest, surfaces: readonly GuardedSurface[]): GuardedSurface | undefined {
  const path = request.url.split('?')[0]!;
  const routed = request.routeOptions.url ?? '';
  return surfaces.find((s) => path.startsWith(s.prefix) || routed.startsWith(s.prefix));
}

export function loginRedirect(request: FastifyRequest): string {
  return `/login?next=${encodeURIComponent(request.url)}`;
}

export function registerAuthGuard(app: App, container: Container, surfaces: readonly GuardedSurface[] = ACCESS_SURFACES) {
  app.decorateRequest('authSession', null);
  app.addHook('onRequest', async (request, reply) => {
    const surface = findSurface(request, surfaces);
    if (!surface) return;
    reply.header('cache-control', 'no-store');
    const session = await authenticateRequest(request, reply, container);
    if (!session) {
      if (surface.kind === 'page') return reply.redirect(loginRedirect(request), 302);
      throw new AppError('unauthenticated', 'log in first: this needs a session');
    }
    if (!meetsRequirement(session, surface.requires)) {
      if (surface.kind === 'page') return reply.redirect('/', 302);
      throw new AppError('forbidden', forbiddenMessage(surface.requires));
    }
  });
}

function forbiddenMessage(requires: Requirement): string {
  return requires === 'superadmin' ? 'only superadmins may use this' : 'only an admin of the selected company may use this';
}
