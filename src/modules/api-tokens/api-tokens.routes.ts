import { Type } from 'typebox';
import type { App } from '../../http/app.types.ts';
import { companyCtx } from '../../http/request-context.ts';
import type { CompanyService } from '../companies/companies.service.ts';
import type { ApiTokenService } from './api-tokens.service.ts';

export const ApiTokenScopeSchema = Type.Union([Type.Literal('read'), Type.Literal('read-write')]);

export const ApiToken = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    scope: ApiTokenScopeSchema,
    hint: Type.String({ description: 'The first characters of the token, to tell tokens apart; never the whole.' }),
    created_by: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String({ format: 'date-time' }),
    last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { $id: 'ApiToken' },
);

const CreateTokenBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 80 }),
    scope: Type.Optional(ApiTokenScopeSchema),
  },
  { additionalProperties: false },
);
const TokenParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });

/**
 * The merchant API's own door: who am I (any caller) and the company's API tokens (admins signed
 * in only: a token cannot mint or revoke tokens).
 */
export function registerApiTokenRoutes(app: App, { tokens, companies }: { tokens: ApiTokenService; companies: CompanyService }) {
  app.get('/api/v1/me', { config: { access: 'read' }, schema: { hide: true } }, async (request) => {
    const ctx = companyCtx(request.ctx);
    const company = await companies.findCompany(ctx.companyId);
    const actor = ctx.actor;
    return {
      company: { id: ctx.companyId, name: company?.name ?? null },
      ...(actor.kind === 'api-token'
        ? { via: 'token', token: { id: actor.tokenId, name: actor.name, scope: actor.scope } }
        : actor.kind === 'user'
          ? { via: 'session', user: { id: actor.userId, email: actor.email, role: actor.role } }
          : {}),
    };
  });

  app.get('/api/v1/api-tokens', { config: { access: 'admin' }, schema: { hide: true } }, async (request) => ({
    tokens: await tokens.list(companyCtx(request.ctx).companyId),
  }));

  app.post(
    '/api/v1/api-tokens',
    { config: { access: 'admin' }, schema: { hide: true, body: CreateTokenBody } },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          await tokens.create(companyCtx(request.ctx), { name: request.body.name, scope: request.body.scope ?? 'read-write' }),
        ),
  );

  app.post(
    '/api/v1/api-tokens/:id/revoke',
    { config: { access: 'admin' }, schema: { hide: true, params: TokenParams } },
    async (request) => ({ token: await tokens.revoke(companyCtx(request.ctx), request.params.id) }),
  );
}
