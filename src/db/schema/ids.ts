import { bigint, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { companies } from './foundation.ts';

// Mirrors src/db/migrations/0035_company_id_counters.sql (src/db/ids.ts takes the numbers).
export const companyIdCounters = pgTable(
  'company_id_counters',
  {
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    nextId: bigint('next_id', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.kind] })],
);
