import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../http/app.types.ts';
import { AppError } from '../../lib/errors.ts';
import type { CompanyCtx } from '../../http/request-context.ts';
import type { Shell } from '../../http/shell.ts';
import type { SettingsService } from '../settings/settings.service.ts';
import { registerMemberRoutes } from '../users/members.routes.ts';
import type { InvitationService } from '../users/invitations.service.ts';
import type { MemberService } from '../users/members.service.ts';
import type { SuperadminService } from './superadmin.service.ts';

// Registered in the superadmin surface: anyone else got 401/403 (APIs) or was sent to `/` (pages)
// before a handler runs.

export const CompanyListQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 50 }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
  q: Type.Optional(Type.String({ maxLength: 200 })),
});
export const CreateCompanyBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  cuit: Type.Optional(Type.Union([Type.String({ maxLength: 20 }), Type.Null()])),
  timezone: Type.Optional(Type.String({ maxLength: 64 })),
});
const CompanyParams = Type.Object({ companyId: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });
const RotateBody = Type.Object(
  { integration: Type.Optional(Type.Boolean()), scanner: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);

export interface SuperadminRouteDeps {
  superadmin: SuperadminService;
  settings: SettingsService;
  members: MemberService;
  invitations: InvitationService;
  shell: Shell;
}

export function registerSuperadminRoutes(app: App, { superadmin, settings, members, invitations, shell }: SuperadminRouteDeps) {
  /** The operator's ctx acting on the company of the path (404 when there is no such company). */
  async function onCompany(request: FastifyRequest): Promise<CompanyCtx> {
    const { companyId } = request.params as { companyId: number };
    await superadmin.getCompany(companyId);
    return { ...request.ctx, companyId };
  }

  app.get('/api/superadmin/companies', { schema: { hide: true, querystring: CompanyListQuery } }, async (request) => {
    const { limit, offset, q } = request.query;
    return { ...(await superadmin.listCompanies({ limit, offset, q })), limit, offset };
  });

  app.post('/api/superadmin/companies', { schema: { hide: true, body: CreateCompanyBody } }, async (request, reply) => {
    const created = await superadmin.createCompany(request.ctx, request.body);
    return reply.code(201).send({
      company: await superadmin.getCompany(created.company.id),
      // Shown once here; the key stays readable to the company's admins, the token is only hashed.
      integration_key: created.integrationKey,
      scanner_token: created.scannerToken,
    });
  });

  app.get('/api/superadmin/companies/:companyId', { schema: { hide: true, params: CompanyParams } }, async (request) => ({
    company: await superadmin.getCompany(request.params.companyId),
  }));

  app.post(
    '/api/superadmin/companies/:companyId/cuit-claims/:cuit',
    {
      schema: {
        hide: true,
        params: Type.Object({ ...CompanyParams.properties, cuit: Type.String({ pattern: '^[0-9]{11}$' }) }),
        body: Type.Object(
          { action: Type.Union([Type.Literal('move'), Type.Literal('dismiss')]) },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => ({
      company: await superadmin.resolveCuitClaim(request.ctx, request.params.companyId, request.params.cuit, request.body.action),
    }),
  );

  app.post(
    '/api/superadmin/companies/:companyId/keys/rotate',
    { schema: { hide: true, params: CompanyParams, body: RotateBody } },
    async (request) => {
      const ctx = await onCompany(request);
      const both = request.body.integration === undefined && request.body.scanner === undefined;
      const out: { integration_key?: string; scanner_token?: string } = {};
      if (both || request.body.integration) out.integration_key = (await settings.rotateIntegrationKey(ctx)).integration_key;
      if (both || request.body.scanner) out.scanner_token = (await settings.rotateScannerToken(ctx)).scanner_token;
      return out;
    },
  );

  app.get(
    '/api/superadmin/companies/:companyId/audit',
    {
      schema: {
        hide: true,
        params: CompanyParams,
        querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 200, default: 20 }) }),
      },
    },
    async (request) => ({
      entries: await settings.listAudit((await onCompany(request)).companyId, { limit: request.query.limit }),
    }),
  );

  registerMemberRoutes(app, { members, invitations }, '/api/superadmin/companies/:companyId/members', onCompany);

  // Any other operator path: non-operators were answered by the guard (401/403/redirect), so they
  // learn nothing about which operator routes exist; an operator gets a 404.
  app.all('/api/superadmin/*', { schema: { hide: true } }, async (request) => {
    throw new AppError('not_found', `no operator route ${request.method} ${request.url.split('?')[0]}`);
  });
  app.get('/superadmin/*', { schema: { hide: true } }, async (request) => {
    throw new AppError('not_found', `no operator page ${request.url.split('?')[0]}`);
  });

  app.get('/superadmin', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/superadmin/companies', 302));

  app.get('/superadmin/companies', { schema: { hide: true, querystring: CompanyListQuery } }, async (request, reply) => {
    const { limit, offset, q } = request.query;
    const page = await superadmin.listCompanies({ limit, offset, q });
    return shell.send(request, reply, {
      title: 'Empresas',
      entry: 'superadmin-companies',
      data: { ...page, q: q ?? '', limit, offset },
    });
  });

  app.get('/superadmin/companies/:companyId', { schema: { hide: true, params: CompanyParams } }, async (request, reply) => {
    const company = await superadmin.getCompany(request.params.companyId);
    return shell.send(request, reply, {
      title: company.name,
      entry: 'superadmin-company',
      data: {
        company,
        members: await members.listMembers(company.id),
        invitations: await invitations.listPending(company.id),
        audit: await settings.listAudit(company.id, { limit: 20 }),
      },
    });
  });
}
