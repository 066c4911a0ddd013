import { Type } from 'typebox';
import type { App } from '../../app.ts';
import type { Container } from '../../container.ts';
import { authenticateRequest, clearSessionCookie, requestOrigin, setSessionCookie } from '../../http/auth-guard.ts';
import { AppError } from '../../lib/errors.ts';
import type { AuthSession } from './auth.service.ts';
import { isCrossSiteRequest } from './csrf.ts';
import { loginPage } from './login.page.ts';
import { safeNextPath } from './safe-next.ts';

const LoginBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});
const CompanyBody = Type.Object({ company_id: Type.Integer({ minimum: 1 }) });
const LoginQuery = Type.Object({ next: Type.Optional(Type.String({ maxLength: 2048 })) });

/** What the browser may know about its own session (never the token itself). */
export async function describeSession(container: Container, session: AuthSession) {
  const memberships = await container.auth.listMemberships(session.userId);
  return {
    user: { id: session.userId, email: session.email, display_name: session.displayName, is_superadmin: session.isSuperadmin },
    company: session.companyId === null ? null : { id: session.companyId, name: session.companyName, role: session.role },
    companies: memberships.map((m) => ({ id: m.companyId, name: m.companyName, role: m.role })),
    session: { kind: session.kind, expires_at: session.expiresAt.toISOString() },
  };
}

export function registerAuthRoutes(app: App, container: Container) {
  const { auth, config } = container;

  app.post('/api/auth/login', { schema: { hide: true, body: LoginBody } }, async (request, reply) => {
    // Login CSRF: a page of another site must not log the browser into an account of its choice.
    if (isCrossSiteRequest(request, config.http.publicBaseUrl)) {
      throw new AppError('forbidden', 'cross-site login refused');
    }
    // No account has a NUL in its email (PostgreSQL text cannot hold one): a malformed request.
    if (request.body.email.includes('\u0000')) {
      throw new AppError('bad_request', 'email must not contain the NUL character (\\u0000)', {
        details: [{ path: 'body.email', message: 'must not contain the NUL character' }],
      });
    }
    const issued = await auth.login(request.body, requestOrigin(request));
    setSessionCookie(reply, config, issued);
    const session = await auth.authenticate(issued.token, requestOrigin(request));
    if (!session) throw new AppError('internal', 'the new session could not be read back');
    return describeSession(container, session);
  });

  app.post('/api/auth/logout', { schema: { hide: true } }, async (request, reply) => {
    const session = await authenticateRequest(request, reply, container);
    if (session) await auth.logout(session, requestOrigin(request));
    clearSessionCookie(reply, config);
    return reply.code(204).send();
  });

  app.get('/api/auth/me', { schema: { hide: true } }, async (request) => describeSession(container, request.authSession!));

  app.post('/api/auth/company', { schema: { hide: true, body: CompanyBody } }, async (request) => {
    const session = request.authSession!;
    await auth.selectCompany(session, request.body.company_id, requestOrigin(request));
    const updated = await auth.reloadSession(session);
    return describeSession(container, updated ?? session);
  });

  app.get('/login', { schema: { hide: true, querystring: LoginQuery } }, async (request, reply) => {
    const next = safeNextPath(request.query.next);
    const session = await authenticateRequest(request, reply, container);
    if (session) return reply.redirect(next, 302);
    return loginPage(reply, next);
  });
}
