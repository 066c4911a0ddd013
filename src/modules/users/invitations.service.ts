import { randomUUID } from 'node:crypto';
import type { Conn, Database, Tx } from '../../db/client.ts';
import type { CompanyCtx, RequestCtx, UserCtx } from '../../http/request-context.ts';
import { AppError } from '../../lib/errors.ts';
import { generateSecret, safeEqual, sha256Hex } from '../../lib/secrets.ts';
import { type Clock, DAY_MS } from '../../lib/time.ts';
import { auditBy, recordAudit } from '../audit/audit.repo.ts';
import { setSessionCompany } from '../auth/sessions.repo.ts';
import * as repo from './invitations.repo.ts';
import { insertMembership } from './members.repo.ts';
import { MEMBERSHIP_ROLES, type MembershipRole } from './roles.ts';
import { isEmailAddress, MIN_PASSWORD_LENGTH, type User, type UserService } from './users.service.ts';
import { dbDate } from '../../db/dates.ts';

/** How long an invitation link works. */
export const INVITATION_TTL_MS = 7 * DAY_MS;
/** The page an invitation link opens; the token travels after `#`, so it never reaches a server log. */
export const INVITATION_PATH = '/invitacion';
const TOKEN_PREFIX = 'mos_inv_';

/** What `POST …/members` answers, whatever the email: nothing about its account. */
export interface CreatedInvitationWire {
  invitation: { id: string; email: string; role: MembershipRole; expires_at: string };
  /** Shown once: only a hash of its token is kept. */
  link: string;
}

/** A pending invitation as the company's people screen lists it. */
export interface InvitationWire {
  id: string;
  email: string;
  role: MembershipRole;
  created_at: string;
  expires_at: string;
  /** Past its 7 days: the link no longer works (invite again for a new one). */
  expired: boolean;
  invited_by: string | null;
}

/** What the invitation page shows to whoever holds the link. */
export interface InvitationViewWire {
  invitation: { company: string; email: string; role: MembershipRole; expires_at: string };
}

export interface InviteInput {
  email: string;
  role: MembershipRole;
}

const iso = (v: Date | string) => dbDate(v).toISOString();

export type InvitationService = ReturnType<typeof createInvitationService>;

/**
 * People join a company by invitation (issue 25, docs/cuenta-y-accesos.md). Inviting never looks at
 * the accounts: the answer is the same for a new email, an existing account, a blocked one or an
 * operator's. Only the person who opens the link and proves the email (a new password, or logging
 * into that account) makes the membership. Every step is audited.
 */
/** Invitations a company can make in 24 hours. */
export const INVITATIONS_PER_DAY = 50;

