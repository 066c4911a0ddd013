-- Issue 33: a register sale takes its numbers in their own short statement before its transaction
-- (take_company_ids, 0035) and locks its products with a plain SELECT … FOR UPDATE in id order, so
-- the function that did both inside the sale's transaction is no longer used.
DROP FUNCTION lock_register_sale(integer, integer[], integer);
