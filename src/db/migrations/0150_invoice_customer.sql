-- Invoicing from a customer (issue 28): a receipt remembers the customer it was issued to and the
-- buyer's address as printed (the customer's address may change later; the printout must not).
-- The attempt carries both until ARCA approves it, like receiver_name.
ALTER TABLE invoice_attempts
  ADD COLUMN customer_id integer,
  ADD COLUMN receiver_address text;

ALTER TABLE invoices
  ADD COLUMN customer_id integer,
  ADD COLUMN receiver_address text,
  ADD CONSTRAINT invoices_customer_fk FOREIGN KEY (company_id, customer_id) REFERENCES customers (company_id, id);

CREATE INDEX invoices_customer_idx ON invoices (company_id, customer_id) WHERE customer_id IS NOT NULL;