export function createInvitationService({
  db,
  clock,
  users,
  publicBaseUrl,
}: {
  db: Database;
  clock: Clock;
  users: UserService;
  publicBaseUrl: string;
}) {
  function toWire(row: repo.InvitationRow): InvitationWire {
    return {
      id: row.id,
      email: row.email,
      role: row.role,
      created_at: iso(row.created_at),
      expires_at: iso(row.expires_at),
      expired: dbDate(row.expires_at).getTime() <= clock.now().getTime(),
      invited_by: row.invited_by_email,
    };
  }

  function normaliseEmail(email: string): string {
    const normal = email.trim().toLowerCase();
    if (!isEmailAddress(normal)) {
      throw new AppError('validation_failed', `"${email}" is not an email address`, {
        details: [{ path: 'email', message: 'is not an email address' }],
      });
    }
    return normal;
  }

  /**
   * Invites `email` with `role` into the ctx's company; a pending invitation of the same email is
   * replaced (its link stops working). Refuses only what the company itself can see: a bad email,
   * a person already in the company (409 already_member).
   */
  async function invite(ctx: CompanyCtx, input: InviteInput): Promise<CreatedInvitationWire> {
    if (!MEMBERSHIP_ROLES.includes(input.role))
      throw new AppError('validation_failed', `role must be one of ${MEMBERSHIP_ROLES.join(', ')}`);
    const email = normaliseEmail(input.email);
    const token = generateSecret(TOKEN_PREFIX);
    const id = randomUUID();
    const now = clock.now();
    const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS);
    await db.orm.transaction(async (tx) => {
      if (await repo.isMemberByEmail(tx, ctx.companyId, email)) {
        throw new AppError('already_member', `${email} is already a member of this company`);
      }
      // Whoever holds a link can tell, by accepting it as a new account, whether its email already
      // has one (docs/cuenta-y-accesos.md): a day's invitations are bounded so that nobody can
      // walk a list of emails through it.
      const since = new Date(now.getTime() - 24 * 60 * 60 * 1000);
      if ((await repo.countInvitationsSince(tx, ctx.companyId, since)) >= INVITATIONS_PER_DAY) {
        throw new AppError('invitation_limit', `at most ${INVITATIONS_PER_DAY} invitations a day; try again tomorrow`);
      }
      const replaced = await repo.replacePending(tx, ctx.companyId, email, now);
      await repo.insertInvitation(tx, {
        id,
        companyId: ctx.companyId,
        email,
        role: input.role,
        tokenHash: sha256Hex(token),
        invitedBy: ctx.actor.kind === 'user' ? ctx.actor.userId : null,
        createdAt: now,
        expiresAt,
      });
      await recordAudit(tx, {
        action: 'invitation.created',
        ...auditBy(ctx),
        details: { invitation_id: id, email, role: input.role, expires_at: expiresAt.toISOString(), replaced },
      });
    });
    return {
      invitation: { id, email, role: input.role, expires_at: expiresAt.toISOString() },
      link: `${publicBaseUrl}${INVITATION_PATH}#${token}`,
    };
  }

  async function listPending(companyId: number): Promise<InvitationWire[]> {
    return (await repo.listPendingInvitations(db.orm, companyId)).map(toWire);
  }

  /** Revokes a pending invitation of the ctx's company: its link stops working at once. */
  async function revoke(ctx: CompanyCtx, id: string): Promise<void> {
    await db.orm.transaction(async (tx) => {
      const row = await repo.findCompanyInvitation(tx, ctx.companyId, id);
      if (row?.status !== 'pending') throw new AppError('not_found', `no pending invitation ${id} in this company`);
      await repo.endInvitation(tx, id, 'revoked', clock.now());
      await recordAudit(tx, {
        action: 'invitation.revoked',
        ...auditBy(ctx),
        details: { invitation_id: id, email: row.email, role: row.role },
      });
    });
  }

  /**
   * The pending invitation a link's token stands for; otherwise why not, each with its own code (the
   * page words it): unknown link 404, used 410, revoked or replaced 410, expired 410.
   */
  async function resolve(conn: Conn, token: string, lock: boolean): Promise<repo.InvitationRow> {
    const hash = sha256Hex(token);
    const row = token.startsWith(TOKEN_PREFIX) ? await repo.findInvitationByTokenHash(conn, hash, lock) : null;
    if (!row || !safeEqual(row.token_hash, hash)) throw new AppError('not_found', 'this invitation link is not valid');
    if (row.status === 'accepted' || row.status === 'declined')
      throw new AppError('invitation_used', 'this invitation was already answered');
    if (row.status === 'revoked' || row.status === 'replaced')
      throw new AppError('invitation_revoked', 'this invitation was revoked by the company');
    if (dbDate(row.expires_at).getTime() <= clock.now().getTime())
      throw new AppError('invitation_expired', 'this invitation expired: ask the company for a new one');
    return row;
  }

  /** What the link's page shows: the company, the email and the role. The same for any email. */
  async function view(token: string): Promise<InvitationViewWire> {
    const row = await resolve(db.orm, token, false);
    return { invitation: { company: row.company_name, email: row.email, role: row.role, expires_at: iso(row.expires_at) } };
  }

  async function join(tx: Tx, ctx: RequestCtx, row: repo.InvitationRow, user: { id: number; email: string }) {
    await insertMembership(tx, row.company_id, user.id, row.role);
    await repo.endInvitation(tx, row.id, 'accepted', clock.now(), user.id);
    await recordAudit(tx, {
      action: 'invitation.accepted',
      actor: { userId: user.id, email: user.email },
      companyId: row.company_id,
      origin: ctx.origin,
      details: { invitation_id: row.id, user_id: user.id, email: row.email, role: row.role },
    });
  }

  /**
   * A person without an account accepts: the account is made with their password (and name) and
   * joins the company in one transaction. An email that has an account must log in instead (409
   * invitation_needs_login): setting the password of an existing account would hand it to whoever
   * holds the link.
   */
  async function acceptAsNewAccount(
    ctx: RequestCtx,
    token: string,
    input: { password: string; display_name?: string | undefined },
  ): Promise<{ user: User; companyId: number }> {
    if (input.password.length < MIN_PASSWORD_LENGTH) {
      throw new AppError('validation_failed', `password must have at least ${MIN_PASSWORD_LENGTH} characters`, {
        details: [{ path: 'password', message: `must have at least ${MIN_PASSWORD_LENGTH} characters` }],
      });
    }
    return db.orm.transaction(async (tx) => {
      const row = await resolve(tx, token, true);
      if (await users.findUserByEmail(row.email, tx)) {
        throw new AppError('invitation_needs_login', 'this email already has an account: log in with it to accept');
      }
      const user = await users.createUser(
        { email: row.email, password: input.password, displayName: input.display_name?.trim() || null },
        tx,
      );
      await join(tx, ctx, row, user);
      await repo.setLastCompany(tx, user.id, row.company_id);
      return { user, companyId: row.company_id };
    });
  }

  /** The signed-in person must be the invited email; operators never become members (neutral refusal). */
  async function answerable(ctx: UserCtx, token: string, tx: Tx): Promise<repo.InvitationRow> {
    const row = await resolve(tx, token, true);
    if (row.email !== ctx.actor.email.trim().toLowerCase()) {
      throw new AppError('invitation_wrong_account', 'this invitation is for another email: log in with that account');
    }
    return row;
  }

  /**
   * A signed-in person accepts: the membership is made and this session moves to the company.
   * An operator's account is refused with a neutral message; the refusal is audited outside the
   * company (the company's activity must not tell that the email is an operator's).
   */
  async function accept(ctx: UserCtx, sessionId: string, token: string): Promise<{ companyId: number }> {
    if (ctx.actor.isSuperadmin) {
      const row = await resolve(db.orm, token, false);
      await recordAudit(db.orm, {
        action: 'invitation.refused',
        ...auditBy(ctx),
        companyId: null,
        details: { invitation_id: row.id, company_id: row.company_id, reason: 'superadmin' },
      });
      throw new AppError('invitation_refused', 'this invitation cannot be accepted with this account');
    }
    return db.orm.transaction(async (tx) => {
      const row = await answerable(ctx, token, tx);
      const already = await users.findMembership(ctx.actor.userId, row.company_id, tx);
      if (already) throw new AppError('already_member', 'you are already a member of this company');
      await join(tx, ctx, row, { id: ctx.actor.userId, email: ctx.actor.email });
      await setSessionCompany(tx, sessionId, row.company_id);
      return { companyId: row.company_id };
    });
  }

  /** A signed-in person declines: the link stops working, the company's activity says so. */
  async function decline(ctx: UserCtx, token: string): Promise<void> {
    await db.orm.transaction(async (tx) => {
      const row = await answerable(ctx, token, tx);
      await repo.endInvitation(tx, row.id, 'declined', clock.now(), ctx.actor.userId);
      await recordAudit(tx, {
        action: 'invitation.declined',
        actor: { userId: ctx.actor.userId, email: ctx.actor.email },
        companyId: row.company_id,
        origin: ctx.origin,
        details: { invitation_id: row.id, email: row.email, role: row.role },
      });
    });
  }

  return { invite, listPending, revoke, view, acceptAsNewAccount, accept, decline };
}
