import { boolean, char, customType, integer, json, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { tstz } from './columns.ts';

// Mirrors src/db/migrations/0002_integration.sql.

/** PostgreSQL xid8 (64-bit transaction id), carried as a decimal string. */
const xid8 = customType<{ data: string; driverData: string }>({
  dataType: () => 'xid8',
});

export const inboundEvents = pgTable('inbound_events', {
  id: uuid('id').primaryKey(),
  companyId: integer('company_id').notNull(),
  event: text('event').notNull(),
  idempotencyKey: text('idempotency_key').notNull(),
  payload: json('payload').$type<{ event: string; data: Record<string, unknown> }>().notNull(),
  bodySha256: char('body_sha256', { length: 64 }).notNull(),
  signatureValid: boolean('signature_valid').notNull(),
  receivedAt: tstz('received_at').notNull(),
  txId: xid8('tx_id').notNull(),
});
