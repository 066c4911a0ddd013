-- The sales-reply agent on WhatsApp too (issue 31). A turn and a handoff now belong to a channel:
-- the inbound id is an Instagram mid or a WhatsApp wamid, the conversation one of either inbox.
-- The foreign keys to the Instagram tables go (a key cannot point at two tables); nothing deletes
-- inbox messages or conversations, and both ids are unique across channels (mids and wamids differ
-- in form, conversation ids are random uuids). The primary key on the inbound id stays the claim.
ALTER TABLE sales_agent_turns ADD COLUMN channel text NOT NULL DEFAULT 'instagram'
  CHECK (channel IN ('instagram', 'whatsapp'));
ALTER TABLE sales_agent_turns DROP CONSTRAINT sales_agent_turns_inbound_mid_fkey;
ALTER TABLE sales_agent_turns DROP CONSTRAINT sales_agent_turns_conversation_id_fkey;
ALTER TABLE sales_agent_handoffs ADD COLUMN channel text NOT NULL DEFAULT 'instagram'
  CHECK (channel IN ('instagram', 'whatsapp'));
ALTER TABLE sales_agent_handoffs DROP CONSTRAINT sales_agent_handoffs_conversation_id_fkey;
-- Pending turns whose reply is not planned yet (the minute job plans it ahead, for the shadow log).
CREATE INDEX sales_agent_turns_unplanned_idx ON sales_agent_turns (send_after) WHERE status = 'pending' AND decided_at IS NULL;
