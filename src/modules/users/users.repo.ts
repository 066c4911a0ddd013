import { and, eq, sql } from 'drizzle-orm';
import type { Conn } from '../../db/client.ts';
import { companies, memberships, superadmins, users } from '../../db/schema/index.ts';
import type { MembershipRole } from './roles.ts';

export type UserRow = typeof users.$inferSelect;

/** The user with this email, compared case-insensitively (emails are stored lower-cased); locked when `lock`. */
export async function findUserByEmail(conn: Conn, email: string, lock = false): Promise<UserRow | null> {
  const query = conn.select().from(users).where(sql`lower(${users.email}) = ${email.trim().toLowerCase()}`);
  const [row] = lock ? await query.for('update') : await query;
  return row ?? null;
}

export async function findUserById(conn: Conn, id: number): Promise<UserRow | null> {
  const [row] = await conn.select().from(users).where(eq(users.id, id));
  return row ?? null;
}

export async function insertUser(
  conn: Conn,
  values: { email: string; passwordHash: string; displayName: string | null },
): Promise<UserRow> {
  const [row] = await conn.insert(users).values(values).returning();
  return row!;
}

export async function insertSuperadmin(conn: Conn, userId: number): Promise<void> {
  await conn.insert(superadmins).values({ userId });
}

export async function isSuperadmin(conn: Conn, userId: number): Promise<boolean> {
  const [row] = await conn.select({ id: superadmins.userId }).from(superadmins).where(eq(superadmins.userId, userId));
  return Boolean(row);
}

export async function companyExists(conn: Conn, companyId: number): Promise<boolean> {
  const [row] = await conn.select({ id: companies.id }).from(companies).where(eq(companies.id, companyId));
  return Boolean(row);
}

/** Adds the membership, or sets its role when it exists. */
export async function upsertMembership(conn: Conn, userId: number, companyId: number, role: MembershipRole): Promise<void> {
  await conn
    .insert(memberships)
    .values({ userId, companyId, role })
    .onConflictDoUpdate({ target: [memberships.companyId, memberships.userId], set: { role } });
}

export async function findMembershipRole(
  conn: Conn,
  userId: number,
  companyId: number,
): Promise<{ role: MembershipRole } | null> {
  const [row] = await conn
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.userId, userId), eq(memberships.companyId, companyId)));
  return row ?? null;
}

/** The person's role in the company while neither the person nor the membership is disabled. */
export async function findActiveRole(conn: Conn, userId: number, companyId: number): Promise<MembershipRole | null> {
  const [row] = await conn
    .select({ role: memberships.role })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(
      and(
        eq(memberships.userId, userId),
        eq(memberships.companyId, companyId),
        sql`${memberships.disabledAt} IS NULL`,
        sql`${users.disabledAt} IS NULL`,
      ),
    );
  return row?.role ?? null;
}

export async function setUserDisabled(conn: Conn, userId: number, at: Date): Promise<UserRow> {
  const [row] = await conn.update(users).set({ disabledAt: at }).where(eq(users.id, userId)).returning();
  return row!;
}

/** Stores a password hash; `temporary`: the person must change it at their next sign-in. */
export async function setPasswordHash(conn: Conn, userId: number, passwordHash: string, temporary = false): Promise<UserRow> {
  const [row] = await conn
    .update(users)
    .set({ passwordHash, mustChangePassword: temporary })
    .where(eq(users.id, userId))
    .returning();
  return row!;
}
