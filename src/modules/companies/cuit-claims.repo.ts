import { sql } from 'drizzle-orm';
import { type Conn, selectRows } from '../../db/client.ts';

export interface CuitClaimRow {
  cuit: string;
  claimed_at: Date;
  holder_id: number | null;
  holder_name: string | null;
}

/** Records (or refreshes) a company's claim of a CUIT another company has. */
export async function recordCuitClaim(conn: Conn, companyId: number, cuit: string, userId: number | null, now: Date) {
  await conn.execute(
    sql`INSERT INTO cuit_claims (company_id, cuit, claimed_at, claimed_by) VALUES (${companyId}, ${cuit}, ${now}, ${userId})
        ON CONFLICT (company_id, cuit) DO UPDATE SET claimed_at = excluded.claimed_at, claimed_by = excluded.claimed_by`,
  );
}

/** A company's open claims with the company that holds each CUIT now (operator only). */
export function listCuitClaims(conn: Conn, companyId: number) {
  return selectRows<CuitClaimRow>(
    conn,
    sql`SELECT k.cuit, k.claimed_at, h.id AS holder_id, h.name AS holder_name
          FROM cuit_claims k LEFT JOIN companies h ON h.cuit = k.cuit AND h.id <> k.company_id
         WHERE k.company_id = ${companyId} ORDER BY k.claimed_at DESC`,
  );
}

/** Deletes a claim; answers whether there was one. */
export async function deleteCuitClaim(conn: Conn, companyId: number, cuit: string): Promise<boolean> {
  const rows = await selectRows(
    conn,
    sql`DELETE FROM cuit_claims WHERE company_id = ${companyId} AND cuit = ${cuit} RETURNING 1`,
  );
  return rows.length > 0;
}

/** Moves a CUIT to a company: whoever has it loses it (answers that company's id, or null). */
export async function moveCuit(conn: Conn, companyId: number, cuit: string): Promise<number | null> {
  const [previous] = await selectRows<{ id: number }>(
    conn,
    sql`UPDATE companies SET cuit = NULL WHERE cuit = ${cuit} AND id <> ${companyId} RETURNING id`,
  );
  await conn.execute(sql`UPDATE companies SET cuit = ${cuit} WHERE id = ${companyId}`);
  return previous ? Number(previous.id) : null;
}
