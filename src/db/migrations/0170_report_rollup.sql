-- Reports (issue 30): a daily rollup of sale lines per product, kept as a validated cache. Each
-- local day of a company has a fingerprint of its sales (count, cancelled, sum of totals, last
-- update, time zone); a report recomputes the days whose fingerprint no longer matches the sales and
-- reads the rest from here. Nothing on the sale's write path maintains it, so it is never wrong:
-- at worst a day is recomputed from the raw rows. `books verify` compares the current days with them.
CREATE TABLE report_days (
  company_id integer NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  day date NOT NULL,
  fingerprint text NOT NULL,
  built_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, day)
);

-- Sales not cancelled of the day, per product: quantity, amount and tickets (sales with the product).
CREATE TABLE report_product_days (
  company_id integer NOT NULL,
  day date NOT NULL,
  product_id integer NOT NULL,
  quantity numeric NOT NULL,
  total numeric NOT NULL,
  tickets integer NOT NULL,
  PRIMARY KEY (company_id, day, product_id),
  FOREIGN KEY (company_id, day) REFERENCES report_days (company_id, day) ON DELETE CASCADE
);
CREATE INDEX report_product_days_product_idx ON report_product_days (company_id, product_id);
