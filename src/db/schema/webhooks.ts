import { sql } from 'drizzle-orm';
import { bigint, boolean, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { tstz } from './columns.ts';

// Mirrors src/db/migrations/0005_webhooks.sql; test/db/schema-drift.test.ts keeps them in step.

export type WebhookDisabledReason = 'manual' | 'gone' | 'failing';
export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';
export type WebhookDeliveryKind = 'event' | 'test';

export const webhookEndpoints = pgTable('webhook_endpoints', {
  id: uuid('id').primaryKey(),
  companyId: integer('company_id').notNull(),
  url: text('url').notNull(),
  description: text('description').notNull().default(''),
  events: text('events').array(),
  headersEncrypted: text('headers_encrypted'),
  headerNames: text('header_names').array().notNull().default(sql`'{}'`),
  secretEncrypted: text('secret_encrypted').notNull(),
  previousSecretEncrypted: text('previous_secret_encrypted'),
  previousSecretExpiresAt: tstz('previous_secret_expires_at'),
  enabled: boolean('enabled').notNull().default(true),
  disabledReason: text('disabled_reason').$type<WebhookDisabledReason>(),
  disabledAt: tstz('disabled_at'),
  failingSince: tstz('failing_since'),
  createdAt: tstz('created_at').notNull().default(sql`now()`),
  updatedAt: tstz('updated_at').notNull().default(sql`now()`),
});

export const webhookDeliveries = pgTable('webhook_deliveries', {
  id: uuid('id').primaryKey(),
  companyId: integer('company_id').notNull(),
  endpointId: uuid('endpoint_id').notNull(),
  eventId: uuid('event_id').notNull(),
  event: text('event').notNull(),
  kind: text('kind').$type<WebhookDeliveryKind>().notNull(),
  status: text('status').$type<WebhookDeliveryStatus>().notNull(),
  attempts: integer('attempts').notNull().default(0),
  roundAttempts: integer('round_attempts').notNull().default(0),
  nextAttemptAt: tstz('next_attempt_at'),
  leaseToken: uuid('lease_token'),
  lastStatusCode: integer('last_status_code'),
  lastError: text('last_error'),
  eventCreatedAt: tstz('event_created_at').notNull(),
  sourceTx: bigint('source_tx', { mode: 'number' }),
  eventSeq: bigint('event_seq', { mode: 'number' }),
  createdAt: tstz('created_at').notNull(),
  updatedAt: tstz('updated_at').notNull(),
  deliveredAt: tstz('delivered_at'),
});

export const webhookAttempts = pgTable('webhook_attempts', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  companyId: integer('company_id').notNull(),
  deliveryId: uuid('delivery_id').notNull(),
  attempt: integer('attempt').notNull(),
  startedAt: tstz('started_at').notNull(),
  durationMs: integer('duration_ms'),
  statusCode: integer('status_code'),
  responseBody: text('response_body'),
  error: text('error'),
  outcome: text('outcome').$type<'delivered' | 'failed'>().notNull(),
});
