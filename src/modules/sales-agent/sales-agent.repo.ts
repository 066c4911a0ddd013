import type { Q } from '../instagram/instagram.repo.ts';

/** The inboxes the agent answers on (issue 18: Instagram; issue 31: WhatsApp). */
export type Channel = 'instagram' | 'whatsapp';

/** Each channel's message table and id column: fixed names, never from input. */
const INBOX: Record<Channel, { messages: string; id: string; deleted: string }> = {
  instagram: { messages: 'instagram_messages', id: 'mid', deleted: 'm.is_deleted' },
  whatsapp: { messages: 'whatsapp_messages', id: 'wamid', deleted: 'false' },
};

export type TurnStatus = 'pending' | 'sending' | 'sent' | 'held' | 'handoff' | 'skipped' | 'cancelled' | 'superseded' | 'failed';

export interface TurnRow {
  inbound_mid: string;
  channel: Channel;
  conversation_id: string;
  account_id: string;
  sender_id: string;
  input_text: string | null;
  claimed_by: string;
  status: TurnStatus;
  reason: string | null;
  thread_state: 'first' | 'active' | null;
  received_at: Date;
  claimed_at: Date;
  send_after: Date | null;
  decision: 'reply' | 'handoff' | null;
  reply: string | null;
  handoff_reason: string | null;
  confidence: number | null;
  brain: string | null;
  brain_output: string | null;
  guardrails: string[];
  brain_ms: number | null;
  decided_at: Date | null;
  sent_mid: string | null;
  sent_at: Date | null;
  updated_at: Date;
}

const COLUMNS = `inbound_mid, channel, conversation_id, account_id, sender_id, input_text, claimed_by, status, reason, thread_state,
  received_at, claimed_at, send_after, decision, reply, handoff_reason, confidence, brain, brain_output, guardrails,
  brain_ms, decided_at, sent_mid, sent_at, updated_at`;

export interface TurnInsert {
  mid: string;
  channel: Channel;
  conversationId: string;
  accountId: string;
  senderId: string;
  text: string | null;
  source: string;
  status: 'pending' | 'skipped';
  reason: string | null;
  threadState: 'first' | 'active' | null;
  receivedAt: Date;
  sendAfter: Date | null;
  now: Date;
}

/** The claim (or the skipped record): the primary key on the inbound mid makes a second one impossible. */
export async function insertTurn(q: Q, t: TurnInsert): Promise<boolean> {
  const rows = await q.query(
    `INSERT INTO sales_agent_turns (inbound_mid, conversation_id, account_id, sender_id, input_text, claimed_by, status,
       reason, thread_state, received_at, claimed_at, send_after, updated_at, channel)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $11, $13)
     ON CONFLICT (inbound_mid) DO NOTHING RETURNING inbound_mid`,
    [
      t.mid,
      t.conversationId,
      t.accountId,
      t.senderId,
      t.text,
      t.source,
      t.status,
      t.reason,
      t.threadState,
      t.receivedAt,
      t.now,
      t.sendAfter,
      t.channel,
    ],
  );
  return rows.length > 0;
}

export async function handoffOpen(q: Q, conversationId: string): Promise<boolean> {
  return (
    (await q.query('SELECT 1 FROM sales_agent_handoffs WHERE conversation_id = $1 AND resumed_at IS NULL', [conversationId]))
      .length > 0
  );
}

/** Did we (agent or operator) write to this person in the window before `at`? That makes the thread active. */
export async function ourMessageSince(q: Q, channel: Channel, conversationId: string, since: Date): Promise<boolean> {
  const rows = await q.query(
    `SELECT 1 FROM ${INBOX[channel].messages} WHERE conversation_id = $1 AND direction = 'outbound' AND sent_at >= $2 LIMIT 1`,
    [conversationId, since],
  );
  return rows.length > 0;
}

/** Turns left in `sending` by a process that died: never retried (at most one reply), marked failed. */
export async function failAbandoned(q: Q, now: Date): Promise<number> {
  const rows = await q.query(
    `UPDATE sales_agent_turns SET status = 'failed', reason = 'interrupted while sending', lease_until = NULL, updated_at = $1
     WHERE status = 'sending' AND lease_until < $1 RETURNING inbound_mid`,
    [now],
  );
  return rows.length;
}

