import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { type Conn, selectRows } from '../../db/client.ts';
import type { WhatsappDirection, WhatsappSource, WhatsappStatus } from '../../db/schema/whatsapp.ts';
import { sameWaIdKey } from './phone.ts';
import { STATUS_RANK, type StatusUpdate } from './webhook-parse.ts';

export interface ChannelRow {
  phone_number_id: string;
  waba_id: string;
  display_phone_number: string | null;
  token_encrypted: string;
  agent_enabled: boolean;
  /** Meta refused the token (190 / HTTP 401): nothing is sent until the channel is saved again. */
  reconnect_required: boolean;
  reconnect_reason: string | null;
  last_webhook_at: Date | string | null;
  created_at: Date | string;
}

export async function getChannel(conn: Conn): Promise<ChannelRow | null> {
  const [row] = await selectRows<ChannelRow>(
    conn,
    sql`SELECT phone_number_id, waba_id, display_phone_number, token_encrypted, agent_enabled, reconnect_required,
        reconnect_reason, last_webhook_at, created_at
      FROM whatsapp_channel`,
  );
  return row ?? null;
}

export interface ChannelWrite {
  phoneNumberId: string;
  wabaId: string;
  displayPhoneNumber: string | null;
  tokenEncrypted: string;
  now: Date;
}

/**
 * The one channel: the same number is updated in place (agent flag kept, a reconnect-required mark
 * cleared: it comes with a new token); another number replaces it.
 */
export async function saveChannel(conn: Conn, w: ChannelWrite): Promise<void> {
  await conn.execute(sql`DELETE FROM whatsapp_channel WHERE phone_number_id <> ${w.phoneNumberId}`);
  await conn.execute(
    sql`INSERT INTO whatsapp_channel (phone_number_id, waba_id, display_phone_number, token_encrypted, created_at, updated_at)
      VALUES (${w.phoneNumberId}, ${w.wabaId}, ${w.displayPhoneNumber}, ${w.tokenEncrypted}, ${w.now}, ${w.now})
      ON CONFLICT (phone_number_id) DO UPDATE SET waba_id = excluded.waba_id,
        display_phone_number = excluded.display_phone_number, token_encrypted = excluded.token_encrypted,
        reconnect_required = false, reconnect_reason = NULL, updated_at = excluded.updated_at`,
  );
}

/** Meta refused the channel's token: kept until the channel is saved again (saveChannel clears it). */
export async function markReconnectRequired(conn: Conn, phoneNumberId: string, reason: string, now: Date): Promise<void> {
  await conn.execute(
    sql`UPDATE whatsapp_channel SET reconnect_required = true, reconnect_reason = ${reason.slice(0, 500)}, updated_at = ${now}
      WHERE phone_number_id = ${phoneNumberId}`,
  );
}

export async function setAgentEnabled(conn: Conn, enabled: boolean, now: Date): Promise<boolean> {
  const rows = await selectRows(
    conn,
    sql`UPDATE whatsapp_channel SET agent_enabled = ${enabled}, updated_at = ${now} RETURNING phone_number_id`,
  );
  return rows.length > 0;
}

export async function touchWebhook(conn: Conn, phoneNumberId: string, now: Date): Promise<void> {
  await conn.execute(sql`UPDATE whatsapp_channel SET last_webhook_at = ${now} WHERE phone_number_id = ${phoneNumberId}`);
}

/** Matches the threads of one person: both spellings of an Argentine mobile (549… and 54…) meet here. */
const samePerson = (waId: string) => sql`whatsapp_person_key(wa_id) = ${sameWaIdKey(waId)}`;

/**
 * The thread of a contact, created on first contact; a profile name given replaces the stored one.
 * Both spellings of an Argentine mobile (549… and 54…) find the same thread, and the database keeps
 * one per person (migration 0310): when two first messages race, the second insert finds the first.
 */
export async function upsertConversation(
  conn: Conn,
  w: { phoneNumberId: string; waId: string; profileName: string | null; now: Date },
): Promise<string> {
  const touch = async () => {
    const [found] = await selectRows<{ id: string }>(
      conn,
      sql`UPDATE whatsapp_conversations SET profile_name = COALESCE(${w.profileName}, profile_name)
        WHERE phone_number_id = ${w.phoneNumberId} AND ${samePerson(w.waId)}
        RETURNING id`,
    );
    return found?.id ?? null;
  };
  const existing = await touch();
  if (existing) return existing;
  const [row] = await selectRows<{ id: string }>(
    conn,
    sql`INSERT INTO whatsapp_conversations (id, phone_number_id, wa_id, profile_name, created_at, updated_at)
      VALUES (${randomUUID()}, ${w.phoneNumberId}, ${w.waId}, ${w.profileName}, ${w.now}, ${w.now})
      ON CONFLICT DO NOTHING
      RETURNING id`,
  );
  if (row) return row.id;
  // Another delivery created the thread meanwhile (either spelling): it is committed now.
  const raced = await touch();
  if (!raced) throw new Error(`the WhatsApp thread of ${w.waId} could be neither created nor found`);
  return raced;
}

