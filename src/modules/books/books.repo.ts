import { type SQL, sql } from 'drizzle-orm';
import { type Conn, selectRows } from '../../db/client.ts';

/**
 * The books' raw figures, recomputed from the rows. Each query is one set-based statement over the
 * whole company and returns only the rows that break an invariant: at most `cap` of them, each with
 * `total_count` (how many there are in all). Money in cents, quantities as decimal text.
 */

export interface Capped {
  total_count: number;
}

/** At most `cap` rows of `query` (which must have no ORDER BY/LIMIT of its own), with the full count. */
function capped<T>(conn: Conn, query: SQL, orderBy: SQL, cap: number): Promise<(T & Capped)[]> {
  return selectRows<T & Capped>(
    conn,
    sql`SELECT v.*, count(*) OVER ()::int AS total_count FROM (${query}) v ORDER BY ${orderBy} LIMIT ${cap}`,
  );
}

// float8 holds any cent amount exactly and reaches JavaScript as a number on both drivers (bigint would be text).
const cents = (expr: SQL) => sql`(round((${expr}) * 100))::float8`;

export interface StockLedgerRow {
  deposit_id: number;
  product_id: number;
  expected: string;
  found: string;
}

/** Deposits whose stock is not the sum of the movements that reached them (IN, OUT, ADJUSTMENT, TRANSFER both ends). */
export function stockLedgerMismatches(conn: Conn, companyId: number, cap: number) {
  return capped<StockLedgerRow>(
    conn,
    sql`WITH deltas AS (
        SELECT deposit_id, product_id, CASE WHEN type IN ('OUT', 'TRANSFER') THEN -amount ELSE amount END AS delta
          FROM movements WHERE company_id = ${companyId}
        UNION ALL
        SELECT to_deposit_id, product_id, amount FROM movements
          WHERE company_id = ${companyId} AND type = 'TRANSFER' AND to_deposit_id IS NOT NULL
      ), ledger AS (
        SELECT deposit_id, product_id, sum(delta) AS quantity FROM deltas GROUP BY deposit_id, product_id
      ), levels AS (
        SELECT deposit_id, product_id, quantity FROM stock_levels WHERE company_id = ${companyId}
      )
      SELECT coalesce(l.deposit_id, s.deposit_id) AS deposit_id, coalesce(l.product_id, s.product_id) AS product_id,
        coalesce(l.quantity, 0)::numeric(14,3)::text AS expected, coalesce(s.quantity, 0)::numeric(14,3)::text AS found
      FROM ledger l FULL JOIN levels s ON s.deposit_id = l.deposit_id AND s.product_id = l.product_id
      WHERE coalesce(l.quantity, 0) <> coalesce(s.quantity, 0)`,
    sql`product_id, deposit_id`,
    cap,
  );
}

export interface StockDepositsRow {
  product_id: number;
  expected: string;
  found: string;
}

/** Products whose stock is not the sum of their deposits' stock. */
export function stockDepositMismatches(conn: Conn, companyId: number, cap: number) {
  return capped<StockDepositsRow>(
    conn,
    sql`SELECT p.id AS product_id, coalesce(d.quantity, 0)::numeric(14,3)::text AS expected, p.stock::text AS found
      FROM products p
      LEFT JOIN (SELECT product_id, sum(quantity) AS quantity FROM stock_levels WHERE company_id = ${companyId}
        GROUP BY product_id) d ON d.product_id = p.id
      WHERE p.company_id = ${companyId} AND p.stock <> coalesce(d.quantity, 0)`,
    sql`product_id`,
    cap,
  );
}

export interface SaleTotalRow {
  sale_id: number;
  expected_cents: number;
  found_cents: number;
}

/** Sales whose total is not the sum of their lines' subtotals. */
export function saleTotalMismatches(conn: Conn, companyId: number, cap: number) {
  return capped<SaleTotalRow>(
    conn,
    sql`SELECT s.id AS sale_id, ${cents(sql`coalesce(i.lines, 0)`)} AS expected_cents, ${cents(sql`s.total`)} AS found_cents
      FROM sales s
      LEFT JOIN (SELECT sale_id, sum(subtotal) AS lines FROM sale_items WHERE company_id = ${companyId} GROUP BY sale_id) i
        ON i.sale_id = s.id
      WHERE s.company_id = ${companyId} AND s.total <> coalesce(i.lines, 0)`,
    sql`sale_id`,
    cap,
  );
}

export interface SaleDiscountRow {
  sale_id: number;
  /** integration_discount: a sale received through the integration with register discounts on its lines; sale_reason: a register sale whose lines carry shares of a sale discount and no reason for it (or a reason and no shares). */
  problem: 'integration_discount' | 'sale_reason';
  found_cents: number;
}

