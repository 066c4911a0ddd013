import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../http/app.types.ts';
import { type CompanyCtx, companyCtx } from '../../http/request-context.ts';
import type { InvitationService } from './invitations.service.ts';
import type { MemberService } from './members.service.ts';

export const MemberRole = Type.Union([Type.Literal('admin'), Type.Literal('cashier')]);
export const InviteBody = Type.Object(
  { email: Type.String({ minLength: 3, maxLength: 254 }), role: MemberRole },
  { additionalProperties: false },
);
export const ChangeRoleBody = Type.Object({ role: MemberRole }, { additionalProperties: false });
/**
 * `:userId` is the company's own number for the person (memberships.member_no, the `user_id` of the
 * members list), never the account's users.id: a number the company never gave is a 404.
 */
const UserParams = Type.Object({
  userId: Type.Integer({
    minimum: 1,
    maximum: 2_147_483_647,
    description: "The company's number for the person (user_id of the list)",
  }),
});
const InvitationParams = Type.Object({ invitationId: Type.String({ format: 'uuid' }) });

/**
 * The people API of one company, mounted twice: for a company admin under /api/settings/members
 * (the session's company) and for operators under /api/superadmin/companies/:companyId/members.
 * `ctxOf` gives the ctx whose company is the one managed.
 */
export function registerMemberRoutes(
  app: App,
  { members, invitations }: { members: MemberService; invitations: InvitationService },
  base: string,
  ctxOf: (request: FastifyRequest) => Promise<CompanyCtx>,
) {
  app.get(base, { schema: { hide: true } }, async (request) => ({
    members: await members.listMembers((await ctxOf(request)).companyId),
  }));

  // People join by invitation only: the answer is the same whatever the email (issue 25).
  app.post(base, { schema: { hide: true, body: InviteBody } }, async (request, reply) =>
    reply.code(201).send(await invitations.invite(await ctxOf(request), request.body)),
  );

  app.get(`${base}/invitations`, { schema: { hide: true } }, async (request) => ({
    invitations: await invitations.listPending((await ctxOf(request)).companyId),
  }));

  app.delete(
    `${base}/invitations/:invitationId`,
    { schema: { hide: true, params: InvitationParams } },
    async (request, reply) => {
      await invitations.revoke(await ctxOf(request), request.params.invitationId);
      return reply.code(204).send();
    },
  );

  app.patch(`${base}/:userId`, { schema: { hide: true, params: UserParams, body: ChangeRoleBody } }, async (request) => ({
    member: await members.changeRole(await ctxOf(request), request.params.userId, request.body.role),
  }));

  app.post(`${base}/:userId/disable`, { schema: { hide: true, params: UserParams } }, async (request) => ({
    member: await members.setAccess(await ctxOf(request), request.params.userId, false),
  }));

  app.post(`${base}/:userId/enable`, { schema: { hide: true, params: UserParams } }, async (request) => ({
    member: await members.setAccess(await ctxOf(request), request.params.userId, true),
  }));

  app.post(`${base}/:userId/reset-password`, { schema: { hide: true, params: UserParams } }, async (request) =>
    members.resetPassword(await ctxOf(request), request.params.userId),
  );
}

/** The admin surface's company: the session's own. */
export const sessionCompany = async (request: FastifyRequest) => companyCtx(request.ctx);
