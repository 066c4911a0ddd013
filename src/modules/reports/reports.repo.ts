import { type SQL, sql } from 'drizzle-orm';
import { type Conn, readTogether, selectRows } from '../../db/client.ts';
import { PENDING_OWED, PENDING_PAID } from '../sales/sales.repo.ts';

// The reports' SQL: sales, lines, payments, stock and movements read in a range of local days of
// the company's time zone. A sale counts as the day summary counts it (sales.repo daySummaries):
// by its created_at, every status but cancelled. Amounts come back as numeric text.

/** Local days [from, to] (yyyy-mm-dd, both included) in `timeZone`, and the optional scope. */
export interface ReportRange {
  from: string;
  to: string;
  timeZone: string;
  depositId?: number | undefined;
  boxId?: number | undefined;
}

/** The sales of the range, as a WHERE over `sales s` left-joined to `register_sales r`. */
function salesWhere(companyId: number, r: ReportRange): SQL {
  const parts: SQL[] = [
    sql`s.company_id = ${companyId}`,
    sql`s.status <> 'cancelled'`,
    sql`s.created_at >= (${r.from}::date::timestamp AT TIME ZONE ${r.timeZone})`,
    sql`s.created_at < ((${r.to}::date + 1)::timestamp AT TIME ZONE ${r.timeZone})`,
  ];
  if (r.depositId !== undefined) parts.push(sql`r.deposit_id = ${r.depositId}`);
  if (r.boxId !== undefined) parts.push(sql`s.box_id = ${r.boxId}`);
  return sql.join(parts, sql` AND `);
}

const SALES_FROM = sql`sales s LEFT JOIN register_sales r ON r.company_id = s.company_id AND r.sale_id = s.id`;
const LINES_FROM = sql`${SALES_FROM}
  JOIN sale_items i ON i.company_id = s.company_id AND i.sale_id = s.id
  JOIN products p ON p.company_id = i.company_id AND p.id = i.product_id`;

export interface DayRow {
  day: string;
  tickets: number;
  total: string;
}

export function salesByDay(conn: Conn, companyId: number, r: ReportRange): Promise<DayRow[]> {
  return selectRows<DayRow>(
    conn,
    sql`SELECT (s.created_at AT TIME ZONE ${r.timeZone})::date::text AS day, count(*)::int AS tickets, sum(s.total)::text AS total
      FROM ${SALES_FROM} WHERE ${salesWhere(companyId, r)} GROUP BY 1 ORDER BY 1`,
  );
}

export interface HourRow {
  hour: number;
  tickets: number;
  total: string;
}

export function salesByHour(conn: Conn, companyId: number, r: ReportRange): Promise<HourRow[]> {
  return selectRows<HourRow>(
    conn,
    sql`SELECT extract(hour FROM s.created_at AT TIME ZONE ${r.timeZone})::int AS hour, count(*)::int AS tickets,
        sum(s.total)::text AS total
      FROM ${SALES_FROM} WHERE ${salesWhere(companyId, r)} GROUP BY 1 ORDER BY 1`,
  );
}

export interface TotalsRow {
  tickets: number;
  total: string;
}

export async function salesTotals(conn: Conn, companyId: number, r: ReportRange): Promise<TotalsRow> {
  const [row] = await selectRows<TotalsRow>(
    conn,
    sql`SELECT count(*)::int AS tickets, coalesce(sum(s.total), 0)::text AS total FROM ${SALES_FROM} WHERE ${salesWhere(companyId, r)}`,
  );
  return row!;
}

export interface GroupRow {
  key: string | null;
  name: string | null;
  quantity: string;
  total: string;
  tickets: number;
  /** Cost of the lines whose product has a cost (the product's current cost × quantity). */
  cost: string | null;
  /** Sales of lines whose product has no cost. */
  without_cost: string;
}

/** Lines grouped by product, category or brand, biggest sales first. */
export function linesBy(
  conn: Conn,
  companyId: number,
  r: ReportRange,
  by: 'product' | 'category' | 'brand',
  limit?: number,
): Promise<GroupRow[]> {
  const group = {
    product: { key: sql`p.id::text`, name: sql`p.name`, join: sql``, groupBy: sql`p.id, p.name` },
    category: {
      key: sql`p.category_id::text`,
      name: sql`c.name`,
      join: sql`LEFT JOIN categories c ON c.company_id = p.company_id AND c.id = p.category_id`,
      groupBy: sql`p.category_id, c.name`,
    },
    brand: { key: sql`nullif(trim(p.mark), '')`, name: sql`nullif(trim(p.mark), '')`, join: sql``, groupBy: sql`1` },
  }[by];
  return selectRows<GroupRow>(
    conn,
    sql`SELECT ${group.key} AS key, ${group.name} AS name, sum(i.quantity)::text AS quantity, sum(i.subtotal)::text AS total,
        count(DISTINCT i.sale_id)::int AS tickets,
        round(sum(i.quantity * p.cost) FILTER (WHERE p.cost IS NOT NULL), 2)::text AS cost,
        coalesce(sum(i.subtotal) FILTER (WHERE p.cost IS NULL), 0)::text AS without_cost
      FROM ${LINES_FROM} ${group.join}
      WHERE ${salesWhere(companyId, r)}
      GROUP BY ${by === 'brand' ? sql`nullif(trim(p.mark), '')` : group.groupBy}
      ORDER BY sum(i.subtotal) DESC, 2${limit === undefined ? sql`` : sql` LIMIT ${limit}`}`,
  );
}

