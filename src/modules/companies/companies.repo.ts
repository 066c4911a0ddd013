import { sql } from 'drizzle-orm';
import { type Conn, selectRows } from '../../db/client.ts';
import { dbDate } from '../../db/dates.ts';

// The company's SQL: the company row, its first deposit and box, its integration keys and scanner
// tokens (stored by hash; the integration key also sealed, to show it to its owner).

export interface CompanyRow {
  id: number;
  name: string;
  cuit: string | null;
  timezone: string;
  createdAt: Date;
}

const COMPANY_COLUMNS = sql.raw('id, name, cuit, timezone, created_at AS "createdAt"');

export async function cuitTaken(conn: Conn, cuit: string): Promise<boolean> {
  const rows = await selectRows<{ id: number }>(conn, sql`SELECT id FROM companies WHERE cuit = ${cuit}`);
  return rows.length > 0;
}

export async function insertCompany(conn: Conn, v: { name: string; cuit: string | null; timezone: string }): Promise<CompanyRow> {
  const [row] = await selectRows<CompanyRow>(
    conn,
    sql`INSERT INTO companies (name, cuit, timezone) VALUES (${v.name}, ${v.cuit}, ${v.timezone}) RETURNING ${COMPANY_COLUMNS}`,
  );
  return withDate(row!);
}

/** What every company starts with: deposit 1 (the default) and box 1. */
export async function insertFirstDepositAndBox(conn: Conn, companyId: number) {
  await conn.execute(
    sql`WITH deposit AS (INSERT INTO deposits (company_id, id, name, is_default) VALUES (${companyId}, 1, 'Depósito principal', true))
      INSERT INTO boxes (company_id, id, name) VALUES (${companyId}, 1, 'Caja 1')`,
  );
}

export async function findCompany(conn: Conn, companyId: number): Promise<CompanyRow | null> {
  const [row] = await selectRows<CompanyRow>(conn, sql`SELECT ${COMPANY_COLUMNS} FROM companies WHERE id = ${companyId}`);
  return row ? withDate(row) : null;
}

/** Locks the company row (FOR UPDATE); false when it does not exist. */
export async function lockCompany(conn: Conn, companyId: number): Promise<boolean> {
  const rows = await selectRows<{ id: number }>(conn, sql`SELECT id FROM companies WHERE id = ${companyId} FOR UPDATE`);
  return rows.length > 0;
}

/** Revokes the company's active integration key(s) and stores a new one (hash and sealed text). */
export async function replaceIntegrationKey(
  conn: Conn,
  v: { companyId: number; keyHash: string; keyEncrypted: string; now: Date | null },
) {
  if (v.now) {
    await conn.execute(
      sql`UPDATE integration_keys SET revoked_at = ${v.now.toISOString()}::timestamptz
        WHERE company_id = ${v.companyId} AND revoked_at IS NULL`,
    );
  }
  await conn.execute(
    sql`INSERT INTO integration_keys (company_id, key_hash, key_encrypted) VALUES (${v.companyId}, ${v.keyHash}, ${v.keyEncrypted})`,
  );
}

/** Revokes the company's active scanner token(s) and stores a new one (hash only). */
export async function replaceScannerToken(conn: Conn, v: { companyId: number; tokenHash: string; now: Date | null }) {
  if (v.now) {
    await conn.execute(
      sql`UPDATE scanner_tokens SET revoked_at = ${v.now.toISOString()}::timestamptz
        WHERE company_id = ${v.companyId} AND revoked_at IS NULL`,
    );
  }
  await conn.execute(sql`INSERT INTO scanner_tokens (company_id, token_hash) VALUES (${v.companyId}, ${v.tokenHash})`);
}

export async function companyOfIntegrationKeyHash(conn: Conn, keyHash: string): Promise<number | null> {
  const [row] = await selectRows<{ company_id: number }>(
    conn,
    sql`SELECT company_id FROM integration_keys WHERE key_hash = ${keyHash} AND revoked_at IS NULL`,
  );
  return row?.company_id ?? null;
}

export async function companyOfScannerTokenHash(conn: Conn, tokenHash: string): Promise<number | null> {
  const [row] = await selectRows<{ company_id: number }>(
    conn,
    sql`SELECT company_id FROM scanner_tokens WHERE token_hash = ${tokenHash} AND revoked_at IS NULL`,
  );
  return row?.company_id ?? null;
}

/** The sealed text of the company's active integration key. */
export async function sealedIntegrationKey(conn: Conn, companyId: number): Promise<string | null> {
  const [row] = await selectRows<{ key_encrypted: string }>(
    conn,
    sql`SELECT key_encrypted FROM integration_keys WHERE company_id = ${companyId} AND revoked_at IS NULL`,
  );
  return row?.key_encrypted ?? null;
}

function withDate(row: CompanyRow): CompanyRow {
  return { ...row, createdAt: dbDate(row.createdAt) };
}

/** What screens and printouts show of the company itself: name, CUIT, time zone and settings. */
export async function findCompanySettings(
  conn: Conn,
  companyId: number,
): Promise<{ name: string; cuit: string | null; timezone: string; settings: Record<string, unknown> }> {
  const [row] = await selectRows<{ name: string; cuit: string | null; timezone: string; settings: Record<string, unknown> }>(
    conn,
    sql`SELECT name, cuit, timezone, settings FROM companies WHERE id = ${companyId}`,
  );
  if (!row) throw new Error(`company ${companyId} does not exist`);
  return row;
}