export interface MessageWrite {
  wamid: string;
  conversationId: string;
  direction: WhatsappDirection;
  type: string;
  text: string | null;
  details: Record<string, unknown>;
  contextWamid: string | null;
  forwarded: boolean;
  sentAt: Date;
  source: WhatsappSource;
  now: Date;
  /** False for a system notice: stored in the thread, but it moves neither the preview nor the window. */
  counts?: boolean;
}

/**
 * Stores a message once (the wamid is the key: a duplicate delivery is a no-op, even concurrent) and
 * moves the thread's preview and window forward. Returns false for a duplicate.
 */
export async function insertMessage(conn: Conn, m: MessageWrite): Promise<boolean> {
  const inserted = await selectRows(
    conn,
    sql`INSERT INTO whatsapp_messages (wamid, conversation_id, direction, type, text, details, context_wamid, forwarded,
        sent_at, source, stored_at)
      VALUES (${m.wamid}, ${m.conversationId}, ${m.direction}, ${m.type}, ${m.text}, ${JSON.stringify(m.details)}::jsonb,
        ${m.contextWamid}, ${m.forwarded}, ${m.sentAt}, ${m.source}, ${m.now})
      ON CONFLICT (wamid) DO NOTHING RETURNING wamid`,
  );
  if (inserted.length === 0) return false;
  if (m.counts === false) return true;
  const preview = m.text ?? `[${m.type}]`;
  await conn.execute(
    sql`UPDATE whatsapp_conversations SET
        last_message_text = CASE WHEN last_message_at IS NULL OR last_message_at <= ${m.sentAt} THEN ${preview} ELSE last_message_text END,
        last_message_direction = CASE WHEN last_message_at IS NULL OR last_message_at <= ${m.sentAt} THEN ${m.direction} ELSE last_message_direction END,
        last_message_at = GREATEST(last_message_at, ${m.sentAt}),
        last_inbound_at = CASE WHEN ${m.direction} = 'inbound' THEN GREATEST(last_inbound_at, ${m.sentAt}) ELSE last_inbound_at END,
        updated_at = ${m.now}
      WHERE id = ${m.conversationId}`,
  );
  return true;
}

/** The thread of a contact (either spelling of an Argentine mobile), without creating one. */
export async function findConversation(conn: Conn, phoneNumberId: string, waId: string): Promise<string | null> {
  const [row] = await selectRows<{ id: string }>(
    conn,
    sql`SELECT id FROM whatsapp_conversations WHERE phone_number_id = ${phoneNumberId} AND ${samePerson(waId)}`,
  );
  return row?.id ?? null;
}

/**
 * The person changed their number: the thread follows them to the new one (its messages arrive
 * there), unless the new number already has a thread of its own. The last spelling that worked for
 * the old number no longer applies. Returns whether it moved.
 */
export async function moveConversation(conn: Conn, id: string, phoneNumberId: string, newWaId: string): Promise<boolean> {
  const rows = await selectRows(
    conn,
    sql`UPDATE whatsapp_conversations SET wa_id = ${newWaId}, send_to = NULL WHERE id = ${id}
      AND NOT EXISTS (SELECT 1 FROM whatsapp_conversations WHERE phone_number_id = ${phoneNumberId} AND ${samePerson(newWaId)})
      RETURNING id`,
  );
  return rows.length > 0;
}

/** Keeps the spelling of the number Meta accepted a send to. */
export async function setSendTo(conn: Conn, conversationId: string, sendTo: string): Promise<void> {
  await conn.execute(sql`UPDATE whatsapp_conversations SET send_to = ${sendTo} WHERE id = ${conversationId}`);
}

