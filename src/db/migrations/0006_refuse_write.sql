-- Single-statement writes (a data-modifying WITH) check their business rules inside the statement.
-- When a rule refuses, refuse_write() raises SQLSTATE MS422 carrying the facts as JSON in DETAIL:
-- the whole statement, and any earlier part of it (such as a stored inbound event), is undone,
-- and the application turns the facts back into its own 422 message (see src/db/pg-errors.ts).
CREATE FUNCTION refuse_write(facts jsonb) RETURNS boolean
  LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
  RAISE EXCEPTION 'write refused by a business rule' USING ERRCODE = 'MS422', DETAIL = facts::text;
END;
$$;
