import { sql } from 'drizzle-orm';
import { type Conn, selectRows } from '../../db/client.ts';
import type { MembershipRole } from './roles.ts';

export interface MemberRow {
  /** The person's account (users.id): one numbering for all of Mostrador, never shown to a company. */
  user_id: number;
  /** The company's own number for this person (memberships.member_no): what the company sees. */
  member_no: number;
  email: string;
  display_name: string | null;
  role: MembershipRole;
  created_at: Date | string;
  disabled_at: Date | string | null;
  account_disabled_at: Date | string | null;
  is_superadmin: boolean;
  /** Active memberships in other companies: a company admin may not reset such a person's password. */
  other_companies: number;
  /**
   * The person's last session in this company: one that chose it, or one that chose none (a login
   * lands on the only company without choosing) when the person belongs to no other company. A login
   * to another of their companies is not this one's fact.
   */
  last_login_at: Date | string | null;
}

const MEMBER_SELECT = sql`SELECT u.id AS user_id, m.member_no, u.email, u.display_name, m.role, m.created_at, m.disabled_at,
    u.disabled_at AS account_disabled_at,
    EXISTS (SELECT 1 FROM superadmins sa WHERE sa.user_id = u.id) AS is_superadmin,
    (SELECT count(*) FROM memberships o WHERE o.user_id = u.id AND o.company_id <> m.company_id AND o.disabled_at IS NULL)::int AS other_companies,
    (SELECT max(s.created_at) FROM sessions s WHERE s.user_id = u.id AND (s.company_id = m.company_id
       OR (s.company_id IS NULL AND NOT EXISTS (SELECT 1 FROM memberships o WHERE o.user_id = u.id AND o.company_id <> m.company_id))))
      AS last_login_at
  FROM memberships m JOIN users u ON u.id = m.user_id`;

/** The people of a company: enabled first, then by name or email. */
export function listMembers(conn: Conn, companyId: number): Promise<MemberRow[]> {
  return selectRows<MemberRow>(
    conn,
    sql`${MEMBER_SELECT} WHERE m.company_id = ${companyId}
      ORDER BY (m.disabled_at IS NULL) DESC, lower(coalesce(u.display_name, u.email)), m.member_no`,
  );
}

/** One person of the company by the company's number for them, with the membership row locked when `lock` is set. */
export async function findMember(conn: Conn, companyId: number, memberNo: number, lock = false): Promise<MemberRow | null> {
  const [row] = await selectRows<MemberRow>(
    conn,
    sql`${MEMBER_SELECT} WHERE m.company_id = ${companyId} AND m.member_no = ${memberNo}${lock ? sql` FOR UPDATE OF m` : sql``}`,
  );
  return row ?? null;
}

export async function countEnabledAdmins(conn: Conn, companyId: number): Promise<number> {
  const [row] = await selectRows<{ n: number }>(
    conn,
    sql`SELECT count(*)::int AS n FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.company_id = ${companyId} AND m.role = 'admin' AND m.disabled_at IS NULL AND u.disabled_at IS NULL`,
  );
  return Number(row?.n ?? 0);
}

export async function insertMembership(conn: Conn, companyId: number, userId: number, role: MembershipRole): Promise<void> {
  await conn.execute(sql`INSERT INTO memberships (company_id, user_id, role) VALUES (${companyId}, ${userId}, ${role})`);
}

export async function updateMembershipRole(conn: Conn, companyId: number, userId: number, role: MembershipRole): Promise<void> {
  await conn.execute(sql`UPDATE memberships SET role = ${role} WHERE company_id = ${companyId} AND user_id = ${userId}`);
}

export async function setMembershipDisabled(conn: Conn, companyId: number, userId: number, at: Date | null): Promise<void> {
  await conn.execute(
    sql`UPDATE memberships SET disabled_at = ${at?.toISOString() ?? null}::timestamptz WHERE company_id = ${companyId} AND user_id = ${userId}`,
  );
}
