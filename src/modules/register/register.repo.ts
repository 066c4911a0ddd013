import { type SQL, sql } from 'drizzle-orm';
import { type Conn, selectRows, selectRowsPrepared } from '../../db/client.ts';
import type { PaymentMethod } from '../../db/schema/index.ts';
import { type Bound, boundSql } from '../sales/sales.repo.ts';

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
  /** The person whose shift is open there (users.id; null: none, or no person's). */
  open_session_user_id: number | null;
  /** That person's number in the company (memberships.member_no): what the company sees. */
  open_session_user_no: number | null;
  open_session_user_name: string | null;
}

export function listBoxes(conn: Conn, companyId: number): Promise<BoxWithSession[]> {
  return selectRows<BoxWithSession>(
    conn,
    sql`SELECT b.id, b.name, b.deposit_id,
        coalesce(b.deposit_id, (SELECT d.id FROM deposits d WHERE d.company_id = b.company_id AND d.is_default)) AS sells_from,
        o.id AS open_session_id, o.user_id AS open_session_user_id, coalesce(u.display_name, u.email) AS open_session_user_name,
        (SELECT m.member_no FROM memberships m WHERE m.company_id = o.company_id AND m.user_id = o.user_id) AS open_session_user_no
      FROM boxes b
      LEFT JOIN box_sessions o ON o.company_id = b.company_id AND o.box_id = b.id AND o.status = 'open'
      LEFT JOIN users u ON u.id = o.user_id
      WHERE b.company_id = ${companyId} ORDER BY b.id`,
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
  /** The report's sales figure as fixed at the close (null while open). */
  sales_count: number | null;
  sales_total: string | null;
  /** The person whose shift it is (users.id; null: opened by an API token, the command line, or before shifts had a person). */
  user_id: number | null;
  /** That person's number in the company (memberships.member_no): what the company sees. */
  user_no: number | null;
  user_name: string | null;
  closed_by_user_id: number | null;
  handed_over_to: number | null;
  client_id: string | null;
  close_client_id: string | null;
}

const SESSION_SELECT = sql`SELECT s.company_id, s.id, s.box_id, b.name AS box_name, s.status, s.opening_cash, s.opened_at,
    s.opened_by, s.counted, s.expected, s.closed_at, s.closed_by, s.note, s.sales_count, s.sales_total,
    s.user_id, (SELECT m.member_no FROM memberships m WHERE m.company_id = s.company_id AND m.user_id = s.user_id) AS user_no,
    coalesce(u.display_name, u.email) AS user_name, s.closed_by_user_id, s.handed_over_to, s.client_id::text AS client_id,
    s.close_client_id::text AS close_client_id
  FROM box_sessions s JOIN boxes b ON b.company_id = s.company_id AND b.id = s.box_id
  LEFT JOIN users u ON u.id = s.user_id`;

/** A shift by the register's own id (one opened without connection). */
export async function findSessionByClientId(conn: Conn, companyId: number, clientId: string): Promise<SessionRow | null> {
  const [row] = await selectRows<SessionRow>(
    conn,
    sql`${SESSION_SELECT} WHERE s.company_id = ${companyId} AND s.client_id = ${clientId}::uuid`,
  );
  return row ?? null;
}

/** Serialises the opens that carry the same client id (to the end of the transaction). */
export async function lockSessionClientId(conn: Conn, companyId: number, clientId: string) {
  await conn.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`shift-client:${companyId}:${clientId}`}))`);
}

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
  filter: { boxId?: number; userId?: number; memberNo?: number; from?: Bound; to?: Bound; limit: number },
): Promise<SessionRow[]> {
  const where: SQL[] = [sql`s.company_id = ${companyId}`];
  if (filter.boxId !== undefined) where.push(sql`s.box_id = ${filter.boxId}`);
  if (filter.userId !== undefined) where.push(sql`s.user_id = ${filter.userId}`);
  // The company names a person by its own number for them; one it never gave matches no shift.
  if (filter.memberNo !== undefined)
    where.push(
      sql`s.user_id = (SELECT m.user_id FROM memberships m WHERE m.company_id = ${companyId} AND m.member_no = ${filter.memberNo})`,
    );
  if (filter.from) where.push(sql`s.opened_at >= ${boundSql(companyId, filter.from, false)}`);
  if (filter.to) where.push(sql`s.opened_at < ${boundSql(companyId, filter.to, true)}`);
  return selectRows<SessionRow>(
    conn,
    sql`${SESSION_SELECT} WHERE ${sql.join(where, sql` AND `)} ORDER BY s.opened_at DESC, s.id DESC LIMIT ${filter.limit}`,
  );
}

export async function insertSession(
  conn: Conn,
  values: {
    companyId: number;
    id: number;
    boxId: number;
    openingCash: string;
    openedBy: string;
    userId: number | null;
    clientId: string | null;
    now: Date;
  },
) {
  await conn.execute(
    sql`INSERT INTO box_sessions (company_id, id, box_id, status, opening_cash, opened_at, opened_by, user_id, client_id)
      VALUES (${values.companyId}, ${values.id}, ${values.boxId}, 'open', ${values.openingCash}, ${values.now.toISOString()},
        ${values.openedBy}, ${values.userId}, ${values.clientId}::uuid)`,
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
    closedByUserId: number | null;
    closeClientId: string | null;
    note: string | null;
    sales: { count: number; total: string };
    now: Date;
  },
) {
  await conn.execute(
    sql`UPDATE box_sessions SET status = 'closed', counted = ${JSON.stringify(values.counted)}::jsonb,
        expected = ${JSON.stringify(values.expected)}::jsonb, closed_at = ${values.now.toISOString()},
        closed_by = ${values.closedBy}, note = ${values.note}, closed_by_user_id = ${values.closedByUserId},
        close_client_id = ${values.closeClientId}::uuid,
        sales_count = ${values.sales.count}, sales_total = ${values.sales.total}
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
  v: {
    companyId: number;
    sessionId: number;
    kind: 'in' | 'out';
    amount: string;
    reason: string;
    createdBy: string;
    createdByUserId: number | null;
    now: Date;
  },
): Promise<number> {
  const [row] = await selectRows<{ id: number }>(
    conn,
    sql`INSERT INTO box_cash_moves (company_id, session_id, id, kind, amount, reason, created_by, created_by_user_id, created_at)
      SELECT ${v.companyId}, ${v.sessionId}, coalesce(max(id), 0) + 1, ${v.kind}, ${v.amount}, ${v.reason}, ${v.createdBy},
        ${v.createdByUserId}, ${v.now.toISOString()}
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
    // A whole sale refunded (cancelled) gives back its payments; a return (0200), its amount in its method.
    sql`SELECT method, sum(amount)::text AS amount, count(*)::int AS count FROM (
        SELECT p.method, p.amount
          FROM register_sales r JOIN sale_payments p ON p.company_id = r.company_id AND p.sale_id = r.sale_id
          WHERE r.company_id = ${companyId} AND r.refund_session_id = ${sessionId} AND p.method <> 'cuenta_corriente'
        UNION ALL
        SELECT x.refund_method, x.amount FROM sale_returns x
          WHERE x.company_id = ${companyId} AND x.refund_session_id = ${sessionId} AND x.amount > 0
      ) refunds GROUP BY method ORDER BY method`,
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

/** A sale of a closed session cancelled after its close: the "devoluciones posteriores" note. */
export interface LaterCancellationRow {
  sale_id: number;
  /** A sale cancelled whole, or one return of some of its lines (the sale may stay paid). */
  kind: 'cancelled' | 'returned';
  total: string;
  /** What the sale had taken and was given back (0 for a pending sale). */
  refunded: string;
  cancelled_at: Date | string;
  refund_session_id: number | null;
}

export function laterCancellations(
  conn: Conn,
  companyId: number,
  sessionId: number,
  closedAt: Date | string,
): Promise<LaterCancellationRow[]> {
  const at = closedAt instanceof Date ? closedAt.toISOString() : closedAt;
  return selectRows<LaterCancellationRow>(
    conn,
    // A sale returned line by line (0200) is listed once per return made after the close, with
    // what that return gave back and from which shift; a sale cancelled whole, once.
    sql`SELECT * FROM (
      SELECT s.id AS sale_id, 'cancelled' AS kind, s.total, s.cancelled_at, r.refund_session_id,
        (SELECT coalesce(sum(p.amount), 0)::text FROM sale_payments p WHERE p.company_id = s.company_id AND p.sale_id = s.id
          AND p.method <> 'cuenta_corriente') AS refunded
      FROM register_sales r JOIN sales s ON s.company_id = r.company_id AND s.id = r.sale_id
      WHERE r.company_id = ${companyId} AND r.box_session_id = ${sessionId} AND s.status = 'cancelled'
        AND s.cancelled_at > ${at}::timestamptz
        AND NOT EXISTS (SELECT 1 FROM sale_returns x WHERE x.company_id = s.company_id AND x.sale_id = s.id)
      UNION ALL
      SELECT s.id, 'returned', s.total, x.created_at, x.refund_session_id, x.amount::text
      FROM register_sales r JOIN sales s ON s.company_id = r.company_id AND s.id = r.sale_id
      JOIN sale_returns x ON x.company_id = s.company_id AND x.sale_id = s.id
      WHERE r.company_id = ${companyId} AND r.box_session_id = ${sessionId} AND x.created_at > ${at}::timestamptz
    ) later ORDER BY cancelled_at, sale_id`,
  );
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

/** Serialises requests that carry the same idempotency key (to the end of the transaction): an exchange's sale. */
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

export async function addRegisterChange(conn: Conn, companyId: number, saleId: number, change: string) {
  await conn.execute(
    sql`UPDATE register_sales SET change = change + ${change} WHERE company_id = ${companyId} AND sale_id = ${saleId}`,
  );
}

/** Records that `nextId` took over from the shift `id` (a handover). */
export async function setHandedOver(conn: Conn, companyId: number, id: number, nextId: number) {
  await conn.execute(sql`UPDATE box_sessions SET handed_over_to = ${nextId} WHERE company_id = ${companyId} AND id = ${id}`);
}

export async function setRefundSession(conn: Conn, companyId: number, saleId: number, sessionId: number) {
  await conn.execute(
    sql`UPDATE register_sales SET refund_session_id = ${sessionId} WHERE company_id = ${companyId} AND sale_id = ${saleId}`,
  );
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

/** The register's own row of a sale, as stored. */
export interface RegisterRowValues {
  saleId: number;
  sessionId: number;
  depositId: number;
  key: string;
  sha256: string;
  customerName: string | null;
  soldBy: string;
  soldByUserId: number | null;
  soldAt: Date;
  change: string;
  discountReason?: string | null;
  discountApprovedBy?: string | null;
}

/**
 * The register's own rows of sales (box session, deposit, idempotency key, who sold it, change) as
 * a CTE step of the statement that creates them (sales.repo saleInsertSteps, the ledger's steps),
 * from one parameter whatever their number. It is also the statement's guard (migration 0270): each
 * session is held open through lock_open_box_session, which raises `no_open_session` when it has
 * closed, and the key's unique index refuses a second sale with the same key; either way the
 * statement writes nothing.
 */
export function registerRowsStep(companyId: number, rows: RegisterRowValues[]): SQL {
  const input = JSON.stringify(
    rows.map((v) => ({
      sale_id: v.saleId,
      session_id: v.sessionId,
      deposit_id: v.depositId,
      key: v.key,
      sha256: v.sha256,
      customer_name: v.customerName,
      sold_by: v.soldBy,
      sold_by_user_id: v.soldByUserId,
      sold_at: v.soldAt.toISOString(),
      change: v.change,
      discount_reason: v.discountReason ?? null,
      discount_approved_by: v.discountApprovedBy ?? null,
    })),
  );
  return sql`register AS (
      INSERT INTO register_sales (company_id, sale_id, box_session_id, deposit_id, idempotency_key, request_sha256,
        customer_name, sold_by, sold_by_user_id, sold_at, change, discount_reason, discount_approved_by)
      SELECT ${companyId}::integer, r.sale_id, lock_open_box_session(${companyId}::integer, r.session_id), r.deposit_id,
        r.key, r.sha256, r.customer_name, r.sold_by, r.sold_by_user_id, r.sold_at, r.change, r.discount_reason,
        r.discount_approved_by
      FROM jsonb_to_recordset(${input}::jsonb) AS r(sale_id integer, session_id integer, deposit_id integer, key text,
        sha256 text, customer_name text, sold_by text, sold_by_user_id integer, sold_at timestamptz, change numeric,
        discount_reason text, discount_approved_by text))`;
}

export interface SellingPoint {
  box_id: number;
  box_name: string;
  sells_from: number | null;
  session_id: number;
  /** The person whose shift is open at the box (null: no person's). */
  session_user_id: number | null;
  session_user_name: string | null;
  settings: Record<string, unknown>;
}

export type SellingPointRead = (SellingPoint & { products: ProductForSale[] }) | null;

/**
 * Where sales are made, in one read for any number of them (the register reads the sales that
 * arrive together at once): for each request, the box, the deposit it sells from, its open session,
 * the company's settings and the products that sale names (by id; the others are not read). Null
 * for a box that does not exist or has no open session (findBox tells which). It locks nothing (a
 * lock would give the read a transaction id and a WAL flush of its own): the sale's statement holds
 * the session itself (registerRowsStep).
 */
export async function findSellingPoints(
  conn: Conn,
  companyId: number,
  requests: { boxId: number; productIds: number[] }[],
): Promise<SellingPointRead[]> {
  const rows = await selectRowsPrepared<SellingPoint & { n: number; products: string }>(
    conn,
    sql`SELECT r.n::integer AS n, b.id AS box_id, b.name AS box_name,
        coalesce(b.deposit_id, (SELECT d.id FROM deposits d WHERE d.company_id = b.company_id AND d.is_default)) AS sells_from,
        s.id AS session_id, s.user_id AS session_user_id, (SELECT coalesce(u.display_name, u.email) FROM users u WHERE u.id = s.user_id) AS session_user_name,
        c.settings,
        (SELECT coalesce(json_agg(json_build_object('id', p.id, 'name', p.name, 'sku', p.sku, 'bc', p.bc,
            'base_price', p.base_price::text, 'unit', p.unit, 'enable', p.enable, 'updated_at', p.updated_at)), '[]'::json)
          FROM products p WHERE p.company_id = ${companyId} AND p.id = ANY(${sql.param(requests.flatMap((r) => r.productIds))}::int[]))::text AS products
      FROM unnest(${sql.param(requests.map((r) => r.boxId))}::int[]) WITH ORDINALITY AS r(box_id, n)
      JOIN boxes b ON b.company_id = ${companyId} AND b.id = r.box_id
      JOIN box_sessions s ON s.company_id = b.company_id AND s.box_id = b.id AND s.status = 'open'
      JOIN companies c ON c.id = b.company_id`,
  );
  // Every row carries the same products (read once): parsed once, each request given its own.
  const products = rows[0] ? (JSON.parse(rows[0].products) as ProductForSale[]) : [];
  const byRequest = new Map(rows.map((row) => [Number(row.n) - 1, row]));
  return requests.map((request, n) => {
    const row = byRequest.get(n);
    if (!row) return null;
    const { n: _n, products: _products, ...point } = row;
    const named = new Set(request.productIds);
    return { ...point, products: products.filter((p) => named.has(Number(p.id))) };
  });
}

export interface SaleNumbers {
  saleId: number;
  firstMovementId: number;
}

/**
 * Register sales' numbers, taken in one short statement for any number of sales of a company
 * OUTSIDE their transactions (pass the pool, not a transaction; an exchange passes its transaction
 * with `inTransaction`): for each sale in order, its sale number and one movement number per line
 * from the company's counters (src/db/ids.ts), the sales' numbers first. The counter rows are
 * locked only for this statement, so registers do not queue on them for a whole sale; a sale
 * refused after this leaves its numbers unused (docs/decisiones.md). Nothing is taken for a key
 * that already made a sale (a retry): null.
 *
 * The statement commits without waiting for its WAL flush (`synchronous_commit` off for this one
 * transaction), so the counter rows are free again in microseconds instead of after a disk flush:
 * registers no longer queue on the counters' fsync. No durable sale can outlive its numbers in a
 * crash: the sale's own commit flushes the WAL up to its commit record, which comes after this
 * one's. A crash can only forget numbers that no committed sale used; they are handed out again.
 */
export async function takeRegisterSaleIds(
  conn: Conn,
  companyId: number,
  sales: { key: string; movements: number }[],
  options: { inTransaction?: boolean } = {},
): Promise<(SaleNumbers | null)[]> {
  const rows = await selectRowsPrepared<{ n: number; sale: number; movement: number }>(
    conn,
    saleNumbersStatement(companyId, sales, options),
  );
  const byRequest = new Map(rows.map((row) => [Number(row.n) - 1, row]));
  return sales.map((_, n) => {
    const row = byRequest.get(n);
    return row ? { saleId: Number(row.sale), firstMovementId: Number(row.movement) } : null;
  });
}

/** The statement takeRegisterSaleIds runs: a row (n, sale, movement) per sale whose key made none yet. */
export function saleNumbersStatement(
  companyId: number,
  sales: { key: string; movements: number }[],
  options: { inTransaction?: boolean } = {},
): SQL {
  // Inside the caller's transaction (an exchange) the counters stay held until it commits, a
  // rollback gives them back, and the commit stays synchronous (it also records a return).
  const asyncCommit = options.inTransaction
    ? sql``
    : sql`CROSS JOIN (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`;
  // Each key is one probe of the key's unique index (OFFSET 0 keeps the NOT EXISTS a subplan run
  // per key). As an anti join, the plan a connection made while the company had few register sales
  // read ALL of them into a hash on every sale, and went on doing so as they grew (issue 33).
  //
  // The sales come as one jsonb parameter, not as arrays: PostgreSQL estimates an unnest of arrays
  // by their length in a custom plan but guesses 10 elements in the generic one, so the generic
  // plan always looked dearer and every call was planned anew (`pg_prepared_statements`: 0
  // generic, 285 custom plans after a pos bench). jsonb_to_recordset is estimated alike in both,
  // so each connection plans the statement once, as it does the sale's joint statement.
  const input = JSON.stringify(sales.map((s, n) => ({ n: n + 1, key: s.key, moves: s.movements })));
  return sql`WITH fresh AS MATERIALIZED (
        SELECT r.n, r.moves FROM jsonb_to_recordset(${input}::jsonb) AS r(n integer, key text, moves integer)
        WHERE NOT EXISTS (
          SELECT 1 FROM register_sales x WHERE x.company_id = ${companyId} AND x.idempotency_key = r.key OFFSET 0)),
      took AS MATERIALIZED (
        SELECT take_company_ids(${companyId}, 'sales', count(*)::int) AS sale,
          take_company_ids(${companyId}, 'movements', sum(moves)::int) AS movement
        FROM fresh HAVING count(*) > 0)
      SELECT f.n::integer AS n, t.sale + (row_number() OVER w)::integer - 1 AS sale,
        t.movement + (sum(f.moves) OVER w)::integer - f.moves AS movement
      FROM fresh f CROSS JOIN took t ${asyncCommit}
      WINDOW w AS (ORDER BY f.n)`;
}

/** Sets the company's discount limit for cashiers (companies.settings.discountLimitPercent); the old one, or null. */
export async function setDiscountLimit(conn: Conn, companyId: number, percent: number): Promise<{ previous: unknown } | null> {
  const [row] = await selectRows<{ previous: unknown }>(
    conn,
    sql`UPDATE companies c SET settings = jsonb_set(c.settings, '{discountLimitPercent}', to_jsonb(${percent}::numeric))
      FROM (SELECT id, settings -> 'discountLimitPercent' AS previous FROM companies WHERE id = ${companyId} FOR UPDATE) old
      WHERE c.id = old.id RETURNING old.previous`,
  );
  return row ?? null;
}
