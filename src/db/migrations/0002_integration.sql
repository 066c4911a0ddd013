-- Integration surface: inbound events received on POST /api/integration/in, kept for polling and
-- as the idempotency record. See docs/integraciones.md and DESIGN.md §4.

-- Last received_at handed out, in microseconds since the epoch. A sequence because its value is
-- shared at once by every session and survives rollbacks (it is a register, not a counter).
CREATE SEQUENCE inbound_clock AS bigint MINVALUE 0 START 0;

-- Stamps the calling transaction: assigns its transaction id and a received_at strictly greater
-- than every one handed out before, both inside one short critical section. So for any two
-- inbound transactions, the one with the smaller xid has the smaller received_at. The poll serves
-- only rows whose xid is below the snapshot's xmin (their transaction and every older one has
-- finished); with the property above, everything not served yet will be stamped later than what
-- was served, so a cursor on received_at never skips a transaction that commits late.
-- The critical section is a subtransaction that is always rolled back: that releases the lock at
-- once (and on any error), while the xid and the sequence value stay.
CREATE FUNCTION inbound_stamp(OUT tx_id xid8, OUT received_at timestamptz)
  LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  stamp_us bigint;
BEGIN
  IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
    RAISE EXCEPTION 'inbound_stamp() must run before the transaction writes anything';
  END IF;
  BEGIN
    PERFORM pg_advisory_xact_lock(727002);
    tx_id := pg_current_xact_id();
    SELECT greatest(floor(extract(epoch FROM clock_timestamp()) * 1000000)::bigint, last_value + 1)
      INTO stamp_us FROM inbound_clock;
    PERFORM setval('inbound_clock', stamp_us);
    RAISE SQLSTATE 'MS001';
  EXCEPTION WHEN SQLSTATE 'MS001' THEN
    NULL;
  END;
  received_at := timestamptz 'epoch' + stamp_us * interval '1 microsecond';
END;
$$;

CREATE TABLE inbound_events (
  id uuid PRIMARY KEY,
  company_id integer NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  event text NOT NULL,
  -- The sender's x-idempotency-key, or the event's own id when none was sent.
  idempotency_key text NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 255),
  -- The envelope exactly as received (json keeps the text: key order and number spelling).
  payload json NOT NULL,
  body_sha256 char(64) NOT NULL,
  signature_valid boolean NOT NULL,
  received_at timestamptz NOT NULL,
  tx_id xid8 NOT NULL
);
-- Idempotency scope (company, event, key), enforced in the transaction that applies the event.
CREATE UNIQUE INDEX inbound_events_idempotency_key ON inbound_events (company_id, event, idempotency_key);
CREATE INDEX inbound_events_poll_idx ON inbound_events (company_id, received_at, id);
CREATE INDEX inbound_events_received_idx ON inbound_events (received_at);
