-- Automatic sales-reply agent on the operator inbox (issue 18). Not tenant tables, like the inbox.

-- One row per inbound message the agent looked at, keyed by the inbound mid: the primary key IS the
-- claim (a second claim of the same mid is impossible) and the row is the shadow log of the turn.
-- status: pending (claimed, waiting for send_after), sending (the minute job holds it), sent,
-- held (decided a reply but sending is off), handoff, skipped (not ours to answer; never claimed),
-- cancelled (a human replied, the flag went off…), superseded (a newer inbound message is answered
-- instead), failed (the send failed or the job died while sending: never retried, at most one reply).
CREATE TABLE sales_agent_turns (
  inbound_mid text PRIMARY KEY REFERENCES instagram_messages (mid) ON DELETE CASCADE,
  conversation_id uuid NOT NULL REFERENCES instagram_conversations (id) ON DELETE CASCADE,
  account_id text NOT NULL,
  sender_id text NOT NULL,
  input_text text,
  -- Which path inserted the message and therefore made the claim: webhook, hub or sync.
  claimed_by text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'sending', 'sent', 'held', 'handoff', 'skipped', 'cancelled',
    'superseded', 'failed')),
  -- Why it was skipped, cancelled, superseded, held or failed.
  reason text,
  -- first: first message (60–300 s); active: follow-up in an active thread (15–60 s).
  thread_state text CHECK (thread_state IN ('first', 'active')),
  received_at timestamptz NOT NULL,
  claimed_at timestamptz NOT NULL,
  send_after timestamptz,
  lease_until timestamptz,
  decision text CHECK (decision IN ('reply', 'handoff')),
  reply text,
  handoff_reason text,
  confidence real,
  brain text,
  -- What the brain said before the guardrails, and which guardrails changed it.
  brain_output text,
  guardrails text[] NOT NULL DEFAULT '{}',
  brain_ms integer,
  decided_at timestamptz,
  sent_mid text,
  sent_at timestamptz,
  updated_at timestamptz NOT NULL
);
CREATE INDEX sales_agent_turns_due_idx ON sales_agent_turns (send_after) WHERE status = 'pending';
CREATE INDEX sales_agent_turns_list_idx ON sales_agent_turns (claimed_at DESC, inbound_mid);
CREATE INDEX sales_agent_turns_conversation_idx ON sales_agent_turns (conversation_id, received_at);
CREATE UNIQUE INDEX sales_agent_turns_sent_mid_idx ON sales_agent_turns (sent_mid) WHERE sent_mid IS NOT NULL;

-- The handoff tag of a conversation: while it exists the agent stays silent there; the operator
-- clears it from the agent page when the person can be answered automatically again.
CREATE TABLE sales_agent_handoffs (
  conversation_id uuid PRIMARY KEY REFERENCES instagram_conversations (id) ON DELETE CASCADE,
  inbound_mid text NOT NULL,
  reason text NOT NULL,
  created_at timestamptz NOT NULL
);
