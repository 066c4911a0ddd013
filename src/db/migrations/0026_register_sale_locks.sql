-- A register sale's locks and ids in one round trip (POST /api/v1/sales). The sale took them in
-- four statements: the company's sales-id lock (where register sales queue, one after another),
-- its products' rows in id order, the movement-id lock, then both next ids (read after the locks,
-- in a later statement, so that they see every earlier commit). Every round trip made while
-- holding the sales-id lock is one the other registers wait for. In PL/pgSQL each statement takes
-- its own snapshot, so this function keeps the same order and the same fresh reads in one call.
-- Answers the locked products (id order, their stock as committed) with the two next ids.
CREATE FUNCTION lock_register_sale(p_company integer, p_products integer[])
  RETURNS TABLE (id integer, stock numeric, sku text, next_sale integer, next_movement integer)
  LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  v_sale integer;
  v_movement integer;
BEGIN
  -- The locks of src/db/ids.ts nextId/lockIds, and the ledger's product lock (lockForMovements).
  PERFORM pg_advisory_xact_lock(hashtext('ids:sales'), p_company);
  PERFORM 1 FROM products p WHERE p.company_id = p_company AND p.id = ANY (p_products) ORDER BY p.id FOR UPDATE;
  PERFORM pg_advisory_xact_lock(hashtext('ids:movements'), p_company);
  SELECT coalesce(max(s.id), 0) + 1 INTO v_sale FROM sales s WHERE s.company_id = p_company;
  SELECT coalesce(max(m.id), 0) + 1 INTO v_movement FROM movements m WHERE m.company_id = p_company;
  RETURN QUERY
    SELECT p.id, p.stock, p.sku, v_sale, v_movement
      FROM products p WHERE p.company_id = p_company AND p.id = ANY (p_products) ORDER BY p.id;
END;
$$;