/** Discounts that do not hold together (issue 29): see SaleDiscountRow. */
export function saleDiscountProblems(conn: Conn, companyId: number, cap: number) {
  return capped<SaleDiscountRow>(
    conn,
    sql`SELECT s.id AS sale_id,
        CASE WHEN r.sale_id IS NULL THEN 'integration_discount' ELSE 'sale_reason' END AS problem,
        ${cents(sql`i.own + i.shares`)} AS found_cents
      FROM sales s
      JOIN (SELECT sale_id, sum(discount) AS own, sum(sale_discount) AS shares FROM sale_items
        WHERE company_id = ${companyId} GROUP BY sale_id) i ON i.sale_id = s.id
      LEFT JOIN register_sales r ON r.company_id = s.company_id AND r.sale_id = s.id
      WHERE s.company_id = ${companyId} AND (
        (r.sale_id IS NULL AND i.own + i.shares > 0)
        OR (r.sale_id IS NOT NULL AND (i.shares > 0) <> (r.discount_reason IS NOT NULL)))`,
    sql`sale_id`,
    cap,
  );
}

export interface SalePaymentRow {
  sale_id: number;
  /**
   * paid_total: payments ≠ total of a paid sale; pending_covered: a pending sale whose money (not its
   * account part) covers its total; cash_change: a cash row's tendered − change ≠ amount;
   * register_change: the sale's change ≠ its rows' change; return_lines: a return ≠ the sum of its
   * lines (payment_id: the return); returned_over_sold: a line gave back more than it sold
   * (payment_id: the line); returned_state: returned whole but not cancelled, or in part but not paid.
   */
  problem:
    | 'paid_total'
    | 'pending_covered'
    | 'cash_change'
    | 'register_change'
    | 'return_lines'
    | 'returned_over_sold'
    | 'returned_state';
  payment_id: number | null;
  expected_cents: number;
  found_cents: number;
}

/** Paid sales whose payments (cash net of change) are not their total, and change that does not add up. */
export function salePaymentMismatches(conn: Conn, companyId: number, cap: number) {
  return capped<SalePaymentRow>(
    conn,
    sql`WITH paid AS (
        SELECT sale_id, sum(amount) AS amount, sum(change) AS change,
            sum(amount) FILTER (WHERE method <> 'cuenta_corriente') AS money FROM sale_payments
          WHERE company_id = ${companyId} AND sale_id IS NOT NULL GROUP BY sale_id
      )
      SELECT s.id AS sale_id, 'paid_total' AS problem, NULL::int AS payment_id,
        ${cents(sql`s.total`)} AS expected_cents, ${cents(sql`coalesce(p.amount, 0)`)} AS found_cents
        FROM sales s LEFT JOIN paid p ON p.sale_id = s.id
        WHERE s.company_id = ${companyId} AND s.status = 'paid' AND s.total <> coalesce(p.amount, 0)
      UNION ALL
      SELECT s.id, 'pending_covered', NULL, ${cents(sql`s.total`)}, ${cents(sql`p.money`)}
        FROM sales s JOIN paid p ON p.sale_id = s.id
        WHERE s.company_id = ${companyId} AND s.status = 'pending' AND p.money > 0 AND p.money >= s.total
      UNION ALL
      SELECT p.sale_id, 'cash_change', p.id, ${cents(sql`p.tendered - p.change`)}, ${cents(sql`p.amount`)}
        FROM sale_payments p
        WHERE p.company_id = ${companyId} AND p.method = 'efectivo' AND p.tendered IS NOT NULL
          AND p.tendered - p.change <> p.amount
      UNION ALL
      SELECT r.sale_id, 'register_change', NULL, ${cents(sql`coalesce(p.change, 0)`)}, ${cents(sql`r.change`)}
        FROM register_sales r LEFT JOIN paid p ON p.sale_id = r.sale_id
        WHERE r.company_id = ${companyId} AND r.change <> coalesce(p.change, 0)
      UNION ALL
      -- Returns (0200): a return is the sum of its lines (payment_id: the return's id) …
      SELECT x.sale_id, 'return_lines', x.id, ${cents(sql`coalesce(l.amount, 0)`)}, ${cents(sql`x.amount`)}
        FROM sale_returns x
        LEFT JOIN (SELECT sale_id, return_id, sum(amount) AS amount FROM sale_return_lines WHERE company_id = ${companyId}
          GROUP BY sale_id, return_id) l ON l.sale_id = x.sale_id AND l.return_id = x.id
        WHERE x.company_id = ${companyId} AND x.amount <> coalesce(l.amount, 0)
      UNION ALL
      -- … a line never gives back more than it sold, in quantity or money (payment_id: the line) …
      SELECT i.sale_id, 'returned_over_sold', i.id, ${cents(sql`i.subtotal`)}, ${cents(sql`l.amount`)}
        FROM sale_items i
        JOIN (SELECT sale_id, item_id, sum(quantity) AS quantity, sum(amount) AS amount FROM sale_return_lines
          WHERE company_id = ${companyId} GROUP BY sale_id, item_id) l ON l.sale_id = i.sale_id AND l.item_id = i.id
        WHERE i.company_id = ${companyId} AND (l.quantity > i.quantity OR l.amount > i.subtotal)
      UNION ALL
      -- … and a sale returned whole is cancelled; one returned in part, still paid.
      SELECT s.id, 'returned_state', NULL, ${cents(sql`s.total`)}, ${cents(sql`x.amount`)}
        FROM sales s
        JOIN (SELECT sale_id, sum(amount) AS amount FROM sale_returns WHERE company_id = ${companyId} GROUP BY sale_id) x
          ON x.sale_id = s.id
        WHERE s.company_id = ${companyId}
          AND ((x.amount = s.total AND s.status <> 'cancelled') OR (x.amount < s.total AND s.status <> 'paid'))`,
    sql`sale_id, problem, payment_id`,
    cap,
  );
}

