import { type SQL, sql } from 'drizzle-orm';
import { type Conn, selectRows } from '../../db/client.ts';
import type { PaymentMethod } from '../../db/schema/index.ts';
import { AppError } from '../../lib/errors.ts';
import type { LockedProducts } from '../stock/stock.ledger.ts';

// The register's SQL: box sessions, cash moves, register sales, payments, listings and totals.
// Every query is scoped by company_id.

export interface BoxRow {
  id: number;
  name: string;
  deposit_id: number | null;
  /** The deposit the box sells from: its own, or the company's default. */
  sells_from: number | null;
}

export async function findBox(conn: Conn, companyId: number, boxId: number, lock = false): Promise<BoxRow | null> {
  const [row] = await selectRows<BoxRow>(
    conn,
    sql`SELECT b.id, b.name, b.deposit_id,
        coalesce(b.deposit_id, (SELECT d.id FROM deposits d WHERE d.company_id = b.company_id AND d.is_default)) AS sells_from
      FROM boxes b WHERE b.company_id = ${companyId} AND b.id = ${boxId}${lock ? sql` FOR UPDATE OF b` : sql``}`,
  );
  return row ?? null;
}

export interface BoxWithSession extends BoxRow {
  open_session_id: number | null;
}

export function listBoxes(conn: Conn, companyId: number): Promise<BoxWithSession[]> {
  return selectRows<BoxWithSession>(
    conn,
    sql`SELECT b.id, b.name, b.deposit_id,
        coalesce(b.deposit_id, (SELECT d.id FROM deposits d WHERE d.company_id = b.company_id AND d.is_default)) AS sells_from,
        (SELECT s.id FROM box_sessions s WHERE s.company_id = b.company_id AND s.box_id = b.id AND s.status = 'open') AS open_session_id
      FROM boxes b WHERE b.company_id = ${companyId} ORDER BY b.id`,
  );
}

export interface SessionRow {
  company_id: number;
  id: number;
  box_id: number;
  box_name: string;
  status: 'open' | 'closed';
  opening_cash: string;
  opened_at: Date | string;
  opened_by: string;
  counted: Record<string, string> | null;
  expected: Record<string, string> | null;
  closed_at: Date | string | null;
  closed_by: string | null;
  note: string | null;
}

const SESSION_SELECT = sql`SELECT s.company_id, s.id, s.box_id, b.name AS box_name, s.status, s.opening_cash, s.opened_at,
    s.opened_by, s.counted, s.expected, s.closed_at, s.closed_by, s.note
  FROM box_sessions s JOIN boxes b ON b.company_id = s.company_id AND b.id = s.box_id`;

export async function findSession(conn: Conn, companyId: number, id: number, lock = false): Promise<SessionRow | null> {
  const [row] = await selectRows<SessionRow>(
    conn,
    sql`${SESSION_SELECT} WHERE s.company_id = ${companyId} AND s.id = ${id}${lock ? sql` FOR UPDATE OF s` : sql``}`,
  );
  return row ?? null;
}

/**
 * The box's open session. `share` holds it open until the caller commits (a sale booked in it):
 * a close waits for that sale, and a sale that waited for a close finds no open session.
 */
export async function findOpenSession(
  conn: Conn,
  companyId: number,
  boxId: number,
  lock: 'share' | null = null,
): Promise<SessionRow | null> {
  const [row] = await selectRows<SessionRow>(
    conn,
    sql`${SESSION_SELECT} WHERE s.company_id = ${companyId} AND s.box_id = ${boxId} AND s.status = 'open'${
      lock ? sql` FOR SHARE OF s` : sql``
    }`,
  );
  return row ?? null;
}

export function listSessions(
  conn: Conn,
  companyId: number,
  filter: { boxId?: number; from?: Bound; to?: Bound; limit: number },
): Promise<SessionRow[]> {
  const where: SQL[] = [sql`s.company_id = ${companyId}`];
  if (filter.boxId !== undefined) where.push(sql`s.box_id = ${filter.boxId}`);
  if (filter.from) where.push(sql`s.opened_at >= ${boundSql(companyId, filter.from, false)}`);
  if (filter.to) where.push(sql`s.opened_at < ${boundSql(companyId, filter.to, true)}`);
  return selectRows<SessionRow>(
    conn,
    sql`${SESSION_SELECT} WHERE ${sql.join(where, sql` AND `)} ORDER BY s.opened_at DESC, s.id DESC LIMIT ${filter.limit}`,
  );
}