export async function cancelPending(q: Q, reason: string, now: Date): Promise<number> {
  const rows = await q.query(
    `UPDATE sales_agent_turns SET status = 'cancelled', reason = $1, updated_at = $2 WHERE status = 'pending' RETURNING inbound_mid`,
    [reason, now],
  );
  return rows.length;
}

/** Takes the next due turn for this process: pending → sending with a lease, one process only. */
export async function takeDue(q: Q, now: Date, leaseMs: number): Promise<TurnRow | null> {
  const rows = await q.query<TurnRow>(
    `UPDATE sales_agent_turns SET status = 'sending', lease_until = $2, updated_at = $1
     WHERE inbound_mid = (SELECT inbound_mid FROM sales_agent_turns WHERE status = 'pending' AND send_after <= $1
                          ORDER BY send_after, inbound_mid LIMIT 1 FOR UPDATE SKIP LOCKED)
       AND status = 'pending'
     RETURNING ${COLUMNS}`,
    [now, new Date(now.getTime() + leaseMs)],
  );
  return rows[0] ?? null;
}

export async function finishTurn(
  q: Q,
  mid: string,
  f: {
    status: TurnStatus;
    reason?: string | null;
    inputText?: string | null;
    decision?: 'reply' | 'handoff' | null;
    reply?: string | null;
    handoffReason?: string | null;
    confidence?: number | null;
    brain?: string | null;
    brainOutput?: string | null;
    guardrails?: string[];
    brainMs?: number | null;
    decidedAt?: Date | null;
    sentMid?: string | null;
    sentAt?: Date | null;
    now: Date;
  },
) {
  await q.query(
    `UPDATE sales_agent_turns SET status = $2, reason = $3, input_text = COALESCE($4, input_text), decision = $5, reply = $6,
       handoff_reason = $7, confidence = $8, brain = $9, brain_output = $10, guardrails = $11, brain_ms = $12,
       decided_at = $13, sent_mid = $14, sent_at = $15, lease_until = NULL, updated_at = $16
     WHERE inbound_mid = $1`,
    [
      mid,
      f.status,
      f.reason ?? null,
      f.inputText ?? null,
      f.decision ?? null,
      f.reply ?? null,
      f.handoffReason ?? null,
      f.confidence ?? null,
      f.brain ?? null,
      f.brainOutput ?? null,
      f.guardrails ?? [],
      f.brainMs ?? null,
      f.decidedAt ?? null,
      f.sentMid ?? null,
      f.sentAt ?? null,
      f.now,
    ],
  );
}

export interface ThreadMessage {
  mid: string;
  direction: 'inbound' | 'outbound';
  text: string | null;
  sent_at: Date;
  is_deleted: boolean;
  by_agent: boolean;
}

/** The conversation up to a point, oldest first, with our agent's own messages marked. */
export async function threadUpTo(q: Q, channel: Channel, conversationId: string, limit = 30): Promise<ThreadMessage[]> {
  const { messages, id, deleted } = INBOX[channel];
  const rows = await q.query<ThreadMessage>(
    `SELECT * FROM (SELECT m.${id} AS mid, m.direction, m.text, m.sent_at, ${deleted} AS is_deleted,
         EXISTS (SELECT 1 FROM sales_agent_turns t WHERE t.sent_mid = m.${id}) AS by_agent
       FROM ${messages} m WHERE m.conversation_id = $1 ORDER BY m.sent_at DESC, m.${id} DESC LIMIT $2) newest
     ORDER BY sent_at, mid`,
    [conversationId, limit],
  );
  return rows;
}

/** A newer inbound message of the same conversation that has its own claim (it is answered instead). */
export async function newerClaimed(q: Q, turn: TurnRow): Promise<string | null> {
  const { messages, id } = INBOX[turn.channel];
  const rows = await q.query<{ inbound_mid: string }>(
    `SELECT t.inbound_mid FROM sales_agent_turns t JOIN ${messages} m ON m.${id} = t.inbound_mid
     WHERE t.conversation_id = $1 AND t.inbound_mid <> $2 AND t.status IN ('pending', 'sending', 'sent', 'held', 'handoff')
       AND (m.sent_at, m.${id}) > (SELECT sent_at, ${id} FROM ${messages} WHERE ${id} = $2)
     LIMIT 1`,
    [turn.conversation_id, turn.inbound_mid],
  );
  return rows[0]?.inbound_mid ?? null;
}

