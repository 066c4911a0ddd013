import { boolean, integer, jsonb, pgTable, primaryKey, smallint, text, uuid } from 'drizzle-orm/pg-core';
import { tstz } from './columns.ts';

// Mirrors src/db/migrations/0045_whatsapp.sql (and 0291, 0292); test/db/schema-drift.test.ts keeps them in step.
// The operator channel is the service's own number: no company_id on these tables.

export const whatsappChannel = pgTable('whatsapp_channel', {
  phoneNumberId: text('phone_number_id').primaryKey(),
  singleton: boolean('singleton').notNull().default(true),
  wabaId: text('waba_id').notNull(),
  displayPhoneNumber: text('display_phone_number'),
  tokenEncrypted: text('token_encrypted').notNull(),
  agentEnabled: boolean('agent_enabled').notNull().default(false),
  reconnectRequired: boolean('reconnect_required').notNull().default(false),
  reconnectReason: text('reconnect_reason'),
  lastWebhookAt: tstz('last_webhook_at'),
  createdAt: tstz('created_at').notNull(),
  updatedAt: tstz('updated_at').notNull(),
});

export type WhatsappDirection = 'inbound' | 'outbound';
export type WhatsappSource = 'webhook' | 'send';
export type WhatsappStatus = 'sent' | 'delivered' | 'read' | 'failed';

export const whatsappConversations = pgTable('whatsapp_conversations', {
  id: uuid('id').primaryKey(),
  phoneNumberId: text('phone_number_id').notNull(),
  waId: text('wa_id').notNull(),
  profileName: text('profile_name'),
  lastMessageText: text('last_message_text'),
  lastMessageDirection: text('last_message_direction').$type<WhatsappDirection>(),
  lastMessageAt: tstz('last_message_at'),
  lastInboundAt: tstz('last_inbound_at'),
  sendTo: text('send_to'),
  createdAt: tstz('created_at').notNull(),
  updatedAt: tstz('updated_at').notNull(),
});

export const whatsappMessages = pgTable('whatsapp_messages', {
  wamid: text('wamid').primaryKey(),
  conversationId: uuid('conversation_id').notNull(),
  direction: text('direction').$type<WhatsappDirection>().notNull(),
  type: text('type').notNull(),
  text: text('text'),
  details: jsonb('details').notNull().default({}),
  contextWamid: text('context_wamid'),
  forwarded: boolean('forwarded').notNull().default(false),
  sentAt: tstz('sent_at').notNull(),
  source: text('source').$type<WhatsappSource>().notNull(),
  storedAt: tstz('stored_at').notNull(),
});

export const whatsappStatuses = pgTable('whatsapp_statuses', {
  wamid: text('wamid').primaryKey(),
  status: text('status').$type<WhatsappStatus>().notNull(),
  rank: smallint('rank').notNull(),
  recipientId: text('recipient_id'),
  errorCode: integer('error_code'),
  errorTitle: text('error_title'),
  statusAt: tstz('status_at').notNull(),
  updatedAt: tstz('updated_at').notNull(),
});

export const whatsappReactions = pgTable(
  'whatsapp_reactions',
  {
    messageWamid: text('message_wamid').notNull(),
    reactorId: text('reactor_id').notNull(),
    emoji: text('emoji'),
    reactedAt: tstz('reacted_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.messageWamid, t.reactorId] })],
);
