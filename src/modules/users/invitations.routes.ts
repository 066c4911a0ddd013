import { Type } from 'typebox';
import type { Config } from '../../config.ts';
import type { App } from '../../http/app.types.ts';
import { authenticateRequest, setSessionCookie } from '../../http/auth-guard.ts';
import { userCtx } from '../../http/request-context.ts';
import type { Shell } from '../../http/shell.ts';
import { AppError } from '../../lib/errors.ts';
import { describeSession } from '../auth/auth.routes.ts';
import type { AuthService } from '../auth/auth.service.ts';
import { isCrossSiteRequest } from '../auth/csrf.ts';
import { INVITATION_PATH, type InvitationService } from './invitations.service.ts';
import { MIN_PASSWORD_LENGTH } from './users.service.ts';

// The link's token travels in the body, never in a URL (it would reach logs and Referer headers).
const Token = Type.String({ minLength: 1, maxLength: 200 });
const TokenBody = Type.Object({ token: Token }, { additionalProperties: false });
const NewAccountBody = Type.Object(
  {
    token: Token,
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    display_name: Type.Optional(Type.String({ maxLength: 120 })),
  },
  { additionalProperties: false },
);

export interface InvitationRouteDeps {
  auth: AuthService;
  invitations: InvitationService;
  config: Config;
  shell: Shell;
}

/** Public surface: the page an invitation link opens, what it shows, and joining with a new account. */
export function registerInvitationPublicRoutes(app: App, { auth, invitations, config, shell }: InvitationRouteDeps) {
  app.get(INVITATION_PATH, { schema: { hide: true } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const session = await authenticateRequest(request, reply, { auth, config });
    const data = {
      signed_in: session ? { email: session.email, name: session.displayName } : null,
      min_password: MIN_PASSWORD_LENGTH,
    };
    return shell.send(request, reply, { title: 'Invitación', entry: 'invitation', data });
  });

  app.post('/api/invitations/view', { schema: { hide: true, body: TokenBody } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    return invitations.view(request.body.token);
  });

  app.post('/api/invitations/accept-new', { schema: { hide: true, body: NewAccountBody } }, async (request, reply) => {
    // Like login: a page of another site must not sign the browser into an account of its making.
    if (isCrossSiteRequest(request, config.http.publicBaseUrl)) {
      throw new AppError('forbidden', 'cross-site request refused');
    }
    const { user } = await invitations.acceptAsNewAccount(request.ctx, request.body.token, request.body);
    const stored = await auth.startSession(user, request.ctx.origin);
    setSessionCookie(reply, config, stored);
    const session = await auth.authenticate(stored.token, request.ctx.origin);
    if (!session) throw new AppError('internal', 'the new session could not be read back');
    return reply.code(201).send(await describeSession(auth, session));
  });
}

/** Session surface: a signed-in person accepts or declines an invitation for their email. */
export function registerInvitationAccountRoutes(
  app: App,
  { auth, invitations }: Pick<InvitationRouteDeps, 'auth' | 'invitations'>,
) {
  app.post('/api/invitations/accept', { schema: { hide: true, body: TokenBody } }, async (request) => {
    const session = request.authSession!;
    await invitations.accept(userCtx(request.ctx), session.sessionId, request.body.token);
    return describeSession(auth, (await auth.reloadSession(session)) ?? session);
  });

  app.post('/api/invitations/decline', { schema: { hide: true, body: TokenBody } }, async (request, reply) => {
    await invitations.decline(userCtx(request.ctx), request.body.token);
    return reply.code(204).send();
  });
}
