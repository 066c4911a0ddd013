import { type SQL, sql } from 'drizzle-orm';
import { type Conn, type PreparedStatement, preparedStatement, selectRows, sqlText } from '../../db/client.ts';
import type { PaymentMethod, SaleStatus, saleItems, sales } from '../../db/schema/index.ts';
import { outboxInsert } from '../../outbox/outbox.repo.ts';
import { dbDate } from '../../db/dates.ts';

// The sale's SQL: sales, their items and payments. Every query is scoped by company_id. Style (see
// docs/decisiones.md): `sql` templates run through selectRows, fixed hot statements prepared by name.

export type SaleRow = typeof sales.$inferSelect;
/** A sale line as its events carry it (the discount columns are the register's, read with listSaleItems). */
export type SaleItemRow = Omit<typeof saleItems.$inferSelect, 'discount' | 'saleDiscount' | 'discountReason'>;

const SALE_COLUMNS = sql.raw(`company_id AS "companyId", id, customer_id AS "customerId", box_id AS "boxId", total, status,
  payment_method AS "paymentMethod", payment_id AS "paymentId", paid_at AS "paidAt", cancelled_at AS "cancelledAt",
  cancellation_reason AS "cancellationReason", created_at AS "createdAt", updated_at AS "updatedAt"`);

/** The sale, locked for the rest of the transaction (FOR UPDATE). */
export async function lockSale(conn: Conn, companyId: number, id: number): Promise<SaleRow | null> {
  const [row] = await selectRows<SaleRow>(
    conn,
    sql`SELECT ${SALE_COLUMNS} FROM sales WHERE company_id = ${companyId} AND id = ${id} FOR UPDATE`,
  );
  return row ? withDates(row) : null;
}

export async function findSaleItems(conn: Conn, companyId: number, saleId: number): Promise<SaleItemRow[]> {
  return selectRows<SaleItemRow>(
    conn,
    sql`SELECT company_id AS "companyId", sale_id AS "saleId", id, product_id AS "productId", quantity, price, subtotal
      FROM sale_items WHERE company_id = ${companyId} AND sale_id = ${saleId} ORDER BY id`,
  );
}

/** What a status change writes besides the status itself. */
export type SaleChange =
  | { status: 'paid'; paidAt: Date; paymentMethod: string | null; paymentId: string | null }
  | { status: 'cancelled'; cancelledAt: Date; reason: string | null };

/** Writes a status change the state machine allowed (sales.service asks it first). */
export async function updateSaleStatus(
  conn: Conn,
  companyId: number,
  id: number,
  change: SaleChange,
  now: Date,
): Promise<SaleRow> {
  const set: SQL =
    change.status === 'paid'
      ? sql`status = 'paid', paid_at = ${change.paidAt.toISOString()}::timestamptz, payment_method = ${change.paymentMethod},
          payment_id = ${change.paymentId}`
      : sql`status = 'cancelled', cancelled_at = ${change.cancelledAt.toISOString()}::timestamptz,
          cancellation_reason = ${change.reason}`;
  const [row] = await selectRows<SaleRow>(
    conn,
    sql`UPDATE sales SET ${set}, updated_at = ${now.toISOString()}::timestamptz
      WHERE company_id = ${companyId} AND id = ${id} RETURNING ${SALE_COLUMNS}`,
  );
  if (!row) throw new Error(`sale ${id} vanished while locked`);
  return withDates(row);
}

/** A row's timestamptz columns as Dates (drizzle's raw statements give PostgreSQL's text: dbDate reads it). */
function withDates(row: SaleRow): SaleRow {
  const at = (v: Date | string | null) => (v === null ? v : dbDate(v));
  return {
    ...row,
    status: row.status as SaleStatus,
    paidAt: at(row.paidAt),
    cancelledAt: at(row.cancelledAt),
    createdAt: at(row.createdAt)!,
    updatedAt: at(row.updatedAt)!,
  };
}

/** One payment as stored: amount counts toward the total; cash keeps what was tendered and the change. */
export interface PaymentValues {
  method: PaymentMethod;
  amount: string;
  tendered: string | null;
  change: string;
  reference: string | null;
}

export async function countPayments(conn: Conn, companyId: number, saleId: number): Promise<number> {
  const [row] = await selectRows<{ count: number }>(
    conn,
    sql`SELECT count(*)::int AS count FROM sale_payments WHERE company_id = ${companyId} AND sale_id = ${saleId}`,
  );
  return Number(row!.count);
}

