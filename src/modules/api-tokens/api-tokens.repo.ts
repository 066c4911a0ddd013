import { sql } from 'drizzle-orm';
import { type Conn, selectRows } from '../../db/client.ts';
import type { ApiTokenScope } from '../../db/schema/index.ts';

export interface ApiTokenRow {
  id: number;
  company_id: number;
  name: string;
  scope: ApiTokenScope;
  hint: string;
  created_by_email: string | null;
  created_at: Date | string;
  last_used_at: Date | string | null;
  revoked_at: Date | string | null;
}

const TOKEN_SELECT = sql`SELECT t.id, t.company_id, t.name, t.scope, t.hint, u.email AS created_by_email,
    t.created_at, t.last_used_at, t.revoked_at
  FROM api_tokens t LEFT JOIN users u ON u.id = t.created_by_user_id`;

/** A company's tokens: active first, newest first. */
export function listApiTokens(conn: Conn, companyId: number): Promise<ApiTokenRow[]> {
  return selectRows<ApiTokenRow>(
    conn,
    sql`${TOKEN_SELECT} WHERE t.company_id = ${companyId} ORDER BY (t.revoked_at IS NULL) DESC, t.created_at DESC, t.id DESC`,
  );
}

export async function findApiToken(conn: Conn, companyId: number, id: number, lock = false): Promise<ApiTokenRow | null> {
  const [row] = await selectRows<ApiTokenRow>(
    conn,
    sql`${TOKEN_SELECT} WHERE t.company_id = ${companyId} AND t.id = ${id}${lock ? sql` FOR UPDATE OF t` : sql``}`,
  );
  return row ?? null;
}

export async function activeNameTaken(conn: Conn, companyId: number, name: string): Promise<boolean> {
  const rows = await selectRows(
    conn,
    sql`SELECT 1 FROM api_tokens WHERE company_id = ${companyId} AND lower(name) = lower(${name}) AND revoked_at IS NULL`,
  );
  return rows.length > 0;
}

export async function insertApiToken(
  conn: Conn,
  values: { companyId: number; name: string; scope: ApiTokenScope; tokenHash: string; hint: string; createdBy: number | null },
): Promise<number> {
  const [row] = await selectRows<{ id: number }>(
    conn,
    sql`INSERT INTO api_tokens (company_id, id, name, scope, token_hash, hint, created_by_user_id)
      VALUES (${values.companyId}, take_company_ids(${values.companyId}, 'api_tokens', 1), ${values.name}, ${values.scope}, ${values.tokenHash}, ${values.hint}, ${values.createdBy})
      RETURNING id`,
  );
  return Number(row!.id);
}

export async function revokeApiToken(conn: Conn, companyId: number, id: number, at: Date): Promise<void> {
  await conn.execute(
    sql`UPDATE api_tokens SET revoked_at = ${at.toISOString()}::timestamptz
      WHERE company_id = ${companyId} AND id = ${id} AND revoked_at IS NULL`,
  );
}

/** What authenticating a token needs of its row. */
export interface ActiveTokenRow {
  id: number;
  company_id: number;
  name: string;
  scope: ApiTokenScope;
  token_hash: string;
}

/** The active (not revoked) token with this hash. */
export async function findActiveByHash(conn: Conn, hash: string): Promise<ActiveTokenRow | null> {
  const [row] = await selectRows<ActiveTokenRow>(
    conn,
    sql`SELECT t.id, t.company_id, t.name, t.scope, t.token_hash FROM api_tokens t
      WHERE t.token_hash = ${hash} AND t.revoked_at IS NULL`,
  );
  return row ?? null;
}

/** Records a use, at most once a minute per token (a write per request would cost more than the request). */
export async function touchApiToken(conn: Conn, companyId: number, id: number, at: Date): Promise<void> {
  await conn.execute(
    sql`UPDATE api_tokens SET last_used_at = ${at.toISOString()}::timestamptz
      WHERE company_id = ${companyId} AND id = ${id} AND (last_used_at IS NULL OR last_used_at < ${at.toISOString()}::timestamptz - interval '1 minute')`,
  );
}