export async function insertSession(
  conn: Conn,
  values: { companyId: number; id: number; boxId: number; openingCash: string; openedBy: string; now: Date },
) {
  await conn.execute(
    sql`INSERT INTO box_sessions (company_id, id, box_id, status, opening_cash, opened_at, opened_by)
      VALUES (${values.companyId}, ${values.id}, ${values.boxId}, 'open', ${values.openingCash}, ${values.now.toISOString()}, ${values.openedBy})`,
  );
}

export async function closeSessionRow(
  conn: Conn,
  values: {
    companyId: number;
    id: number;
    counted: Record<string, string>;
    expected: Record<string, string>;
    closedBy: string;
    note: string | null;
    now: Date;
  },
) {
  await conn.execute(
    sql`UPDATE box_sessions SET status = 'closed', counted = ${JSON.stringify(values.counted)}::jsonb,
        expected = ${JSON.stringify(values.expected)}::jsonb, closed_at = ${values.now.toISOString()},
        closed_by = ${values.closedBy}, note = ${values.note}
      WHERE company_id = ${values.companyId} AND id = ${values.id}`,
  );
}

export interface CashMoveRow {
  id: number;
  kind: 'in' | 'out';
  amount: string;
  reason: string;
  created_by: string;
  created_at: Date | string;
}

export function listCashMoves(conn: Conn, companyId: number, sessionId: number): Promise<CashMoveRow[]> {
  return selectRows<CashMoveRow>(
    conn,
    sql`SELECT id, kind, amount, reason, created_by, created_at FROM box_cash_moves
      WHERE company_id = ${companyId} AND session_id = ${sessionId} ORDER BY id`,
  );
}

export async function insertCashMove(
  conn: Conn,
  v: { companyId: number; sessionId: number; kind: 'in' | 'out'; amount: string; reason: string; createdBy: string; now: Date },
): Promise<number> {
  const [row] = await selectRows<{ id: number }>(
    conn,
    sql`INSERT INTO box_cash_moves (company_id, session_id, id, kind, amount, reason, created_by, created_at)
      SELECT ${v.companyId}, ${v.sessionId}, coalesce(max(id), 0) + 1, ${v.kind}, ${v.amount}, ${v.reason}, ${v.createdBy},
        ${v.now.toISOString()}
      FROM box_cash_moves WHERE company_id = ${v.companyId} AND session_id = ${v.sessionId}
      RETURNING id`,
  );
  return Number(row!.id);
}

/** What a session took and gave back, per method: payments booked in it, refunds booked in it, change given. */
export interface SessionTotals {
  payments: { method: PaymentMethod; amount: string; count: number }[];
  refunds: { method: PaymentMethod; amount: string; count: number }[];
  sales: { count: number; total: string };
  cash_in: string;
  cash_out: string;
}

