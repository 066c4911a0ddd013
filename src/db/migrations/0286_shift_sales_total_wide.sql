-- A closed shift's sales figure is the sum of its sales, each up to numeric(14,2): two sales at the
-- limit overflowed the column, and the shift could never be closed again (every close answered
-- "out of range"). numeric(18,2) holds every sum the application computes exactly in cents
-- (below 2^53 cents, about 90 billón pesos).
ALTER TABLE box_sessions ALTER COLUMN sales_total TYPE numeric(18, 2);
