import { randomUUID } from 'node:crypto';
import type { InstagramDirection, InstagramSource } from '../../db/schema/instagram.ts';

/** The database or an open transaction: both answer parameterised SQL. */
export interface Q {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
}

export interface ChannelRow {
  account_id: string;
  username: string | null;
  token_encrypted: string;
  token_expires_at: Date;
  token_issued_at: Date;
  permissions: string[];
  reconnect_required: boolean;
  reconnect_reason: string | null;
  subscribed_at: Date | null;
  subscription_checked_at: Date | null;
  last_webhook_at: Date | null;
  last_sync_at: Date | null;
  last_sync_error: string | null;
  connected_at: Date;
}

const CHANNEL_COLUMNS = `account_id, username, token_encrypted, token_expires_at, token_issued_at, permissions,
  reconnect_required, reconnect_reason, subscribed_at, subscription_checked_at, last_webhook_at, last_sync_at,
  last_sync_error, connected_at`;

export async function getChannel(q: Q): Promise<ChannelRow | null> {
  const rows = await q.query<ChannelRow>(`SELECT ${CHANNEL_COLUMNS} FROM instagram_channel`);
  return rows[0] ?? null;
}

export interface ChannelWrite {
  accountId: string;
  username: string | null;
  tokenEncrypted: string;
  tokenExpiresAt: Date;
  permissions: string[];
  subscribedAt: Date | null;
  now: Date;
}

/** Stores the connection: the same account is updated in place; another account replaces the row. */
export async function saveChannel(q: Q, w: ChannelWrite): Promise<void> {
  await q.query('DELETE FROM instagram_channel WHERE account_id <> $1', [w.accountId]);
  await q.query(
    `INSERT INTO instagram_channel (account_id, username, token_encrypted, token_expires_at, token_issued_at, permissions,
       reconnect_required, reconnect_reason, subscribed_at, subscription_checked_at, connected_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, false, NULL, $7, $7, $5, $5)
     ON CONFLICT (account_id) DO UPDATE SET username = excluded.username, token_encrypted = excluded.token_encrypted,
       token_expires_at = excluded.token_expires_at, token_issued_at = excluded.token_issued_at,
       permissions = excluded.permissions, reconnect_required = false, reconnect_reason = NULL,
       subscribed_at = excluded.subscribed_at, subscription_checked_at = excluded.subscription_checked_at,
       updated_at = excluded.updated_at`,
    [w.accountId, w.username, w.tokenEncrypted, w.tokenExpiresAt, w.now, w.permissions, w.subscribedAt],
  );
}

export async function markReconnectRequired(q: Q, accountId: string, reason: string, now: Date): Promise<void> {
  await q.query(
    'UPDATE instagram_channel SET reconnect_required = true, reconnect_reason = $2, updated_at = $3 WHERE account_id = $1',
    [accountId, reason.slice(0, 500), now],
  );
}

export async function saveRefreshedToken(q: Q, accountId: string, tokenEncrypted: string, expiresAt: Date, now: Date) {
  await q.query(
    `UPDATE instagram_channel SET token_encrypted = $2, token_expires_at = $3, token_issued_at = $4, updated_at = $4
     WHERE account_id = $1`,
    [accountId, tokenEncrypted, expiresAt, now],
  );
}

export async function markSubscription(q: Q, accountId: string, subscribed: boolean, now: Date) {
  await q.query(
    `UPDATE instagram_channel SET subscription_checked_at = $3,
       subscribed_at = CASE WHEN $2 THEN COALESCE(subscribed_at, $3) ELSE NULL END WHERE account_id = $1`,
    [accountId, subscribed, now],
  );
}

export async function touchWebhook(q: Q, accountId: string, now: Date) {
  await q.query(
    `UPDATE instagram_channel SET last_webhook_at = $2
     WHERE account_id = $1 AND (last_webhook_at IS NULL OR last_webhook_at < $2)`,
    [accountId, now],
  );
}

/**
 * Claims the backup sync for `leaseMs`: one process across every instance wins until the lease ends
 * or is released. A row UPDATE with a condition is the claim, on PostgreSQL and PGlite alike; a
 * concurrent claimer waits for the row and then sees the lease taken. With `minIntervalMs`, a run
 * that finished less than that long ago also refuses the claim (the minute schedule and an external
 * cron then make one run per minute between them, not one each).
 */
