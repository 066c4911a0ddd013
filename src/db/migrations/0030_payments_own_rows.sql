-- Payments are rows of their own (issue 24): a payment may later exist without a sale (a payment
-- on account, cuenta corriente), so sale_id is no longer part of the primary key nor mandatory.
-- A sale's payments keep their per-sale numbering (company_id, sale_id, id), now a UNIQUE
-- constraint backed by the same index; the link to the sale stays a foreign key, checked only
-- when present. The account's fields (customer, account) come with the issue that needs them.
ALTER TABLE sale_payments DROP CONSTRAINT sale_payments_pkey;
ALTER TABLE sale_payments ALTER COLUMN sale_id DROP NOT NULL;
ALTER TABLE sale_payments ADD CONSTRAINT sale_payments_sale_key UNIQUE (company_id, sale_id, id);
