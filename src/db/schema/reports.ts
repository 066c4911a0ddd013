import { date, index, integer, numeric, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

// Mirrors src/db/migrations/0170_report_rollup.sql (the reports' validated daily rollup).
const tstz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const reportDays = pgTable(
  'report_days',
  {
    companyId: integer('company_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    fingerprint: text('fingerprint').notNull(),
    builtAt: tstz('built_at').notNull().defaultNow(),
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
