import { Type } from 'typebox';
import type { App } from '../../http/app.types.ts';
import { errorResponses } from '../../http/error-body.schema.ts';
import { companyCtx } from '../../http/request-context.ts';
import { AppError } from '../../lib/errors.ts';
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

const TAGS = ['Cuenta y tokens'];
const Me = Type.Object(
  {
    company: Type.Object({ id: Type.Integer(), name: Type.Union([Type.String(), Type.Null()]) }),
    via: Type.Optional(
      Type.Union([Type.Literal('token'), Type.Literal('session')], { description: 'An API token, or a signed-in person' }),
    ),
    token: Type.Optional(Type.Object({ id: Type.Integer(), name: Type.String(), scope: ApiTokenScopeSchema })),
    user: Type.Optional(
      Type.Object({
        id: Type.Integer({
          description:
            "The person's number in this company (the user_id of its people, shifts and register), never an account id shared by all companies",
        }),
        email: Type.String(),
        role: Type.Union([Type.Literal('admin'), Type.Literal('cashier'), Type.Null()], {
          description: 'null: a service operator looking at the company, not one of its people',
        }),
      }),
    ),
  },
  { $id: 'Me' },
);
const READ_ERRORS = errorResponses({ 401: 'No API token or session' });
const ADMIN_ERRORS = errorResponses({
  401: 'No API token or session',
  403: 'Only a company admin signed in (an API token cannot mint or revoke tokens)',
});

/**
 * The merchant API's own door: who am I (any caller) and the company's API tokens (admins signed
 * in only: a token cannot mint or revoke tokens).
 */
export function registerApiTokenRoutes(app: App, { tokens, companies }: { tokens: ApiTokenService; companies: CompanyService }) {
  app.get(
    '/api/v1/me',
    {
      config: { access: 'read' },
      schema: {
        tags: TAGS,
        summary: 'Which company and which access this call has (an API token or a signed-in person)',
        response: { 200: Me, ...READ_ERRORS },
      },
    },
    async (request) => {
      const ctx = companyCtx(request.ctx);
      const company = await companies.findCompany(ctx.companyId);
      const actor = ctx.actor;
      if (actor.kind === 'api-token') {
        return {
          company: { id: ctx.companyId, name: company?.name ?? null },
          via: 'token' as const,
          token: { id: actor.tokenId, name: actor.name, scope: actor.scope },
        };
      }
      if (actor.kind !== 'user') return { company: { id: ctx.companyId, name: company?.name ?? null } };
      // The person as the company knows them: its own number for them (the session's company is the
      // ctx's on this surface, and the guard wants a membership there), never the account's users.id.
      const memberNo = request.authSession?.memberNo ?? null;
      if (memberNo === null) throw new AppError('forbidden', "not one of the company's people");
      return {
        company: { id: ctx.companyId, name: company?.name ?? null },
        via: 'session' as const,
        user: { id: memberNo, email: actor.email, role: actor.role },
      };
    },
  );

  app.get(
    '/api/v1/api-tokens',
    {
      config: { access: 'admin' },
      schema: {
        tags: TAGS,
        summary: "The company's API tokens, revoked ones included (never the secret)",
        response: { 200: Type.Object({ tokens: Type.Array(ApiToken) }), ...ADMIN_ERRORS },
      },
    },
    async (request) => ({ tokens: await tokens.list(companyCtx(request.ctx).companyId) }),
  );

  app.post(
    '/api/v1/api-tokens',
    {
      config: { access: 'admin' },
      schema: {
        tags: TAGS,
        summary: 'A new API token: its secret is in this answer only (stored hashed)',
        body: CreateTokenBody,
        response: {
          201: Type.Object({
            token: ApiToken,
            secret: Type.String({ description: 'The whole token: shown once, send it as Authorization: Bearer' }),
          }),
          ...ADMIN_ERRORS,
          ...errorResponses({ 409: 'An active token already has that name' }),
        },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          await tokens.create(companyCtx(request.ctx), { name: request.body.name, scope: request.body.scope ?? 'read-write' }),
        ),
  );

  app.post(
    '/api/v1/api-tokens/:id/revoke',
    {
      config: { access: 'admin' },
      schema: {
        tags: TAGS,
        summary: 'Revokes a token at once, in every process (revoking it again changes nothing)',
        params: TokenParams,
        response: {
          200: Type.Object({ token: ApiToken }),
          ...ADMIN_ERRORS,
          ...errorResponses({ 404: 'No such token in this company' }),
        },
      },
    },
    async (request) => ({ token: await tokens.revoke(companyCtx(request.ctx), request.params.id) }),
  );
}
