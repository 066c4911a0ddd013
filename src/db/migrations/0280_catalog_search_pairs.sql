-- The back office's product search (GET /api/v1/products?q=…) for words shorter than a trigram.
-- pg_trgm can look a word up only through a run of 3 letters or digits, so "kg" or "1,5" in
-- "harina 1 kg" were checked with strpos on every row the other words found (all 8,333 "harina"
-- of 100,000 products, to find none). search_pairs is every run of 2 characters of the text (at
-- odd and at even offsets, each followed by a newline, then split on it: a pair with a newline
-- inside only leaves shorter pieces), so a word of 2 or more characters can be in the text only if
-- all of its pairs are in the array: a GIN index on it answers `@>` with the same rows strpos
-- keeps, and strpos still decides. Same pending-list cap as products_search_idx (0017).
-- Not STRICT: string_to_array is not strict, and a strict SQL function over it is not inlined (a
-- call per row through the SQL executor cost 3 times as much as the inlined expression).
CREATE OR REPLACE FUNCTION search_pairs(text) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN string_to_array(
    regexp_replace($1, '(..)', E'\\1\n', 'g') || E'\n' || regexp_replace(substr($1, 2), '(..)', E'\\1\n', 'g'),
    E'\n'
  );

CREATE INDEX products_search_pairs_idx ON products USING gin (search_pairs(search)) WITH (gin_pending_list_limit = 256);
