import { char, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { companies, type MembershipRole, users } from './foundation.ts';
import { tstz } from './columns.ts';

// Mirrors src/db/migrations/0100_invitations.sql.

export type InvitationStatus = 'pending' | 'accepted' | 'declined' | 'revoked' | 'replaced';

export const invitations = pgTable('invitations', {
  id: uuid('id').primaryKey(),
  companyId: integer('company_id')
    .notNull()
    .references(() => companies.id, { onDelete: 'cascade' }),
  email: text('email').notNull(),
  role: text('role').$type<MembershipRole>().notNull(),
  tokenHash: char('token_hash', { length: 64 }).notNull().unique(),
  status: text('status').$type<InvitationStatus>().notNull().default('pending'),
  invitedBy: integer('invited_by').references(() => users.id, { onDelete: 'set null' }),
  createdAt: tstz('created_at').notNull(),
  expiresAt: tstz('expires_at').notNull(),
  endedAt: tstz('ended_at'),
  answeredBy: integer('answered_by').references(() => users.id, { onDelete: 'set null' }),
});
