-- Batched ingest of sales.created (see src/modules/integration/sale-batcher.ts): one statement stores
-- and applies several inbound events, so one transaction needs one received_at per event.

-- inbound_stamp(events) works as inbound_stamp() of 0002 and reserves `events` consecutive
-- microseconds: the transaction's events get received_at, received_at + 1 µs, … in that order,
-- all below every received_at handed out afterwards. With 0 events it reserves nothing.
CREATE FUNCTION inbound_stamp(events integer, OUT tx_id xid8, OUT received_at timestamptz)
  LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  stamp_us bigint;
BEGIN
  IF events IS NULL OR events < 0 THEN
    RAISE EXCEPTION 'inbound_stamp(events) needs a count of 0 or more (got %)', events;
  END IF;
  IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
    RAISE EXCEPTION 'inbound_stamp() must run before the transaction writes anything';
  END IF;
  PERFORM pg_advisory_xact_lock_shared(727004);
  BEGIN
    PERFORM pg_advisory_xact_lock(727002);
    tx_id := pg_current_xact_id();
    SELECT greatest(floor(extract(epoch FROM clock_timestamp()) * 1000000)::bigint, last_value + 1)
      INTO stamp_us FROM inbound_clock;
    IF events > 0 THEN
      PERFORM setval('inbound_clock', stamp_us + events - 1);
    END IF;
    RAISE SQLSTATE 'MS001';
  EXCEPTION WHEN SQLSTATE 'MS001' THEN
    NULL;
  END;
  received_at := timestamptz 'epoch' + stamp_us * interval '1 microsecond';
END;
$$;

-- One implementation: the single-event form is the batch form with one event.
CREATE OR REPLACE FUNCTION inbound_stamp(OUT tx_id xid8, OUT received_at timestamptz)
  LANGUAGE sql VOLATILE
AS $$ SELECT s.tx_id, s.received_at FROM inbound_stamp(1) AS s $$;

-- Sales are now written by a statement that reports refused rows instead of raising
-- (src/modules/sales/create-sale.ts): refuse_write() of 0006 has no caller left.
DROP FUNCTION refuse_write(jsonb);