export async function claimSync(q: Q, now: Date, leaseMs: number, minIntervalMs = 0): Promise<boolean> {
  const rows = await q.query(
    `UPDATE instagram_channel SET sync_lease_until = $2
     WHERE (sync_lease_until IS NULL OR sync_lease_until <= $1) AND (last_sync_at IS NULL OR last_sync_at <= $3)
     RETURNING account_id`,
    [now, new Date(now.getTime() + leaseMs), new Date(now.getTime() - minIntervalMs)],
  );
  return rows.length > 0;
}

export async function finishSync(q: Q, accountId: string, now: Date, error: string | null) {
  await q.query(
    'UPDATE instagram_channel SET sync_lease_until = NULL, last_sync_at = $2, last_sync_error = $3 WHERE account_id = $1',
    [accountId, now, error === null ? null : error.slice(0, 500)],
  );
}

// --- OAuth state ---

export async function insertState(
  q: Q,
  s: { stateHash: string; sessionId: string; userId: number; replace: boolean; expiresAt: Date; now: Date },
) {
  await q.query('DELETE FROM instagram_oauth_states WHERE expires_at < $1', [s.now]);
  await q.query(
    `INSERT INTO instagram_oauth_states (state_hash, session_id, user_id, replace_confirmed, expires_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [s.stateHash, s.sessionId, s.userId, s.replace, s.expiresAt, s.now],
  );
}

/** Takes (deletes) a state: a second use of the same state finds nothing. */
export async function takeState(q: Q, stateHash: string) {
  const rows = await q.query<{ session_id: string; user_id: number; replace_confirmed: boolean; expires_at: Date }>(
    'DELETE FROM instagram_oauth_states WHERE state_hash = $1 RETURNING session_id, user_id, replace_confirmed, expires_at',
    [stateHash],
  );
  return rows[0] ?? null;
}

// --- Conversations and messages ---

export interface ConversationRow {
  id: string;
  account_id: string;
  participant_id: string;
  participant_username: string | null;
  graph_id: string | null;
  last_message_text: string | null;
  last_message_at: Date | null;
  read_mid: string | null;
  read_at: Date | null;
  updated_at: Date;
  /** Who wrote the newest stored message (the preview marks ours with «Vos:»). */
  last_message_direction: InstagramDirection | null;
}

const CONVERSATION_COLUMNS = `id, account_id, participant_id, participant_username, graph_id, last_message_text,
  last_message_at, read_mid, read_at, updated_at,
  (SELECT m.direction FROM instagram_messages m WHERE m.conversation_id = instagram_conversations.id
    ORDER BY m.sent_at DESC, m.mid DESC LIMIT 1) AS last_message_direction`;

export async function upsertConversation(
  q: Q,
  c: { accountId: string; participantId: string; username?: string | null; graphId?: string | null; now: Date },
): Promise<string> {
  const rows = await q.query<{ id: string }>(
    `INSERT INTO instagram_conversations (id, account_id, participant_id, participant_username, graph_id, updated_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $6)
     ON CONFLICT (account_id, participant_id) DO UPDATE SET
       participant_username = COALESCE(excluded.participant_username, instagram_conversations.participant_username),
       graph_id = COALESCE(instagram_conversations.graph_id, excluded.graph_id)
     RETURNING id`,
    [randomUUID(), c.accountId, c.participantId, c.username ?? null, c.graphId ?? null, c.now],
  );
  return rows[0]!.id;
}

export async function listConversations(q: Q, accountId: string, limit = 200): Promise<ConversationRow[]> {
  return q.query<ConversationRow>(
    `SELECT ${CONVERSATION_COLUMNS} FROM instagram_conversations WHERE account_id = $1
     ORDER BY COALESCE(last_message_at, updated_at) DESC, id LIMIT $2`,
    [accountId, limit],
  );
}

export async function getConversation(q: Q, id: string): Promise<ConversationRow | null> {
  const rows = await q.query<ConversationRow>(`SELECT ${CONVERSATION_COLUMNS} FROM instagram_conversations WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

export async function setConversationGraphId(q: Q, id: string, graphId: string) {
  await q.query('UPDATE instagram_conversations SET graph_id = $2 WHERE id = $1 AND graph_id IS NULL', [id, graphId]);
}

export interface AttachmentWrite {
  graphId: string | null;
  type: string | null;
  mimeType: string | null;
  name: string | null;
  size: number | null;
}

export interface MessageWrite {
  mid: string;
  accountId: string;
  participantId: string;
  participantUsername: string | null;
  direction: InstagramDirection;
  senderId: string;
  text: string | null;
  sentAt: Date;
  isUnsupported: boolean;
  isExternalEcho: boolean;
  replyToMid: string | null;
  attachments: AttachmentWrite[];
  source: InstagramSource;
}

/** Called in the inserting transaction when a message row is new (the sales agent's claim). */
export type NewMessageHook = (q: Q, m: MessageWrite & { conversationId: string }, now: Date) => Promise<void>;

/**
 * Stores a message once: the mid is the key whatever path brings it. A later copy only fills in
 * what the first lacked (attachment ids and details from the Graph). Returns whether it was new;
 * `onNew` runs in the same transaction only for the copy that inserted the row.
 */
export async function storeMessage(q: Q, m: MessageWrite, now: Date, onNew?: NewMessageHook): Promise<boolean> {
  const conversationId = await upsertConversation(q, {
    accountId: m.accountId,
    participantId: m.participantId,
    username: m.participantUsername,
    now,
  });
  const inserted = await q.query(
    `INSERT INTO instagram_messages (mid, conversation_id, account_id, direction, sender_id, text, sent_at,
       is_unsupported, is_external_echo, reply_to_mid, source, stored_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (mid) DO NOTHING RETURNING mid`,
    [
      m.mid,
      conversationId,
      m.accountId,
      m.direction,
      m.senderId,
      m.text,
      m.sentAt,
      m.isUnsupported,
      m.isExternalEcho,
      m.replyToMid,
      m.source,
      now,
    ],
  );
  const deleted = await q.query('SELECT 1 FROM instagram_messages WHERE mid = $1 AND is_deleted', [m.mid]);
  if (deleted.length === 0) {
    for (const [position, a] of m.attachments.entries()) {
      await q.query(
        `INSERT INTO instagram_attachments (message_mid, position, id, type, mime_type, name, size)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (message_mid, position) DO UPDATE SET
           id = CASE WHEN $8 THEN excluded.id ELSE instagram_attachments.id END,
           type = COALESCE(instagram_attachments.type, excluded.type),
           mime_type = COALESCE(excluded.mime_type, instagram_attachments.mime_type),
           name = COALESCE(excluded.name, instagram_attachments.name),
           size = COALESCE(excluded.size, instagram_attachments.size)`,
        [m.mid, position, a.graphId ?? `${m.mid}.${position}`, a.type, a.mimeType, a.name, a.size, a.graphId !== null],
      );
    }
  }
  if (inserted.length > 0) await bumpPreview(q, conversationId, deleted.length > 0 ? null : previewOf(m), m.sentAt, now);
  if (inserted.length > 0 && onNew) await onNew(q, { ...m, conversationId }, now);
  return inserted.length > 0;
}

function previewOf(m: MessageWrite): string {
  if (m.text) return m.text.slice(0, 200);
  const kind = m.attachments[0]?.mimeType?.split('/')[0] ?? m.attachments[0]?.type ?? null;
  return kind ? `[${kind}]` : '';
}

async function bumpPreview(q: Q, conversationId: string, text: string | null, at: Date, now: Date) {
  await q.query(
    `UPDATE instagram_conversations SET
       last_message_text = CASE WHEN last_message_at IS NULL OR last_message_at <= $3 THEN $2 ELSE last_message_text END,
       last_message_at = GREATEST(COALESCE(last_message_at, $3), $3),
       updated_at = GREATEST(updated_at, $4)
     WHERE id = $1`,
    [conversationId, text, at, now],
  );
}

/** The sender unsent a message: kept as a deleted row (even when the delete arrives first), content gone. */
/** A message this app sent: not an echo of one written elsewhere (the echo may have been stored first). */
export async function markSentFromApp(q: Q, mid: string) {
  await q.query('UPDATE instagram_messages SET is_external_echo = false WHERE mid = $1', [mid]);
}

export async function markMessageDeleted(q: Q, m: Omit<MessageWrite, 'text' | 'attachments'>, now: Date) {
  const conversationId = await upsertConversation(q, { accountId: m.accountId, participantId: m.participantId, now });
  await q.query(
    `INSERT INTO instagram_messages (mid, conversation_id, account_id, direction, sender_id, text, sent_at, is_deleted,
       is_unsupported, is_external_echo, reply_to_mid, source, stored_at)
     VALUES ($1, $2, $3, $4, $5, NULL, $6, true, false, false, NULL, $7, $8)
     ON CONFLICT (mid) DO UPDATE SET is_deleted = true, text = NULL`,
    [m.mid, conversationId, m.accountId, m.direction, m.senderId, m.sentAt, m.source, now],
  );
  await q.query('DELETE FROM instagram_attachments WHERE message_mid = $1', [m.mid]);
  await q.query(`UPDATE instagram_conversations SET last_message_text = NULL WHERE id = $1 AND last_message_at = $2`, [
    conversationId,
    m.sentAt,
  ]);
}

/** A reaction (or its removal), kept by (message, reactor); an older event never overwrites a newer one. */
export async function saveReaction(
  q: Q,
  r: { mid: string; reactorId: string; reaction: string | null; emoji: string | null; at: Date },
) {
  await q.query(
    `INSERT INTO instagram_reactions (message_mid, reactor_id, reaction, emoji, reacted_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (message_mid, reactor_id) DO UPDATE SET reaction = excluded.reaction, emoji = excluded.emoji,
       reacted_at = excluded.reacted_at
     WHERE instagram_reactions.reacted_at <= excluded.reacted_at`,
    [r.mid, r.reactorId, r.reaction, r.emoji, r.at],
  );
}

/** A read receipt of the participant; the newest one wins. */
export async function saveRead(q: Q, r: { accountId: string; participantId: string; mid: string | null; at: Date; now: Date }) {
  const id = await upsertConversation(q, { accountId: r.accountId, participantId: r.participantId, now: r.now });
  await q.query(
    `UPDATE instagram_conversations SET read_mid = $2, read_at = $3 WHERE id = $1 AND (read_at IS NULL OR read_at <= $3)`,
    [id, r.mid, r.at],
  );
}

export interface MessageRow {
  mid: string;
  conversation_id: string;
  direction: InstagramDirection;
  sender_id: string;
  text: string | null;
  sent_at: Date;
  is_deleted: boolean;
  is_unsupported: boolean;
  is_external_echo: boolean;
  reply_to_mid: string | null;
  source: InstagramSource;
}

export interface AttachmentRow {
  message_mid: string;
  position: number;
  id: string;
  type: string | null;
  mime_type: string | null;
  name: string | null;
  size: string | number | null;
}

const MESSAGE_COLUMNS = `mid, conversation_id, direction, sender_id, text, sent_at, is_deleted, is_unsupported,
  is_external_echo, reply_to_mid, source`;

export async function getMessage(q: Q, mid: string): Promise<MessageRow | null> {
  const rows = await q.query<MessageRow>(`SELECT ${MESSAGE_COLUMNS} FROM instagram_messages WHERE mid = $1`, [mid]);
  return rows[0] ?? null;
}

export async function listMessages(q: Q, conversationId: string, limit = 500) {
  const messages = await q.query<MessageRow>(
    `SELECT ${MESSAGE_COLUMNS} FROM (SELECT ${MESSAGE_COLUMNS} FROM instagram_messages WHERE conversation_id = $1
       ORDER BY sent_at DESC, mid DESC LIMIT $2) newest ORDER BY sent_at, mid`,
    [conversationId, limit],
  );
  const mids = messages.map((m) => m.mid);
  const attachments = mids.length
    ? await q.query<AttachmentRow>(
        `SELECT message_mid, position, id, type, mime_type, name, size FROM instagram_attachments
         WHERE message_mid = ANY($1::text[]) ORDER BY message_mid, position`,
        [mids],
      )
    : [];
  const reactions = mids.length
    ? await q.query<{ message_mid: string; reactor_id: string; reaction: string; emoji: string | null }>(
        `SELECT message_mid, reactor_id, reaction, emoji FROM instagram_reactions
         WHERE message_mid = ANY($1::text[]) AND reaction IS NOT NULL ORDER BY message_mid, reacted_at`,
        [mids],
      )
    : [];
  return { messages, attachments, reactions };
}

export async function getAttachment(q: Q, id: string) {
  const rows = await q.query<AttachmentRow & { account_id: string }>(
    `SELECT a.message_mid, a.position, a.id, a.type, a.mime_type, a.name, a.size, m.account_id
     FROM instagram_attachments a JOIN instagram_messages m ON m.mid = a.message_mid WHERE a.id = $1`,
    [id],
  );
  return rows[0] ?? null;
}
