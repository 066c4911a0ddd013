-- The back office's product search (GET /api/v1/products?q=…) with the search text stored. 0016
-- indexed the expression search_text(name) || sku || barcode, but every row a plan reads still
-- evaluated it (unaccent per row): an id-ordered scan that filters 5,000 rows cost ~80 ms, and each
-- row rechecked after the trigram index cost the same. A stored generated column is computed once
-- per write; the trigram index moves onto it and the old expression index goes.
-- A GIN index queues new entries in a pending list that every search reads in full until a vacuum
-- merges it (4 MB by default: after a 90,000-product load, a two-word search spent 14 of its 18 ms
-- there). Capped at 256 kB, the inserting backend merges it as it goes.
ALTER TABLE products
  ADD COLUMN search text GENERATED ALWAYS AS (search_text(name) || ' ' || lower(coalesce(sku, '')) || ' ' || coalesce(bc, '')) STORED;

CREATE INDEX products_search_idx ON products USING gin (search gin_trgm_ops) WITH (gin_pending_list_limit = 256);
DROP INDEX products_search_trgm_idx;
