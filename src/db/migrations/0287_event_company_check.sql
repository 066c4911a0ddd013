-- The event logs (outbox_events, inbound_events) check their company once per statement instead of
-- once per row. A foreign key checks each row by locking the company's row FOR KEY SHARE: a
-- register sale writes 8 outbox events, so 8 locks on the one companies row, taken by every
-- concurrent sale of the company, each new locker turning the row's lock into a new MultiXact. On
-- the POS bench that was about 10 % of PostgreSQL's CPU per sale (docs/decisiones.md, issue 33).
--
-- What stays the same: an event of a company that does not exist is refused with SQLSTATE 23503
-- (foreign_key_violation), the statement writes nothing; deleting a company deletes its events.
-- What the trigger does not do that the key did: lock the company while the event commits. A
-- company deleted concurrently with a transaction writing its events could leave them behind; the
-- application never deletes a company (the back office disables it), so nothing can race.
ALTER TABLE outbox_events DROP CONSTRAINT outbox_events_company_id_fkey;
ALTER TABLE inbound_events DROP CONSTRAINT inbound_events_company_id_fkey;

CREATE FUNCTION refuse_events_of_unknown_companies() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  v_company integer;
BEGIN
  SELECT i.company_id INTO v_company FROM inserted i
    WHERE NOT EXISTS (SELECT 1 FROM companies c WHERE c.id = i.company_id)
    LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'insert or update on table "%" violates the company of its events: company % does not exist',
      TG_TABLE_NAME, v_company
      USING ERRCODE = '23503';
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER outbox_events_company AFTER INSERT ON outbox_events
  REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_events_of_unknown_companies();
CREATE TRIGGER inbound_events_company AFTER INSERT ON inbound_events
  REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_events_of_unknown_companies();

-- An update that names company_id (none does today) is checked too; one that does not (marking an
-- event dispatched or processed) fires nothing.
CREATE FUNCTION refuse_event_moved_to_unknown_company() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM companies c WHERE c.id = NEW.company_id) THEN
    RAISE EXCEPTION 'insert or update on table "%" violates the company of its events: company % does not exist',
      TG_TABLE_NAME, NEW.company_id
      USING ERRCODE = '23503';
  END IF;
  RETURN NEW;
END
$$;

CREATE TRIGGER outbox_events_company_update BEFORE UPDATE OF company_id ON outbox_events
  FOR EACH ROW EXECUTE FUNCTION refuse_event_moved_to_unknown_company();
CREATE TRIGGER inbound_events_company_update BEFORE UPDATE OF company_id ON inbound_events
  FOR EACH ROW EXECUTE FUNCTION refuse_event_moved_to_unknown_company();

-- The keys' ON DELETE CASCADE: a deleted company's events go with it.
CREATE FUNCTION delete_events_of_deleted_companies() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM outbox_events e USING gone g WHERE e.company_id = g.id;
  DELETE FROM inbound_events e USING gone g WHERE e.company_id = g.id;
  RETURN NULL;
END
$$;

CREATE TRIGGER companies_delete_events AFTER DELETE ON companies
  REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION delete_events_of_deleted_companies();
