import { and, asc, eq, isNull, lt, or, type SQL, sql } from 'drizzle-orm';
import { type Conn, selectRows } from '../../db/client.ts';
import { companies, memberships, type SessionKind, sessions, userIdentities } from '../../db/schema/index.ts';
import type { MembershipRole } from '../users/roles.ts';
import { dbDate } from '../../db/dates.ts';

/** A live session with everything a request needs: who, which company, which role. */
export interface SessionRecord {
  sessionId: string;
  kind: SessionKind;
  userId: number;
  email: string;
  displayName: string | null;
  isSuperadmin: boolean;
  companyId: number | null;
  companyName: string | null;
  role: MembershipRole | null;
  /**
   * The company's own number for the person (memberships.member_no), what that company sees instead
   * of `userId` (one numbering for all of Mostrador); null without a company.
   */
  memberNo: number | null;
  createdAt: Date;
  expiresAt: Date;
  /** The password is a temporary one (an admin's reset): it must be changed before anything else. */
  mustChangePassword: boolean;
}

interface SessionRow {
  id: string;
  kind: SessionKind;
  user_id: number;
  email: string;
  display_name: string | null;
  is_superadmin: boolean;
  company_id: number | null;
  company_name: string | null;
  role: MembershipRole | null;
  member_no: number | null;
  created_at: Date | string;
  expires_at: Date | string;
  must_change_password: boolean;
}

/**
 * The session if it is neither ended nor expired and its user is not disabled. The company is the
 * one chosen in the session while the membership lasts; otherwise the one the person chose last,
 * or their only company; with several and no choice, none: the person picks (issue 25; never
 * "admin first", a removed membership never keeps its access).
 */
async function findLiveSession(conn: Conn, where: SQL, now: Date): Promise<SessionRecord | null> {
  const [row] = await selectRows<SessionRow>(
    conn,
    sql`SELECT s.id, s.kind, s.user_id, u.email, u.display_name, s.created_at, s.expires_at, u.must_change_password,
          EXISTS (SELECT 1 FROM superadmins sa WHERE sa.user_id = u.id) AS is_superadmin,
          m.company_id, m.role, m.member_no, c.name AS company_name
        FROM sessions s
        JOIN users u ON u.id = s.user_id
        LEFT JOIN LATERAL (
          SELECT c.company_id, c.role, c.member_no FROM (
            SELECT mm.company_id, mm.role, mm.member_no, count(*) OVER () AS memberships,
                   (mm.company_id = s.company_id) IS TRUE AS chosen, (mm.company_id = u.last_company_id) IS TRUE AS last
              FROM memberships mm WHERE mm.user_id = s.user_id AND mm.disabled_at IS NULL
          ) c WHERE c.chosen OR c.last OR c.memberships = 1
          ORDER BY c.chosen DESC, c.last DESC
          LIMIT 1
        ) m ON true
        LEFT JOIN companies c ON c.id = m.company_id
        WHERE ${where} AND s.ended_at IS NULL AND s.expires_at > ${now.toISOString()}::timestamptz AND u.disabled_at IS NULL`,
  );
  if (!row) return null;
  return {
    sessionId: row.id,
    kind: row.kind,
    userId: Number(row.user_id),
    email: row.email,
    displayName: row.display_name,
    isSuperadmin: row.is_superadmin,
    companyId: row.company_id === null ? null : Number(row.company_id),
    companyName: row.company_name,
    role: row.role,
    memberNo: row.member_no === null ? null : Number(row.member_no),
    createdAt: dbDate(row.created_at),
    expiresAt: dbDate(row.expires_at),
    mustChangePassword: row.must_change_password === true,
  };
}

export function findLiveSessionById(conn: Conn, sessionId: string, userId: number, now: Date) {
  return findLiveSession(conn, sql`s.id = ${sessionId}::uuid AND s.user_id = ${userId}`, now);
}

export function findLiveSessionByTokenHash(conn: Conn, tokenHash: string, now: Date) {
  return findLiveSession(conn, sql`s.token_hash = ${tokenHash}`, now);
}