export interface CashierRow {
  sold_by: string | null;
  tickets: number;
  total: string;
}

/** Register sales by who sold them; integration sales (no register row) are one group, sold_by null. */
export function salesByCashier(conn: Conn, companyId: number, r: ReportRange): Promise<CashierRow[]> {
  return selectRows<CashierRow>(
    conn,
    sql`SELECT r.sold_by, count(*)::int AS tickets, sum(s.total)::text AS total
      FROM ${SALES_FROM} WHERE ${salesWhere(companyId, r)} GROUP BY r.sold_by ORDER BY sum(s.total) DESC, 1`,
  );
}

export interface MethodRow {
  method: string;
  tickets: number;
  amount: string;
}

/** Payments of the range's sales by method (as the day summary's by_method); pending is not paid yet. */
export function paymentsByMethod(conn: Conn, companyId: number, r: ReportRange): Promise<MethodRow[]> {
  return selectRows<MethodRow>(
    conn,
    sql`SELECT pm.method, count(DISTINCT pm.sale_id)::int AS tickets, sum(pm.amount)::text AS amount
      FROM ${SALES_FROM} JOIN sale_payments pm ON pm.company_id = s.company_id AND pm.sale_id = s.id
      WHERE ${salesWhere(companyId, r)} GROUP BY pm.method ORDER BY sum(pm.amount) DESC, 1`,
  );
}

/** What the range's pending sales still owe beyond their payments, as the day summary's `pending`. */
export async function pendingTotal(conn: Conn, companyId: number, r: ReportRange): Promise<string> {
  const [row] = await selectRows<{ pending: string }>(
    conn,
    sql`SELECT ${PENDING_OWED} AS pending FROM ${SALES_FROM} ${PENDING_PAID}
      WHERE ${salesWhere(companyId, r)} AND s.status = 'pending'`,
  );
  return row!.pending;
}

export interface StockValueRow {
  deposit_id: number;
  deposit_name: string;
  products: number;
  units: string;
  at_cost: string;
  at_price: string;
  without_cost: number;
  negative: number;
}

/** Today's stock per deposit valued at cost and at price; only positive quantities carry value. */
export function stockValuation(conn: Conn, companyId: number, depositId: number | undefined): Promise<StockValueRow[]> {
  return selectRows<StockValueRow>(
    conn,
    sql`SELECT d.id AS deposit_id, d.name AS deposit_name,
        count(l.product_id) FILTER (WHERE l.quantity > 0)::int AS products,
        coalesce(sum(l.quantity) FILTER (WHERE l.quantity > 0), 0)::text AS units,
        coalesce(round(sum(l.quantity * p.cost) FILTER (WHERE l.quantity > 0), 2), 0)::text AS at_cost,
        coalesce(round(sum(l.quantity * p.base_price) FILTER (WHERE l.quantity > 0), 2), 0)::text AS at_price,
        count(l.product_id) FILTER (WHERE l.quantity > 0 AND p.cost IS NULL)::int AS without_cost,
        count(l.product_id) FILTER (WHERE l.quantity < 0)::int AS negative
      FROM deposits d
      LEFT JOIN stock_levels l ON l.company_id = d.company_id AND l.deposit_id = d.id
      LEFT JOIN products p ON p.company_id = l.company_id AND p.id = l.product_id
      WHERE d.company_id = ${companyId}${depositId === undefined ? sql`` : sql` AND d.id = ${depositId}`}
      GROUP BY d.id, d.name ORDER BY d.id`,
  );
}

export interface MovementRow {
  product_id: number;
  name: string;
  moves: number;
  entered: string;
  left: string;
  adjusted: string;
  sent: string;
  received: string;
}

/** Stock movements of the range per product: in, out, adjustments, transfers sent and received. */
export function movementsByProduct(conn: Conn, companyId: number, r: ReportRange): Promise<MovementRow[]> {
  const d = r.depositId;
  const here = d === undefined ? sql`true` : sql`m.deposit_id = ${d}`;
  const where = sql`m.company_id = ${companyId}
    AND m.created_at >= (${r.from}::date::timestamp AT TIME ZONE ${r.timeZone})
    AND m.created_at < ((${r.to}::date + 1)::timestamp AT TIME ZONE ${r.timeZone})
    ${d === undefined ? sql`` : sql`AND (m.deposit_id = ${d} OR m.to_deposit_id = ${d})`}`;
  return selectRows<MovementRow>(
    conn,
    sql`SELECT m.product_id, p.name, count(*)::int AS moves,
        coalesce(sum(m.amount) FILTER (WHERE m.type = 'IN' AND ${here}), 0)::text AS entered,
        coalesce(sum(m.amount) FILTER (WHERE m.type = 'OUT' AND ${here}), 0)::text AS left,
        coalesce(sum(m.amount) FILTER (WHERE m.type = 'ADJUSTMENT' AND ${here}), 0)::text AS adjusted,
        coalesce(sum(m.amount) FILTER (WHERE m.type = 'TRANSFER' AND ${here}), 0)::text AS sent,
        coalesce(sum(m.amount) FILTER (WHERE m.type = 'TRANSFER' AND ${d === undefined ? sql`true` : sql`m.to_deposit_id = ${d}`}), 0)::text
          AS received
      FROM movements m JOIN products p ON p.company_id = m.company_id AND p.id = m.product_id
      WHERE ${where}
      GROUP BY m.product_id, p.name ORDER BY count(*) DESC, p.name`,
  );
}

