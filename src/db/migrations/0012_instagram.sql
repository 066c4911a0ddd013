-- Operator channel (issue 16): the service's own Instagram professional account and its direct
-- messages. These are not tenant tables: no company_id; keys are uuids or Instagram ids.

-- The connected-channel record IS the enablement (inbox rule 7): at most one row.
CREATE TABLE instagram_channel (
  -- `user_id` of /me: the professional account id, equal to webhook entry[].id. Text: it can be
  -- larger than 2^53 and must never lose digits.
  account_id text PRIMARY KEY CHECK (account_id ~ '^[0-9]{1,30}$'),
  singleton boolean NOT NULL DEFAULT true UNIQUE CHECK (singleton),
  username text,
  -- The long-lived token, AES-256-GCM with SECRET_KEY (src/lib/secrets.ts).
  token_encrypted text NOT NULL,
  token_expires_at timestamptz NOT NULL,
  -- When the current token was issued (exchange or refresh): refresh needs it to be 24 h old.
  token_issued_at timestamptz NOT NULL,
  permissions text[] NOT NULL DEFAULT '{}',
  reconnect_required boolean NOT NULL DEFAULT false,
  reconnect_reason text,
  subscribed_at timestamptz,
  subscription_checked_at timestamptz,
  last_webhook_at timestamptz,
  last_sync_at timestamptz,
  last_sync_error text,
  -- The backup sync runs once across processes: a worker claims it by pushing this forward.
  sync_lease_until timestamptz,
  connected_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

-- Single-use OAuth state, bound to the session that asked to connect. Only the hash is kept.
CREATE TABLE instagram_oauth_states (
  state_hash text PRIMARY KEY,
  session_id text NOT NULL,
  user_id integer NOT NULL,
  -- The operator confirmed replacing the connected account by another one.
  replace_confirmed boolean NOT NULL DEFAULT false,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL
);

-- One thread per (our account, other participant). Webhooks name the participant, not the thread:
-- graph_id (the Graph conversation id) is filled when a sync or a thread read learns it.
CREATE TABLE instagram_conversations (
  id uuid PRIMARY KEY,
  account_id text NOT NULL,
  participant_id text NOT NULL,
  participant_username text,
  graph_id text UNIQUE,
  last_message_text text,
  last_message_at timestamptz,
  -- The participant's latest read receipt (messaging_seen).
  read_mid text,
  read_at timestamptz,
  updated_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  UNIQUE (account_id, participant_id)
);
CREATE INDEX instagram_conversations_list_idx ON instagram_conversations (account_id, updated_at DESC);

-- Every message once, whatever brought it (webhook, hub, sync, send, echo): the Instagram mid is the key.
CREATE TABLE instagram_messages (
  mid text PRIMARY KEY CHECK (length(mid) BETWEEN 1 AND 512),
  conversation_id uuid NOT NULL REFERENCES instagram_conversations (id) ON DELETE CASCADE,
  account_id text NOT NULL,
  direction text NOT NULL CHECK (direction IN ('inbound', 'outbound')),
  sender_id text NOT NULL,
  text text,
  sent_at timestamptz NOT NULL,
  is_deleted boolean NOT NULL DEFAULT false,
  is_unsupported boolean NOT NULL DEFAULT false,
  -- Outbound sent from the Instagram app itself (an echo we did not send).
  is_external_echo boolean NOT NULL DEFAULT false,
  reply_to_mid text,
  -- Which path stored it first: webhook, hub, sync or send.
  source text NOT NULL CHECK (source IN ('webhook', 'hub', 'sync', 'send')),
  stored_at timestamptz NOT NULL
);
CREATE INDEX instagram_messages_thread_idx ON instagram_messages (conversation_id, sent_at, mid);

-- Attachments of a message. No media URL is kept (Meta's rule on CDN content): the stream
-- endpoint asks the Graph for a fresh URL each time. `id` is the Graph attachment id when known,
-- else `<mid>.<position>` (webhooks carry no attachment id).
CREATE TABLE instagram_attachments (
  message_mid text NOT NULL REFERENCES instagram_messages (mid) ON DELETE CASCADE,
  position integer NOT NULL CHECK (position >= 0),
  id text NOT NULL UNIQUE,
  type text,
  mime_type text,
  name text,
  size bigint,
  PRIMARY KEY (message_mid, position)
);

-- Reactions (message_reactions), kept even when they arrive before the message they point to.
CREATE TABLE instagram_reactions (
  message_mid text NOT NULL,
  reactor_id text NOT NULL,
  reaction text,
  emoji text,
  reacted_at timestamptz NOT NULL,
  PRIMARY KEY (message_mid, reactor_id)
);
