-- Integration surface: inbound events received on POST /api/integration/in, kept for polling and
-- as the idempotency record. See docs/integraciones.md and DESIGN.md §4.

-- Last received_at handed out, in microseconds since the epoch. A sequence because its value is
-- shared at once by every session and survives rollbacks (it is a register, not a counter).
CREATE SEQUENCE inbound_clock AS bigint MINVALUE 0 START 0;

-- Polling must never move a cursor past an event whose transaction commits later. Three parts:
--
-- 1. inbound_stamp() runs first in every transaction that stores an inbound event. It takes a
--    shared "inbound in flight" advisory lock (held to the end of the transaction), then, inside a
--    short critical section, assigns the transaction id and a received_at strictly greater than
--    every one handed out before. So among inbound transactions, xid order is received_at order.
--    The critical section is a subtransaction that is always rolled back: that releases its lock
--    at once (and on any error), while the xid, the in-flight lock and the sequence value stay.
-- 2. inbound_horizon() returns an xid below which no inbound transaction is still running: the
--    smallest xid among holders of the in-flight lock, or the snapshot's xmax when there are none.
--    Unrelated transactions (other tables, other databases) do not hold it back.
-- 3. A poll first asks for the horizon, then, in a later statement (a newer snapshot), serves only
--    rows whose tx_id is below it. Every row not served yet belongs to a transaction with a larger
--    xid, hence a larger received_at, than every row served: a cursor on received_at skips nothing.
CREATE FUNCTION inbound_stamp(OUT tx_id xid8, OUT received_at timestamptz)
  LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  stamp_us bigint;
BEGIN
  IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
    RAISE EXCEPTION 'inbound_stamp() must run before the transaction writes anything';
  END IF;
  PERFORM pg_advisory_xact_lock_shared(727004);
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

CREATE FUNCTION inbound_horizon() RETURNS xid8
  LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  -- Taken before the in-flight transactions are read: an inbound transaction with a smaller xid
  -- that is not among them below had finished by then.
  xmax bigint := pg_snapshot_xmax(pg_current_snapshot())::text::bigint;
  oldest bigint;
BEGIN
  -- Transaction ids come from the process array (pg_stat_activity), not from pg_locks: a
  -- transaction's xid is in snapshots a moment before its transactionid lock is.
  -- backend_xid is a 32-bit xid: d is how far below xmax it is. Transactions that got their xid
  -- after xmax was taken (d = 0, or "negative", that is above 2^31) cannot hide anything older.
  WITH holders AS (
    SELECT DISTINCT pid FROM pg_locks
    WHERE granted AND locktype = 'advisory' AND classid = 0 AND objid = 727004 AND objsubid = 1
      AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
  ), running AS (
    SELECT ((xmax - a.backend_xid::text::bigint) % 4294967296 + 4294967296) % 4294967296 AS d
    FROM pg_stat_activity a JOIN holders USING (pid)
    WHERE a.backend_xid IS NOT NULL
  )
  SELECT min(xmax - d) INTO oldest FROM running WHERE d BETWEEN 1 AND 2147483648;
  RETURN coalesce(oldest, xmax)::text::xid8;
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
-- Polling and retention (purged company by company) both walk this one.
CREATE INDEX inbound_events_poll_idx ON inbound_events (company_id, received_at, id);
