import { and, asc, eq } from 'drizzle-orm';
import type { Conn } from '../../db/client.ts';
import { companies, webhookEndpoints } from '../../db/schema/index.ts';

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type NewEndpoint = typeof webhookEndpoints.$inferInsert;
export type EndpointChange = Partial<NewEndpoint>;

export async function companyExists(conn: Conn, companyId: number): Promise<boolean> {
  const [row] = await conn.select({ id: companies.id }).from(companies).where(eq(companies.id, companyId));
  return row !== undefined;
}

export async function insertEndpoint(conn: Conn, values: NewEndpoint): Promise<EndpointRow> {
  const [row] = await conn.insert(webhookEndpoints).values(values).returning();
  return row!;
}

/** The company's endpoints, oldest first. */
export function listEndpointRows(conn: Conn, companyId: number): Promise<EndpointRow[]> {
  return conn
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.companyId, companyId))
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
}

/** One endpoint of the company (locked FOR UPDATE when `lock`), or undefined. */
export async function findEndpointRow(
  conn: Conn,
  companyId: number,
  id: string,
  lock: boolean,
): Promise<EndpointRow | undefined> {
  const query = conn
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.companyId, companyId), eq(webhookEndpoints.id, id)));
  const [row] = lock ? await query.for('update') : await query;
  return row;
}

export async function updateEndpointRow(conn: Conn, id: string, change: EndpointChange): Promise<EndpointRow> {
  const [row] = await conn.update(webhookEndpoints).set(change).where(eq(webhookEndpoints.id, id)).returning();
  return row!;
}

export async function deleteEndpointRow(conn: Conn, id: string): Promise<void> {
  await conn.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id));
}
