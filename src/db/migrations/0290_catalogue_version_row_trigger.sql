-- The catalogue version (0015) was bumped on UPDATE by a statement-level trigger with transition
-- tables. PostgreSQL fills those tables with the old and new version of every row ANY update
-- touches, so every sale's stock update (and every price change) paid for copying its rows and for
-- running the trigger's join, to find that no name, brand or enabled flag had changed. A trigger with
-- transition tables cannot name columns (UPDATE OF), so it could not skip them.
--
-- Now a row-level trigger on UPDATE OF name, mark, enable, with a WHEN that compares them: an update
-- that does not set those columns (the stock of a sale, a price) does not even consider it; one that
-- sets them to the same values runs no function. Measured with pgbench (2 clients, 10 s, the stock
-- update of a 3-item sale, synchronous_commit off): 10,000–11,600 updates/s with the old trigger,
-- 14,100–15,100 without it (docs/decisiones.md).
--
-- A statement that renames many products (an import) bumps the company's version once per
-- transaction, not once per row: the companies already bumped are kept in a transaction-local
-- setting, undone with the transaction or savepoint that set it, like the bump itself. INSERT and
-- DELETE keep their statement-level triggers (every inserted or deleted row changes the catalogue).
CREATE FUNCTION bump_catalogue_version_of_row() RETURNS trigger
  LANGUAGE plpgsql
AS $$
DECLARE
  v_done text := coalesce(current_setting('mostrador.catalogue_bumped', true), '');
BEGIN
  IF strpos(',' || v_done || ',', ',' || NEW.company_id || ',') > 0 THEN
    RETURN NULL;
  END IF;
  INSERT INTO catalogue_versions AS v (company_id, version) VALUES (NEW.company_id, 1)
    ON CONFLICT (company_id) DO UPDATE SET version = v.version + 1;
  PERFORM set_config('mostrador.catalogue_bumped',
    CASE WHEN v_done = '' THEN NEW.company_id::text ELSE v_done || ',' || NEW.company_id END, true);
  RETURN NULL;
END;
$$;

DROP TRIGGER products_catalogue_version_update ON products;
DROP FUNCTION bump_catalogue_versions_on_update();

CREATE TRIGGER products_catalogue_version_update
  AFTER UPDATE OF name, mark, enable ON products
  FOR EACH ROW
  WHEN ((NEW.name, NEW.mark, NEW.enable) IS DISTINCT FROM (OLD.name, OLD.mark, OLD.enable))
  EXECUTE FUNCTION bump_catalogue_version_of_row();