/**
 * Payments of a sale, numbered per sale from firstId. Payments are rows of their own: the table
 * allows one without a sale (a payment on account, later), though today every caller has one.
 */
export async function insertPayments(
  conn: Conn,
  v: {
    companyId: number;
    saleId: number | null;
    firstId: number;
    sessionId: number | null;
    now: Date;
    payments: PaymentValues[];
  },
) {
  if (v.payments.length === 0) return;
  await conn.execute(
    sql`INSERT INTO sale_payments (company_id, sale_id, id, method, amount, tendered, change, reference, box_session_id, created_at)
      VALUES ${sql.join(
        v.payments.map(
          (p, n) =>
            sql`(${v.companyId}, ${v.saleId}, ${v.firstId + n}, ${p.method}, ${p.amount}, ${p.tendered}, ${p.change},
              ${p.reference}, ${v.sessionId}, ${v.now.toISOString()})`,
        ),
        sql`, `,
      )}`,
  );
}

/** A sale line as stored; the discounts default to none (subtotal = price × quantity). */
export interface SaleItemValues {
  id: number;
  productId: number;
  quantity: string;
  price: string;
  subtotal: string;
  discount?: string;
  saleDiscount?: string;
  discountReason?: string | null;
}

/** A sale made whole at once (the register's: created, maybe paid, with its payments), as stored. */
export interface SaleInsertValues {
  id: number;
  customerId: number | null;
  boxId: number;
  total: string;
  status: SaleStatus;
  paymentMethod: string | null;
  paidAt: Date | null;
  createdAt: Date;
  now: Date;
  items: SaleItemValues[];
  sessionId: number | null;
  payments: PaymentValues[];
}

/**
 * Sales made whole at once (the register's) as CTE steps of one statement the caller runs with its
 * own (the register's jointStatement): every sale, its items and its payments, from ONE parameter,
 * so the steps' text is the same for one sale or thirty (one plan kept, one row set per table, its
 * triggers once). `sale_input` must not be another step's name.
 */
export function saleInsertSteps(companyId: number, sales: SaleInsertValues[]): SQL[] {
  const input = JSON.stringify(
    sales.map((v) => ({
      id: v.id,
      customer_id: v.customerId,
      box_id: v.boxId,
      total: v.total,
      status: v.status,
      payment_method: v.paymentMethod,
      paid_at: v.paidAt ? v.paidAt.toISOString() : null,
      created_at: v.createdAt.toISOString(),
      now: v.now.toISOString(),
      session_id: v.sessionId,
      items: v.items.map((i) => ({
        id: i.id,
        product_id: i.productId,
        quantity: i.quantity,
        price: i.price,
        subtotal: i.subtotal,
        discount: i.discount ?? '0',
        sale_discount: i.saleDiscount ?? '0',
        discount_reason: i.discountReason ?? null,
      })),
      payments: v.payments.map((p, n) => ({ id: n + 1, ...p })),
    })),
  );
  return [
    sql`sale_input AS MATERIALIZED (
      SELECT * FROM jsonb_to_recordset(${input}::jsonb) AS s(id integer, customer_id integer, box_id integer, total numeric,
        status text, payment_method text, paid_at timestamptz, created_at timestamptz, now timestamptz, session_id integer,
        items jsonb, payments jsonb))`,
    sql`sale AS (
      INSERT INTO sales (company_id, id, customer_id, box_id, total, status, payment_method, paid_at, created_at, updated_at)
      SELECT ${companyId}::integer, s.id, s.customer_id, s.box_id, s.total, s.status, s.payment_method, s.paid_at, s.created_at, s.now
      FROM sale_input s)`,
    sql`items AS (
      INSERT INTO sale_items (company_id, sale_id, id, product_id, quantity, price, subtotal, discount, sale_discount,
        discount_reason)
      SELECT ${companyId}::integer, s.id, it.id, it.product_id, it.quantity, it.price, it.subtotal, it.discount, it.sale_discount,
        it.discount_reason
      FROM sale_input s CROSS JOIN LATERAL jsonb_to_recordset(s.items) AS it(id integer, product_id integer, quantity numeric,
        price numeric, subtotal numeric, discount numeric, sale_discount numeric, discount_reason text))`,
    // A cuenta_corriente row is the customer's debt, not money in the drawer: no session, the customer's id.
    sql`payments AS (
      INSERT INTO sale_payments (company_id, sale_id, id, method, amount, tendered, change, reference, box_session_id, created_at,
        customer_id)
      SELECT ${companyId}::integer, s.id, p.id, p.method, p.amount, p.tendered, p.change, p.reference,
        CASE WHEN p.method = 'cuenta_corriente' THEN NULL ELSE s.session_id END, s.now,
        CASE WHEN p.method = 'cuenta_corriente' THEN s.customer_id END
      FROM sale_input s CROSS JOIN LATERAL jsonb_to_recordset(s.payments)
        AS p(id integer, method text, amount numeric, tendered numeric, change numeric, reference text))`,
  ];
}

