import { sql } from 'drizzle-orm';
import { type Conn, columnList, selectRows, selectTableRows, setList, valuesList } from '../../db/client.ts';
import { webhookEndpoints } from '../../db/schema/index.ts';

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type NewEndpoint = typeof webhookEndpoints.$inferInsert;
export type EndpointChange = Partial<NewEndpoint>;

const COLUMNS = columnList(webhookEndpoints);

export async function companyExists(conn: Conn, companyId: number): Promise<boolean> {
  const rows = await selectRows(conn, sql`SELECT 1 FROM companies WHERE id = ${companyId}`);
  return rows.length > 0;
}

export async function insertEndpoint(conn: Conn, values: NewEndpoint): Promise<EndpointRow> {
  const [row] = await selectTableRows(
    conn,
    webhookEndpoints,
    sql`INSERT INTO webhook_endpoints ${valuesList(webhookEndpoints, [values])} RETURNING ${COLUMNS}`,
  );
  return row!;
}

/** The company's endpoints, oldest first. */
export function listEndpointRows(conn: Conn, companyId: number): Promise<EndpointRow[]> {
  return selectTableRows(
    conn,
    webhookEndpoints,
    sql`SELECT ${COLUMNS} FROM webhook_endpoints WHERE company_id = ${companyId} ORDER BY created_at, id`,
  );
}

/** One endpoint of the company (locked FOR UPDATE when `lock`), or undefined. */
export async function findEndpointRow(
  conn: Conn,
  companyId: number,
  id: string,
  lock: boolean,
): Promise<EndpointRow | undefined> {
  const [row] = await selectTableRows(
    conn,
    webhookEndpoints,
    sql`SELECT ${COLUMNS} FROM webhook_endpoints WHERE company_id = ${companyId} AND id = ${id}${lock ? sql` FOR UPDATE` : sql``}`,
  );
  return row;
}

export async function updateEndpointRow(conn: Conn, id: string, change: EndpointChange): Promise<EndpointRow> {
  const [row] = await selectTableRows(
    conn,
    webhookEndpoints,
    sql`UPDATE webhook_endpoints SET ${setList(webhookEndpoints, change)} WHERE id = ${id} RETURNING ${COLUMNS}`,
  );
  return row!;
}

export async function deleteEndpointRow(conn: Conn, id: string): Promise<void> {
  await conn.execute(sql`DELETE FROM webhook_endpoints WHERE id = ${id}`);
}