export async function sessionTotals(conn: Conn, companyId: number, sessionId: number): Promise<SessionTotals> {
  const payments = await selectRows<{ method: PaymentMethod; amount: string; count: number }>(
    conn,
    sql`SELECT p.method, sum(p.amount)::text AS amount, count(*)::int AS count FROM sale_payments p
      WHERE p.company_id = ${companyId} AND p.box_session_id = ${sessionId} GROUP BY p.method ORDER BY p.method`,
  );
  const refunds = await selectRows<{ method: PaymentMethod; amount: string; count: number }>(
    conn,
    sql`SELECT p.method, sum(p.amount)::text AS amount, count(*)::int AS count
      FROM register_sales r JOIN sale_payments p ON p.company_id = r.company_id AND p.sale_id = r.sale_id
      WHERE r.company_id = ${companyId} AND r.refund_session_id = ${sessionId} GROUP BY p.method ORDER BY p.method`,
  );
  const [sales] = await selectRows<{ count: number; total: string }>(
    conn,
    sql`SELECT count(*)::int AS count, coalesce(sum(s.total), 0)::text AS total
      FROM register_sales r JOIN sales s ON s.company_id = r.company_id AND s.id = r.sale_id
      WHERE r.company_id = ${companyId} AND r.box_session_id = ${sessionId} AND s.status <> 'cancelled'`,
  );
  const [cash] = await selectRows<{ cash_in: string; cash_out: string }>(
    conn,
    sql`SELECT coalesce(sum(amount) FILTER (WHERE kind = 'in'), 0)::text AS cash_in,
        coalesce(sum(amount) FILTER (WHERE kind = 'out'), 0)::text AS cash_out
      FROM box_cash_moves WHERE company_id = ${companyId} AND session_id = ${sessionId}`,
  );
  return { payments, refunds, sales: sales!, cash_in: cash!.cash_in, cash_out: cash!.cash_out };
}

// --- register sales ---

export interface RegisterSaleKeyRow {
  sale_id: number;
  request_sha256: string;
}

export async function findSaleByKey(conn: Conn, companyId: number, key: string): Promise<RegisterSaleKeyRow | null> {
  const [row] = await selectRows<RegisterSaleKeyRow>(
    conn,
    sql`SELECT sale_id, request_sha256 FROM register_sales WHERE company_id = ${companyId} AND idempotency_key = ${key}`,
  );
  return row ?? null;
}

