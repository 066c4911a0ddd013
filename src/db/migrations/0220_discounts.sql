-- Discounts at the register (issue 29). A line's subtotal stays what the line costs, net of every
-- discount, so a sale's total is still the sum of its lines (books verify, invoices, reports).
-- `discount` is the line's own discount; `sale_discount` its share of the sale's discount (the
-- sale's discount is spread over its lines in proportion to what each costs). The gross of a
-- line is subtotal + discount + sale_discount.
ALTER TABLE sale_items
  ADD COLUMN discount numeric(14, 2) NOT NULL DEFAULT 0 CHECK (discount >= 0),
  ADD COLUMN sale_discount numeric(14, 2) NOT NULL DEFAULT 0 CHECK (sale_discount >= 0),
  ADD COLUMN discount_reason text CHECK (length(discount_reason) BETWEEN 1 AND 200);

-- The sale's own discount (the sum of its lines' shares), why, and the admin who approved a
-- discount beyond the company's limit (null: within the limit, or given by an admin).
ALTER TABLE register_sales
  ADD COLUMN discount_reason text CHECK (length(discount_reason) BETWEEN 1 AND 200),
  ADD COLUMN discount_approved_by text;