export interface ClosedShiftRow {
  session_id: number;
  /** expected:<method>: the stored expected amount vs the rows; sales_count / sales_total: the figure stored at the close vs the rows as they stood then. */
  figure: string;
  /** From the rows (as at the close). */
  expected: number;
  /** Stored, or shown by the report today. */
  found: number;
}

/**
 * Closed shifts whose report moved: the stored expected amounts per method against a recomputation
 * from the session's payments, refunds, cash moves and opening cash (in cents); and the sales figure
 * stored at the close (the one the report serves; missing counts as -1 / -0.01 so it never passes)
 * against the session's sales as they stood when the shift closed (not cancelled by then).
 */
export function closedShiftMismatches(conn: Conn, companyId: number, cap: number) {
  return capped<ClosedShiftRow>(
    conn,
    sql`WITH s AS (
        SELECT id, opening_cash, expected, closed_at, sales_count, sales_total FROM box_sessions
          WHERE company_id = ${companyId} AND status = 'closed'
      ), taken AS (
        SELECT p.box_session_id AS sid, p.method, sum(p.amount) AS amount FROM sale_payments p
          WHERE p.company_id = ${companyId} AND p.box_session_id IN (SELECT id FROM s) GROUP BY 1, 2
      ), refunded AS (
        SELECT sid, method, sum(amount) AS amount FROM (
          SELECT r.refund_session_id AS sid, p.method, p.amount
            FROM register_sales r JOIN sale_payments p ON p.company_id = r.company_id AND p.sale_id = r.sale_id
            WHERE r.company_id = ${companyId} AND r.refund_session_id IN (SELECT id FROM s) AND p.method <> 'cuenta_corriente'
          UNION ALL
          -- Returns (0200): the cash (or card, QR…) given back in the shift.
          SELECT x.refund_session_id, x.refund_method, x.amount FROM sale_returns x
            WHERE x.company_id = ${companyId} AND x.refund_session_id IN (SELECT id FROM s)
        ) f GROUP BY 1, 2
      ), moved AS (
        SELECT session_id AS sid, sum(CASE WHEN kind = 'in' THEN amount ELSE -amount END) AS amount
          FROM box_cash_moves WHERE company_id = ${companyId} AND session_id IN (SELECT id FROM s) GROUP BY 1
      ), stored AS (
        SELECT s.id AS sid, e.key AS method, e.value::numeric AS amount FROM s, jsonb_each_text(coalesce(s.expected, '{}'::jsonb)) e
      ), methods AS (
        SELECT sid, method FROM taken UNION SELECT sid, method FROM refunded UNION SELECT sid, method FROM stored
        UNION SELECT id, 'efectivo' FROM s
      ), recomputed AS (
        SELECT m.sid, m.method, coalesce(t.amount, 0) - coalesce(f.amount, 0)
            + CASE WHEN m.method = 'efectivo' THEN s.opening_cash + coalesce(mv.amount, 0) ELSE 0 END AS amount
          FROM methods m JOIN s ON s.id = m.sid
          LEFT JOIN taken t ON t.sid = m.sid AND t.method = m.method
          LEFT JOIN refunded f ON f.sid = m.sid AND f.method = m.method
          LEFT JOIN moved mv ON mv.sid = m.sid
      ), sales_then_now AS (
        SELECT s.id AS sid,
          count(x.id) FILTER (WHERE x.cancelled_at IS NULL OR x.cancelled_at > s.closed_at)::float8 AS count_then,
          coalesce(s.sales_count, -1)::float8 AS count_now,
          ${cents(sql`coalesce(sum(x.total) FILTER (WHERE x.cancelled_at IS NULL OR x.cancelled_at > s.closed_at), 0)`)} AS total_then,
          ${cents(sql`coalesce(s.sales_total, -0.01)`)} AS total_now
        FROM s LEFT JOIN register_sales r ON r.company_id = ${companyId} AND r.box_session_id = s.id
        LEFT JOIN sales x ON x.company_id = r.company_id AND x.id = r.sale_id
        GROUP BY s.id, s.sales_count, s.sales_total
      )
      SELECT r.sid AS session_id, 'expected:' || r.method AS figure, ${cents(sql`r.amount`)} AS expected,
          ${cents(sql`coalesce(st.amount, 0)`)} AS found
        FROM recomputed r LEFT JOIN stored st ON st.sid = r.sid AND st.method = r.method
        WHERE r.amount <> coalesce(st.amount, 0)
      UNION ALL
      SELECT sid, 'sales_count', count_then, count_now FROM sales_then_now WHERE count_then <> count_now
      UNION ALL
      SELECT sid, 'sales_total', total_then, total_now FROM sales_then_now WHERE total_then <> total_now`,
    sql`session_id, figure`,
    cap,
  );
}