/** One sale as the statement reads it (keys are the columns of `input` below). */
export interface SaleStatementRow {
  company_id: number;
  sale_id: number;
  customer_id: number | null;
  box_id: number | null;
  total: string;
  payment_method: string | null;
  created_at: string;
  updated_at: string;
  items: { id: number; product_id: number; quantity: string; price: string; subtotal: string }[];
  product_ids: number[];
  outbound_id: string;
  outbound: Record<string, unknown>;
  caused_by: string | null;
  event_id?: string;
  event?: string;
  idempotency_key?: string;
  payload?: string;
  body_sha256?: string;
  signature_valid?: boolean;
}

export interface SaleStatementResult {
  outcome: 'created' | 'duplicate' | 'refused';
  existing_status: string | null;
  missing_products: number[] | null;
}

/** Creates pending sales with their items and sales.created events (see salesStatement). */
export function insertSales(conn: Conn, rows: SaleStatementRow[]) {
  return runSalesStatement(conn, SALES_STATEMENT, rows);
}

/** The same, gated by storing each sale's inbound event first (POST /api/integration/in). */
export function insertSalesFromEvents(conn: Conn, rows: SaleStatementRow[]) {
  return runSalesStatement(conn, SALES_FROM_EVENTS_STATEMENT, rows);
}

async function runSalesStatement(conn: Conn, statement: PreparedStatement<SaleStatementResult>, rows: SaleStatementRow[]) {
  return statement.run(conn, [JSON.stringify(rows.map((row, n) => ({ ord: n + 1, ...row })))]);
}

/**
 * The sales statement: input → rules → (gate) → sale, items and outbound event → one outcome per
 * input row. The rules are read from the statement's snapshot, per row; a refused row writes
 * nothing and is reported with its facts, the others go on. With events, each admitted row first
 * stores its inbound event (the gate): a row whose (company, event, key) is already stored, or
 * stored by an earlier row of the same statement, creates nothing and is a duplicate; a refused
 * row whose event is already stored is a duplicate too (the idempotency answer comes first).
 * Missing products are listed in the order the items first name them.
 */
