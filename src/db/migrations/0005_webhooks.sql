-- Outbound webhooks (design §5): endpoints per company, one delivery per (endpoint, event), every
-- attempt logged. outbox_events gains a dispatch marker: the relay turns undispatched events into
-- deliveries and marks them, in one transaction, so an event is never fanned out twice or lost.

ALTER TABLE outbox_events ADD COLUMN dispatched_at timestamptz;
-- The transaction that wrote the event: events of one change are delivered to an endpoint in order.
ALTER TABLE outbox_events ADD COLUMN tx_id bigint NOT NULL DEFAULT txid_current();
-- Insertion order (clock_timestamp() can repeat within a transaction on coarse clocks).
ALTER TABLE outbox_events ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;
-- Events recorded before webhooks existed had no endpoint to go to.
UPDATE outbox_events SET dispatched_at = created_at;
CREATE INDEX outbox_events_undispatched_idx ON outbox_events (created_at, id) WHERE dispatched_at IS NULL;
CREATE INDEX outbox_events_dispatched_idx ON outbox_events (dispatched_at) WHERE dispatched_at IS NOT NULL;

-- Workers LISTEN on this channel; a notification is delivered when the inserting transaction commits,
-- which is exactly when the event may be delivered. A periodic poll covers missed notifications.
-- Only changes of companies with an enabled endpoint notify: a NOTIFY serialises committing
-- transactions on a server-wide lock, a cost companies without webhooks should not pay.
CREATE FUNCTION notify_webhook_dispatch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM inserted i JOIN webhook_endpoints e ON e.company_id = i.company_id AND e.enabled) THEN
    PERFORM pg_notify('mostrador_webhooks', '');
  END IF;
  RETURN NULL;
END
$$;

CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY,
  company_id integer NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  url text NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
  description text NOT NULL DEFAULT '' CHECK (length(description) <= 500),
  -- NULL: every event.
  events text[],
  -- Extra headers often carry credentials (Authorization): the JSON object is kept encrypted,
  -- the names in clear for listings.
  headers_encrypted text,
  header_names text[] NOT NULL DEFAULT '{}',
  -- Signing needs the plaintext, so secrets are encrypted (AES-256-GCM with SECRET_KEY), never hashed.
  secret_encrypted text NOT NULL,
  previous_secret_encrypted text,
  previous_secret_expires_at timestamptz,
  enabled boolean NOT NULL DEFAULT true,
  disabled_reason text CHECK (disabled_reason IN ('manual', 'gone', 'failing')),
  disabled_at timestamptz,
  -- First failure since the last success; five days of failures disable the endpoint.
  failing_since timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (enabled = (disabled_reason IS NULL)),
  CHECK ((previous_secret_encrypted IS NULL) = (previous_secret_expires_at IS NULL))
);
CREATE INDEX webhook_endpoints_company_idx ON webhook_endpoints (company_id, created_at);

-- A delivery is the state of one event for one endpoint; the table is also the work queue:
-- a worker claims due rows with FOR UPDATE SKIP LOCKED, stamps a lease token and pushes
-- next_attempt_at to the end of the lease, so a worker that dies mid-attempt leaves a row that
-- becomes due again (retried, never lost) and two workers never hold the same attempt.
CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY,
  company_id integer NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id uuid NOT NULL REFERENCES outbox_events (id) ON DELETE CASCADE,
  event text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('event', 'test')),
  status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  -- Every attempt ever made, and those since the last redelivery request (they drive the schedule).
  attempts integer NOT NULL DEFAULT 0,
  round_attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  -- Set while a worker holds the delivery; still set when the next claim happens means that worker died.
  lease_token uuid,
  last_status_code integer,
  last_error text,
  event_created_at timestamptz NOT NULL,
  -- outbox_events.tx_id: a delivery waits while an earlier one of the same change is pending.
  source_tx bigint,
  event_seq bigint,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  delivered_at timestamptz,
  UNIQUE (endpoint_id, event_id),
  CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at, event_created_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (company_id, endpoint_id, event_created_at DESC);
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id);
CREATE INDEX webhook_deliveries_same_change_idx ON webhook_deliveries (endpoint_id, source_tx) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_settled_idx ON webhook_deliveries (updated_at) WHERE status <> 'pending';

CREATE TRIGGER outbox_events_notify AFTER INSERT ON outbox_events
  REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT EXECUTE FUNCTION notify_webhook_dispatch();

CREATE TABLE webhook_attempts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  company_id integer NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt integer NOT NULL CHECK (attempt > 0),
  started_at timestamptz NOT NULL,
  duration_ms integer,
  status_code integer,
  -- The first 1 KB of the answer.
  response_body text,
  error text,
  outcome text NOT NULL CHECK (outcome IN ('delivered', 'failed'))
);
CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (delivery_id, attempt);
CREATE INDEX webhook_attempts_company_idx ON webhook_attempts (company_id);
CREATE INDEX webhook_attempts_started_idx ON webhook_attempts (started_at);
