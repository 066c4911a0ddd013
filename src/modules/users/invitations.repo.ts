import { sql } from 'drizzle-orm';
import { type Conn, selectRows } from '../../db/client.ts';
import type { InvitationStatus } from '../../db/schema/index.ts';
import type { MembershipRole } from './roles.ts';

export interface InvitationRow {
  id: string;
  company_id: number;
  company_name: string;
  email: string;
  role: MembershipRole;
  token_hash: string;
  status: InvitationStatus;
  invited_by_email: string | null;
  created_at: Date | string;
  expires_at: Date | string;
  ended_at: Date | string | null;
}

const INVITATION_SELECT = sql`SELECT i.id, i.company_id, c.name AS company_name, i.email, i.role, i.token_hash, i.status,
    u.email AS invited_by_email, i.created_at, i.expires_at, i.ended_at
  FROM invitations i JOIN companies c ON c.id = i.company_id LEFT JOIN users u ON u.id = i.invited_by`;

/** The company's pending invitations (expired ones included: the screen says so), newest first. */
export function listPendingInvitations(conn: Conn, companyId: number): Promise<InvitationRow[]> {
  return selectRows<InvitationRow>(
    conn,
    sql`${INVITATION_SELECT} WHERE i.company_id = ${companyId} AND i.status = 'pending' ORDER BY i.created_at DESC, i.id`,
  );
}

/** One invitation of the company, locked. */
export async function findCompanyInvitation(conn: Conn, companyId: number, id: string): Promise<InvitationRow | null> {
  const [row] = await selectRows<InvitationRow>(
    conn,
    sql`${INVITATION_SELECT} WHERE i.company_id = ${companyId} AND i.id = ${id}::uuid FOR UPDATE OF i`,
  );
  return row ?? null;
}

/** The invitation a link's token stands for (by the token's hash), locked when `lock`. */
export async function findInvitationByTokenHash(conn: Conn, tokenHash: string, lock = false): Promise<InvitationRow | null> {
  const [row] = await selectRows<InvitationRow>(
    conn,
    sql`${INVITATION_SELECT} WHERE i.token_hash = ${tokenHash}${lock ? sql` FOR UPDATE OF i` : sql``}`,
  );
  return row ?? null;
}

/** Ends the pending invitation of this email in the company (it is being replaced); answers its id. */
export async function replacePending(conn: Conn, companyId: number, email: string, now: Date): Promise<string | null> {
  const [row] = await selectRows<{ id: string }>(
    conn,
    sql`UPDATE invitations SET status = 'replaced', ended_at = ${now.toISOString()}::timestamptz
      WHERE company_id = ${companyId} AND email = ${email} AND status = 'pending' RETURNING id`,
  );
  return row?.id ?? null;
}

export async function insertInvitation(
  conn: Conn,
  values: {
    id: string;
    companyId: number;
    email: string;
    role: MembershipRole;
    tokenHash: string;
    invitedBy: number | null;
    createdAt: Date;
    expiresAt: Date;
  },
): Promise<void> {
  await conn.execute(
    sql`INSERT INTO invitations (id, company_id, email, role, token_hash, invited_by, created_at, expires_at)
      VALUES (${values.id}::uuid, ${values.companyId}, ${values.email}, ${values.role}, ${values.tokenHash}, ${values.invitedBy},
        ${values.createdAt.toISOString()}::timestamptz, ${values.expiresAt.toISOString()}::timestamptz)`,
  );
}

/** Ends a pending invitation with `status`; false when it was no longer pending. */
export async function endInvitation(
  conn: Conn,
  id: string,
  status: Exclude<InvitationStatus, 'pending'>,
  now: Date,
  answeredBy: number | null = null,
): Promise<boolean> {
  const rows = await selectRows<{ id: string }>(
    conn,
    sql`UPDATE invitations SET status = ${status}, ended_at = ${now.toISOString()}::timestamptz, answered_by = ${answeredBy}
      WHERE id = ${id}::uuid AND status = 'pending' RETURNING id`,
  );
  return rows.length > 0;
}

/** Whether this email is already a person of the company (with or without access). */
export async function isMemberByEmail(conn: Conn, companyId: number, email: string): Promise<boolean> {
  const rows = await selectRows<{ one: number }>(
    conn,
    sql`SELECT 1 AS one FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.company_id = ${companyId} AND lower(u.email) = ${email}`,
  );
  return rows.length > 0;
}

/** The company a person lands on at their next login. */
export async function setLastCompany(conn: Conn, userId: number, companyId: number): Promise<void> {
  await conn.execute(sql`UPDATE users SET last_company_id = ${companyId} WHERE id = ${userId}`);
}

/** How many invitations the company made since `since` (any status: a revoked one counts too). */
export async function countInvitationsSince(conn: Conn, companyId: number, since: Date): Promise<number> {
  const [row] = await selectRows<{ n: number }>(
    conn,
    sql`SELECT count(*)::int AS n FROM invitations WHERE company_id = ${companyId} AND created_at > ${since.toISOString()}::timestamptz`,
  );
  return row?.n ?? 0;
}
