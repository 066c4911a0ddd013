import { sql } from 'drizzle-orm';
import { pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { tstz } from './columns.ts';

// Mirrors src/db/migrations/0021_arca_tickets.sql; test/db/schema-drift.test.ts keeps them in step.

export const arcaTickets = pgTable(
  'arca_tickets',
  {
    certFingerprint: text('cert_fingerprint').notNull(),
    service: text('service').notNull(),
    token: text('token').notNull(),
    sign: text('sign').notNull(),
    generatedAt: tstz('generated_at').notNull(),
    expiresAt: tstz('expires_at').notNull(),
    updatedAt: tstz('updated_at').notNull().default(sql`now()`),
  },
  (t) => [primaryKey({ columns: [t.certFingerprint, t.service] })],
);
