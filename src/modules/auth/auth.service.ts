import { randomUUID } from 'node:crypto';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/client.ts';
import { AppError } from '../../lib/errors.ts';
import { createRateLimiterFor } from '../../lib/rate-limiter.ts';
import { hashPassword, verifyPassword } from '../../lib/secrets.ts';
import { type Clock, DAY_MS } from '../../lib/time.ts';
import type { Logger } from '../../logger.ts';
import type { RequestCtx } from '../../http/request-context.ts';
import { type AuditOrigin, auditBy as auditOf, recordAudit } from '../audit/audit.repo.ts';
import type { UserService } from '../users/users.service.ts';
import { createExternalSessions } from './external-sessions.ts';
import {
  classifyToken,
  createExternalVerifier,
  deriveSessionKey,
  signSessionToken,
  verifySessionToken,
} from './session-token.ts';
import * as repo from './sessions.repo.ts';

/** A session older than this (by its token) is reissued on use, pushing its end out again. */
export const REFRESH_AFTER_MS = 5 * 60 * 1000;
/** However much it is used, a session ends this long after login; then the user logs in again. */
export const ABSOLUTE_SESSION_MS = 7 * DAY_MS;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** An authenticated session as handlers see it. `tokenIssuedAt` is null for external tokens. */
export interface AuthSession extends repo.SessionRecord {
  tokenIssuedAt: Date | null;
}

export interface IssuedToken {
  token: string;
  expiresAt: Date;
}

export interface AuthServiceDeps {
  db: Database;
  config: Config;
  clock: Clock;
  logger: Logger;
  users: UserService;
}

type StoredUser = NonNullable<Awaited<ReturnType<UserService['findUserByEmail']>>>;

/** Why a login failed, for the audit log only (the caller always gets the same 401). */
function failureReason(user: StoredUser | null, passwordMatches: boolean): string | null {
  if (!user) return 'unknown_email';
  if (!user.passwordHash) return 'no_password';
  if (!passwordMatches) return 'wrong_password';
  if (user.disabledAt) return 'disabled';
  return null;
}

export type AuthService = ReturnType<typeof createAuthService>;

