import { char, index, integer, pgTable } from 'drizzle-orm/pg-core';
import { tstz } from './columns.ts';

// Mirrors src/db/migrations/0011_rate_limits.sql.

export const rateLimitWindows = pgTable(
  'rate_limit_windows',
  {
    key: char('key', { length: 64 }).primaryKey(),
    windowStartedAt: tstz('window_started_at').notNull(),
    hits: integer('hits').notNull(),
    expiresAt: tstz('expires_at').notNull(),
  },
  (t) => [index('rate_limit_windows_expires_idx').on(t.expiresAt)],
);