export interface DayFiguresRow {
  day: string;
  /** A payment method, 'pending' (what non-cancelled pending sales still owe beyond their payments), 'sales' (Σ non-cancelled totals), 'box:<id>' / 'box:integration', or 'account:<method>' (payments on account received that day). */
  part: string;
  cents: number;
}

/**
 * Every day's parts, from the raw rows, in the summary's terms (the sales of the company's local day,
 * not cancelled): payments per method, what is pending, the sales' total, and the sales per box
 * where the box is the register session's (a sale with no register row is the integration's).
 */
export function dayFigures(conn: Conn, companyId: number): Promise<DayFiguresRow[]> {
  return selectRows<DayFiguresRow>(
    conn,
    sql`WITH d AS (
        SELECT s.id, s.total, s.status, (s.created_at AT TIME ZONE c.timezone)::date::text AS day,
          coalesce('box:' || b.box_id, 'box:integration') AS box
        FROM sales s JOIN companies c ON c.id = s.company_id
        LEFT JOIN register_sales r ON r.company_id = s.company_id AND r.sale_id = s.id
        LEFT JOIN box_sessions b ON b.company_id = r.company_id AND b.id = r.box_session_id
        WHERE s.company_id = ${companyId} AND s.status <> 'cancelled'
      )
      SELECT d.day, p.method AS part, ${cents(sql`sum(p.amount)`)} AS cents
        FROM d JOIN sale_payments p ON p.company_id = ${companyId} AND p.sale_id = d.id GROUP BY d.day, p.method
      UNION ALL
      SELECT d.day, 'pending', ${cents(sql`coalesce(sum(d.total - coalesce(
          (SELECT sum(p.amount) FROM sale_payments p WHERE p.company_id = ${companyId} AND p.sale_id = d.id), 0))
          FILTER (WHERE d.status = 'pending'), 0)`)}
        FROM d GROUP BY d.day
      UNION ALL
      SELECT day, 'sales', ${cents(sql`sum(total)`)} FROM d GROUP BY day
      UNION ALL
      SELECT day, box, ${cents(sql`sum(total)`)} FROM d GROUP BY day, box
      UNION ALL
      SELECT (p.created_at AT TIME ZONE c.timezone)::date::text, 'account:' || p.method, ${cents(sql`sum(p.amount)`)}
        FROM sale_payments p JOIN companies c ON c.id = p.company_id
        WHERE p.company_id = ${companyId} AND p.sale_id IS NULL
          AND NOT EXISTS (SELECT 1 FROM sale_returns r WHERE r.company_id = p.company_id AND r.credit_payment_id = p.id)
        GROUP BY 1, 2
      ORDER BY 1, 2`,
  );
}

export interface InvoiceTotalsRow {
  invoice_id: number;
  /** parts: net + IVA + exempt ≠ total; iva_lines: the IVA lines do not add up to the IVA. */
  problem: 'parts' | 'iva_lines';
  expected_cents: number;
  found_cents: number;
}

/** Invoices issued here (ARCA) whose parts do not add up to their total. */
export function invoiceTotalMismatches(conn: Conn, companyId: number, cap: number) {
  return capped<InvoiceTotalsRow>(
    conn,
    sql`WITH i AS (
        SELECT id, total, coalesce(net, 0) AS net, coalesce(iva, 0) AS iva, coalesce(exempt, 0) AS exempt,
          (SELECT coalesce(sum((l->>'amount')::numeric), 0) FROM jsonb_array_elements(coalesce(iva_lines, '[]'::jsonb)) l) AS lines
        FROM invoices WHERE company_id = ${companyId} AND source = 'arca'
      )
      SELECT id AS invoice_id, 'parts' AS problem, ${cents(sql`total`)} AS expected_cents,
          ${cents(sql`net + iva + exempt`)} AS found_cents
        FROM i WHERE net + iva + exempt <> total
      UNION ALL
      SELECT id, 'iva_lines', ${cents(sql`iva`)}, ${cents(sql`lines`)} FROM i WHERE lines <> iva`,
    sql`invoice_id, problem`,
    cap,
  );
}

