-- A register sale is written by ONE statement, committed on its own (issue 33): no transaction
-- around it, so no BEGIN, no advisory lock and no COMMIT round trip per sale. Its register row
-- takes its box session through this function, which holds the session (FOR SHARE: a shift cannot
-- close under the sale) and raises when it is no longer open, so the whole statement writes
-- nothing. The idempotency key's unique index (register_sales_key) is the other guard: a second
-- sale with the same key fails on it and is answered as the replay it is.
CREATE FUNCTION lock_open_box_session(p_company_id integer, p_session_id integer) RETURNS integer
  LANGUAGE plpgsql
AS $$
DECLARE
  held integer;
BEGIN
  SELECT id INTO held FROM box_sessions
   WHERE company_id = p_company_id AND id = p_session_id AND status = 'open'
   FOR SHARE;
  IF held IS NULL THEN
    RAISE EXCEPTION 'box session % is not open', p_session_id USING ERRCODE = 'P0001', HINT = 'no_open_session';
  END IF;
  RETURN held;
END;
$$;
