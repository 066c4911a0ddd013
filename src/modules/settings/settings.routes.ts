import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../app.ts';
import type { Container } from '../../container.ts';
import { meetsRequirement, requestOrigin } from '../../http/auth-guard.ts';
import type { SettingsCaller } from './settings.service.ts';
import { integrationsPage, notAllowedPage } from './integrations.page.ts';

// Under /api/settings the access guard admits only an admin of the session's company; the
// company always comes from the session (a company_id in the body or query is ignored).

const AuditQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
  before: Type.Optional(Type.Integer({ minimum: 1 })),
});

function callerOf(request: FastifyRequest): SettingsCaller {
  const session = request.authSession!;
  return {
    actor: { userId: session.userId, email: session.email },
    companyId: session.companyId!,
    origin: requestOrigin(request),
  };
}

export function registerSettingsRoutes(app: App, container: Container) {
  const { settings, auth } = container;

  app.get('/api/settings/integrations', { schema: { hide: true } }, async (request) =>
    settings.overview(request.authSession!.companyId!),
  );

  app.post('/api/settings/integrations/key/reveal', { schema: { hide: true } }, async (request) =>
    settings.revealIntegrationKey(callerOf(request)),
  );

  app.post('/api/settings/integrations/key/rotate', { schema: { hide: true } }, async (request) =>
    settings.rotateIntegrationKey(callerOf(request)),
  );

  app.post('/api/settings/integrations/scanner-token/rotate', { schema: { hide: true } }, async (request) =>
    settings.rotateScannerToken(callerOf(request)),
  );

  app.get('/api/settings/audit', { schema: { hide: true, querystring: AuditQuery } }, async (request) => {
    const entries = await settings.listAudit(request.authSession!.companyId!, {
      limit: request.query.limit,
      beforeId: request.query.before,
    });
    return { entries };
  });

  app.get('/settings', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/settings/integrations', 302));

  // The guard only requires a session here: a cashier gets a page that says so and offers the
  // companies where they are admin, instead of a bare redirect.
  app.get('/settings/integrations', { schema: { hide: true } }, async (request, reply) => {
    const session = request.authSession!;
    const memberships = await auth.listMemberships(session.userId);
    if (!meetsRequirement(session, 'company_admin')) {
      return notAllowedPage(reply, { session, memberships });
    }
    const overview = await settings.overview(session.companyId!);
    const audit = await settings.listAudit(session.companyId!, { limit: 20 });
    const webhooks = await container.webhooks.endpoints.listEndpoints(session.companyId!);
    return integrationsPage(reply, { session, memberships, overview, audit, webhooks });
  });
}
