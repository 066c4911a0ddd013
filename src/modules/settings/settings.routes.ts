import { Type } from 'typebox';
import type { App } from '../../http/app.types.ts';
import { companyCtx } from '../../http/request-context.ts';
import type { Shell } from '../../http/shell.ts';
import { registerMemberRoutes, sessionCompany } from '../users/members.routes.ts';
import type { InvitationService } from '../users/invitations.service.ts';
import type { MemberService } from '../users/members.service.ts';
import type { EndpointService } from '../webhooks/endpoints.service.ts';
import type { SettingsService } from './settings.service.ts';

// Registered in the company-admin surface: only an admin of the session's company gets here, and
// the company always comes from the session (a company_id in the body or query is ignored).

const AuditQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
  // The id of the last entry seen (an opaque string: settings.service.ts).
  before: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
});

export interface SettingsRouteDeps {
  settings: SettingsService;
  endpoints: EndpointService;
  members: MemberService;
  invitations: InvitationService;
  shell: Shell;
}

export function registerSettingsRoutes(app: App, { settings, endpoints, members, invitations, shell }: SettingsRouteDeps) {
  app.get('/api/settings/integrations', { schema: { hide: true } }, async (request) =>
    settings.overview(companyCtx(request.ctx).companyId),
  );

  app.post('/api/settings/integrations/key/reveal', { schema: { hide: true } }, async (request) =>
    settings.revealIntegrationKey(companyCtx(request.ctx)),
  );

  app.post('/api/settings/integrations/key/rotate', { schema: { hide: true } }, async (request) =>
    settings.rotateIntegrationKey(companyCtx(request.ctx)),
  );

  app.post('/api/settings/integrations/scanner-token/rotate', { schema: { hide: true } }, async (request) =>
    settings.rotateScannerToken(companyCtx(request.ctx)),
  );

  app.get('/api/settings/audit', { schema: { hide: true, querystring: AuditQuery } }, async (request) => ({
    entries: await settings.listAudit(companyCtx(request.ctx).companyId, {
      limit: request.query.limit,
      before: request.query.before,
    }),
  }));

  registerMemberRoutes(app, { members, invitations }, '/api/settings/members', sessionCompany);

  app.get('/settings', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/settings/integrations', 302));

  app.get('/settings/integrations', { schema: { hide: true } }, async (request, reply) => {
    const { companyId } = companyCtx(request.ctx);
    const [overview, audit, webhooks] = await Promise.all([
      settings.overview(companyId),
      settings.listAudit(companyId, { limit: 20 }),
      endpoints.listEndpoints(companyId),
    ]);
    return shell.send(request, reply, {
      title: 'Integraciones',
      entry: 'settings-integrations',
      data: { overview, audit, webhooks },
    });
  });

  app.get('/settings/people', { schema: { hide: true } }, async (request, reply) => {
    const ctx = companyCtx(request.ctx);
    const data = {
      company: request.authSession!.companyName,
      members: await members.listMembers(ctx.companyId),
      invitations: await invitations.listPending(ctx.companyId),
      // The admin's own number in the company (the user_id of the list), never the account's users.id.
      me: request.authSession?.memberNo ?? null,
      api: '/api/settings/members',
    };
    return shell.send(request, reply, { title: 'Personas', entry: 'settings-people', data });
  });
}