/** Serialises requests that carry the same idempotency key (to the end of the transaction). */
export async function lockIdempotencyKey(conn: Conn, companyId: number, key: string) {
  await conn.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`sale-key:${companyId}:${key}`}))`);
}

export interface ProductForSale {
  id: number;
  name: string;
  sku: string | null;
  bc: string | null;
  base_price: string;
  unit: 'unit' | 'kg';
  enable: boolean;
  updated_at: Date | string;
}

export function findProductsForSale(conn: Conn, companyId: number, ids: number[]): Promise<ProductForSale[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return selectRows<ProductForSale>(
    conn,
    sql`SELECT id, name, sku, bc, base_price, unit, enable, updated_at FROM products
      WHERE company_id = ${companyId} AND id IN (${sql.join(
        ids.map((id) => sql`${id}`),
        sql`, `,
      )})`,
  );
}

/** A product by its scale PLU (as printed or without leading zeros), in `sku`. */
export async function findProductByPlu(conn: Conn, companyId: number, candidates: string[]): Promise<ProductForSale | null> {
  const [row] = await selectRows<ProductForSale>(
    conn,
    sql`SELECT id, name, sku, bc, base_price, unit, enable, updated_at FROM products
      WHERE company_id = ${companyId} AND sku IN (${sql.join(
        candidates.map((c) => sql`${c}`),
        sql`, `,
      )}) ORDER BY enable DESC, id LIMIT 1`,
  );
  return row ?? null;
}

export async function findCompanySettings(
  conn: Conn,
  companyId: number,
): Promise<{ name: string; cuit: string | null; timezone: string; settings: Record<string, unknown> }> {
  const [row] = await selectRows<{ name: string; cuit: string | null; timezone: string; settings: Record<string, unknown> }>(
    conn,
    sql`SELECT name, cuit, timezone, settings FROM companies WHERE id = ${companyId}`,
  );
  if (!row) throw new Error(`company ${companyId} does not exist`);
  return row;
}

export async function addRegisterChange(conn: Conn, companyId: number, saleId: number, change: string) {
  await conn.execute(
    sql`UPDATE register_sales SET change = change + ${change} WHERE company_id = ${companyId} AND sale_id = ${saleId}`,
  );
}

export async function setRefundSession(conn: Conn, companyId: number, saleId: number, sessionId: number) {
  await conn.execute(
    sql`UPDATE register_sales SET refund_session_id = ${sessionId} WHERE company_id = ${companyId} AND sale_id = ${saleId}`,
  );
}

// --- reading sales ---

export interface SaleListRow {
  id: number;
  customer_id: number | null;
  box_id: number | null;
  box_name: string | null;
  total: string;
  status: 'pending' | 'paid' | 'cancelled';
  payment_method: string | null;
  paid_at: Date | string | null;
  cancelled_at: Date | string | null;
  cancellation_reason: string | null;
  created_at: Date | string;
  /** Register sales only (null for integration-received ones). */
  box_session_id: number | null;
  deposit_id: number | null;
  customer_name: string | null;
  sold_by: string | null;
  change: string | null;
  refund_session_id: number | null;
  paid_total: string;
}

const SALE_SELECT = sql`SELECT s.id, s.customer_id, s.box_id, b.name AS box_name, s.total, s.status, s.payment_method, s.paid_at,
    s.cancelled_at, s.cancellation_reason, s.created_at, r.box_session_id, r.deposit_id, r.customer_name, r.sold_by, r.change,
    r.refund_session_id,
    (SELECT coalesce(sum(p.amount), 0)::text FROM sale_payments p WHERE p.company_id = s.company_id AND p.sale_id = s.id)
      AS paid_total
  FROM sales s
  LEFT JOIN register_sales r ON r.company_id = s.company_id AND r.sale_id = s.id
  LEFT JOIN boxes b ON b.company_id = s.company_id AND b.id = s.box_id`;

export async function findSaleRow(conn: Conn, companyId: number, id: number, lock = false): Promise<SaleListRow | null> {
  const [row] = await selectRows<SaleListRow>(
    conn,
    sql`${SALE_SELECT} WHERE s.company_id = ${companyId} AND s.id = ${id}${lock ? sql` FOR UPDATE OF s` : sql``}`,
  );
  return row ?? null;
}

/** A bound of a listing: a day (yyyy-mm-dd, in the company's time zone) or an instant. */
export type Bound = { day: string } | Date;

function boundSql(companyId: number, bound: Bound, end: boolean): SQL {
  if (bound instanceof Date) return sql`${bound.toISOString()}::timestamptz`;
  const day = end ? sql`(${bound.day}::date + 1)` : sql`${bound.day}::date`;
  return sql`(${day}::timestamp AT TIME ZONE (SELECT timezone FROM companies WHERE id = ${companyId}))`;
}

export interface SaleFilter {
  from?: Bound;
  to?: Bound;
  boxId?: number;
  sessionId?: number;
  status?: string;
  method?: string;
  /** Sales with an id below this one (pages go newest first). */
  before?: number;
  limit: number;
}

export function listSaleRows(conn: Conn, companyId: number, f: SaleFilter): Promise<SaleListRow[]> {
  const where: SQL[] = [sql`s.company_id = ${companyId}`];
  if (f.from) where.push(sql`s.created_at >= ${boundSql(companyId, f.from, false)}`);
  if (f.to) where.push(sql`s.created_at < ${boundSql(companyId, f.to, true)}`);
  if (f.boxId !== undefined) where.push(sql`s.box_id = ${f.boxId}`);
  if (f.sessionId !== undefined) where.push(sql`r.box_session_id = ${f.sessionId}`);
  if (f.status) where.push(sql`s.status = ${f.status}`);
  if (f.method) {
    where.push(sql`(EXISTS (SELECT 1 FROM sale_payments p WHERE p.company_id = s.company_id AND p.sale_id = s.id
      AND p.method = ${f.method}) OR (r.sale_id IS NULL AND s.payment_method = ${f.method}))`);
  }
  if (f.before !== undefined) where.push(sql`s.id < ${f.before}`);
  return selectRows<SaleListRow>(
    conn,
    sql`${SALE_SELECT} WHERE ${sql.join(where, sql` AND `)} ORDER BY s.id DESC LIMIT ${f.limit}`,
  );
}

export interface SaleItemDetailRow {
  sale_id: number;
  id: number;
  product_id: number;
  name: string;
  unit: 'unit' | 'kg';
  quantity: string;
  price: string;
  subtotal: string;
}

export function listSaleItems(conn: Conn, companyId: number, saleIds: number[]): Promise<SaleItemDetailRow[]> {
  if (saleIds.length === 0) return Promise.resolve([]);
  return selectRows<SaleItemDetailRow>(
    conn,
    sql`SELECT i.sale_id, i.id, i.product_id, p.name, p.unit, i.quantity, i.price, i.subtotal
      FROM sale_items i JOIN products p ON p.company_id = i.company_id AND p.id = i.product_id
      WHERE i.company_id = ${companyId} AND i.sale_id IN (${sql.join(
        saleIds.map((id) => sql`${id}`),
        sql`, `,
      )}) ORDER BY i.sale_id, i.id`,
  );
}

export interface PaymentRow {
  sale_id: number;
  id: number;
  method: PaymentMethod;
  amount: string;
  tendered: string | null;
  change: string;
  reference: string | null;
  box_session_id: number | null;
  created_at: Date | string;
}

export function listPayments(conn: Conn, companyId: number, saleIds: number[]): Promise<PaymentRow[]> {
  if (saleIds.length === 0) return Promise.resolve([]);
  return selectRows<PaymentRow>(
    conn,
    sql`SELECT sale_id, id, method, amount, tendered, change, reference, box_session_id, created_at FROM sale_payments
      WHERE company_id = ${companyId} AND sale_id IN (${sql.join(
        saleIds.map((id) => sql`${id}`),
        sql`, `,
      )}) ORDER BY sale_id, id`,
  );
}

/** A day's totals in the company's time zone: by payment method (net of refunds) and by box. */
export async function daySummary(conn: Conn, companyId: number, date: string) {
  const day = sql`(SELECT timezone FROM companies WHERE id = ${companyId})`;
  const inDay = (column: SQL) => sql`(${column} AT TIME ZONE ${day})::date = ${date}::date`;
  const byMethod = await selectRows<{ method: string; amount: string; count: number }>(
    conn,
    sql`SELECT p.method, sum(p.amount)::text AS amount, count(DISTINCT p.sale_id)::int AS count
      FROM sale_payments p JOIN sales s ON s.company_id = p.company_id AND s.id = p.sale_id
      WHERE p.company_id = ${companyId} AND s.status <> 'cancelled' AND ${inDay(sql`s.created_at`)}
      GROUP BY p.method ORDER BY p.method`,
  );
  const byBox = await selectRows<{ box_id: number | null; box_name: string | null; count: number; total: string }>(
    conn,
    sql`SELECT s.box_id, b.name AS box_name, count(*)::int AS count, sum(s.total)::text AS total
      FROM sales s LEFT JOIN boxes b ON b.company_id = s.company_id AND b.id = s.box_id
      WHERE s.company_id = ${companyId} AND s.status <> 'cancelled' AND ${inDay(sql`s.created_at`)}
      GROUP BY s.box_id, b.name ORDER BY s.box_id NULLS LAST`,
  );
  const [totals] = await selectRows<{ count: number; total: string; pending: string; cancelled: number }>(
    conn,
    sql`SELECT count(*) FILTER (WHERE s.status <> 'cancelled')::int AS count,
        coalesce(sum(s.total) FILTER (WHERE s.status <> 'cancelled'), 0)::text AS total,
        coalesce(sum(s.total) FILTER (WHERE s.status = 'pending'), 0)::text AS pending,
        count(*) FILTER (WHERE s.status = 'cancelled')::int AS cancelled
      FROM sales s WHERE s.company_id = ${companyId} AND ${inDay(sql`s.created_at`)}`,
  );
  return { byMethod, byBox, totals: totals! };
}

// --- the register's catalogue ---

export interface CatalogStamp {
  count: number;
  latest: string | null;
}

export async function catalogStamp(conn: Conn, companyId: number): Promise<CatalogStamp> {
  const [row] = await selectRows<{ count: number; latest: string | null }>(
    conn,
    sql`SELECT count(*)::int AS count, max(updated_at)::text AS latest FROM products WHERE company_id = ${companyId}`,
  );
  return row!;
}

export function catalogRows(conn: Conn, companyId: number) {
  return selectRows<{ id: number; name: string; price: string; bc: string | null; sku: string | null; unit: 'unit' | 'kg' }>(
    conn,
    sql`SELECT id, name, base_price::text AS price, bc, sku, unit FROM products
      WHERE company_id = ${companyId} AND enable ORDER BY id`,
  );
}

/**
 * The register's own row of a sale (box session, deposit, idempotency key, who sold it, change) as
 * a CTE step of the statement that creates the sale (sales.repo saleInsertSteps, the ledger's steps).
 */
export function registerRowStep(v: {
  companyId: number;
  saleId: number;
  sessionId: number;
  depositId: number;
  key: string;
  sha256: string;
  customerName: string | null;
  soldBy: string;
  soldAt: Date;
  change: string;
}): SQL {
  return sql`register AS (
      INSERT INTO register_sales (company_id, sale_id, box_session_id, deposit_id, idempotency_key, request_sha256,
        customer_name, sold_by, sold_at, change)
      VALUES (${v.companyId}, ${v.saleId}, ${v.sessionId}, ${v.depositId}, ${v.key}, ${v.sha256}, ${v.customerName}, ${v.soldBy},
        ${v.soldAt.toISOString()}::timestamptz, ${v.change}::numeric))`;
}

export interface SellingPoint {
  box_id: number;
  box_name: string;
  sells_from: number | null;
  session_id: number;
  settings: Record<string, unknown>;
}

/**
 * Where a sale is made, in one read: the box, the deposit it sells from, its open session (held
 * open to the end of the transaction, as findOpenSession 'share') and the company's settings.
 * Null when the box does not exist or has no open session (findBox tells which).
 */
export async function findSellingPoint(conn: Conn, companyId: number, boxId: number): Promise<SellingPoint | null> {
  const [row] = await selectRows<SellingPoint>(
    conn,
    sql`SELECT b.id AS box_id, b.name AS box_name,
        coalesce(b.deposit_id, (SELECT d.id FROM deposits d WHERE d.company_id = b.company_id AND d.is_default)) AS sells_from,
        s.id AS session_id, c.settings
      FROM boxes b
      JOIN box_sessions s ON s.company_id = b.company_id AND s.box_id = b.id AND s.status = 'open'
      JOIN companies c ON c.id = b.company_id
      WHERE b.company_id = ${companyId} AND b.id = ${boxId}
      FOR SHARE OF s`,
  );
  return row ?? null;
}

/**
 * The locks and ids of a register sale in one call (migration 0035): the products' rows in id
 * order, then the sale number and one movement number per line from the company's counters
 * (src/db/ids.ts). The products as lockForMovements answers them; one that does not exist is refused.
 */
export async function lockRegisterSale(conn: Conn, companyId: number, productIds: number[]) {
  const ids = [...new Set(productIds)].sort((a, b) => a - b);
  const rows = await selectRows<{ id: number; stock: string; sku: string | null; next_sale: number; next_movement: number }>(
    conn,
    sql`SELECT id, stock::text AS stock, sku, next_sale, next_movement FROM lock_register_sale(${companyId}, ${sql.param(ids)}::int[], ${productIds.length})`,
  );
  const locked: LockedProducts = new Map(rows.map((p) => [Number(p.id), { stock: p.stock, sku: p.sku }]));
  for (const id of ids) if (!locked.has(id)) throw new AppError('invalid_reference', `product ${id} does not exist`);
  return { locked, saleId: Number(rows[0]!.next_sale), firstMovementId: Number(rows[0]!.next_movement) };
}

/** The receipts issued for these sales ("B 0003-00000012"), oldest first, for the sales CSV. */
export async function receiptsOfSales(
  conn: Conn,
  companyId: number,
  saleIds: number[],
): Promise<{ sale_id: number; kind: 'invoice' | 'credit_note'; type: string; point_of_sale: number; number: number }[]> {
  if (saleIds.length === 0) return [];
  return selectRows(
    conn,
    sql`SELECT sale_id, kind, type, point_of_sale, number::int AS number FROM invoices
      WHERE company_id = ${companyId} AND sale_id IN (${sql.join(
        saleIds.map((id) => sql`${id}`),
        sql`, `,
      )}) ORDER BY id`,
  );
}
