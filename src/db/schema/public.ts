import { sql } from 'drizzle-orm';
import { bigint, integer, numeric, pgTable, text } from 'drizzle-orm/pg-core';
import { tstz } from './columns.ts';

// Mirrors src/db/migrations/0003_public.sql (the GiST name index lives only in SQL).
const rate = (name: string) => numeric(name, { precision: 14, scale: 4 });

export type ExchangeRateStatus = 'accepted' | 'held';

export const exchangeRates = pgTable('exchange_rates', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  source: text('source').notNull(),
  rate: rate('rate').notNull(),
  buy: rate('buy'),
  status: text('status').$type<ExchangeRateStatus>().notNull(),
  sourceUpdatedAt: tstz('source_updated_at').notNull(),
  fetchedAt: tstz('fetched_at').notNull().default(sql`now()`),
  note: text('note'),
});

// Mirrors src/db/migrations/0015_catalogue_versions.sql (its triggers on products, 0015 and 0290, live only in SQL).
export const catalogueVersions = pgTable('catalogue_versions', {
  companyId: integer('company_id').primaryKey(),
  version: bigint('version', { mode: 'number' }).notNull().default(1),
});
