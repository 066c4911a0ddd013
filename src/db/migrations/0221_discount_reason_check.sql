-- A line's own discount always carries its reason, and a reason belongs to a discount (issue 29).
ALTER TABLE sale_items ADD CONSTRAINT sale_items_discount_reason CHECK ((discount > 0) = (discount_reason IS NOT NULL));
