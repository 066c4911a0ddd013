-- Operator channel on WhatsApp (issue 31): the service's own number on the WhatsApp Business Cloud
-- API. Like the Instagram channel these are not tenant tables: no company_id.

-- The channel record IS the enablement: at most one row, set up on the panel or by CLI.
CREATE TABLE whatsapp_channel (
  -- value.metadata.phone_number_id of the webhook: deliveries are routed by it.
  phone_number_id text PRIMARY KEY CHECK (phone_number_id ~ '^[0-9]{1,30}$'),
  singleton boolean NOT NULL DEFAULT true UNIQUE CHECK (singleton),
  -- entry[].id of the webhook; the approved templates are read from it.
  waba_id text NOT NULL CHECK (waba_id ~ '^[0-9]{1,30}$'),
  display_phone_number text,
  -- The system-user token, AES-256-GCM with SECRET_KEY (src/lib/secrets.ts).
  token_encrypted text NOT NULL,
  -- The sales-reply agent answers on this channel only when this is on.
  agent_enabled boolean NOT NULL DEFAULT false,
  last_webhook_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

-- One thread per contact (wa_id: digits, no +) of our number.
CREATE TABLE whatsapp_conversations (
  id uuid PRIMARY KEY,
  phone_number_id text NOT NULL,
  wa_id text NOT NULL,
  profile_name text,
  last_message_text text,
  last_message_direction text CHECK (last_message_direction IN ('inbound', 'outbound')),
  last_message_at timestamptz,
  -- The 24-hour customer-service window opens with each inbound message.
  last_inbound_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (phone_number_id, wa_id)
);

-- Every message once: duplicate deliveries of a wamid meet the primary key, not a read-then-write.
CREATE TABLE whatsapp_messages (
  wamid text PRIMARY KEY CHECK (length(wamid) BETWEEN 1 AND 256),
  conversation_id uuid NOT NULL REFERENCES whatsapp_conversations (id) ON DELETE CASCADE,
  direction text NOT NULL CHECK (direction IN ('inbound', 'outbound')),
  -- text, image, audio, video, document, sticker, location, contacts, interactive, button,
  -- unsupported, template (ours)…: any type Meta adds is kept as it comes.
  type text NOT NULL,
  -- The readable part: text body, caption, the tapped button's title, a location's name…
  text text,
  -- The type's own object as received (media id and mime type, coordinates, contact cards…).
  details jsonb NOT NULL DEFAULT '{}',
  -- context.id: the message this one replies to.
  context_wamid text,
  forwarded boolean NOT NULL DEFAULT false,
  sent_at timestamptz NOT NULL,
  source text NOT NULL CHECK (source IN ('webhook', 'send')),
  stored_at timestamptz NOT NULL
);
CREATE INDEX whatsapp_messages_thread ON whatsapp_messages (conversation_id, sent_at, wamid);

-- Delivery status of our messages, kept apart so it can arrive before the message is stored and in
-- any order: it only moves forward (sent 1 < delivered 2 < read 3; failed 4 is final).
CREATE TABLE whatsapp_statuses (
  wamid text PRIMARY KEY,
  status text NOT NULL CHECK (status IN ('sent', 'delivered', 'read', 'failed')),
  rank smallint NOT NULL,
  recipient_id text,
  error_code integer,
  error_title text,
  status_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

-- A contact's reaction to one message: the latest one wins; removal clears the emoji.
CREATE TABLE whatsapp_reactions (
  message_wamid text NOT NULL,
  reactor_id text NOT NULL,
  emoji text,
  reacted_at timestamptz NOT NULL,
  PRIMARY KEY (message_wamid, reactor_id)
);
