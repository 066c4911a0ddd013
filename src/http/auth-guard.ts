import { parseCookie, type SetCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { AppError } from '../lib/errors.ts';
import type { AuthService, AuthSession, IssuedToken } from '../modules/auth/auth.service.ts';
import { isSameOriginRequest, isUnsafeMethod } from '../modules/auth/csrf.ts';
import { setActor } from './request-context.ts';
import { isApiRequest, type PageRefusal, type SurfaceGuard } from './surfaces.ts';

export function sessionCookieName(config: Config): string {
  // __Host- makes browsers refuse the cookie unless Secure, host-only and Path=/.
  return config.http.isHttps ? '__Host-mostrador_session' : 'mostrador_session';
}

/**
 * Sets a cookie on this answer, replacing one of the same name it already sets (logging out after a
 * refresh sends only the removal). The Set-Cookie header is written here, where a session sets it:
 * no onSend hook on every answer (as @fastify/cookie's was, even for routes that never set one).
 */
function putCookie(reply: FastifyReply, cookie: SetCookie) {
  const line = stringifySetCookie(cookie);
  const others = ([] as unknown[])
    .concat(reply.getHeader('set-cookie') ?? [])
    .filter((l): l is string => typeof l === 'string' && !l.startsWith(`${cookie.name}=`));
  reply.removeHeader('set-cookie');
  reply.header('set-cookie', others.length > 0 ? [...others, line] : line);
}

export function setSessionCookie(reply: FastifyReply, config: Config, issued: IssuedToken) {
  putCookie(reply, {
    name: sessionCookieName(config),
    value: issued.token,
    httpOnly: true,
    sameSite: 'lax',
    secure: config.http.isHttps,
    path: '/',
    expires: issued.expiresAt,
  });
}

export function clearSessionCookie(reply: FastifyReply, config: Config) {
  putCookie(reply, {
    name: sessionCookieName(config),
    value: '',
    httpOnly: true,
    sameSite: 'lax',
    secure: config.http.isHttps,
    path: '/',
    expires: new Date(0),
    maxAge: 0,
  });
}

const BEARER_JWT = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/;

function readToken(request: FastifyRequest, config: Config): { token: string; via: 'bearer' | 'cookie' } | null {
  // A bearer token cannot be attached by another site's page, so it needs no CSRF check.
  const bearer = BEARER_JWT.exec(request.headers.authorization ?? '');
  if (bearer) return { token: bearer[1]!, via: 'bearer' };
  // Cookies are parsed here, on the routes that read a session, not by a hook on every request:
  // the scanner and the APIs never pay for it.
  const header = request.headers.cookie;
  if (!header) return null;
  const cookie = parseCookie(header)[sessionCookieName(config)];
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
  { auth, config }: { auth: AuthService; config: Config },
): Promise<AuthSession | null> {
  const found = readToken(request, config);
  if (!found) return null;
  const session = await auth.authenticate(found.token, request.ctx.origin);
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
    memberNo: session.memberNo,
  });
  request.authSession = session;
  if (found.via === 'cookie') {
    const refreshed = await auth.refreshIfDue(session);
    if (refreshed) setSessionCookie(reply, config, refreshed);
  }
  return session;
}

/**
 * What a person with a temporary password may still reach: the account page where they set their
 * own, the password change itself, who they are, and signing out (issue 29).
 */
const PASSWORD_CHANGE_ROUTES = new Set(['/cuenta', '/api/auth/password', '/api/auth/me', '/api/auth/logout']);
export const PASSWORD_CHANGE_PAGE = '/cuenta';

/**
 * A session with a temporary password reaches nothing but the password change: APIs answer 403
 * password_change_required, pages send the person to the account page (which then shows only the
 * password form). Answers true when the request was refused or redirected.
 */
export function refusedForPasswordChange(request: FastifyRequest, reply: FastifyReply, session: AuthSession): boolean {
  if (!session.mustChangePassword) return false;
  const route = request.routeOptions.url ?? request.url.split('?')[0]!;
  if (PASSWORD_CHANGE_ROUTES.has(route)) return false;
  if (isApiRequest(request)) {
    throw new AppError('password_change_required', 'your password is a temporary one: change it first (POST /api/auth/password)');
  }
  void reply.redirect(PASSWORD_CHANGE_PAGE, 302);
  return true;
}

/** What a session surface asks of the person. */
export type Requirement = 'session' | 'member' | 'admin' | 'superadmin';

export function meetsRequirement(session: AuthSession, requires: Requirement): boolean {
  if (requires === 'superadmin') return session.isSuperadmin;
  if (requires === 'admin') return session.companyId !== null && session.role === 'admin';
  if (requires === 'member') return session.companyId !== null && session.role !== null;
  return true;
}

export function loginRedirect(request: FastifyRequest): string {
  return `/login?next=${encodeURIComponent(request.url)}`;
}

const FORBIDDEN: Record<Requirement, string> = {
  session: 'log in first: this needs a session',
  member: 'only a member (admin or cashier) of the selected company may use this',
  admin: 'only an admin of the selected company may use this',
  superadmin: 'only superadmins may use this',
};

export interface SessionGuardDeps {
  auth: AuthService;
  config: Config;
  /** What a signed-in person who may not open a page sees (the operator pages redirect instead). */
  refusedPage: PageRefusal;
}

/**
 * The guard of the session surfaces. APIs answer 401 without a session and 403 without the role;
 * pages send visitors to /login?next=…, and show the signed-in but refused a page that says why
 * (operator pages send them to `/`, as the contract asks).
 */
export function sessionGuard(requires: Requirement, deps: SessionGuardDeps): SurfaceGuard {
  return {
    onRequest: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const api = isApiRequest(request);
      const session = await authenticateRequest(request, reply, deps);
      if (!session) {
        if (!api) return reply.redirect(loginRedirect(request), 302);
        throw new AppError('unauthenticated', FORBIDDEN.session);
      }
      if (refusedForPasswordChange(request, reply, session)) return reply;
      if (meetsRequirement(session, requires)) return;
      if (api) throw new AppError('forbidden', FORBIDDEN[requires]);
      if (requires === 'superadmin') return reply.redirect('/', 302);
      return deps.refusedPage(request, reply);
    },
  };
}