function salesStatement(withEvents: boolean): string {
  const admittedEvents = withEvents
    ? `stamp AS MATERIALIZED (SELECT * FROM inbound_stamp((SELECT count(*)::integer FROM admitted))),
    gate AS (
      INSERT INTO inbound_events
        (id, company_id, event, idempotency_key, payload, body_sha256, signature_valid, received_at, tx_id)
      SELECT a.event_id, a.company_id, a.event, a.idempotency_key, a.payload::json, a.body_sha256, a.signature_valid,
             s.received_at + (row_number() OVER (ORDER BY a.ord) - 1) * interval '1 microsecond', s.tx_id
      FROM admitted AS a CROSS JOIN stamp AS s
      ON CONFLICT (company_id, event, idempotency_key) DO NOTHING
      RETURNING id
    ),
    applied AS MATERIALIZED (SELECT a.* FROM admitted AS a JOIN gate AS g ON g.id = a.event_id),`
    : 'applied AS MATERIALIZED (SELECT * FROM admitted),';
  const outcome = withEvents
    ? `CASE WHEN a.ord IS NOT NULL THEN 'created'
            WHEN f.ok THEN 'duplicate'
            WHEN EXISTS (SELECT 1 FROM inbound_events AS e WHERE e.company_id = i.company_id AND e.event = i.event
                           AND e.idempotency_key = i.idempotency_key) THEN 'duplicate'
            ELSE 'refused' END`
    : `CASE WHEN a.ord IS NOT NULL THEN 'created' ELSE 'refused' END`;
  return `WITH input AS MATERIALIZED (
      SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(
        ord integer, company_id integer, sale_id integer, customer_id integer, box_id integer, total numeric,
        payment_method text, created_at timestamptz, updated_at timestamptz, items jsonb, product_ids integer[],
        outbound_id uuid, outbound jsonb, caused_by uuid,
        event_id uuid, event text, idempotency_key text, payload text, body_sha256 char(64), signature_valid boolean)
    ),
    facts AS MATERIALIZED (
      SELECT f.*, f.existing_status IS NULL AND f.missing_products IS NULL AS ok
      FROM (
        SELECT i.ord,
               (SELECT s.status FROM sales AS s WHERE s.company_id = i.company_id AND s.id = i.sale_id) AS existing_status,
               (SELECT jsonb_agg(p.id ORDER BY p.n) FROM unnest(i.product_ids) WITH ORDINALITY AS p(id, n)
                 WHERE NOT EXISTS (SELECT 1 FROM products AS pr WHERE pr.company_id = i.company_id AND pr.id = p.id))
                 AS missing_products
        FROM input AS i
        OFFSET 0
      ) AS f
    ),
    -- Filtered on one boolean column: the planner estimates half the rows (not one), so the joins
    -- with these rows below are hash joins, not a nested loop that compares every pair.
    admitted AS MATERIALIZED (SELECT i.* FROM input AS i JOIN facts AS f USING (ord) WHERE f.ok),
    ${admittedEvents}
    sale AS (
      INSERT INTO sales (company_id, id, customer_id, box_id, total, status, payment_method, created_at, updated_at)
      SELECT a.company_id, a.sale_id, a.customer_id, a.box_id, a.total, 'pending', a.payment_method, a.created_at, a.updated_at
      FROM applied AS a
    ),
    items AS (
      INSERT INTO sale_items (company_id, sale_id, id, product_id, quantity, price, subtotal)
      SELECT a.company_id, a.sale_id, it.id, it.product_id, it.quantity, it.price, it.subtotal
      FROM applied AS a CROSS JOIN jsonb_to_recordset(a.items)
        AS it(id integer, product_id integer, quantity numeric, price numeric, subtotal numeric)
    ),
    outbound AS (
      ${sqlText(outboxInsert({ select: "SELECT a.outbound_id, a.company_id, 'sales.created', a.outbound, a.caused_by FROM applied AS a" }))}
    )
    SELECT ${outcome} AS outcome, f.existing_status, f.missing_products
    FROM input AS i JOIN facts AS f USING (ord) LEFT JOIN applied AS a USING (ord)
    ORDER BY i.ord`;
}

const SALES_STATEMENT = preparedStatement<SaleStatementResult>(salesStatement(false));
const SALES_FROM_EVENTS_STATEMENT = preparedStatement<SaleStatementResult>(salesStatement(true));

// --- reading sales (the merchant API's and the register's view of a sale) ---

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
  /** The name the register wrote at the sale, else the sale customer's current name. */
  customer_name: string | null;
  sold_by: string | null;
  change: string | null;
  refund_session_id: number | null;
  discount_reason: string | null;
  discount_approved_by: string | null;
  paid_total: string;
}

const SALE_SELECT = sql`SELECT s.id, s.customer_id, s.box_id, b.name AS box_name, s.total, s.status, s.payment_method, s.paid_at,
    s.cancelled_at, s.cancellation_reason, s.created_at, r.box_session_id, r.deposit_id,
    coalesce(r.customer_name, (SELECT c.name FROM customers c WHERE c.company_id = s.company_id AND c.id = s.customer_id)) AS customer_name,
    r.sold_by, r.change, r.refund_session_id, r.discount_reason, r.discount_approved_by,
    (SELECT coalesce(sum(p.amount), 0)::text FROM sale_payments p WHERE p.company_id = s.company_id AND p.sale_id = s.id)
      AS paid_total
  FROM sales s
  LEFT JOIN register_sales r ON r.company_id = s.company_id AND r.sale_id = s.id
  LEFT JOIN boxes b ON b.company_id = s.company_id AND b.id = s.box_id AND r.sale_id IS NOT NULL`;

export async function findSaleRow(conn: Conn, companyId: number, id: number, lock = false): Promise<SaleListRow | null> {
  const [row] = await selectRows<SaleListRow>(
    conn,
    sql`${SALE_SELECT} WHERE s.company_id = ${companyId} AND s.id = ${id}${lock ? sql` FOR UPDATE OF s` : sql``}`,
  );
  return row ?? null;
}

/** A bound of a listing: a day (yyyy-mm-dd, in the company's time zone) or an instant. */
export type Bound = { day: string } | Date;

