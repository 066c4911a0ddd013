import { and, eq, isNull } from 'drizzle-orm';
import type { Conn } from '../../db/client.ts';
import { integrationKeys, scannerTokens } from '../../db/schema/index.ts';

/** When the company's active integration key and scanner token were issued (null when there is none). */
export async function findSecretsIssuedAt(conn: Conn, companyId: number): Promise<{ key: Date | null; token: Date | null }> {
  const [key] = await conn
    .select({ createdAt: integrationKeys.createdAt })
    .from(integrationKeys)
    .where(and(eq(integrationKeys.companyId, companyId), isNull(integrationKeys.revokedAt)));
  const [token] = await conn
    .select({ createdAt: scannerTokens.createdAt })
    .from(scannerTokens)
    .where(and(eq(scannerTokens.companyId, companyId), isNull(scannerTokens.revokedAt)));
  return { key: key?.createdAt ?? null, token: token?.createdAt ?? null };
}