export function createAuthService(deps: AuthServiceDeps) {
  const { db, config, clock, logger, users } = deps;
  const key = deriveSessionKey(config.secretKey);
  const ttlMs = config.auth.sessionTtlHours * 60 * 60 * 1000;
  const external = config.auth.jwks
    ? createExternalSessions({
        db,
        users,
        verify: createExternalVerifier(config.auth.jwks, (err) =>
          logger.warn({ err: { message: String((err as Error)?.message ?? err) } }, 'identity provider keys unavailable'),
        ),
      })
    : null;
  // Lockout that cannot be weaponised (issue 25, docs/cuenta-y-accesos.md): failures count per
  // (account, client address) and per client address; nothing counts per account alone, so a flood
  // from elsewhere slows those clients and never refuses the right password from a client that
  // has not failed. Every attempt takes a hit first (parallel guesses cannot slip between a check
  // and a count); a success gives the client's hit back and clears its count on that account.
  const windowMs = config.auth.loginWindowSeconds * 1000;
  const perAccount = createRateLimiterFor(db, {
    name: 'login-account-client',
    limit: config.auth.loginLimitPerAccount,
    windowMs,
    clock,
  });
  const perClient = createRateLimiterFor(db, { name: 'login-client', limit: config.auth.loginLimitPerClient, windowMs, clock });
  // Unknown accounts still pay for one scrypt, so timing does not tell which emails exist.
  let decoyHash: Promise<string> | null = null;
  const decoy = () => (decoyHash ??= hashPassword('decoy password that matches nothing'));

  function endOf(createdAt: Date, now: Date): Date {
    return new Date(Math.min(now.getTime() + ttlMs, createdAt.getTime() + ABSOLUTE_SESSION_MS));
  }

  const clientKey = (ip: string) => `ip:${ip}`;
  const pairKey = (ip: string, email: string) => `acct:${email}\u0000ip:${ip}`;

  async function checkRate(clientIp: string, email: string) {
    const decisions = await Promise.all([perClient.hit(clientKey(clientIp)), perAccount.hit(pairKey(clientIp, email))]);
    for (const decision of decisions) {
      if (!decision.allowed) {
        throw new AppError('rate_limited', 'too many login attempts; try again later', {
          headers: { 'retry-after': String(decision.retryAfterSeconds) },
        });
      }
    }
  }

  /** Checks email and password; every failure is the same 401 (the audit log keeps the reason). */
  async function login(ctx: RequestCtx, input: { email: string; password: string }): Promise<IssuedToken> {
    const { origin } = ctx;
    const email = input.email.trim().toLowerCase();
    const ip = origin.ip ?? 'unknown';
    await checkRate(ip, email);
    const user = await users.findUserByEmail(email);
    const matches = await verifyPassword(input.password, user?.passwordHash ?? (await decoy()));
    const reason = failureReason(user, matches);
    if (reason !== null || !user) {
      const actor = user ? { userId: user.id, email: user.email } : null;
      await recordAudit(db.orm, { action: 'auth.login_failed', actor, companyId: null, origin, details: { email, reason } });
      throw new AppError('unauthenticated', 'email or password is incorrect');
    }
    await Promise.all([perAccount.reset(pairKey(ip, email)), perClient.release(clientKey(ip))]);
    return startSession(user, origin);
  }

  // An admin approving a cashier's discount at the register (issue 29) types their email and
  // password on the cashier's screen: checked like a login (scrypt against a decoy for unknown
  // emails, so timing tells nothing; constant-time comparison), limited per (account, client) and
  // per client like logins but in windows of their own, and every refusal is audited.
  const approvalsPerAccount = createRateLimiterFor(db, {
    name: 'approval-account-client',
    limit: config.auth.loginLimitPerAccount,
    windowMs,
    clock,
  });
  const approvalsPerClient = createRateLimiterFor(db, {
    name: 'approval-client',
    limit: config.auth.loginLimitPerClient,
    windowMs,
    clock,
  });

  /**
   * Checks that `email`/`password` are those of an active admin of the ctx's company; answers who.
   * Every failure is the same 403 approval_refused (the audit log keeps the reason); too many, 429.
   */
  async function verifyAdminApproval(
    ctx: RequestCtx & { companyId: number },
    input: { email: string; password: string },
    action: { what: string; details?: Record<string, unknown> },
  ): Promise<{ userId: number; email: string }> {
    const email = input.email.trim().toLowerCase();
    const ip = ctx.origin.ip ?? 'unknown';
    const decisions = await Promise.all([approvalsPerClient.hit(clientKey(ip)), approvalsPerAccount.hit(pairKey(ip, email))]);
    for (const decision of decisions) {
      if (!decision.allowed) {
        throw new AppError('rate_limited', 'too many approval attempts; try again later', {
          headers: { 'retry-after': String(decision.retryAfterSeconds) },
        });
      }
    }
    const user = await users.findUserByEmail(email);
    const matches = await verifyPassword(input.password, user?.passwordHash ?? (await decoy()));
    const role = user ? await users.findActiveRole(user.id, ctx.companyId) : null;
    // The reason is kept only for the company's own people: for anyone else (an unknown email, another
    // company's person, an operator) it is `not_member`, so this company's log never tells whether an
    // email has an account elsewhere or whether a guessed password was right.
    const reason = role === null ? 'not_member' : (failureReason(user, matches) ?? (role === 'admin' ? null : 'not_admin'));
    if (reason !== null || !user) {
      await recordAudit(db.orm, {
        action: action.what === 'refund' ? 'sale.refund_approval_failed' : 'sale.discount_approval_failed',
        ...auditOf(ctx),
        details: { approver_email: email, reason, what: action.what, ...action.details },
      });
      throw new AppError(
        'approval_refused',
        'the approval was refused: email or password incorrect, or not an admin of this company',
      );
    }
    await Promise.all([approvalsPerAccount.reset(pairKey(ip, email)), approvalsPerClient.release(clientKey(ip))]);
    return { userId: user.id, email: user.email };
  }

  /** A new password session for the person (after a login, or after joining by invitation). */
  async function startSession(user: Pick<StoredUser, 'id' | 'email'>, origin: AuditOrigin): Promise<IssuedToken> {
    const now = clock.now();
    const sessionId = randomUUID();
    const expiresAt = endOf(now, now);
    await db.orm.transaction(async (tx) => {
      await repo.insertSession(tx, {
        id: sessionId,
        userId: user.id,
        kind: 'password',
        tokenHash: null,
        companyId: null,
        ip: origin.ip,
        userAgent: origin.userAgent,
        now,
        expiresAt,
      });
      await recordAudit(tx, {
        action: 'auth.login',
        actor: { userId: user.id, email: user.email },
        companyId: null,
        origin,
        details: { session: sessionId, kind: 'password' },
      });
    });
    const token = await signSessionToken(key, { userId: user.id, sessionId, issuedAt: now, expiresAt });
    return { token, expiresAt };
  }

  /** The live session a token stands for, or null (bad signature, expired, ended, disabled user…). */
  async function authenticate(token: string, origin: AuditOrigin): Promise<AuthSession | null> {
    const kind = classifyToken(token);
    if (kind === 'local') return authenticateLocal(token);
    if (kind === 'external' && external) return authenticateExternal(token, origin);
    return null;
  }

  async function authenticateLocal(token: string): Promise<AuthSession | null> {
    const now = clock.now();
    const claims = await verifySessionToken(key, token, now);
    if (!claims || !UUID.test(claims.sessionId)) return null;
    const session = await repo.findLiveSessionById(db.orm, claims.sessionId, claims.userId, now);
    return session && { ...session, tokenIssuedAt: claims.issuedAt };
  }

  async function authenticateExternal(token: string, origin: AuditOrigin): Promise<AuthSession | null> {
    const session = await external!(token, origin, clock.now());
    return session && { ...session, tokenIssuedAt: null };
  }

  /** A fresh token for a session in use whose token is getting old (our own sessions only). */
  async function refreshIfDue(session: AuthSession): Promise<IssuedToken | null> {
    const now = clock.now();
    if (session.kind !== 'password' || !session.tokenIssuedAt) return null;
    if (now.getTime() - session.tokenIssuedAt.getTime() < REFRESH_AFTER_MS) return null;
    const expiresAt = endOf(session.createdAt, now);
    if (expiresAt.getTime() <= session.expiresAt.getTime()) return null;
    await repo.extendSession(db.orm, session.sessionId, expiresAt, now);
    const token = await signSessionToken(key, { userId: session.userId, sessionId: session.sessionId, issuedAt: now, expiresAt });
    return { token, expiresAt };
  }

  async function logout(ctx: RequestCtx, session: AuthSession): Promise<void> {
    const { origin } = ctx;
    await db.orm.transaction(async (tx) => {
      await repo.endSession(tx, session.sessionId, clock.now());
      await recordAudit(tx, {
        action: 'auth.logout',
        actor: { userId: session.userId, email: session.email },
        companyId: null,
        origin,
        details: { session: session.sessionId },
      });
    });
  }

  /** Ends every other session of the person ("Cerrar las otras sesiones"); answers how many. */
  async function endOtherSessions(ctx: RequestCtx, session: AuthSession): Promise<number> {
    return db.orm.transaction(async (tx) => {
      const ended = await repo.endUserSessions(tx, session.userId, clock.now(), session.sessionId);
      await recordAudit(tx, {
        action: 'auth.other_sessions_ended',
        actor: { userId: session.userId, email: session.email },
        companyId: null,
        origin: ctx.origin,
        details: { kept: session.sessionId, ended },
      });
      return ended;
    });
  }

  /** Makes `companyId` the session's company; only a company the user belongs to (else 404). */
  async function selectCompany(ctx: RequestCtx, session: AuthSession, companyId: number): Promise<void> {
    const { origin } = ctx;
    await db.orm.transaction(async (tx) => {
      const member = (await repo.listMemberships(tx, session.userId)).find((m) => m.companyId === companyId);
      if (!member) throw new AppError('not_found', `company ${companyId} not found among your companies`);
      await repo.setSessionCompany(tx, session.sessionId, companyId);
      await recordAudit(tx, {
        action: 'auth.company_selected',
        actor: { userId: session.userId, email: session.email },
        companyId,
        origin,
        details: { session: session.sessionId, role: member.role },
      });
    });
  }

  /** The session as stored now (after a change of company), or null when it is no longer live. */
  async function reloadSession(session: AuthSession): Promise<AuthSession | null> {
    const fresh = await repo.findLiveSessionById(db.orm, session.sessionId, session.userId, clock.now());
    return fresh && { ...fresh, tokenIssuedAt: session.tokenIssuedAt };
  }

  const listMemberships = (userId: number) => repo.listMemberships(db.orm, userId);

  async function deleteStaleSessions(olderThanDays = 30): Promise<number> {
    return repo.deleteStaleSessions(db.orm, new Date(clock.now().getTime() - olderThanDays * DAY_MS));
  }

  return {
    login,
    verifyAdminApproval,
    startSession,
    authenticate,
    refreshIfDue,
    logout,
    endOtherSessions,
    selectCompany,
    reloadSession,
    listMemberships,
    deleteStaleSessions,
  };
}