export function boundSql(companyId: number, bound: Bound, end: boolean): SQL {
  if (bound instanceof Date) return sql`${bound.toISOString()}::timestamptz`;
  const day = end ? sql`(${bound.day}::date + 1)` : sql`${bound.day}::date`;
  return sql`(${day}::timestamp AT TIME ZONE (SELECT timezone FROM companies WHERE id = ${companyId}))`;
}

export interface SaleFilter {
  from?: Bound;
  to?: Bound;
  /** Sales made at this box (the register's); an integration's sale naming a box is not one. */
  boxId?: number;
  /** Made at a register, or received through the integration endpoint. */
  source?: 'register' | 'integration';
  sessionId?: number;
  customerId?: number;
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
  if (f.boxId !== undefined) where.push(sql`s.box_id = ${f.boxId} AND r.sale_id IS NOT NULL`);
  if (f.source === 'register') where.push(sql`r.sale_id IS NOT NULL`);
  if (f.source === 'integration') where.push(sql`r.sale_id IS NULL`);
  if (f.sessionId !== undefined) where.push(sql`r.box_session_id = ${f.sessionId}`);
  if (f.customerId !== undefined) where.push(sql`s.customer_id = ${f.customerId}`);
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
  discount: string;
  sale_discount: string;
  discount_reason: string | null;
}

