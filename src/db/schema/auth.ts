import { sql } from 'drizzle-orm';
import { bigint, char, integer, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { tstz } from './columns.ts';

// Mirrors src/db/migrations/0004_auth.sql.

export type SessionKind = 'password' | 'external';

export const sessions = pgTable('sessions', {
  id: uuid('id').primaryKey(),
  userId: integer('user_id').notNull(),
  kind: text('kind').$type<SessionKind>().notNull(),
  tokenHash: char('token_hash', { length: 64 }),
  companyId: integer('company_id'),
  ip: text('ip'),
  userAgent: text('user_agent'),
  createdAt: tstz('created_at').notNull().default(sql`now()`),
  lastSeenAt: tstz('last_seen_at').notNull().default(sql`now()`),
  expiresAt: tstz('expires_at').notNull(),
  endedAt: tstz('ended_at'),
});

export const userIdentities = pgTable(
  'user_identities',
  {
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    userId: integer('user_id').notNull(),
    createdAt: tstz('created_at').notNull().default(sql`now()`),
  },
  (t) => [primaryKey({ columns: [t.issuer, t.subject] })],
);

export const auditLog = pgTable('audit_log', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  at: tstz('at').notNull().default(sql`clock_timestamp()`),
  actorUserId: integer('actor_user_id'),
  actorEmail: text('actor_email'),
  companyId: integer('company_id'),
  action: text('action').notNull(),
  ip: text('ip'),
  userAgent: text('user_agent'),
  requestId: text('request_id'),
  details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
});