export interface InvoiceSaleRow {
  invoice_id: number;
  sale_id: number;
  /**
   * sale: an invoice's total ≠ its sale's; credited: a credit note's total ≠ the invoice (or the
   * return) it credits, or another sale's; over_credited: credit notes over the invoice's total;
   * credit_note_missing: a refund of an invoiced sale with no credit note issued or pending;
   * credited_twice: a return with more than one credit note (the later one; the return's amount,
   * the sum of its notes).
   */
  problem: 'sale' | 'credited' | 'over_credited' | 'credit_note_missing' | 'credited_twice';
  expected_cents: number | null;
  found_cents: number;
}

/** Invoices whose total is not their sale's, and credit notes that do not return their invoice. */
export function invoiceSaleMismatches(conn: Conn, companyId: number, cap: number) {
  return capped<InvoiceSaleRow>(
    conn,
    sql`SELECT i.id AS invoice_id, i.sale_id, 'sale' AS problem, ${cents(sql`s.total`)} AS expected_cents,
          ${cents(sql`i.total`)} AS found_cents
        FROM invoices i LEFT JOIN sales s ON s.company_id = i.company_id AND s.id = i.sale_id
        WHERE i.company_id = ${companyId} AND i.kind = 'invoice' AND s.total IS DISTINCT FROM i.total
      UNION ALL
      SELECT n.id, n.sale_id, 'credited', ${cents(sql`a.total`)}, ${cents(sql`n.total`)}
        FROM invoices n LEFT JOIN invoices a ON a.company_id = n.company_id AND a.id = n.associated_invoice_id
        WHERE n.company_id = ${companyId} AND n.kind = 'credit_note' AND n.return_id IS NULL
          AND (a.total IS DISTINCT FROM n.total OR a.sale_id IS DISTINCT FROM n.sale_id)
      UNION ALL
      -- A return's credit note (0200) credits exactly the return's amount, on the same sale's invoice.
      SELECT n.id, n.sale_id, 'credited', ${cents(sql`x.amount`)}, ${cents(sql`n.total`)}
        FROM invoices n
        LEFT JOIN sale_returns x ON x.company_id = n.company_id AND x.sale_id = n.sale_id AND x.id = n.return_id
        LEFT JOIN invoices a ON a.company_id = n.company_id AND a.id = n.associated_invoice_id
        WHERE n.company_id = ${companyId} AND n.kind = 'credit_note' AND n.return_id IS NOT NULL
          AND (x.amount IS DISTINCT FROM n.total OR a.sale_id IS DISTINCT FROM n.sale_id)
      UNION ALL
      -- Credit notes never credit more than their invoice.
      SELECT a.id, a.sale_id, 'over_credited', ${cents(sql`a.total`)}, ${cents(sql`sum(n.total)`)}
        FROM invoices a JOIN invoices n ON n.company_id = a.company_id AND n.associated_invoice_id = a.id AND n.kind = 'credit_note'
        WHERE a.company_id = ${companyId} AND a.kind = 'invoice'
        GROUP BY a.id, a.sale_id, a.total HAVING sum(n.total) > a.total
      UNION ALL
      -- A return has one credit note, however it was issued (CAE or CAEA): the later note, the
      -- return's amount and what its notes credit.
      SELECT max(n.id), n.sale_id, 'credited_twice', ${cents(sql`max(x.amount)`)}, ${cents(sql`sum(n.total)`)}
        FROM invoices n
        LEFT JOIN sale_returns x ON x.company_id = n.company_id AND x.sale_id = n.sale_id AND x.id = n.return_id
        WHERE n.company_id = ${companyId} AND n.kind = 'credit_note' AND n.return_id IS NOT NULL
        GROUP BY n.sale_id, n.return_id HAVING count(*) > 1
      UNION ALL
      -- Never a refund with a live invoice and no credit note: each return (with an amount) of a sale
      -- invoiced here, and each invoiced sale cancelled whole, has its credit note issued or pending.
      SELECT a.id, a.sale_id, 'credit_note_missing', ${cents(sql`coalesce(x.amount, a.total)`)}, 0
        FROM invoices a
        JOIN sales s ON s.company_id = a.company_id AND s.id = a.sale_id
        LEFT JOIN sale_returns x ON x.company_id = a.company_id AND x.sale_id = a.sale_id AND x.amount > 0
        WHERE a.company_id = ${companyId} AND a.kind = 'invoice' AND a.source = 'arca'
          AND (x.id IS NOT NULL OR (s.status = 'cancelled'
            AND NOT EXISTS (SELECT 1 FROM sale_returns y WHERE y.company_id = s.company_id AND y.sale_id = s.id)))
          AND NOT EXISTS (SELECT 1 FROM invoice_attempts t WHERE t.company_id = a.company_id AND t.sale_id = a.sale_id
            AND t.kind = 'credit_note' AND t.status IN ('pending', 'approved') AND t.return_id IS NOT DISTINCT FROM x.id)
          -- A credit note issued without an attempt of its own (under a CAEA, issue 32) counts too.
          AND NOT EXISTS (SELECT 1 FROM invoices n WHERE n.company_id = a.company_id AND n.sale_id = a.sale_id
            AND n.kind = 'credit_note' AND n.return_id IS NOT DISTINCT FROM x.id)`,
    sql`invoice_id, problem`,
    cap,
  );
}

