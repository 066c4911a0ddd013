import { Type } from 'typebox';
import type { App } from '../../app.ts';
import type { Container } from '../../container.ts';
import { requestOrigin } from '../../http/auth-guard.ts';
import { companiesPage } from './companies.page.ts';

// Every route here sits under /api/superadmin or /superadmin: the access guard has already
// refused anyone who is not a superadmin before a handler runs.

const ListQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
  offset: Type.Integer({ minimum: 0, default: 0 }),
  q: Type.Optional(Type.String({ maxLength: 200 })),
});
const CreateBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  cuit: Type.Optional(Type.Union([Type.String({ maxLength: 20 }), Type.Null()])),
  timezone: Type.Optional(Type.String({ maxLength: 64 })),
});

export function registerSuperadminRoutes(app: App, { superadmin }: Container) {
  app.get('/api/superadmin/companies', { schema: { hide: true, querystring: ListQuery } }, async (request) => {
    const { limit, offset, q } = request.query;
    const page = await superadmin.listCompanies({ limit, offset, q });
    return { ...page, limit, offset };
  });

  app.post('/api/superadmin/companies', { schema: { hide: true, body: CreateBody } }, async (request, reply) => {
    const session = request.authSession!;
    const created = await superadmin.createCompany(
      request.body,
      { userId: session.userId, email: session.email },
      requestOrigin(request),
    );
    const { company } = created;
    return reply.code(201).send({
      company: {
        id: company.id,
        name: company.name,
        cuit: company.cuit,
        timezone: company.timezone,
        created_at: company.createdAt.toISOString(),
      },
      // Shown once here; the key stays readable to the company's admins, the token is only hashed.
      integration_key: created.integrationKey,
      scanner_token: created.scannerToken,
    });
  });

  app.get('/superadmin', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/superadmin/companies', 302));

  app.get('/superadmin/companies', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const { limit, offset, q } = request.query;
    const page = await superadmin.listCompanies({ limit, offset, q });
    return companiesPage(reply, { email: request.authSession!.email, ...page, q: q ?? '', offset, limit });
  });
}
