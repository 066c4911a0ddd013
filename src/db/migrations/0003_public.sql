-- Public surface: exchange-rate history and the per-company name search of the price scanner.

-- btree_gist lets one GiST index hold the company id (equality) next to the trigram signature,
-- so a name lookup walks only its company's part of the tree and can order by word distance
-- (k-nearest-neighbour), stopping after a handful of rows. Measured at 100 companies × 10,000
-- products: ~0.5–4 ms per lookup, against 10–40 ms for the GIN index of 0001 (whose candidate
-- sets span every company and need a lowered similarity threshold). A 256-byte signature reads
-- about half the index pages per lookup of the 12–64-byte ones, for the same index size.
CREATE EXTENSION IF NOT EXISTS btree_gist;

CREATE INDEX products_company_name_gist ON products
  USING gist (company_id, search_text(name) gist_trgm_ops (siglen = 256));

-- Every reading taken from the upstream, newest last. 'accepted' readings are served; a 'held'
-- reading jumped more than 20 % from the served one and waits for the next fetch to confirm it.
CREATE TABLE exchange_rates (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  source text NOT NULL CHECK (length(source) BETWEEN 1 AND 200),
  rate numeric(14, 4) NOT NULL CHECK (rate > 0),
  buy numeric(14, 4) CHECK (buy > 0),
  status text NOT NULL CHECK (status IN ('accepted', 'held')),
  -- The source's own timestamp of the quote (DolarAPI fechaActualizacion), served as updated_at.
  source_updated_at timestamptz NOT NULL,
  fetched_at timestamptz NOT NULL DEFAULT now(),
  note text
);
CREATE INDEX exchange_rates_accepted_idx ON exchange_rates (id DESC) WHERE status = 'accepted';