export interface NewSession {
  id: string;
  userId: number;
  kind: SessionKind;
  tokenHash: string | null;
  companyId: number | null;
  ip: string | null;
  userAgent: string | null;
  now: Date;
  expiresAt: Date;
}

/** Inserts a session; an external token seen twice at once yields one row (the second insert is a no-op). */
export async function insertSession(conn: Conn, s: NewSession): Promise<boolean> {
  const inserted = await conn
    .insert(sessions)
    .values({
      id: s.id,
      userId: s.userId,
      kind: s.kind,
      tokenHash: s.tokenHash,
      companyId: s.companyId,
      ip: s.ip,
      userAgent: s.userAgent?.slice(0, 512) ?? null,
      createdAt: s.now,
      lastSeenAt: s.now,
      expiresAt: s.expiresAt,
    })
    .onConflictDoNothing()
    .returning({ id: sessions.id });
  return inserted.length > 0;
}

export async function extendSession(conn: Conn, sessionId: string, expiresAt: Date, now: Date): Promise<void> {
  await conn
    .update(sessions)
    .set({ expiresAt, lastSeenAt: now })
    .where(and(eq(sessions.id, sessionId), isNull(sessions.endedAt)));
}

export async function endSession(conn: Conn, sessionId: string, now: Date): Promise<void> {
  await conn
    .update(sessions)
    .set({ endedAt: now })
    .where(and(eq(sessions.id, sessionId), isNull(sessions.endedAt)));
}

/** Ends every open session of a user (disabled account, new password). */
/** Ends the user's open sessions, except `keepSessionId` (the one that asked, when it stays). */
export async function endUserSessions(conn: Conn, userId: number, now: Date, keepSessionId?: string): Promise<number> {
  const keep = keepSessionId ? sql`${sessions.id} <> ${keepSessionId}::uuid` : sql`true`;
  const ended = await conn
    .update(sessions)
    .set({ endedAt: now })
    .where(and(eq(sessions.userId, userId), isNull(sessions.endedAt), keep))
    .returning({ id: sessions.id });
  return ended.length;
}

/** Makes `companyId` the session's company and the one its person lands on next time. */
export async function setSessionCompany(conn: Conn, sessionId: string, companyId: number): Promise<void> {
  await conn.execute(
    sql`WITH s AS (UPDATE sessions SET company_id = ${companyId} WHERE id = ${sessionId}::uuid RETURNING user_id)
        UPDATE users SET last_company_id = ${companyId} FROM s WHERE users.id = s.user_id`,
  );
}

/** Sessions ended or expired before `cutoff` are of no further use (the audit log keeps the history). */
export async function deleteStaleSessions(conn: Conn, cutoff: Date): Promise<number> {
  const deleted = await conn
    .delete(sessions)
    .where(or(lt(sessions.expiresAt, cutoff), lt(sessions.endedAt, cutoff)))
    .returning({ id: sessions.id });
  return deleted.length;
}

export interface MembershipSummary {
  companyId: number;
  companyName: string;
  role: MembershipRole;
}

export async function listMemberships(conn: Conn, userId: number): Promise<MembershipSummary[]> {
  return conn
    .select({ companyId: memberships.companyId, companyName: companies.name, role: memberships.role })
    .from(memberships)
    .innerJoin(companies, eq(companies.id, memberships.companyId))
    .where(and(eq(memberships.userId, userId), isNull(memberships.disabledAt)))
    .orderBy(asc(companies.name), asc(companies.id));
}

export async function findIdentityUser(conn: Conn, issuer: string, subject: string): Promise<number | null> {
  const [row] = await conn
    .select({ userId: userIdentities.userId })
    .from(userIdentities)
    .where(and(eq(userIdentities.issuer, issuer), eq(userIdentities.subject, subject)));
  return row?.userId ?? null;
}

export async function linkIdentity(conn: Conn, issuer: string, subject: string, userId: number): Promise<void> {
  await conn.insert(userIdentities).values({ issuer, subject, userId }).onConflictDoNothing();
}