export interface InvoiceNumberRow {
  series: string;
  number: number;
  /**
   * gap: numbers missing before this one (expected is the first missing; numbers a register box
   * holds in an open CAEA block are not missing); duplicate: the number appears `found` times;
   * overlap: the point of sale has both CAE and CAEA receipts (ARCA keeps them apart).
   */
  problem: 'gap' | 'duplicate' | 'overlap';
  expected: number;
  found: number;
}

/** Per ARCA series (issuer CUIT, environment, point of sale, receipt type): numbers repeated or skipped. */
export function invoiceNumberingProblems(conn: Conn, companyId: number, cap: number) {
  return capped<InvoiceNumberRow>(
    conn,
    sql`WITH n AS (
        SELECT coalesce(issuer_cuit, '') || '/' || coalesce(environment, '') || '/' || type || ' '
            || lpad(point_of_sale::text, 4, '0') AS series, number::float8 AS number, count(*)::float8 AS copies
          FROM invoices WHERE company_id = ${companyId} AND source = 'arca'
          GROUP BY issuer_cuit, environment, type, point_of_sale, number
      ), ordered AS (
        SELECT series, number, copies, lag(number) OVER (PARTITION BY series ORDER BY number) AS previous FROM n
      )
      SELECT series, number, 'gap' AS problem, previous + 1 AS expected, number AS found
        FROM ordered o WHERE previous IS NOT NULL AND number <> previous + 1
          AND NOT EXISTS (SELECT 1 FROM caea_blocks b WHERE b.company_id = ${companyId} AND b.status = 'open'
            AND o.series = b.issuer_cuit || '/' || b.environment || '/' || (SELECT i.type FROM invoices i
              WHERE i.company_id = ${companyId} AND i.caea_block_id = b.id LIMIT 1) || ' ' || lpad(b.point_of_sale::text, 4, '0')
            AND b.first_number <= o.previous + 1 AND b.last_number >= o.number - 1)
      UNION ALL
      SELECT series, number, 'duplicate', 1, copies FROM ordered WHERE copies > 1
      UNION ALL
      SELECT coalesce(issuer_cuit, '') || '/' || coalesce(environment, '') || ' ' || lpad(point_of_sale::text, 4, '0'),
          min(number)::float8, 'overlap', count(*) FILTER (WHERE emission = 'cae')::float8, count(*) FILTER (WHERE emission = 'caea')::float8
        FROM invoices WHERE company_id = ${companyId} AND source = 'arca'
        GROUP BY issuer_cuit, environment, point_of_sale
        HAVING count(DISTINCT emission) > 1`,
    sql`series, number, problem`,
    cap,
  );
}

export interface MissingEventRow {
  event: string;
  /** The sale, movement or invoice id. */
  row_id: number;
}

/**
 * Changes since `since` with no outbound event: every sale has sales.created, a paid one sales.paid,
 * a cancelled one sales.cancelled; every movement movement.created; every invoice invoice.issued.
 * (Dispatched events are pruned after the webhook retention, so older changes are not checked.)
 */
export function missingOutboundEvents(conn: Conn, companyId: number, since: Date, cap: number) {
  const from = since.toISOString();
  return capped<MissingEventRow>(
    conn,
    sql`WITH emitted AS (
        SELECT event, coalesce(payload->'data'->'sale'->>'id', payload->'data'->'movement'->>'id',
          payload->'data'->'invoice'->>'id') AS row_id
        FROM outbox_events WHERE company_id = ${companyId} AND created_at >= ${from}::timestamptz
      ), due AS (
        SELECT 'sales.created' AS event, id AS row_id FROM sales
          WHERE company_id = ${companyId} AND created_at >= ${from}::timestamptz
        UNION ALL
        SELECT 'sales.paid', id FROM sales
          WHERE company_id = ${companyId} AND paid_at IS NOT NULL AND paid_at >= ${from}::timestamptz
        UNION ALL
        SELECT 'sales.cancelled', id FROM sales
          WHERE company_id = ${companyId} AND status = 'cancelled' AND cancelled_at >= ${from}::timestamptz
        UNION ALL
        SELECT 'movement.created', id FROM movements WHERE company_id = ${companyId} AND recorded_at >= ${from}::timestamptz
        UNION ALL
        SELECT 'invoice.issued', id FROM invoices WHERE company_id = ${companyId} AND issued_at >= ${from}::timestamptz
      )
      SELECT d.event, d.row_id FROM due d
      WHERE NOT EXISTS (SELECT 1 FROM emitted e WHERE e.event = d.event AND e.row_id = d.row_id::text)`,
    sql`event, row_id`,
    cap,
  );
}

