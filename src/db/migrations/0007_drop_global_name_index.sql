-- The scanner's name search walks the per-company GiST index of 0003 (company_id, search_text(name));
-- the global GIN trigram index of 0001 is no longer read by any query and only costs writes.
DROP INDEX IF EXISTS products_name_trgm_idx;
