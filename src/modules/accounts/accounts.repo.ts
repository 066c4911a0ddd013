import { type SQL, sql } from 'drizzle-orm';
import { type Conn, selectRows } from '../../db/client.ts';
import type { PaymentMethod } from '../../db/schema/index.ts';

// The cuenta corriente's SQL (migration 0160). Every query is scoped by company_id. A sale's account
// part is the sum of its cuenta_corriente payment rows; a payment on account is a sale_payments
// row with no sale, described by its account_payments row (same company and id).

export interface AccountCustomerRow {
  id: number;
  name: string;
  phone: string | null;
  email: string | null;
  enabled: boolean;
  account_enabled: boolean;
  credit_limit: string | null;
}

const CUSTOMER_COLUMNS = sql`c.id, c.name, c.phone, c.email, c.enabled, c.account_enabled, c.credit_limit`;

export async function findCustomer(conn: Conn, companyId: number, id: number): Promise<AccountCustomerRow | null> {
  const [row] = await selectRows<AccountCustomerRow>(
    conn,
    sql`SELECT ${CUSTOMER_COLUMNS} FROM customers c WHERE c.company_id = ${companyId} AND c.id = ${id}`,
  );
  return row ?? null;
}

/**
 * The customer's account row, created at 0 when missing, locked FOR UPDATE to the end of the
 * transaction: every write to one customer's account (a sale on account, a payment, a
 * cancellation) queues here, so the limit check and the allocation see a settled balance.
 */
export async function lockAccount(tx: Conn, companyId: number, customerId: number, now: Date): Promise<string> {
  await tx.execute(
    sql`INSERT INTO customer_accounts (company_id, customer_id, balance, updated_at)
      VALUES (${companyId}, ${customerId}, 0, ${now.toISOString()}::timestamptz) ON CONFLICT DO NOTHING`,
  );
  const [row] = await selectRows<{ balance: string }>(
    tx,
    sql`SELECT balance::text FROM customer_accounts WHERE company_id = ${companyId} AND customer_id = ${customerId} FOR UPDATE`,
  );
  return row!.balance;
}

export async function addToBalance(tx: Conn, companyId: number, customerId: number, delta: string, now: Date) {
  await tx.execute(
    sql`UPDATE customer_accounts SET balance = balance + ${delta}::numeric, updated_at = ${now.toISOString()}::timestamptz
      WHERE company_id = ${companyId} AND customer_id = ${customerId}`,
  );
}

export async function findBalance(conn: Conn, companyId: number, customerId: number): Promise<string> {
  const [row] = await selectRows<{ balance: string }>(
    conn,
    sql`SELECT balance::text FROM customer_accounts WHERE company_id = ${companyId} AND customer_id = ${customerId}`,
  );
  return row?.balance ?? '0';
}

/** The account part of each sale on account (its cuenta_corriente rows), for one customer or all. */
const onAccount = (companyId: number, customer: SQL) =>
  sql`SELECT sale_id, customer_id, sum(amount) AS amount FROM sale_payments
    WHERE company_id = ${companyId} AND sale_id IS NOT NULL AND method = 'cuenta_corriente' AND customer_id IS NOT NULL
      AND ${customer}
    GROUP BY sale_id, customer_id`;

const allocatedToSales = (companyId: number) =>
  sql`SELECT sale_id, sum(amount) AS amount FROM account_allocations WHERE company_id = ${companyId} GROUP BY sale_id`;

export interface OpenSaleRow {
  sale_id: number;
  created_at: Date | string;
  total: string;
  on_account: string;
  allocated: string;
  open: string;
}

/** The customer's sales on account still open (not cancelled, account part not covered), oldest first. */
export function listOpenSales(conn: Conn, companyId: number, customerId: number): Promise<OpenSaleRow[]> {
  return selectRows<OpenSaleRow>(
    conn,
    sql`SELECT s.id AS sale_id, s.created_at, s.total::text, a.amount::text AS on_account,
        coalesce(x.amount, 0)::text AS allocated, (a.amount - coalesce(x.amount, 0))::text AS open
      FROM (${onAccount(companyId, sql`customer_id = ${customerId}`)}) a
      JOIN sales s ON s.company_id = ${companyId} AND s.id = a.sale_id
      LEFT JOIN (${allocatedToSales(companyId)}) x ON x.sale_id = a.sale_id
      WHERE s.status <> 'cancelled' AND a.amount > coalesce(x.amount, 0)
      ORDER BY s.created_at, s.id`,
  );
}

