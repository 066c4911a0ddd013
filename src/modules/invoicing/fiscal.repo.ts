import { and, asc, eq, ne, sql } from 'drizzle-orm';
import type { Conn } from '../../db/client.ts';
import { companies, companyFiscal, fiscalPointsOfSale } from '../../db/schema/index.ts';

export type FiscalRow = typeof companyFiscal.$inferSelect;
export type FiscalPatch = Partial<Omit<typeof companyFiscal.$inferInsert, 'companyId' | 'updatedAt'>>;
export type PointOfSaleRow = typeof fiscalPointsOfSale.$inferSelect;

export async function findCompany(conn: Conn, companyId: number) {
  const [row] = await conn
    .select({ id: companies.id, name: companies.name, cuit: companies.cuit })
    .from(companies)
    .where(eq(companies.id, companyId));
  return row ?? null;
}

export async function cuitTakenByOther(conn: Conn, companyId: number, cuit: string): Promise<boolean> {
  const rows = await conn
    .select({ id: companies.id })
    .from(companies)
    .where(and(eq(companies.cuit, cuit), ne(companies.id, companyId)));
  return rows.length > 0;
}

export async function setCompanyCuit(conn: Conn, companyId: number, cuit: string) {
  await conn.update(companies).set({ cuit }).where(eq(companies.id, companyId));
}

export async function findFiscal(conn: Conn, companyId: number, options: { forUpdate?: boolean } = {}) {
  const query = conn.select().from(companyFiscal).where(eq(companyFiscal.companyId, companyId));
  const [row] = options.forUpdate ? await query.for('update') : await query;
  return row ?? null;
}

export async function upsertFiscal(conn: Conn, companyId: number, patch: FiscalPatch, now: Date): Promise<FiscalRow> {
  const [row] = await conn
    .insert(companyFiscal)
    .values({ companyId, ...patch, updatedAt: now })
    .onConflictDoUpdate({ target: companyFiscal.companyId, set: { ...patch, updatedAt: now } })
    .returning();
  return row!;
}

export async function listPointsOfSale(conn: Conn, companyId: number): Promise<PointOfSaleRow[]> {
  return conn
    .select()
    .from(fiscalPointsOfSale)
    .where(eq(fiscalPointsOfSale.companyId, companyId))
    .orderBy(asc(fiscalPointsOfSale.number));
}

/** Replaces the company's points of sale with this list (manual entry or ARCA's FEParamGetPtosVenta). */
export async function replacePointsOfSale(
  conn: Conn,
  companyId: number,
  points: { number: number; emissionType: string | null; blocked: boolean }[],
) {
  await conn.delete(fiscalPointsOfSale).where(eq(fiscalPointsOfSale.companyId, companyId));
  if (points.length === 0) return;
  await conn.insert(fiscalPointsOfSale).values(points.map((p) => ({ companyId, ...p })));
}

/** Serialises fiscal setup changes of one company (two admins saving at once). */
export async function lockFiscal(conn: Conn, companyId: number) {
  await conn.execute(sql`SELECT pg_advisory_xact_lock(hashtext('company-fiscal'), ${companyId})`);
}
