import { desc, eq, sql } from 'drizzle-orm';
import type { Conn } from '../../db/client.ts';
import { type ExchangeRateStatus, exchangeRates } from '../../db/schema/index.ts';

export type ExchangeRateRow = typeof exchangeRates.$inferSelect;

/** The rate being served: the newest accepted reading. */
export async function findServedRate(conn: Conn): Promise<ExchangeRateRow | null> {
  const [row] = await conn
    .select()
    .from(exchangeRates)
    .where(eq(exchangeRates.status, 'accepted'))
    .orderBy(desc(exchangeRates.id))
    .limit(1);
  return row ?? null;
}

/** The newest reading of any status (a held one waits for confirmation by the next). */
export async function findLatestReading(conn: Conn): Promise<ExchangeRateRow | null> {
  const [row] = await conn.select().from(exchangeRates).orderBy(desc(exchangeRates.id)).limit(1);
  return row ?? null;
}

export interface NewReading {
  source: string;
  rate: number;
  buy: number | null;
  status: ExchangeRateStatus;
  sourceUpdatedAt: Date;
  fetchedAt: Date;
  note: string | null;
}

export async function insertReading(conn: Conn, reading: NewReading): Promise<ExchangeRateRow> {
  const [row] = await conn
    .insert(exchangeRates)
    .values({ ...reading, rate: String(reading.rate), buy: reading.buy === null ? null : String(reading.buy) })
    .returning();
  return row!;
}

/** Serialises writers of the history (schedule, startup refresh, several workers). */
export async function lockHistory(conn: Conn): Promise<void> {
  await conn.execute(sql`SELECT pg_advisory_xact_lock(hashtext('exchange_rates'))`);
}
