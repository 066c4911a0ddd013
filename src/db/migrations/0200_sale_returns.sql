-- Returns at line level (issue 29): a sale returned in one or more steps, never beyond what was
-- sold. Each return puts its quantities back in stock (the ledger) and gives the money back in
-- the open shift of the person refunding (refund_session_id, refund_method) or to the customer's
-- account as credit (store_credit: an account payment, credit_payment_id). The sale itself keeps
-- its lines, total and payments; a fully returned sale is cancelled.
CREATE TABLE sale_returns (
  company_id integer NOT NULL,
  sale_id integer NOT NULL,
  id integer NOT NULL CHECK (id > 0),
  amount numeric(14, 2) NOT NULL CHECK (amount >= 0),
  refund_method text CHECK (refund_method IN ('efectivo', 'debito', 'credito', 'transferencia', 'qr')),
  refund_session_id integer,
  store_credit boolean NOT NULL DEFAULT false,
  credit_customer_id integer,
  credit_payment_id integer,
  reason text NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
  -- An exchange: the sale sold in the same operation.
  exchange_sale_id integer,
  created_by text NOT NULL,
  idempotency_key text NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 200),
  request_sha256 char(64) NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, sale_id, id),
  FOREIGN KEY (company_id, sale_id) REFERENCES sales (company_id, id) ON DELETE CASCADE,
  FOREIGN KEY (company_id, refund_session_id) REFERENCES box_sessions (company_id, id),
  FOREIGN KEY (company_id, exchange_sale_id) REFERENCES sales (company_id, id),
  -- Money back in a shift, or credit on the customer's account: exactly one.
  CHECK ((store_credit AND refund_method IS NULL AND refund_session_id IS NULL AND credit_customer_id IS NOT NULL)
    OR (NOT store_credit AND refund_method IS NOT NULL AND refund_session_id IS NOT NULL))
);
CREATE UNIQUE INDEX sale_returns_key ON sale_returns (company_id, idempotency_key);
CREATE INDEX sale_returns_refund_idx ON sale_returns (company_id, refund_session_id) WHERE refund_session_id IS NOT NULL;

CREATE TABLE sale_return_lines (
  company_id integer NOT NULL,
  sale_id integer NOT NULL,
  return_id integer NOT NULL,
  item_id integer NOT NULL,
  product_id integer NOT NULL,
  quantity numeric(14, 3) NOT NULL CHECK (quantity > 0),
  amount numeric(14, 2) NOT NULL CHECK (amount >= 0),
  PRIMARY KEY (company_id, sale_id, return_id, item_id),
  FOREIGN KEY (company_id, sale_id, return_id) REFERENCES sale_returns (company_id, sale_id, id) ON DELETE CASCADE,
  FOREIGN KEY (company_id, sale_id, item_id) REFERENCES sale_items (company_id, sale_id, id)
);

-- A credit note may now be partial: the one of a return names it. One live credit note per return
-- (and at most one without a return: the whole sale's, as before).
ALTER TABLE invoice_attempts ADD COLUMN return_id integer;
ALTER TABLE invoices ADD COLUMN return_id integer;
DROP INDEX invoice_attempts_one_per_sale;
CREATE UNIQUE INDEX invoice_attempts_one_per_sale ON invoice_attempts (company_id, sale_id, kind, coalesce(return_id, 0))
  WHERE status IN ('pending', 'approved');
