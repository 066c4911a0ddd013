import type { Conn, Database } from '../../db/client.ts';
import { AppError, type ErrorDetail } from '../../lib/errors.ts';
import { type Clock, systemClock } from '../../lib/time.ts';
import type { RequestCtx, UserCtx } from '../../http/request-context.ts';
import { hashPassword, verifyPassword } from '../../lib/secrets.ts';
import { auditBy, recordAudit } from '../audit/audit.repo.ts';
import { endUserSessions } from '../auth/sessions.repo.ts';
import { MEMBERSHIP_ROLES, type MembershipRole } from './roles.ts';
import * as repo from './users.repo.ts';
import { isEmailAddress } from '../../lib/email.ts';

export { MEMBERSHIP_ROLES, type MembershipRole } from './roles.ts';
export const MIN_PASSWORD_LENGTH = 10;

export interface CreateUserInput {
  email: string;
  password: string;
  displayName?: string | null;
  superadmin?: boolean;
  membership?: { companyId: number; role: MembershipRole };
}

export interface User {
  id: number;
  email: string;
  displayName: string | null;
  disabledAt: Date | null;
}

export { isEmailAddress };

export type UserService = ReturnType<typeof createUserService>;

export function createUserService({ db, clock = systemClock }: { db: Database; clock?: Clock }) {
  function validate(input: CreateUserInput) {
    const problems: ErrorDetail[] = [];
    const email = input.email?.trim().toLowerCase() ?? '';
    if (!isEmailAddress(email)) problems.push({ path: 'email', message: `"${input.email}" is not an email address` });
    if ((input.password ?? '').length < MIN_PASSWORD_LENGTH) {
      problems.push({ path: 'password', message: `must have at least ${MIN_PASSWORD_LENGTH} characters` });
    }
    if (input.membership && !MEMBERSHIP_ROLES.includes(input.membership.role)) {
      problems.push({ path: 'role', message: `must be one of ${MEMBERSHIP_ROLES.join(', ')}` });
    }
    if (problems.length > 0) {
      throw new AppError('validation_failed', problems.map((p) => `${p.path} ${p.message}`).join('; '), { details: problems });
    }
    return email;
  }

  /** A user with a password, optionally a superadmin and/or a member of one company. */
  async function createUser(input: CreateUserInput, conn: Conn = db.orm): Promise<User> {
    const email = validate(input);
    const passwordHash = await hashPassword(input.password);
    return conn.transaction(async (tx) => {
      if (await repo.findUserByEmail(tx, email)) throw new AppError('conflict', `a user with email ${email} already exists`);
      if (input.membership && !(await repo.companyExists(tx, input.membership.companyId))) {
        throw new AppError('not_found', `company ${input.membership.companyId} not found`);
      }
      const row = await repo.insertUser(tx, { email, passwordHash, displayName: input.displayName ?? null });
      if (input.superadmin) await repo.insertSuperadmin(tx, row.id);
      if (input.membership) await repo.upsertMembership(tx, row.id, input.membership.companyId, input.membership.role);
      return toUser(row);
    });
  }

  function findUserById(id: number, conn: Conn = db.orm) {
    return repo.findUserById(conn, id);
  }

  /** Blocks the account: its open sessions end at once and it cannot log in again. */
  async function disableUser(ctx: RequestCtx, email: string): Promise<User & { endedSessions: number }> {
    return db.orm.transaction(async (tx) => {
      const user = await lockUserByEmail(tx, email);
      const now = clock.now();
      const row = await repo.setUserDisabled(tx, user.id, user.disabledAt ?? now);
      const endedSessions = await endUserSessions(tx, user.id, now);
      await recordAudit(tx, {
        action: 'user.disabled',
        ...auditBy(ctx),
        companyId: null,
        details: { user_id: user.id, email: user.email, ended_sessions: endedSessions },
      });
      return { ...toUser(row), endedSessions };
    });
  }

  /** Sets a new password and ends the user's open sessions (whoever knew the old one is out). */
  async function setPassword(ctx: RequestCtx, email: string, password: string): Promise<User & { endedSessions: number }> {
    checkPasswordLength(password, 'password');
    const passwordHash = await hashPassword(password);
    return db.orm.transaction(async (tx) => {
      const user = await lockUserByEmail(tx, email);
      const row = await repo.setPasswordHash(tx, user.id, passwordHash);
      const endedSessions = await endUserSessions(tx, user.id, clock.now());
      await recordAudit(tx, {
        action: 'user.password_set',
        ...auditBy(ctx),
        companyId: null,
        details: { user_id: user.id, email: user.email, ended_sessions: endedSessions },
      });
      return { ...toUser(row), endedSessions };
    });
  }

  /**
   * The signed-in person changes their own password: the current one is checked, their other
   * sessions end (whoever knew the old password is out), this one stays.
   */
  async function changeOwnPassword(
    ctx: UserCtx,
    currentSessionId: string,
    current: string,
    next: string,
  ): Promise<{ endedSessions: number }> {
    checkPasswordLength(next, 'new_password');
    const user = await findUserById(ctx.actor.userId);
    if (!user?.passwordHash || !(await verifyPassword(current, user.passwordHash))) {
      throw new AppError('validation_failed', 'the current password is not right', {
        details: [{ path: 'current_password', message: 'is not right' }],
      });
    }
    const passwordHash = await hashPassword(next);
    return db.orm.transaction(async (tx) => {
      await storePasswordHash(tx, user.id, passwordHash);
      const endedSessions = await endUserSessions(tx, user.id, clock.now(), currentSessionId);
      await recordAudit(tx, {
        action: 'user.password_set',
        ...auditBy(ctx),
        companyId: null,
        details: { user_id: user.id, email: user.email, ended_sessions: endedSessions, own: true },
      });
      return { endedSessions };
    });
  }

  async function storePasswordHash(conn: Conn, userId: number, passwordHash: string, temporary = false): Promise<void> {
    await repo.setPasswordHash(conn, userId, passwordHash, temporary);
  }

  async function lockUserByEmail(conn: Conn, email: string) {
    const row = await repo.findUserByEmail(conn, email, true);
    if (!row) throw new AppError('not_found', `no user with email ${email.trim().toLowerCase()}`);
    return row;
  }

  function findUserByEmail(email: string, conn: Conn = db.orm) {
    return repo.findUserByEmail(conn, email);
  }

  function addMembership(userId: number, companyId: number, role: MembershipRole) {
    return repo.upsertMembership(db.orm, userId, companyId, role);
  }

  function findActiveRole(userId: number, companyId: number, conn: Conn = db.orm) {
    return repo.findActiveRole(conn, userId, companyId);
  }

  function isSuperadmin(userId: number) {
    return repo.isSuperadmin(db.orm, userId);
  }

  function findMembership(userId: number, companyId: number, conn: Conn = db.orm) {
    return repo.findMembershipRole(conn, userId, companyId);
  }

  return {
    createUser,
    findUserByEmail,
    findActiveRole,
    findUserById,
    disableUser,
    setPassword,
    changeOwnPassword,
    storePasswordHash,
    addMembership,
    isSuperadmin,
    findMembership,
  };
}

function checkPasswordLength(password: string, path: string) {
  if ((password ?? '').length < MIN_PASSWORD_LENGTH) {
    const details = [{ path, message: `must have at least ${MIN_PASSWORD_LENGTH} characters` }];
    throw new AppError('validation_failed', `${path} must have at least ${MIN_PASSWORD_LENGTH} characters`, { details });
  }
}

function toUser(row: repo.UserRow): User {
  return { id: row.id, email: row.email, displayName: row.displayName, disabledAt: row.disabledAt };
}