/** An outbound message after the inbound one that the agent did not send: a person answered. */
export async function humanReplied(q: Q, turn: TurnRow): Promise<boolean> {
  const { messages, id } = INBOX[turn.channel];
  const rows = await q.query(
    `SELECT 1 FROM ${messages} m WHERE m.conversation_id = $1 AND m.direction = 'outbound'
       -- Since the message, or since it arrived when its timestamp was ahead of our clock.
       AND m.sent_at >= LEAST((SELECT sent_at FROM ${messages} WHERE ${id} = $2), $3::timestamptz)
       AND NOT EXISTS (SELECT 1 FROM sales_agent_turns t WHERE t.sent_mid = m.${id})
     LIMIT 1`,
    [turn.conversation_id, turn.inbound_mid, turn.received_at],
  );
  return rows.length > 0;
}

/** Why a conversation is the team's: they opened it, or wrote after the agent's last part in it. */
export type TeamReason = 'human_started' | 'human_replied';

/**
 * A person of the team wrote in this conversation before the message, after the agent's last part
 * in it: 'human_started' when the agent never had a part there (they opened the conversation),
 * 'human_replied' when they wrote after it (they stepped in after the agent answered). Either way
 * the conversation is the team's and the agent does not cut in; null when nobody of the team wrote
 * since. The agent's part is a turn it decided, sent or handed over, one that tagged the
 * conversation for the team, or the operator giving the conversation back: the team's messages
 * written before it no longer count.
 */
export async function teamWrote(
  q: Q,
  channel: Channel,
  conversationId: string,
  mid: string,
  receivedAt: Date,
): Promise<TeamReason | null> {
  const { messages, id } = INBOX[channel];
  const rows = await q.query<{ agent_was_here: boolean }>(
    `WITH last_part AS (
       SELECT GREATEST(
         (SELECT max(t.received_at) FROM sales_agent_turns t
           WHERE t.conversation_id = $1 AND t.inbound_mid <> $2
             AND (t.status IN ('sending', 'sent', 'held', 'handoff', 'failed') OR t.reason IN ('human_replied', 'human_started'))),
         (SELECT h.resumed_at FROM sales_agent_handoffs h WHERE h.conversation_id = $1)) AS at)
     SELECT (SELECT at FROM last_part) IS NOT NULL AS agent_was_here
       FROM ${messages} m WHERE m.conversation_id = $1 AND m.direction = 'outbound'
       AND m.sent_at < LEAST((SELECT sent_at FROM ${messages} WHERE ${id} = $2), $3::timestamptz)
       AND m.sent_at > coalesce((SELECT at FROM last_part), '-infinity'::timestamptz)
       AND NOT EXISTS (SELECT 1 FROM sales_agent_turns t WHERE t.sent_mid = m.${id})
     LIMIT 1`,
    [conversationId, mid, receivedAt],
  );
  if (rows.length === 0) return null;
  return rows[0]!.agent_was_here ? 'human_replied' : 'human_started';
}

/** Whether the inbound message is still there and not deleted (Instagram lets a person unsend it). */
export async function messageLive(q: Q, turn: TurnRow): Promise<boolean> {
  const { messages, id, deleted } = INBOX[turn.channel];
  const rows = await q.query(`SELECT 1 FROM ${messages} m WHERE m.${id} = $1 AND NOT ${deleted}`, [turn.inbound_mid]);
  return rows.length > 0;
}

/** Tags the conversation for the team (a handoff mark); a mark given back earlier is opened again. */
export async function tagHandoff(q: Q, channel: Channel, conversationId: string, mid: string, reason: string, now: Date) {
  await q.query(
    `INSERT INTO sales_agent_handoffs (conversation_id, inbound_mid, reason, created_at, channel) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (conversation_id) DO UPDATE
       SET inbound_mid = EXCLUDED.inbound_mid, reason = EXCLUDED.reason, created_at = EXCLUDED.created_at, resumed_at = NULL
       WHERE sales_agent_handoffs.resumed_at IS NOT NULL`,
    [conversationId, mid, reason, now, channel],
  );
}

/** Gives the conversation back to the agent: its open mark is closed at `now` (kept, with the time). */
export async function resumeHandoff(q: Q, conversationId: string, now: Date): Promise<boolean> {
  return (
    (
      await q.query(
        'UPDATE sales_agent_handoffs SET resumed_at = $2 WHERE conversation_id = $1 AND resumed_at IS NULL RETURNING conversation_id',
        [conversationId, now],
      )
    ).length > 0
  );
}

