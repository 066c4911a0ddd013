import { char, index, integer, pgTable, primaryKey } from 'drizzle-orm/pg-core';
import { companies, users } from './foundation.ts';
import { tstz } from './columns.ts';

// Mirrors src/db/migrations/0036_cuit_claims.sql.
export const cuitClaims = pgTable(
  'cuit_claims',
  {
    companyId: integer('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    cuit: char('cuit', { length: 11 }).notNull(),
    claimedAt: tstz('claimed_at').notNull(),
    claimedBy: integer('claimed_by').references(() => users.id, { onDelete: 'set null' }),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.cuit] }), index('cuit_claims_claimed_by_idx').on(t.claimedBy)],
);
