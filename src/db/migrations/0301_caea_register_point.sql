-- A second CAEA point of sale for the register boxes' blocks (optional). With one CAEA point, a
-- block a box holds (1–50) and a receipt the server issues meanwhile (51) share a series, and ARCA
-- takes informed receipts only as last + 1 (703): the server's receipt waits until the block's
-- numbers are used or returned and issued again. On a point of their own the blocks never stand
-- between the server's receipts.
ALTER TABLE company_fiscal
  ADD COLUMN caea_register_point_of_sale integer CHECK (caea_register_point_of_sale BETWEEN 1 AND 99998),
  ADD CONSTRAINT company_fiscal_caea_points_differ CHECK (caea_register_point_of_sale <> caea_point_of_sale);
