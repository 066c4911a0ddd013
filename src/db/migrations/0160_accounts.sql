-- Cuenta corriente (issue 28): sales on account, payments on account and their allocation, the
-- customer's balance, and the share links of a statement.
--
-- The money stays in sale_payments. A sale on account has a payment row of method
-- 'cuenta_corriente' (its account part, customer_id set, no box session: nothing enters the
-- drawer); a payment on account is a row with no sale (sale_id NULL), customer_id set, numbered
-- by the company's 'account_payments' counter, counted in its box session like any payment.
-- account_payments holds what the money row does not: who, the note and the idempotency key.
-- account_allocations says which open sales each payment on account covers (oldest first).
-- customer_accounts keeps the balance (> 0: the customer owes; < 0: saldo a favor), updated in the
-- transaction of each change; its row is the lock that serialises a customer's account writes.
ALTER TABLE company_id_counters DROP CONSTRAINT company_id_counters_kind_check;
ALTER TABLE company_id_counters ADD CONSTRAINT company_id_counters_kind_check CHECK (kind IN ('categories', 'products',
  'deposits', 'movements', 'customers', 'boxes', 'sales', 'invoices', 'box_sessions', 'invoice_attempts', 'account_payments'));

CREATE TABLE account_payments (
  company_id integer NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  id integer NOT NULL CHECK (id > 0),
  customer_id integer NOT NULL,
  note text,
  created_by text,
  idempotency_key text,
  request_sha256 char(64),
  created_at timestamptz NOT NULL,
  PRIMARY KEY (company_id, id),
  FOREIGN KEY (company_id, customer_id) REFERENCES customers (company_id, id)
);
CREATE UNIQUE INDEX account_payments_key ON account_payments (company_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX account_payments_customer_idx ON account_payments (company_id, customer_id, created_at);

ALTER TABLE sale_payments ADD COLUMN customer_id integer;
ALTER TABLE sale_payments ADD CONSTRAINT sale_payments_customer_fk
  FOREIGN KEY (company_id, customer_id) REFERENCES customers (company_id, id);
CREATE INDEX sale_payments_customer_idx ON sale_payments (company_id, customer_id) WHERE customer_id IS NOT NULL;
-- A payment on account is the money row of its account_payments row (same company and id).
CREATE UNIQUE INDEX sale_payments_account_key ON sale_payments (company_id, id) WHERE sale_id IS NULL;

CREATE TABLE account_allocations (
  company_id integer NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  payment_id integer NOT NULL,
  sale_id integer NOT NULL,
  amount numeric(14, 2) NOT NULL CHECK (amount > 0),
  created_at timestamptz NOT NULL,
  PRIMARY KEY (company_id, payment_id, sale_id),
  FOREIGN KEY (company_id, payment_id) REFERENCES account_payments (company_id, id),
  FOREIGN KEY (company_id, sale_id) REFERENCES sales (company_id, id)
);
CREATE INDEX account_allocations_sale_idx ON account_allocations (company_id, sale_id);

CREATE TABLE customer_accounts (
  company_id integer NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  customer_id integer NOT NULL,
  balance numeric(14, 2) NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (company_id, customer_id),
  FOREIGN KEY (company_id, customer_id) REFERENCES customers (company_id, id)
);

-- A read-only statement shared by WhatsApp or e-mail: only the token's SHA-256 is kept.
CREATE TABLE statement_links (
  token_sha256 char(64) PRIMARY KEY,
  company_id integer NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  customer_id integer NOT NULL,
  expires_at timestamptz NOT NULL,
  created_by text,
  created_at timestamptz NOT NULL,
  FOREIGN KEY (company_id, customer_id) REFERENCES customers (company_id, id)
);
CREATE INDEX statement_links_customer_idx ON statement_links (company_id, customer_id);
