import { integer, pgTable, real, text, uuid } from 'drizzle-orm/pg-core';
import { tstz } from './columns.ts';

// Mirrors src/db/migrations/0023_sales_agent.sql and 0130_sales_agent_channels.sql; test/db/schema-drift.test.ts keeps them in step.

export const salesAgentTurns = pgTable('sales_agent_turns', {
  inboundMid: text('inbound_mid').primaryKey(),
  channel: text('channel').notNull(),
  conversationId: uuid('conversation_id').notNull(),
  accountId: text('account_id').notNull(),
  senderId: text('sender_id').notNull(),
  inputText: text('input_text'),
  claimedBy: text('claimed_by').notNull(),
  status: text('status').notNull(),
  reason: text('reason'),
  threadState: text('thread_state'),
  receivedAt: tstz('received_at').notNull(),
  claimedAt: tstz('claimed_at').notNull(),
  sendAfter: tstz('send_after'),
  leaseUntil: tstz('lease_until'),
  decision: text('decision'),
  reply: text('reply'),
  handoffReason: text('handoff_reason'),
  confidence: real('confidence'),
  brain: text('brain'),
  brainOutput: text('brain_output'),
  guardrails: text('guardrails').array().notNull(),
  brainMs: integer('brain_ms'),
  decidedAt: tstz('decided_at'),
  sentMid: text('sent_mid'),
  sentAt: tstz('sent_at'),
  updatedAt: tstz('updated_at').notNull(),
});

export const salesAgentHandoffs = pgTable('sales_agent_handoffs', {
  conversationId: uuid('conversation_id').primaryKey(),
  channel: text('channel').notNull(),
  inboundMid: text('inbound_mid').notNull(),
  reason: text('reason').notNull(),
  createdAt: tstz('created_at').notNull(),
  resumedAt: tstz('resumed_at'),
});
