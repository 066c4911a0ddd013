-- An Argentine mobile is one person whether it is written 549 + 10 digits (as Meta sends the wa_id)
-- or 54 + 10 digits (without the mobile 9). The lookups already tried both spellings, but nothing
-- stopped two threads for one person: threads stored before that (or two first messages at the same
-- time, one per spelling) kept splitting the conversation. Now the database keeps one thread per
-- person (docs/decisiones.md, "Un solo hilo de WhatsApp por persona, también en la base").

-- The SQL twin of sameWaIdKey (src/modules/whatsapp/phone.ts): 54 + 10 digits becomes 549 + 10 digits.
CREATE FUNCTION whatsapp_person_key(wa_id text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT CASE WHEN wa_id ~ '^54[0-9]{10}$' THEN '549' || substr(wa_id, 3) ELSE wa_id END $$;

-- Threads already split: the older one stays and takes the other's messages, agent turns, handoff,
-- preview and window. There are at most two per person (there are only two spellings).
CREATE TEMPORARY TABLE whatsapp_thread_merge ON COMMIT DROP AS
  SELECT keep.id AS keep_id, dup.id AS dup_id
  FROM whatsapp_conversations keep
  JOIN whatsapp_conversations dup ON dup.phone_number_id = keep.phone_number_id
    AND whatsapp_person_key(dup.wa_id) = whatsapp_person_key(keep.wa_id)
    AND (dup.created_at, dup.id) > (keep.created_at, keep.id);

UPDATE whatsapp_messages m SET conversation_id = g.keep_id
  FROM whatsapp_thread_merge g WHERE m.conversation_id = g.dup_id;

UPDATE sales_agent_turns t SET conversation_id = g.keep_id
  FROM whatsapp_thread_merge g WHERE t.channel = 'whatsapp' AND t.conversation_id = g.dup_id;

UPDATE sales_agent_handoffs h SET conversation_id = g.keep_id
  FROM whatsapp_thread_merge g
  WHERE h.channel = 'whatsapp' AND h.conversation_id = g.dup_id
    AND NOT EXISTS (SELECT 1 FROM sales_agent_handoffs k WHERE k.conversation_id = g.keep_id);
DELETE FROM sales_agent_handoffs h USING whatsapp_thread_merge g WHERE h.conversation_id = g.dup_id;

UPDATE whatsapp_conversations k SET
  profile_name = CASE WHEN d.last_message_at > k.last_message_at OR k.last_message_at IS NULL
    THEN COALESCE(d.profile_name, k.profile_name) ELSE COALESCE(k.profile_name, d.profile_name) END,
  last_message_text = CASE WHEN d.last_message_at > k.last_message_at OR k.last_message_at IS NULL
    THEN COALESCE(d.last_message_text, k.last_message_text) ELSE k.last_message_text END,
  last_message_direction = CASE WHEN d.last_message_at > k.last_message_at OR k.last_message_at IS NULL
    THEN COALESCE(d.last_message_direction, k.last_message_direction) ELSE k.last_message_direction END,
  last_message_at = GREATEST(k.last_message_at, d.last_message_at),
  last_inbound_at = GREATEST(k.last_inbound_at, d.last_inbound_at),
  send_to = COALESCE(k.send_to, d.send_to),
  updated_at = GREATEST(k.updated_at, d.updated_at)
  FROM whatsapp_thread_merge g JOIN whatsapp_conversations d ON d.id = g.dup_id
  WHERE k.id = g.keep_id;

DELETE FROM whatsapp_conversations c USING whatsapp_thread_merge g WHERE c.id = g.dup_id;
DROP TABLE whatsapp_thread_merge;

CREATE UNIQUE INDEX whatsapp_conversations_person ON whatsapp_conversations (phone_number_id, whatsapp_person_key(wa_id));
