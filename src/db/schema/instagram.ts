import { bigint, boolean, integer, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { tstz } from './columns.ts';

// Mirrors src/db/migrations/0012_instagram.sql; test/db/schema-drift.test.ts keeps them in step.
// The operator channel is the service's own account: no company_id on these tables.

export const instagramChannel = pgTable('instagram_channel', {
  accountId: text('account_id').primaryKey(),
  singleton: boolean('singleton').notNull().default(true),
  username: text('username'),
  tokenEncrypted: text('token_encrypted').notNull(),
  tokenExpiresAt: tstz('token_expires_at').notNull(),
  tokenIssuedAt: tstz('token_issued_at').notNull(),
  permissions: text('permissions').array().notNull(),
  reconnectRequired: boolean('reconnect_required').notNull().default(false),
  reconnectReason: text('reconnect_reason'),
  subscribedAt: tstz('subscribed_at'),
  subscriptionCheckedAt: tstz('subscription_checked_at'),
  lastWebhookAt: tstz('last_webhook_at'),
  lastSyncAt: tstz('last_sync_at'),
  lastSyncError: text('last_sync_error'),
  syncLeaseUntil: tstz('sync_lease_until'),
  connectedAt: tstz('connected_at').notNull(),
  updatedAt: tstz('updated_at').notNull(),
});

export const instagramOauthStates = pgTable('instagram_oauth_states', {
  stateHash: text('state_hash').primaryKey(),
  sessionId: text('session_id').notNull(),
  userId: integer('user_id').notNull(),
  replaceConfirmed: boolean('replace_confirmed').notNull().default(false),
  expiresAt: tstz('expires_at').notNull(),
  createdAt: tstz('created_at').notNull(),
});

export const instagramConversations = pgTable('instagram_conversations', {
  id: uuid('id').primaryKey(),
  accountId: text('account_id').notNull(),
  participantId: text('participant_id').notNull(),
  participantUsername: text('participant_username'),
  graphId: text('graph_id'),
  lastMessageText: text('last_message_text'),
  lastMessageAt: tstz('last_message_at'),
  readMid: text('read_mid'),
  readAt: tstz('read_at'),
  updatedAt: tstz('updated_at').notNull(),
  createdAt: tstz('created_at').notNull(),
});

export type InstagramDirection = 'inbound' | 'outbound';
export type InstagramSource = 'webhook' | 'hub' | 'sync' | 'send';

export const instagramMessages = pgTable('instagram_messages', {
  mid: text('mid').primaryKey(),
  conversationId: uuid('conversation_id').notNull(),
  accountId: text('account_id').notNull(),
  direction: text('direction').$type<InstagramDirection>().notNull(),
  senderId: text('sender_id').notNull(),
  text: text('text'),
  sentAt: tstz('sent_at').notNull(),
  isDeleted: boolean('is_deleted').notNull().default(false),
  isUnsupported: boolean('is_unsupported').notNull().default(false),
  isExternalEcho: boolean('is_external_echo').notNull().default(false),
  replyToMid: text('reply_to_mid'),
  source: text('source').$type<InstagramSource>().notNull(),
  storedAt: tstz('stored_at').notNull(),
});

export const instagramAttachments = pgTable(
  'instagram_attachments',
  {
    messageMid: text('message_mid').notNull(),
    position: integer('position').notNull(),
    id: text('id').notNull(),
    type: text('type'),
    mimeType: text('mime_type'),
    name: text('name'),
    size: bigint('size', { mode: 'number' }),
  },
  (t) => [primaryKey({ columns: [t.messageMid, t.position] })],
);

export const instagramReactions = pgTable(
  'instagram_reactions',
  {
    messageMid: text('message_mid').notNull(),
    reactorId: text('reactor_id').notNull(),
    reaction: text('reaction'),
    emoji: text('emoji'),
    reactedAt: tstz('reacted_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.messageMid, t.reactorId] })],
);
