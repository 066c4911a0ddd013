-- The GiST index of 0003 (company_id, search_text(name)) served the scanner's name search through
-- the database; since the scanner searches names in its in-memory index (0015, catalogue versions)
-- no query reads it, and every product written still paid for it: about 12 ms per 1,000 products
-- inserted, as much as the index of pairs of 0280 costs.
DROP INDEX IF EXISTS products_company_name_gist;