export interface FreePaymentRow {
  payment_id: number;
  free: string;
}

/** The customer's payments on account with money not yet allocated (saldo a favor), oldest first. */
export function listFreePayments(conn: Conn, companyId: number, customerId: number): Promise<FreePaymentRow[]> {
  return selectRows<FreePaymentRow>(
    conn,
    sql`SELECT p.id AS payment_id, (p.amount - coalesce(x.amount, 0))::text AS free
      FROM account_payments a
      JOIN sale_payments p ON p.company_id = a.company_id AND p.sale_id IS NULL AND p.id = a.id
      LEFT JOIN (SELECT payment_id, sum(amount) AS amount FROM account_allocations WHERE company_id = ${companyId}
        GROUP BY payment_id) x ON x.payment_id = a.id
      WHERE a.company_id = ${companyId} AND a.customer_id = ${customerId} AND p.amount > coalesce(x.amount, 0)
      ORDER BY a.created_at, a.id`,
  );
}

export async function insertAllocations(
  tx: Conn,
  companyId: number,
  rows: { paymentId: number; saleId: number; amount: string }[],
  now: Date,
) {
  if (rows.length === 0) return;
  await tx.execute(
    sql`INSERT INTO account_allocations (company_id, payment_id, sale_id, amount, created_at)
      VALUES ${sql.join(
        rows.map(
          (r) => sql`(${companyId}, ${r.paymentId}, ${r.saleId}, ${r.amount}::numeric, ${now.toISOString()}::timestamptz)`,
        ),
        sql`, `,
      )}
      ON CONFLICT (company_id, payment_id, sale_id) DO UPDATE SET amount = account_allocations.amount + excluded.amount`,
  );
}

/** Frees what payments had allocated to a sale (cancelled or refunded): that money is credit again. */
export async function deleteSaleAllocations(tx: Conn, companyId: number, saleId: number): Promise<void> {
  await tx.execute(sql`DELETE FROM account_allocations WHERE company_id = ${companyId} AND sale_id = ${saleId}`);
}

/** A sale's account part and customer (null when it is not a sale on account). */
export async function findSaleOnAccount(
  conn: Conn,
  companyId: number,
  saleId: number,
): Promise<{ customer_id: number; amount: string } | null> {
  const [row] = await selectRows<{ customer_id: number; amount: string }>(
    conn,
    sql`SELECT customer_id, amount::text FROM (${onAccount(companyId, sql`sale_id = ${saleId}`)}) a`,
  );
  return row ?? null;
}

/** An open box session of the company, held FOR SHARE (it cannot close under the payment). */
export async function findOpenSession(tx: Conn, companyId: number, sessionId: number): Promise<boolean> {
  const rows = await selectRows(
    tx,
    sql`SELECT id FROM box_sessions WHERE company_id = ${companyId} AND id = ${sessionId} AND status = 'open' FOR SHARE`,
  );
  return rows.length > 0;
}

export interface NewAccountPayment {
  companyId: number;
  id: number;
  customerId: number;
  method: PaymentMethod;
  amount: string;
  sessionId: number | null;
  reference: string | null;
  note: string | null;
  createdBy: string;
  key: string;
  sha256: string;
  now: Date;
}

/** The payment's own row and its money (a sale_payments row with no sale). */
export async function insertAccountPayment(tx: Conn, p: NewAccountPayment) {
  const at = p.now.toISOString();
  await tx.execute(
    sql`INSERT INTO account_payments (company_id, id, customer_id, note, created_by, idempotency_key, request_sha256, created_at)
      VALUES (${p.companyId}, ${p.id}, ${p.customerId}, ${p.note}, ${p.createdBy}, ${p.key}, ${p.sha256}, ${at}::timestamptz)`,
  );
  await tx.execute(
    sql`INSERT INTO sale_payments (company_id, sale_id, id, method, amount, tendered, change, reference, box_session_id, created_at,
        customer_id)
      VALUES (${p.companyId}, NULL, ${p.id}, ${p.method}, ${p.amount}::numeric, NULL, 0, ${p.reference}, ${p.sessionId}::integer,
        ${at}::timestamptz, ${p.customerId})`,
  );
}

