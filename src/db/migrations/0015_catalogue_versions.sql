-- The price scanner keeps each company's product names in memory (src/modules/scanner/name-index.ts).
-- Every write that can change what a name search finds (a product added or removed, its name, brand
-- or enabled flag changed) bumps the company's catalogue version, in the same transaction as the
-- write; each name lookup reads the version with the products it answers and rebuilds a stale index.
-- Statement-level triggers with transition tables: a bulk load of 10,000 products is one bump, and
-- only the companies whose rows changed are bumped. Stock and price updates bump nothing (the scanner
-- reads prices fresh from the table on every lookup).
CREATE TABLE catalogue_versions (
  company_id integer PRIMARY KEY,
  version bigint NOT NULL DEFAULT 1
);

CREATE FUNCTION bump_catalogue_versions() RETURNS trigger
  LANGUAGE plpgsql
AS $$
BEGIN
  INSERT INTO catalogue_versions AS v (company_id, version)
  SELECT DISTINCT company_id, 1 FROM changed_products
  ORDER BY company_id
  ON CONFLICT (company_id) DO UPDATE SET version = v.version + 1;
  RETURN NULL;
END;
$$;

CREATE FUNCTION bump_catalogue_versions_on_update() RETURNS trigger
  LANGUAGE plpgsql
AS $$
BEGIN
  INSERT INTO catalogue_versions AS v (company_id, version)
  SELECT DISTINCT n.company_id, 1
    FROM new_products n
    JOIN old_products o ON o.company_id = n.company_id AND o.id = n.id
   WHERE (n.name, n.mark, n.enable) IS DISTINCT FROM (o.name, o.mark, o.enable)
   ORDER BY 1
  ON CONFLICT (company_id) DO UPDATE SET version = v.version + 1;
  RETURN NULL;
END;
$$;

CREATE TRIGGER products_catalogue_version_insert
  AFTER INSERT ON products REFERENCING NEW TABLE AS changed_products
  FOR EACH STATEMENT EXECUTE FUNCTION bump_catalogue_versions();

CREATE TRIGGER products_catalogue_version_delete
  AFTER DELETE ON products REFERENCING OLD TABLE AS changed_products
  FOR EACH STATEMENT EXECUTE FUNCTION bump_catalogue_versions();

CREATE TRIGGER products_catalogue_version_update
  AFTER UPDATE ON products REFERENCING OLD TABLE AS old_products NEW TABLE AS new_products
  FOR EACH STATEMENT EXECUTE FUNCTION bump_catalogue_versions_on_update();
