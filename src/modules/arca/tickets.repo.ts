import { and, eq } from 'drizzle-orm';
import type { Conn } from '../../db/client.ts';
import { arcaTickets } from '../../db/schema/index.ts';

export type TicketRow = typeof arcaTickets.$inferSelect;

export async function findTicket(conn: Conn, certFingerprint: string, service: string): Promise<TicketRow | null> {
  const [row] = await conn
    .select()
    .from(arcaTickets)
    .where(and(eq(arcaTickets.certFingerprint, certFingerprint), eq(arcaTickets.service, service)));
  return row ?? null;
}

export async function saveTicket(conn: Conn, row: Omit<TicketRow, 'updatedAt'>, now: Date): Promise<void> {
  await conn
    .insert(arcaTickets)
    .values({ ...row, updatedAt: now })
    .onConflictDoUpdate({
      target: [arcaTickets.certFingerprint, arcaTickets.service],
      set: { token: row.token, sign: row.sign, generatedAt: row.generatedAt, expiresAt: row.expiresAt, updatedAt: now },
    });
}
