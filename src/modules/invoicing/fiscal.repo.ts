import { sql } from 'drizzle-orm';
import { type Conn, columnList, selectRows, selectTableRows, setList, valuesList } from '../../db/client.ts';
import { companyFiscal, fiscalPointsOfSale } from '../../db/schema/index.ts';

export type FiscalRow = typeof companyFiscal.$inferSelect;
export type FiscalPatch = Partial<Omit<typeof companyFiscal.$inferInsert, 'companyId' | 'updatedAt'>>;
export type PointOfSaleRow = typeof fiscalPointsOfSale.$inferSelect;

const FISCAL = columnList(companyFiscal);
const POINT = columnList(fiscalPointsOfSale);

export async function findCompany(conn: Conn, companyId: number) {
  const [row] = await selectRows<{ id: number; name: string; cuit: string | null }>(
    conn,
    sql`SELECT id, name, cuit FROM companies WHERE id = ${companyId}`,
  );
  return row ?? null;
}

export async function cuitTakenByOther(conn: Conn, companyId: number, cuit: string): Promise<boolean> {
  const rows = await selectRows(conn, sql`SELECT 1 FROM companies WHERE cuit = ${cuit} AND id <> ${companyId}`);
  return rows.length > 0;
}

export async function setCompanyCuit(conn: Conn, companyId: number, cuit: string) {
  await conn.execute(sql`UPDATE companies SET cuit = ${cuit} WHERE id = ${companyId}`);
}

export async function findFiscal(conn: Conn, companyId: number, options: { forUpdate?: boolean } = {}) {
  const [row] = await selectTableRows(
    conn,
    companyFiscal,
    sql`SELECT ${FISCAL} FROM company_fiscal WHERE company_id = ${companyId}${options.forUpdate ? sql` FOR UPDATE` : sql``}`,
  );
  return row ?? null;
}

export async function upsertFiscal(conn: Conn, companyId: number, patch: FiscalPatch, now: Date): Promise<FiscalRow> {
  const [row] = await selectTableRows(
    conn,
    companyFiscal,
    sql`INSERT INTO company_fiscal ${valuesList(companyFiscal, [{ companyId, ...patch, updatedAt: now }])}
      ON CONFLICT (company_id) DO UPDATE SET ${setList(companyFiscal, { ...patch, updatedAt: now })}
      RETURNING ${FISCAL}`,
  );
  return row!;
}

export async function listPointsOfSale(conn: Conn, companyId: number): Promise<PointOfSaleRow[]> {
  return selectTableRows(
    conn,
    fiscalPointsOfSale,
    sql`SELECT ${POINT} FROM fiscal_points_of_sale WHERE company_id = ${companyId} ORDER BY number`,
  );
}

/** Replaces the company's points of sale with this list (manual entry or ARCA's FEParamGetPtosVenta). */
export async function replacePointsOfSale(
  conn: Conn,
  companyId: number,
  points: { number: number; emissionType: string | null; blocked: boolean }[],
) {
  await conn.execute(sql`DELETE FROM fiscal_points_of_sale WHERE company_id = ${companyId}`);
  if (points.length === 0) return;
  await conn.execute(
    sql`INSERT INTO fiscal_points_of_sale ${valuesList(
      fiscalPointsOfSale,
      points.map((p) => ({ companyId, ...p })),
    )}`,
  );
}

/** Serialises fiscal setup changes of one company (two admins saving at once). */
export async function lockFiscal(conn: Conn, companyId: number) {
  await conn.execute(sql`SELECT pg_advisory_xact_lock(hashtext('company-fiscal'), ${companyId})`);
}
