-- CAEA block ids were one numbering for every company (an identity column): the gap between two of
-- a company's blocks counted the blocks other companies' boxes had taken. A block's id is now the
-- company's own number (0035, 0306), continued after the company's own highest block id.
ALTER TABLE company_id_counters DROP CONSTRAINT company_id_counters_kind_check;
ALTER TABLE company_id_counters ADD CONSTRAINT company_id_counters_kind_check CHECK (kind IN ('categories', 'products',
  'deposits', 'movements', 'customers', 'boxes', 'sales', 'invoices', 'box_sessions', 'invoice_attempts', 'account_payments',
  'api_tokens', 'caea_blocks'));

INSERT INTO company_id_counters (company_id, kind, next_id)
  SELECT company_id, 'caea_blocks', max(id) + 1 FROM caea_blocks GROUP BY company_id;

ALTER TABLE caea_blocks ALTER COLUMN id DROP IDENTITY;
ALTER TABLE caea_blocks DROP CONSTRAINT caea_blocks_pkey;
ALTER TABLE caea_blocks ADD PRIMARY KEY (company_id, id);
ALTER TABLE caea_blocks DROP CONSTRAINT caea_blocks_company_id_id_key;
ALTER TABLE caea_blocks ADD CONSTRAINT caea_blocks_id_check CHECK (id > 0);
