import { randomInt } from 'node:crypto';
import type { Database, Tx } from '../../db/client.ts';
import type { CompanyCtx } from '../../http/request-context.ts';
import { AppError } from '../../lib/errors.ts';
import { hashPassword } from '../../lib/secrets.ts';
import type { Clock } from '../../lib/time.ts';
import { type AuditAction, auditBy, recordAudit } from '../audit/audit.repo.ts';
import { endUserSessions } from '../auth/sessions.repo.ts';
import * as repo from './members.repo.ts';
import { MEMBERSHIP_ROLES, type MembershipRole } from './roles.ts';
import type { UserService } from './users.service.ts';
import { dbIso } from '../../db/dates.ts';

export interface MemberWire {
  /** The company's own number for this person (memberships.member_no), never the account's users.id. */
  user_id: number;
  email: string;
  display_name: string | null;
  role: MembershipRole;
  /** When the company admin turned this person's access off (null while they have access). */
  disabled_at: string | null;
  /** The account itself is blocked (by an operator), in every company. */
  account_disabled: boolean;
  created_at: string;
  last_login_at: string | null;
}

// Letters and digits that are not read as one another on a screen or a phone call (no 0/O, 1/l/I).
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** A temporary password: three groups of four, 14 characters, about 59 bits. */
export function temporaryPassword(): string {
  const group = () => Array.from({ length: 4 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
  return `${group()}-${group()}-${group()}`;
}

function toWire(row: repo.MemberRow): MemberWire {
  const iso = dbIso;
  return {
    user_id: Number(row.member_no),
    email: row.email,
    display_name: row.display_name,
    role: row.role,
    disabled_at: iso(row.disabled_at),
    account_disabled: row.account_disabled_at !== null,
    created_at: iso(row.created_at)!,
    last_login_at: iso(row.last_login_at),
  };
}

export type MemberService = ReturnType<typeof createMemberService>;

/**
 * The people of a company, managed by its admins (and by superadmins for any company); people
 * join by invitation (invitations.service.ts), never by being attached. Every
 * change is audited with the ctx of whoever asked, in the change's transaction. The ctx's company
 * is the company being managed.
 */
export function createMemberService({ db, clock, users }: { db: Database; clock: Clock; users: UserService }) {
  async function audit(tx: Tx, ctx: CompanyCtx, action: AuditAction, member: { user_id: number; email: string }, details = {}) {
    await recordAudit(tx, { action, ...auditBy(ctx), details: { user_id: member.user_id, email: member.email, ...details } });
  }

  /**
   * The person the company calls `memberNo` (its own number for them, as the wire gives it), locked;
   * a number the company never gave is the same 404 as before.
   */
  async function requireMember(tx: Tx, ctx: CompanyCtx, memberNo: number): Promise<repo.MemberRow> {
    const found = await repo.findMember(tx, ctx.companyId, memberNo, true);
    if (!found) throw new AppError('not_found', `person ${memberNo} not found in this company`);
    return found;
  }

  function refuseSelf(ctx: CompanyCtx, member: repo.MemberRow, what: string) {
    if (ctx.actor.kind === 'user' && ctx.actor.userId === Number(member.user_id)) {
      throw new AppError('cannot_change_self', `you cannot ${what} yourself; ask another admin of the company`);
    }
  }

  async function refuseLastAdmin(tx: Tx, ctx: CompanyCtx, member: repo.MemberRow) {
    if (member.role === 'admin' && member.disabled_at === null && (await repo.countEnabledAdmins(tx, ctx.companyId)) <= 1) {
      throw new AppError('last_admin', 'this is the last admin of the company: make someone else admin first');
    }
  }

  async function listMembers(companyId: number): Promise<MemberWire[]> {
    return (await repo.listMembers(db.orm, companyId)).map(toWire);
  }

  async function changeRole(ctx: CompanyCtx, memberNo: number, role: MembershipRole): Promise<MemberWire> {
    if (!MEMBERSHIP_ROLES.includes(role))
      throw new AppError('validation_failed', `role must be one of ${MEMBERSHIP_ROLES.join(', ')}`);
    return db.orm.transaction(async (tx) => {
      const member = await requireMember(tx, ctx, memberNo);
      refuseSelf(ctx, member, 'change the role of');
      if (member.role === role) return toWire(member);
      if (role !== 'admin') await refuseLastAdmin(tx, ctx, member);
      await repo.updateMembershipRole(tx, ctx.companyId, Number(member.user_id), role);
      await audit(tx, ctx, 'member.role_changed', member, { from: member.role, to: role });
      return toWire((await repo.findMember(tx, ctx.companyId, memberNo))!);
    });
  }

  /** Turns the person's access to this company off or on again; their other companies are not touched. */
  async function setAccess(ctx: CompanyCtx, memberNo: number, enabled: boolean): Promise<MemberWire> {
    return db.orm.transaction(async (tx) => {
      const member = await requireMember(tx, ctx, memberNo);
      refuseSelf(ctx, member, enabled ? 'enable' : 'disable');
      if ((member.disabled_at === null) === enabled) return toWire(member);
      if (!enabled) await refuseLastAdmin(tx, ctx, member);
      await repo.setMembershipDisabled(tx, ctx.companyId, Number(member.user_id), enabled ? null : clock.now());
      await audit(tx, ctx, enabled ? 'member.enabled' : 'member.disabled', member);
      return toWire((await repo.findMember(tx, ctx.companyId, memberNo))!);
    });
  }

  /**
   * A new temporary password, shown once; the person's open sessions end. A company admin may do it
   * only for people who belong to no other company and are not operators (else they could take over
   * an account that opens more than their company); a superadmin may do it for anyone.
   */
  async function resetPassword(
    ctx: CompanyCtx,
    memberNo: number,
  ): Promise<{ temporary_password: string; ended_sessions: number }> {
    const password = temporaryPassword();
    const passwordHash = await hashPassword(password);
    return db.orm.transaction(async (tx) => {
      const member = await requireMember(tx, ctx, memberNo);
      refuseSelf(ctx, member, 'reset the password of');
      const userId = Number(member.user_id);
      const operator = ctx.actor.kind === 'user' && ctx.actor.isSuperadmin;
      if (!operator && (member.is_superadmin || member.other_companies > 0)) {
        throw new AppError(
          'forbidden',
          'this person also has access outside this company: only a Mostrador operator can reset their password',
        );
      }
      await users.storePasswordHash(tx, userId, passwordHash, true);
      const ended = await endUserSessions(tx, userId, clock.now());
      await audit(tx, ctx, 'user.password_reset', member, { ended_sessions: ended });
      return { temporary_password: password, ended_sessions: ended };
    });
  }

  return { listMembers, changeRole, setAccess, resetPassword };
}
