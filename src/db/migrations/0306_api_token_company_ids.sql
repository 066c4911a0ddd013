-- API token ids were one numbering for every company (an identity column): a company that made a
-- token on Monday and another on Friday learnt, from the gap, how many tokens the other companies
-- had made in between. A token's id is now the company's own number, like its other records
-- (0035): one counter row per company, continued after the company's own highest token id, so
-- existing tokens keep the ids their companies already saw.
ALTER TABLE company_id_counters DROP CONSTRAINT company_id_counters_kind_check;
ALTER TABLE company_id_counters ADD CONSTRAINT company_id_counters_kind_check CHECK (kind IN ('categories', 'products',
  'deposits', 'movements', 'customers', 'boxes', 'sales', 'invoices', 'box_sessions', 'invoice_attempts', 'account_payments',
  'api_tokens'));

INSERT INTO company_id_counters (company_id, kind, next_id)
  SELECT company_id, 'api_tokens', max(id) + 1 FROM api_tokens GROUP BY company_id;

ALTER TABLE api_tokens ALTER COLUMN id DROP IDENTITY;
ALTER TABLE api_tokens DROP CONSTRAINT api_tokens_pkey;
ALTER TABLE api_tokens ADD PRIMARY KEY (company_id, id);
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_id_check CHECK (id > 0);
