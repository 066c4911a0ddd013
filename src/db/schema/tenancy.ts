import { char, index, integer, pgTable, primaryKey, timestamp } from 'drizzle-orm/pg-core';
import { companies, users } from './foundation.ts';

// Mirrors src/db/migrations/0036_cuit_claims.sql.
export const cuitClaims = pgTable(
  'cuit_claims',
  {
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    cuit: char('cuit', { length: 11 }).notNull(),
    claimedAt: timestamp('claimed_at', { withTimezone: true, mode: 'date' }).notNull(),
    claimedBy: integer('claimed_by').references(() => users.id, { onDelete: 'set null' }),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.cuit] }), index('cuit_claims_claimed_by_idx').on(t.claimedBy)],
);
