import { sql } from 'drizzle-orm';
import { date, index, integer, numeric, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { tstz } from './columns.ts';

// Mirrors src/db/migrations/0170_report_rollup.sql (the reports' validated daily rollup).

export const reportDays = pgTable(
  'report_days',
  {
    companyId: integer('company_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    fingerprint: text('fingerprint').notNull(),
    builtAt: tstz('built_at').notNull().default(sql`now()`),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.day] })],
);

export const reportProductDays = pgTable(
  'report_product_days',
  {
    companyId: integer('company_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    productId: integer('product_id').notNull(),
    quantity: numeric('quantity').notNull(),
    total: numeric('total').notNull(),
    tickets: integer('tickets').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.companyId, t.day, t.productId] }),
    index('report_product_days_product_idx').on(t.companyId, t.productId),
  ],
);