export interface TurnFilters {
  status?: string;
  decision?: string;
  sender?: string;
  channel?: Channel;
  q?: string;
  limit: number;
  before?: Date;
}

/** A turn with the contact as the inbox names them: @username on Instagram, profile name on WhatsApp. */
export type ListedTurn = TurnRow & {
  participant_username: string | null;
  profile_name: string | null;
  handoff_open: boolean;
};

export async function listTurns(q: Q, f: TurnFilters): Promise<ListedTurn[]> {
  return q.query<ListedTurn>(
    `SELECT ${COLUMNS.split(',')
      .map((c) => `t.${c.trim()}`)
      .join(', ')}, ic.participant_username, wc.profile_name,
       EXISTS (SELECT 1 FROM sales_agent_handoffs h WHERE h.conversation_id = t.conversation_id AND h.resumed_at IS NULL) AS handoff_open
     FROM sales_agent_turns t
       LEFT JOIN instagram_conversations ic ON t.channel = 'instagram' AND ic.id = t.conversation_id
       LEFT JOIN whatsapp_conversations wc ON t.channel = 'whatsapp' AND wc.id = t.conversation_id
     WHERE ($1::text IS NULL OR t.status = $1) AND ($2::text IS NULL OR t.decision = $2)
       AND ($3::text IS NULL OR t.sender_id = $3 OR ic.participant_username ILIKE $8 OR wc.profile_name ILIKE '%' || $8 || '%'
         -- A WhatsApp number written with or without the mobile 9 (or a +) is the same person.
         OR (t.channel = 'whatsapp' AND whatsapp_person_key(t.sender_id) = whatsapp_person_key(ltrim($3, '+'))))
       AND ($4::text IS NULL OR t.input_text ILIKE '%' || $9 || '%' OR t.reply ILIKE '%' || $9 || '%')
       AND ($5::timestamptz IS NULL OR t.claimed_at < $5)
       AND ($7::text IS NULL OR t.channel = $7)
     ORDER BY t.claimed_at DESC, t.inbound_mid LIMIT $6`,
    [
      f.status ?? null,
      f.decision ?? null,
      f.sender ?? null,
      f.q ?? null,
      f.before ?? null,
      f.limit,
      f.channel ?? null,
      likeLiteral(f.sender),
      likeLiteral(f.q),
    ],
  );
}

/** A search text as a LIKE pattern that matches it literally: `%` and `_` are not wildcards there. */
function likeLiteral(text: string | undefined): string | null {
  return text === undefined ? null : text.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

/** Pending turns not planned yet, soonest first: the minute job decides their reply ahead for the log. */
export async function unplanned(q: Q, limit: number): Promise<TurnRow[]> {
  return q.query<TurnRow>(
    `SELECT ${COLUMNS} FROM sales_agent_turns WHERE status = 'pending' AND decided_at IS NULL
     ORDER BY send_after, inbound_mid LIMIT $1`,
    [limit],
  );
}

/** Stores the planned decision of a turn still waiting (only while it is still pending and unplanned). */
export async function planTurn(
  q: Q,
  mid: string,
  f: {
    inputText: string;
    decision: 'reply' | 'handoff';
    reply: string | null;
    handoffReason: string | null;
    confidence: number;
    brain: string;
    brainOutput: string;
    guardrails: string[];
    brainMs: number;
    decidedAt: Date;
  },
): Promise<boolean> {
  const rows = await q.query(
    `UPDATE sales_agent_turns SET input_text = $2, decision = $3, reply = $4, handoff_reason = $5, confidence = $6, brain = $7,
       brain_output = $8, guardrails = $9, brain_ms = $10, decided_at = $11, updated_at = $11
     WHERE inbound_mid = $1 AND status = 'pending' AND decided_at IS NULL RETURNING inbound_mid`,
    [
      mid,
      f.inputText,
      f.decision,
      f.reply,
      f.handoffReason,
      f.confidence,
      f.brain,
      f.brainOutput,
      f.guardrails,
      f.brainMs,
      f.decidedAt,
    ],
  );
  return rows.length > 0;
}

export async function countByStatus(q: Q): Promise<Record<string, number>> {
  const rows = await q.query<{ status: string; n: number | string }>(
    'SELECT status, count(*) AS n FROM sales_agent_turns GROUP BY status',
  );
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}