/** Serialises requests with the same idempotency key (released at the end of the transaction). */
export async function lockPaymentKey(tx: Conn, companyId: number, key: string) {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`account-payment:${companyId}:${key}`}, 0))`);
}

export async function findPaymentByKey(
  conn: Conn,
  companyId: number,
  key: string,
): Promise<{ id: number; customer_id: number; request_sha256: string } | null> {
  const [row] = await selectRows<{ id: number; customer_id: number; request_sha256: string }>(
    conn,
    sql`SELECT id, customer_id, request_sha256 FROM account_payments WHERE company_id = ${companyId} AND idempotency_key = ${key}`,
  );
  return row ?? null;
}

export interface PaymentRow {
  id: number;
  customer_id: number;
  method: PaymentMethod;
  amount: string;
  reference: string | null;
  box_session_id: number | null;
  note: string | null;
  created_by: string | null;
  created_at: Date | string;
  allocations: { sale_id: number; amount: string }[];
}

export async function findPayment(conn: Conn, companyId: number, id: number): Promise<PaymentRow | null> {
  const [row] = await selectRows<PaymentRow>(
    conn,
    sql`SELECT a.id, a.customer_id, p.method, p.amount::text, p.reference, p.box_session_id, a.note, a.created_by, a.created_at,
        coalesce((SELECT jsonb_agg(jsonb_build_object('sale_id', x.sale_id, 'amount', x.amount::text) ORDER BY x.sale_id)
          FROM account_allocations x WHERE x.company_id = a.company_id AND x.payment_id = a.id), '[]'::jsonb) AS allocations
      FROM account_payments a JOIN sale_payments p ON p.company_id = a.company_id AND p.sale_id IS NULL AND p.id = a.id
      WHERE a.company_id = ${companyId} AND a.id = ${id}`,
  );
  return row ?? null;
}

export interface MovementRow {
  kind: 'sale' | 'credit_note' | 'payment';
  at: Date | string;
  sale_id: number | null;
  payment_id: number | null;
  /** + charges the account, − credits it. */
  amount: string;
  method: string | null;
  note: string | null;
  receipt: string | null;
  /** The whole sale's total (a sale or its reversal): the account part may be only some of it. */
  sale_total: string | null;
  /** A payment that is a return given as store credit: the sale it came from. */
  returned_sale_id: number | null;
}

const receiptOf = (kind: 'invoice' | 'credit_note') =>
  sql`(SELECT i.type || ' ' || lpad(i.point_of_sale::text, 4, '0') || '-' || lpad(i.number::text, 8, '0') FROM invoices i
    WHERE i.company_id = s.company_id AND i.sale_id = s.id AND i.kind = ${kind} ORDER BY i.id DESC LIMIT 1)`;

/**
 * Every movement of the customer's account up to the end of local day `to` (the company's time
 * zone), in order: the account part of each sale on account (at its date), its reversal when the
 * sale was cancelled (at the cancellation: a credit note when one was issued), and each payment on
 * account. The end is worked out here, in dates: JavaScript writes the instant after 9999-12-31 as
 * "+010000-…", which PostgreSQL does not read (a statement to 9999-12-31 answered 500).
 */
export function listMovements(conn: Conn, companyId: number, customerId: number, to: string): Promise<MovementRow[]> {
  return selectRows<MovementRow>(
    conn,
    sql`SELECT * FROM (
        SELECT 'sale' AS kind, s.created_at AS at, s.id AS sale_id, NULL::integer AS payment_id, a.amount::text AS amount,
            NULL::text AS method, NULL::text AS note, ${receiptOf('invoice')} AS receipt, s.total::text AS sale_total,
            NULL::integer AS returned_sale_id
          FROM (${onAccount(companyId, sql`customer_id = ${customerId}`)}) a JOIN sales s ON s.company_id = ${companyId} AND s.id = a.sale_id
        UNION ALL
        SELECT 'credit_note', s.cancelled_at, s.id, NULL, (-a.amount)::text, NULL, s.cancellation_reason, ${receiptOf('credit_note')},
            s.total::text, NULL
          FROM (${onAccount(companyId, sql`customer_id = ${customerId}`)}) a JOIN sales s ON s.company_id = ${companyId} AND s.id = a.sale_id
          WHERE s.status = 'cancelled'
        UNION ALL
        SELECT 'payment', a.created_at, NULL, a.id, (-p.amount)::text, p.method, a.note, NULL, NULL,
            (SELECT r.sale_id FROM sale_returns r WHERE r.company_id = a.company_id AND r.credit_payment_id = a.id)
          FROM account_payments a JOIN sale_payments p ON p.company_id = a.company_id AND p.sale_id IS NULL AND p.id = a.id
          WHERE a.company_id = ${companyId} AND a.customer_id = ${customerId}
      ) m WHERE m.at < ((${to}::date + 1)::timestamp AT TIME ZONE (SELECT timezone FROM companies WHERE id = ${companyId}))
      ORDER BY m.at, m.kind DESC, m.sale_id, m.payment_id`,
  );
}

export interface DebtorRow extends AccountCustomerRow {
  balance: string;
  oldest_at: Date | string | null;
  open_sales: number;
}

/** Customers who owe (balance > 0), the oldest open debt first. */
export function listDebtors(conn: Conn, companyId: number, limit: number): Promise<DebtorRow[]> {
  return selectRows<DebtorRow>(
    conn,
    sql`WITH open AS (
        SELECT a.customer_id, min(s.created_at) AS oldest_at, count(*)::int AS open_sales
        FROM (${onAccount(companyId, sql`true`)}) a
        JOIN sales s ON s.company_id = ${companyId} AND s.id = a.sale_id
        LEFT JOIN (${allocatedToSales(companyId)}) x ON x.sale_id = a.sale_id
        WHERE s.status <> 'cancelled' AND a.amount > coalesce(x.amount, 0)
        GROUP BY a.customer_id
      )
      SELECT ${CUSTOMER_COLUMNS}, k.balance::text, o.oldest_at, coalesce(o.open_sales, 0) AS open_sales
      FROM customer_accounts k JOIN customers c ON c.company_id = k.company_id AND c.id = k.customer_id
      LEFT JOIN open o ON o.customer_id = k.customer_id
      WHERE k.company_id = ${companyId} AND k.balance > 0
      ORDER BY o.oldest_at NULLS LAST, c.id LIMIT ${limit}`,
  );
}

export async function totalOwed(conn: Conn, companyId: number): Promise<{ total: string; count: number }> {
  const [row] = await selectRows<{ total: string; count: number }>(
    conn,
    sql`SELECT coalesce(sum(balance), 0)::text AS total, count(*)::int AS count FROM customer_accounts
      WHERE company_id = ${companyId} AND balance > 0`,
  );
  return row!;
}

export async function companyTimeZone(conn: Conn, companyId: number): Promise<{ timezone: string; name: string }> {
  const [row] = await selectRows<{ timezone: string; name: string }>(
    conn,
    sql`SELECT timezone, name FROM companies WHERE id = ${companyId}`,
  );
  return row!;
}

/** The instant a local day (yyyy-mm-dd) starts in the company's time zone. */
export async function dayStart(conn: Conn, companyId: number, day: string): Promise<Date> {
  const [row] = await selectRows<{ at: Date | string }>(
    conn,
    sql`SELECT (${day}::date::timestamp AT TIME ZONE (SELECT timezone FROM companies WHERE id = ${companyId})) AS at`,
  );
  return new Date(row!.at);
}

export async function insertStatementLink(
  tx: Conn,
  v: { tokenSha256: string; companyId: number; customerId: number; expiresAt: Date; createdBy: string; now: Date },
) {
  await tx.execute(
    sql`INSERT INTO statement_links (token_sha256, company_id, customer_id, expires_at, created_by, created_at)
      VALUES (${v.tokenSha256}, ${v.companyId}, ${v.customerId}, ${v.expiresAt.toISOString()}::timestamptz, ${v.createdBy},
        ${v.now.toISOString()}::timestamptz)`,
  );
}

export async function findStatementLink(
  conn: Conn,
  tokenSha256: string,
  now: Date,
): Promise<{ company_id: number; customer_id: number; expires_at: Date | string } | null> {
  const [row] = await selectRows<{ company_id: number; customer_id: number; expires_at: Date | string }>(
    conn,
    sql`SELECT company_id, customer_id, expires_at FROM statement_links
      WHERE token_sha256 = ${tokenSha256} AND expires_at > ${now.toISOString()}::timestamptz`,
  );
  return row ?? null;
}