export function listSaleItems(conn: Conn, companyId: number, saleIds: number[]): Promise<SaleItemDetailRow[]> {
  if (saleIds.length === 0) return Promise.resolve([]);
  return selectRows<SaleItemDetailRow>(
    conn,
    sql`SELECT i.sale_id, i.id, i.product_id, p.name, p.unit, i.quantity, i.price, i.subtotal, i.discount, i.sale_discount,
        i.discount_reason
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

export interface DayParts {
  byMethod: { method: string; amount: string; count: number }[];
  byBox: { box_id: number | null; box_name: string | null; count: number; total: string }[];
  totals: { count: number; total: string; pending: string; cancelled: number };
  /** Payments on account (no sale) received that day, by method. */
  accountPayments: { method: string; amount: string; count: number }[];
}

/**
 * What the pending sales among `s` still owe beyond their payments (a part on account is a payment,
 * under cuenta_corriente): `pending` of the day summary and of the payments report, so that
 * collected + pending = the sales' total in both. PENDING_PAID joins each pending sale's payments as `p`.
 */
export const PENDING_OWED = sql`coalesce(sum(s.total - coalesce(p.amount, 0)) FILTER (WHERE s.status = 'pending'), 0)::text`;
export const PENDING_PAID = sql`LEFT JOIN LATERAL (SELECT sum(pp.amount) AS amount FROM sale_payments pp
  WHERE s.status = 'pending' AND pp.company_id = s.company_id AND pp.sale_id = s.id) p ON true`;

const NO_SALES: DayParts['totals'] = { count: 0, total: '0', pending: '0', cancelled: 0 };

/** A day's totals in the company's time zone: by payment method and by box (the integration's sales: box_id null). */
export async function daySummary(conn: Conn, companyId: number, date: string): Promise<DayParts> {
  const days = await daySummaries(conn, companyId, { from: date, to: date });
  return days.get(date) ?? { byMethod: [], byBox: [], totals: NO_SALES, accountPayments: [] };
}

/**
 * The day summaries of every local day (company time zone) in `range` (yyyy-mm-dd, both ends
 * included; null: every day with sales), three grouped statements whatever the number of days.
 * Days without sales are absent.
 */
export async function daySummaries(
  conn: Conn,
  companyId: number,
  range: { from: string; to: string } | null,
): Promise<Map<string, DayParts>> {
  // The local day of a sale, and the range as instants (so the created_at index serves one day).
  // The zone is read first and bound as a value: with it the planner sees how few sales a day holds
  // (a subquery in its place hid that and turned one day's payments into a scan of the company's).
  const [company] = await selectRows<{ timezone: string }>(conn, sql`SELECT timezone FROM companies WHERE id = ${companyId}`);
  const tz = sql`${company?.timezone ?? 'UTC'}::text`;
  const day = sql`(s.created_at AT TIME ZONE ${tz})::date::text`;
  const inRange = range
    ? sql`s.created_at >= (${range.from}::date::timestamp AT TIME ZONE ${tz})
        AND s.created_at < ((${range.to}::date + 1)::timestamp AT TIME ZONE ${tz})`
    : sql`true`;
  // A range's payments are looked up sale by sale (the lateral join; OFFSET 0 keeps PostgreSQL
  // from flattening it back into a plain join): with a join it expected 1,500 sales in a day of 414
  // and read all 300,000 payments of the company to hash them (57 ms, the day summary's and
  // Inicio's slowest step; docs/decisiones.md). All days (books verify) leave the plan to it.
  const payments = range
    ? sql`sales s CROSS JOIN LATERAL (SELECT p.method, p.amount, p.sale_id FROM sale_payments p
        WHERE p.company_id = s.company_id AND p.sale_id = s.id OFFSET 0) p`
    : sql`sale_payments p JOIN sales s ON s.company_id = p.company_id AND s.id = p.sale_id`;
  const byMethod = await selectRows<DayParts['byMethod'][number] & { day: string }>(
    conn,
    sql`SELECT ${day} AS day, p.method, sum(p.amount)::text AS amount, count(DISTINCT p.sale_id)::int AS count
      FROM ${payments}
      WHERE s.company_id = ${companyId} AND s.status <> 'cancelled' AND ${inRange}
      GROUP BY 1, p.method ORDER BY 1, p.method`,
  );
  // Per box only the sales made at it (the register session's box); a sale with no register row
  // came through the integration and is its own group (box_id null), whatever box its sender named.
  const byBox = await selectRows<DayParts['byBox'][number] & { day: string }>(
    conn,
    sql`SELECT ${day} AS day, x.box_id, b.name AS box_name, count(*)::int AS count, sum(s.total)::text AS total
      FROM sales s
      LEFT JOIN register_sales r ON r.company_id = s.company_id AND r.sale_id = s.id
      LEFT JOIN box_sessions x ON x.company_id = r.company_id AND x.id = r.box_session_id
      LEFT JOIN boxes b ON b.company_id = x.company_id AND b.id = x.box_id
      WHERE s.company_id = ${companyId} AND s.status <> 'cancelled' AND ${inRange}
      GROUP BY 1, x.box_id, b.name ORDER BY 1, x.box_id NULLS LAST`,
  );
  const totals = await selectRows<DayParts['totals'] & { day: string }>(
    conn,
    sql`SELECT ${day} AS day, count(*) FILTER (WHERE s.status <> 'cancelled')::int AS count,
        coalesce(sum(s.total) FILTER (WHERE s.status <> 'cancelled'), 0)::text AS total,
        ${PENDING_OWED} AS pending,
        count(*) FILTER (WHERE s.status = 'cancelled')::int AS cancelled
      FROM sales s ${PENDING_PAID}
      WHERE s.company_id = ${companyId} AND ${inRange} GROUP BY 1 ORDER BY 1`,
  );
  // Payments on account are money taken on their own day (their created_at), with no sale. A return
  // as store credit is one too (method cuenta_corriente, no shift), but no money came in: left out.
  const paidDay = sql`(p.created_at AT TIME ZONE ${tz})::date::text`;
  const paidInRange = range
    ? sql`p.created_at >= (${range.from}::date::timestamp AT TIME ZONE ${tz})
        AND p.created_at < ((${range.to}::date + 1)::timestamp AT TIME ZONE ${tz})`
    : sql`true`;
  const accountPayments = await selectRows<DayParts['accountPayments'][number] & { day: string }>(
    conn,
    sql`SELECT ${paidDay} AS day, p.method, sum(p.amount)::text AS amount, count(*)::int AS count
      FROM sale_payments p WHERE p.company_id = ${companyId} AND p.sale_id IS NULL
        AND p.method <> 'cuenta_corriente' AND ${paidInRange}
      GROUP BY 1, p.method ORDER BY 1, p.method`,
  );
  const days = new Map<string, DayParts>();
  const dayOf = (d: string) => {
    const parts = days.get(d) ?? { byMethod: [], byBox: [], totals: NO_SALES, accountPayments: [] };
    days.set(d, parts);
    return parts;
  };
  for (const { day: d, ...t } of totals) days.set(d, { byMethod: [], byBox: [], totals: t, accountPayments: [] });
  for (const { day: d, ...a } of accountPayments) dayOf(d).accountPayments.push(a);
  for (const { day: d, ...m } of byMethod) days.get(d)?.byMethod.push(m);
  for (const { day: d, ...b } of byBox) days.get(d)?.byBox.push(b);
  return days;
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