export function companyExists(conn: Conn, companyId: number): Promise<boolean> {
  return selectRows<{ id: number }>(conn, sql`SELECT id FROM companies WHERE id = ${companyId}`).then((r) => r.length > 0);
}

export function listCompanyIds(conn: Conn): Promise<number[]> {
  return selectRows<{ id: number }>(conn, sql`SELECT id FROM companies ORDER BY id`).then((r) => r.map((x) => x.id));
}

export interface CustomerAccountRow {
  customer_id: number | null;
  /** balance: the stored balance ≠ sales on account − cancellations − payments; payment_over / sale_over: more allocated than the payment or the sale's account part; cancelled_sale: allocated to a cancelled sale; other_customer: a payment covers another customer's sale; paid_uncovered / covered_pending: a sale on account paid without its cover, or covered and still pending. */
  problem: 'balance' | 'payment_over' | 'sale_over' | 'cancelled_sale' | 'other_customer' | 'paid_uncovered' | 'covered_pending';
  row_id: number | null;
  expected_cents: number;
  found_cents: number;
}

/**
 * Cuenta corriente (0160): each customer's stored balance is their sales on account (the
 * cuenta_corriente rows of sales not cancelled) minus their payments on account; allocations never
 * exceed a payment or a sale's account part, never cover a cancelled sale or another customer's,
 * and a sale on account is paid exactly when its account part is covered.
 */
export function customerAccountMismatches(conn: Conn, companyId: number, cap: number) {
  return capped<CustomerAccountRow>(
    conn,
    sql`WITH charges AS (
        SELECT p.sale_id, p.customer_id, sum(p.amount) AS amount, s.status
          FROM sale_payments p JOIN sales s ON s.company_id = p.company_id AND s.id = p.sale_id
          WHERE p.company_id = ${companyId} AND p.method = 'cuenta_corriente' AND p.customer_id IS NOT NULL
          GROUP BY p.sale_id, p.customer_id, s.status
      ), paid_in AS (
        SELECT a.id, a.customer_id, p.amount FROM account_payments a
          JOIN sale_payments p ON p.company_id = a.company_id AND p.sale_id IS NULL AND p.id = a.id
          WHERE a.company_id = ${companyId}
      ), owed AS (
        SELECT customer_id, sum(amount) AS amount FROM (
          SELECT customer_id, amount FROM charges WHERE status <> 'cancelled'
          UNION ALL SELECT customer_id, -amount FROM paid_in
        ) x GROUP BY customer_id
      ), stored AS (
        SELECT customer_id, balance FROM customer_accounts WHERE company_id = ${companyId}
      ), by_payment AS (
        SELECT payment_id, sum(amount) AS amount FROM account_allocations WHERE company_id = ${companyId} GROUP BY payment_id
      ), by_sale AS (
        SELECT sale_id, sum(amount) AS amount FROM account_allocations WHERE company_id = ${companyId} GROUP BY sale_id
      )
      SELECT coalesce(o.customer_id, s.customer_id) AS customer_id, 'balance' AS problem, NULL::int AS row_id,
          ${cents(sql`coalesce(o.amount, 0)`)} AS expected_cents, ${cents(sql`coalesce(s.balance, 0)`)} AS found_cents
        FROM owed o FULL JOIN stored s ON s.customer_id = o.customer_id
        WHERE coalesce(o.amount, 0) <> coalesce(s.balance, 0)
      UNION ALL
      SELECT p.customer_id, 'payment_over', p.id, ${cents(sql`p.amount`)}, ${cents(sql`b.amount`)}
        FROM paid_in p JOIN by_payment b ON b.payment_id = p.id WHERE b.amount > p.amount
      UNION ALL
      SELECT c.customer_id, 'sale_over', c.sale_id, ${cents(sql`c.amount`)}, ${cents(sql`b.amount`)}
        FROM charges c JOIN by_sale b ON b.sale_id = c.sale_id WHERE b.amount > c.amount
      UNION ALL
      SELECT c.customer_id, 'cancelled_sale', c.sale_id, 0, ${cents(sql`b.amount`)}
        FROM charges c JOIN by_sale b ON b.sale_id = c.sale_id WHERE c.status = 'cancelled'
      UNION ALL
      SELECT p.customer_id, 'other_customer', x.sale_id, 0, ${cents(sql`x.amount`)}
        FROM account_allocations x JOIN paid_in p ON p.id = x.payment_id
        LEFT JOIN charges c ON c.sale_id = x.sale_id
        WHERE x.company_id = ${companyId} AND c.customer_id IS DISTINCT FROM p.customer_id
      UNION ALL
      SELECT c.customer_id, CASE WHEN c.status = 'paid' THEN 'paid_uncovered' ELSE 'covered_pending' END, c.sale_id,
          ${cents(sql`c.amount`)}, ${cents(sql`coalesce(b.amount, 0)`)}
        FROM charges c LEFT JOIN by_sale b ON b.sale_id = c.sale_id
        WHERE (c.status = 'paid' AND coalesce(b.amount, 0) <> c.amount) OR (c.status = 'pending' AND coalesce(b.amount, 0) >= c.amount)`,
    sql`customer_id, problem, row_id`,
    cap,
  );
}