/** A status only moves forward (sent < delivered < read; failed is final), whatever order they come in. */
export async function applyStatus(conn: Conn, s: StatusUpdate, now: Date): Promise<void> {
  await conn.execute(
    sql`INSERT INTO whatsapp_statuses (wamid, status, rank, recipient_id, error_code, error_title, status_at, updated_at)
      VALUES (${s.wamid}, ${s.status}, ${STATUS_RANK[s.status]}, ${s.recipientId}, ${s.errorCode}, ${s.errorTitle}, ${s.at}, ${now})
      ON CONFLICT (wamid) DO UPDATE SET status = excluded.status, rank = excluded.rank,
        recipient_id = COALESCE(excluded.recipient_id, whatsapp_statuses.recipient_id), error_code = excluded.error_code,
        error_title = excluded.error_title, status_at = excluded.status_at, updated_at = excluded.updated_at
      WHERE excluded.rank > whatsapp_statuses.rank`,
  );
}

export async function upsertReaction(
  conn: Conn,
  r: { wamid: string; reactorId: string; emoji: string | null; at: Date },
): Promise<void> {
  await conn.execute(
    sql`INSERT INTO whatsapp_reactions (message_wamid, reactor_id, emoji, reacted_at)
      VALUES (${r.wamid}, ${r.reactorId}, ${r.emoji}, ${r.at})
      ON CONFLICT (message_wamid, reactor_id) DO UPDATE SET emoji = excluded.emoji, reacted_at = excluded.reacted_at
      WHERE excluded.reacted_at >= whatsapp_reactions.reacted_at`,
  );
}

export interface ConversationRow {
  id: string;
  phone_number_id: string;
  wa_id: string;
  profile_name: string | null;
  last_message_text: string | null;
  last_message_direction: WhatsappDirection | null;
  last_message_at: Date | string | null;
  last_inbound_at: Date | string | null;
  /** The spelling of the number the last send worked with (null: the wa_id). */
  send_to: string | null;
}

const CONVERSATION_SELECT = sql`SELECT id, phone_number_id, wa_id, profile_name, last_message_text, last_message_direction,
    last_message_at, last_inbound_at, send_to FROM whatsapp_conversations`;

export function listConversations(conn: Conn, phoneNumberId: string, limit = 200): Promise<ConversationRow[]> {
  return selectRows<ConversationRow>(
    conn,
    sql`${CONVERSATION_SELECT} WHERE phone_number_id = ${phoneNumberId}
      ORDER BY last_message_at DESC NULLS LAST, created_at DESC, id LIMIT ${limit}`,
  );
}

export async function getConversation(conn: Conn, id: string): Promise<ConversationRow | null> {
  const [row] = await selectRows<ConversationRow>(conn, sql`${CONVERSATION_SELECT} WHERE id = ${id}`);
  return row ?? null;
}

export interface MessageRow {
  wamid: string;
  direction: WhatsappDirection;
  type: string;
  text: string | null;
  details: Record<string, unknown> | string;
  context_wamid: string | null;
  forwarded: boolean;
  sent_at: Date | string;
  status: WhatsappStatus | null;
  status_at: Date | string | null;
  error_code: number | null;
  error_title: string | null;
  reactions: { reactor_id: string; emoji: string }[] | string | null;
}

/** A thread oldest first, each message with its delivery status and its live reactions. */
export function listMessages(conn: Conn, conversationId: string, limit = 500): Promise<MessageRow[]> {
  return selectRows<MessageRow>(
    conn,
    sql`SELECT * FROM (
        SELECT m.wamid, m.direction, m.type, m.text, m.details, m.context_wamid, m.forwarded, m.sent_at,
          s.status, s.status_at, s.error_code, s.error_title,
          (SELECT json_agg(json_build_object('reactor_id', r.reactor_id, 'emoji', r.emoji) ORDER BY r.reacted_at)
             FROM whatsapp_reactions r WHERE r.message_wamid = m.wamid AND r.emoji IS NOT NULL) AS reactions
        FROM whatsapp_messages m LEFT JOIN whatsapp_statuses s ON s.wamid = m.wamid
        WHERE m.conversation_id = ${conversationId}
        ORDER BY m.sent_at DESC, m.wamid DESC LIMIT ${limit}
      ) latest ORDER BY sent_at, wamid`,
  );
}

/** Whether a media id belongs to a stored message (the proxy serves nothing else). */
export async function mediaOwned(conn: Conn, mediaId: string): Promise<{ mime_type: string | null } | null> {
  const [row] = await selectRows<{ mime_type: string | null }>(
    conn,
    sql`SELECT details->>'mime_type' AS mime_type FROM whatsapp_messages WHERE details->>'id' = ${mediaId} LIMIT 1`,
  );
  return row ?? null;
}
