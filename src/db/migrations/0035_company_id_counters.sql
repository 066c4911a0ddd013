-- A company's own numbering (issue 25): one counter row per (company, kind of record). Ids that
-- senders give (up to 2,147,483,647) are stored as given and never move the counter; the company's
-- own records take the counter's next number, skipping any number a sender already used. Taking a
-- number is one UPDATE … RETURNING on the counter row, never a scan of max(id).
CREATE TABLE company_id_counters (
  company_id integer NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('categories', 'products', 'deposits', 'movements', 'customers',
    'boxes', 'sales', 'invoices', 'box_sessions', 'invoice_attempts')),
  next_id bigint NOT NULL CHECK (next_id > 0),
  PRIMARY KEY (company_id, kind)
);

-- Existing companies continue after their own numbers. An id above one billion is taken to be a
-- sender's (no shop numbers its records that far by hand): it is skipped, never continued from,
-- so a company whose numbering a sender had pushed to 2147483647 gets small numbers again.
DO $$
DECLARE
  v_kind text;
BEGIN
  FOREACH v_kind IN ARRAY ARRAY['categories', 'products', 'deposits', 'movements', 'customers',
    'boxes', 'sales', 'invoices', 'box_sessions', 'invoice_attempts'] LOOP
    EXECUTE format(
      'INSERT INTO company_id_counters (company_id, kind, next_id)
         SELECT company_id, %L, coalesce(max(id) FILTER (WHERE id < 1000000000), 0) + 1
           FROM %I GROUP BY company_id', v_kind, v_kind);
  END LOOP;
END;
$$;

-- The first of p_count consecutive numbers of the company's kind that no record uses, and the
-- counter moved past them. The counter row stays locked to the end of the caller's transaction
-- (two transactions never get the same number; the numbering has no holes from a rollback). A
-- number a sender already used is skipped: the whole run of used numbers after it at once.
CREATE FUNCTION take_company_ids(p_company integer, p_kind text, p_count integer)
  RETURNS integer
  LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  v_first bigint;
  v_used integer;
BEGIN
  LOOP
    UPDATE company_id_counters c SET next_id = c.next_id + p_count
      WHERE c.company_id = p_company AND c.kind = p_kind
      RETURNING c.next_id - p_count INTO v_first;
    IF NOT FOUND THEN
      INSERT INTO company_id_counters (company_id, kind, next_id) VALUES (p_company, p_kind, 1)
        ON CONFLICT DO NOTHING;
      CONTINUE;
    END IF;
    IF v_first + p_count - 1 > 2147483647 THEN
      RAISE EXCEPTION 'the % numbering of company % is exhausted', p_kind, p_company
        USING ERRCODE = '22003';
    END IF;
    EXECUTE format('SELECT max(id) FROM %I WHERE company_id = $1 AND id BETWEEN $2 AND $3', p_kind)
      INTO v_used USING p_company, v_first::integer, (v_first + p_count - 1)::integer;
    IF v_used IS NULL THEN
      RETURN v_first::integer;
    END IF;
    -- The last number of the run of used numbers that starts at v_used: continue after it.
    EXECUTE format(
      'SELECT min(t.id) FROM %1$I t WHERE t.company_id = $1 AND t.id >= $2
         AND NOT EXISTS (SELECT 1 FROM %1$I u WHERE u.company_id = $1 AND u.id = t.id::bigint + 1)', p_kind)
      INTO v_used USING p_company, v_used;
    UPDATE company_id_counters c SET next_id = v_used::bigint + 1
      WHERE c.company_id = p_company AND c.kind = p_kind;
  END LOOP;
END;
$$;

-- Gives back the unused end of a block taken with take_company_ids in the same transaction (the
-- counter row is still this transaction's, so nobody took a number after the block).
CREATE FUNCTION return_company_ids(p_company integer, p_kind text, p_from integer, p_to integer)
  RETURNS void
  LANGUAGE sql VOLATILE
AS $$
  UPDATE company_id_counters SET next_id = p_from
    WHERE company_id = p_company AND kind = p_kind AND next_id = p_to::bigint + 1 AND p_from::bigint <= p_to::bigint + 1;
$$;

-- A register sale's locks and ids in one round trip (POST /api/v1/sales), replacing 0026's: the
-- products' rows first, in id order (the ledger's lockForMovements order), then the sale number
-- and a block of movement numbers from the counters. No advisory lock and no max(id): registers
-- selling different products only meet on the counter rows, locked after their products.
DROP FUNCTION lock_register_sale(integer, integer[]);
CREATE FUNCTION lock_register_sale(p_company integer, p_products integer[], p_movements integer)
  RETURNS TABLE (id integer, stock numeric, sku text, next_sale integer, next_movement integer)
  LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  v_sale integer;
  v_movement integer;
BEGIN
  PERFORM 1 FROM products p WHERE p.company_id = p_company AND p.id = ANY (p_products) ORDER BY p.id FOR UPDATE;
  v_sale := take_company_ids(p_company, 'sales', 1);
  v_movement := take_company_ids(p_company, 'movements', p_movements);
  RETURN QUERY
    SELECT p.id, p.stock, p.sku, v_sale, v_movement
      FROM products p WHERE p.company_id = p_company AND p.id = ANY (p_products) ORDER BY p.id;
END;
$$;