export interface ShiftPeopleRow {
  session_id: number;
  /** sale_in_another_shift / cash_move_in_another_shift / handover_elsewhere. */
  problem: string;
  /** The sale, the cash move or the next shift. */
  ref_id: number;
  /** The person who made it (null for a handover). */
  user_id: number | null;
  /** The person whose shift it is. */
  shift_user_id: number | null;
}

/**
 * Shifts belong to a person (issue 29): a sale or a cash move a person made sits in that person's
 * shift (or in one with no person: a token's, or from before); a handover's next shift is at the same box
 * and opens when the previous one closed, for the next person.
 */
export function shiftPeopleProblems(conn: Conn, companyId: number, cap: number) {
  return capped<ShiftPeopleRow>(
    conn,
    sql`SELECT r.box_session_id AS session_id, 'sale_in_another_shift' AS problem, r.sale_id AS ref_id,
          r.sold_by_user_id AS user_id, s.user_id AS shift_user_id
        FROM register_sales r JOIN box_sessions s ON s.company_id = r.company_id AND s.id = r.box_session_id
        WHERE r.company_id = ${companyId} AND r.sold_by_user_id IS NOT NULL AND s.user_id IS NOT NULL
          AND r.sold_by_user_id <> s.user_id
      UNION ALL
      SELECT m.session_id, 'cash_move_in_another_shift', m.id, m.created_by_user_id, s.user_id
        FROM box_cash_moves m JOIN box_sessions s ON s.company_id = m.company_id AND s.id = m.session_id
        WHERE m.company_id = ${companyId} AND m.created_by_user_id IS NOT NULL AND s.user_id IS NOT NULL
          AND m.created_by_user_id <> s.user_id
      UNION ALL
      SELECT s.id, 'handover_elsewhere', s.handed_over_to, NULL::int, s.user_id
        FROM box_sessions s LEFT JOIN box_sessions n ON n.company_id = s.company_id AND n.id = s.handed_over_to
        WHERE s.company_id = ${companyId} AND s.handed_over_to IS NOT NULL
          AND (n.id IS NULL OR n.box_id <> s.box_id OR s.status <> 'closed' OR n.opened_at <> s.closed_at
            OR n.user_id IS DISTINCT FROM s.closed_by_user_id)`,
    sql`session_id, problem, ref_id`,
    cap,
  );
}

export interface CaeaUninformedRow {
  /** The receipt ("B 0005-00000012"), or the CAEA when its point of sale had no movement. */
  what: string;
  inform_by: string;
  status: string;
}

/**
 * Nothing issued under a CAEA left uninformed past its deadline (FchTopeInf): every CAEA receipt
 * informed, and a CAEA whose point of sale issued nothing informed "sin movimiento".
 */
export function caeaUninformed(conn: Conn, companyId: number, today: string, cap: number) {
  return capped<CaeaUninformedRow>(
    conn,
    sql`SELECT type || ' ' || lpad(point_of_sale::text, 4, '0') || '-' || lpad(number::text, 8, '0') AS what,
          inform_by::text AS inform_by, inform_status AS status
        FROM invoices WHERE company_id = ${companyId} AND emission = 'caea' AND inform_status <> 'informed'
          AND inform_by < ${today}::date
      UNION ALL
      SELECT 'CAEA ' || k.caea || ' punto de venta ' || lpad(p.point_of_sale::text, 4, '0'), k.inform_by::text,
          'sin movimiento no informado'
        FROM caea_codes k JOIN company_fiscal f ON f.company_id = k.company_id
        CROSS JOIN LATERAL (SELECT q.point_of_sale FROM (VALUES (f.caea_point_of_sale), (f.caea_register_point_of_sale))
          AS q(point_of_sale) WHERE q.point_of_sale IS NOT NULL) AS p
        WHERE k.company_id = ${companyId} AND k.inform_by < ${today}::date
          AND NOT EXISTS (SELECT 1 FROM invoices i WHERE i.company_id = k.company_id AND i.caea_id = k.id
            AND i.point_of_sale = p.point_of_sale)
          AND NOT EXISTS (SELECT 1 FROM caea_no_movement n WHERE n.company_id = k.company_id AND n.caea_id = k.id
            AND n.point_of_sale = p.point_of_sale AND n.status = 'informed')`,
    sql`inform_by, what`,
    cap,
  );
}
