import { Type } from 'typebox';
import type { Config } from '../../config.ts';
import type { App } from '../../http/app.types.ts';
import { authenticateRequest, clearSessionCookie, setSessionCookie } from '../../http/auth-guard.ts';
import { userCtx } from '../../http/request-context.ts';
import { homeOf, type Shell } from '../../http/shell.ts';
import { AppError } from '../../lib/errors.ts';
import { MIN_PASSWORD_LENGTH, type UserService } from '../users/users.service.ts';
import type { AuthService, AuthSession } from './auth.service.ts';
import { isCrossSiteRequest } from './csrf.ts';
import { safeNextPath } from './safe-next.ts';
import type { SessionWire } from './session.wire.ts';

const LoginBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});
const CompanyBody = Type.Object({ company_id: Type.Integer({ minimum: 1 }) });
const PasswordBody = Type.Object(
  {
    current_password: Type.String({ minLength: 1, maxLength: 1024 }),
    new_password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false },
);
const LoginQuery = Type.Object({ next: Type.Optional(Type.String({ maxLength: 2048 })) });

export interface AuthRouteDeps {
  auth: AuthService;
  users: UserService;
  config: Config;
  shell: Shell;
}

/** What the browser may know about its own session (never the token itself). */
export async function describeSession(auth: AuthService, session: AuthSession): Promise<SessionWire> {
  const memberships = await auth.listMemberships(session.userId);
  return {
    user: { id: session.memberNo, email: session.email, display_name: session.displayName, is_superadmin: session.isSuperadmin },
    company: session.companyId === null ? null : { id: session.companyId, name: session.companyName, role: session.role },
    companies: memberships.map((m) => ({ id: m.companyId, name: m.companyName, role: m.role })),
    session: { kind: session.kind, expires_at: session.expiresAt.toISOString() },
    must_change_password: session.mustChangePassword,
  };
}

/** Public surface: `/` (each person to their place), the login page, login and logout. */
export function registerAuthPublicRoutes(app: App, { auth, config, shell }: AuthRouteDeps) {
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    const session = await authenticateRequest(request, reply, { auth, config });
    return reply.redirect(session ? homeOf(session) : '/docs');
  });

  app.post('/api/auth/login', { schema: { hide: true, body: LoginBody } }, async (request, reply) => {
    // Login CSRF: a page of another site must not log the browser into an account of its choice.
    if (isCrossSiteRequest(request, config.http.publicBaseUrl)) {
      throw new AppError('forbidden', 'cross-site login refused');
    }
    // No account has a NUL in its email (PostgreSQL text cannot hold one): a malformed request.
    if (request.body.email.includes('\u0000')) {
      throw new AppError('bad_request', 'email must not contain the NUL character (\\u0000)', {
        details: [{ path: '/email', message: 'must not contain the NUL character' }],
      });
    }
    const issued = await auth.login(request.ctx, request.body);
    setSessionCookie(reply, config, issued);
    const session = await auth.authenticate(issued.token, request.ctx.origin);
    if (!session) throw new AppError('internal', 'the new session could not be read back');
    return describeSession(auth, session);
  });

  app.post('/api/auth/logout', { schema: { hide: true } }, async (request, reply) => {
    const session = await authenticateRequest(request, reply, { auth, config });
    if (session) await auth.logout(request.ctx, session);
    clearSessionCookie(reply, config);
    return reply.code(204).send();
  });

  // Signed in already: the page says who, and offers to go on or to switch accounts.
  app.get('/login', { schema: { hide: true, querystring: LoginQuery } }, async (request, reply) => {
    const session = await authenticateRequest(request, reply, { auth, config });
    const next = safeNextPath(request.query.next);
    const data = {
      next: session && next === '/' ? homeOf(session) : next,
      signed_in: session ? { email: session.email, name: session.displayName } : null,
    };
    return shell.send(request, reply, { title: 'Ingresar', entry: 'login', data });
  });
}

/** Session surface: anyone signed in, whatever their role. */
export function registerAccountRoutes(app: App, { auth, users, shell }: AuthRouteDeps) {
  app.get('/api/auth/me', { schema: { hide: true } }, async (request) => describeSession(auth, request.authSession!));

  app.post('/api/auth/company', { schema: { hide: true, body: CompanyBody } }, async (request) => {
    const session = request.authSession!;
    await auth.selectCompany(request.ctx, session, request.body.company_id);
    const updated = await auth.reloadSession(session);
    return describeSession(auth, updated ?? session);
  });

  // "Cerrar las otras sesiones" on Mi cuenta: every other device of the person is signed out.
  app.post('/api/auth/sessions/end-others', { schema: { hide: true } }, async (request) => ({
    ended_sessions: await auth.endOtherSessions(request.ctx, request.authSession!),
  }));

  app.post('/api/auth/password', { schema: { hide: true, body: PasswordBody } }, async (request) => {
    const { endedSessions } = await users.changeOwnPassword(
      userCtx(request.ctx),
      request.authSession!.sessionId,
      request.body.current_password,
      request.body.new_password,
    );
    return { ended_sessions: endedSessions };
  });

  app.get('/cuenta', { schema: { hide: true } }, async (request, reply) => {
    const me = await describeSession(auth, request.authSession!);
    return shell.send(request, reply, {
      title: 'Mi cuenta',
      entry: 'account',
      data: { ...me, min_password: MIN_PASSWORD_LENGTH },
    });
  });
}