// --- scope checks and Inicio's lists ---

export async function depositExists(conn: Conn, companyId: number, id: number): Promise<boolean> {
  const rows = await selectRows(conn, sql`SELECT 1 FROM deposits WHERE company_id = ${companyId} AND id = ${id}`);
  return rows.length > 0;
}

export async function boxExists(conn: Conn, companyId: number, id: number): Promise<boolean> {
  const rows = await selectRows(conn, sql`SELECT 1 FROM boxes WHERE company_id = ${companyId} AND id = ${id}`);
  return rows.length > 0;
}

export interface LowStockRow {
  id: number;
  name: string;
  unit: string;
  stock: string;
  min_stock: string;
}

/** Enabled products whose stock (all deposits) is below their minimum, the furthest below first. */
export function productsBelowMinimum(conn: Conn, companyId: number, limit: number): Promise<(LowStockRow & { count: number })[]> {
  return selectRows(
    conn,
    sql`SELECT id, name, unit, stock::text AS stock, min_stock::text AS min_stock, count(*) OVER ()::int AS count
      FROM products WHERE company_id = ${companyId} AND enable AND min_stock IS NOT NULL AND stock < min_stock
      ORDER BY stock - min_stock, name LIMIT ${limit}`,
  );
}

export interface UnsettledReceiptRow {
  attempt_id: number;
  sale_id: number;
  kind: string;
  letter: string;
  status: 'pending' | 'rejected';
  created_at: string;
  errors: { code: number; message: string }[];
  count: number;
}

/** Receipts waiting for ARCA, and rejected ones whose sale has no receipt of that kind since. */
export function unsettledReceipts(conn: Conn, companyId: number, limit: number): Promise<UnsettledReceiptRow[]> {
  return selectRows<UnsettledReceiptRow>(
    conn,
    sql`SELECT a.id AS attempt_id, a.sale_id, a.kind, a.letter, a.status, a.created_at, a.errors, count(*) OVER ()::int AS count
      FROM invoice_attempts a
      WHERE a.company_id = ${companyId}
        AND (a.status = 'pending' OR (a.status = 'rejected' AND NOT EXISTS (
          SELECT 1 FROM invoice_attempts b WHERE b.company_id = a.company_id AND b.sale_id = a.sale_id AND b.kind = a.kind
            AND (b.status IN ('pending', 'approved') OR (b.status = 'rejected' AND b.id > a.id)))))
      ORDER BY a.created_at DESC LIMIT ${limit}`,
  );
}

export interface OpenShiftRow {
  id: number;
  box_id: number;
  box_name: string;
  opened_at: string;
  opened_by: string;
  tickets: number;
  total: string;
}

export function openShifts(conn: Conn, companyId: number): Promise<OpenShiftRow[]> {
  return selectRows<OpenShiftRow>(
    conn,
    sql`SELECT x.id, x.box_id, b.name AS box_name, x.opened_at, x.opened_by,
        (SELECT count(*) FROM register_sales r JOIN sales s ON s.company_id = r.company_id AND s.id = r.sale_id
          WHERE r.company_id = x.company_id AND r.box_session_id = x.id AND s.status <> 'cancelled')::int AS tickets,
        (SELECT coalesce(sum(s.total), 0) FROM register_sales r JOIN sales s ON s.company_id = r.company_id AND s.id = r.sale_id
          WHERE r.company_id = x.company_id AND r.box_session_id = x.id AND s.status <> 'cancelled')::text AS total
      FROM box_sessions x JOIN boxes b ON b.company_id = x.company_id AND b.id = x.box_id
      WHERE x.company_id = ${companyId} AND x.status = 'open' ORDER BY x.opened_at`,
  );
}

/** The company's deposits and boxes, for the report filters. */
export async function listScopes(conn: Conn, companyId: number) {
  const [deposits, boxes] = await readTogether(
    conn,
    () =>
      selectRows<{ id: number; name: string }>(
        conn,
        sql`SELECT id, name FROM deposits WHERE company_id = ${companyId} ORDER BY id`,
      ),
    () =>
      selectRows<{ id: number; name: string }>(conn, sql`SELECT id, name FROM boxes WHERE company_id = ${companyId} ORDER BY id`),
  );
  return { deposits, boxes };
}
