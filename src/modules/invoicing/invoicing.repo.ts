import { sql } from 'drizzle-orm';
import { type Conn, columnList, selectRows, selectTableRows, setList, valuesList } from '../../db/client.ts';
import { nextId } from '../../db/ids.ts';
import { type AttemptStatus, invoiceAttempts, invoices, type InvoiceKind } from '../../db/schema/index.ts';
import { dbDate } from '../../db/dates.ts';

export type AttemptRow = typeof invoiceAttempts.$inferSelect;
export type AttemptInsert = Omit<typeof invoiceAttempts.$inferInsert, 'id' | 'createdAt' | 'updatedAt'>;
export type IssuedInvoiceRow = typeof invoices.$inferSelect;

const ATTEMPT = columnList(invoiceAttempts);
const INVOICE = columnList(invoices);

/** A numbering series: ARCA numbers receipts per (CUIT, point of sale, receipt type), per environment. */
export interface Series {
  issuerCuit: string;
  environment: string;
  pointOfSale: number;
  receiptCode: number;
}

export function seriesKey(s: Series): string {
  return `arca-series:${s.environment}:${s.issuerCuit}:${s.pointOfSale}:${s.receiptCode}`;
}

/** A sale's line with what invoicing and the printouts need of its product. */
export interface SaleLine {
  product_id: number;
  name: string;
  unit: string;
  iva_rate: string;
  quantity: string;
  price: string;
  subtotal: string;
  /** Every discount of the line (its own and its share of the sale's); the subtotal is net of it. */
  discount: string;
}

export interface SaleForInvoice {
  id: number;
  status: string;
  total: string;
  created_at: Date;
  customer_name: string | null;
  /** The sale's customer, when it has one: the receipt's buyer unless the request names another. */
  customer_id: number | null;
  items: SaleLine[];
}

export async function saleForInvoice(conn: Conn, companyId: number, saleId: number): Promise<SaleForInvoice | null> {
  const [sale] = await selectRows<Omit<SaleForInvoice, 'items'>>(
    conn,
    sql`SELECT s.id, s.status, s.total::text AS total, s.created_at, r.customer_name, s.customer_id
        FROM sales s LEFT JOIN register_sales r ON r.company_id = s.company_id AND r.sale_id = s.id
        WHERE s.company_id = ${companyId} AND s.id = ${saleId}`,
  );
  if (!sale) return null;
  return { ...sale, created_at: dbDate(sale.created_at), items: await saleLines(conn, companyId, saleId) };
}

/** The sale's lines in order, with each product's name, unit and IVA rate. */
export async function saleLines(conn: Conn, companyId: number, saleId: number): Promise<SaleLine[]> {
  return selectRows<SaleLine>(
    conn,
    sql`SELECT i.product_id, p.name, p.unit, p.iva_rate, i.quantity::text AS quantity, i.price::text AS price, i.subtotal::text AS subtotal,
          (i.discount + i.sale_discount)::text AS discount
        FROM sale_items i JOIN products p ON p.company_id = i.company_id AND p.id = i.product_id
        WHERE i.company_id = ${companyId} AND i.sale_id = ${saleId}
        ORDER BY i.id`,
  );
}

export async function liveAttempt(
  conn: Conn,
  companyId: number,
  saleId: number,
  kind: InvoiceKind,
  returnId: number | null = null,
): Promise<AttemptRow | null> {
  const [row] = await selectTableRows(
    conn,
    invoiceAttempts,
    sql`SELECT ${ATTEMPT} FROM invoice_attempts
      WHERE company_id = ${companyId} AND sale_id = ${saleId} AND kind = ${kind} AND status IN ('pending', 'approved')
        AND return_id IS NOT DISTINCT FROM ${returnId}::integer`,
  );
  return row ?? null;
}

export async function pendingOfSeries(conn: Conn, s: Series): Promise<AttemptRow | null> {
  const [row] = await selectTableRows(
    conn,
    invoiceAttempts,
    sql`SELECT ${ATTEMPT} FROM invoice_attempts
      WHERE issuer_cuit = ${s.issuerCuit} AND environment = ${s.environment} AND point_of_sale = ${s.pointOfSale}
        AND receipt_code = ${s.receiptCode} AND status = 'pending'`,
  );
  return row ?? null;
}

/** The highest number this service has approved in a series (ARCA never answers lower for long). */
export async function lastApprovedNumber(conn: Conn, s: Series): Promise<number> {
  const [row] = await selectRows<{ n: string | null }>(
    conn,
    sql`SELECT max(number)::text AS n FROM invoice_attempts
        WHERE issuer_cuit = ${s.issuerCuit} AND environment = ${s.environment} AND point_of_sale = ${s.pointOfSale}
          AND receipt_code = ${s.receiptCode} AND status = 'approved'`,
  );
  return row?.n ? Number(row.n) : 0;
}

export async function insertAttempt(tx: Conn, values: AttemptInsert, now: Date): Promise<AttemptRow> {
  const id = await nextId(tx, 'invoice_attempts', values.companyId);
  const [row] = await selectTableRows(
    tx,
    invoiceAttempts,
    sql`INSERT INTO invoice_attempts ${valuesList(invoiceAttempts, [{ ...values, id, createdAt: now, updatedAt: now }])}
      RETURNING ${ATTEMPT}`,
  );
  return row!;
}

export async function updateAttempt(
  conn: Conn,
  companyId: number,
  id: number,
  patch: Partial<
    Pick<AttemptRow, 'status' | 'errors' | 'observations' | 'invoiceId' | 'tries' | 'lastError' | 'number' | 'request'>
  >,
  now: Date,
): Promise<AttemptRow> {
  const [row] = await selectTableRows(
    conn,
    invoiceAttempts,
    sql`UPDATE invoice_attempts SET ${setList(invoiceAttempts, { ...patch, updatedAt: now })}
      WHERE company_id = ${companyId} AND id = ${id} RETURNING ${ATTEMPT}`,
  );
  return row!;
}

export async function lockAttempt(tx: Conn, companyId: number, id: number): Promise<AttemptRow | null> {
  const [row] = await selectTableRows(
    tx,
    invoiceAttempts,
    sql`SELECT ${ATTEMPT} FROM invoice_attempts WHERE company_id = ${companyId} AND id = ${id} FOR UPDATE`,
  );
  return row ?? null;
}

export async function findAttempt(conn: Conn, companyId: number, id: number): Promise<AttemptRow | null> {
  const [row] = await selectTableRows(
    conn,
    invoiceAttempts,
    sql`SELECT ${ATTEMPT} FROM invoice_attempts WHERE company_id = ${companyId} AND id = ${id}`,
  );
  return row ?? null;
}

export async function attemptsOfSale(conn: Conn, companyId: number, saleId: number): Promise<AttemptRow[]> {
  return selectTableRows(
    conn,
    invoiceAttempts,
    sql`SELECT ${ATTEMPT} FROM invoice_attempts WHERE company_id = ${companyId} AND sale_id = ${saleId} ORDER BY created_at, id`,
  );
}

/** Pending attempts last touched before `before`, oldest first (the background resolver). */
export async function stalePending(conn: Conn, before: Date, limit: number): Promise<AttemptRow[]> {
  return selectTableRows(
    conn,
    invoiceAttempts,
    sql`SELECT ${ATTEMPT} FROM invoice_attempts WHERE status = 'pending' AND updated_at < ${before}::timestamptz
      ORDER BY updated_at LIMIT ${limit}`,
  );
}

export async function insertIssuedInvoice(tx: Conn, values: Omit<typeof invoices.$inferInsert, 'id'>): Promise<IssuedInvoiceRow> {
  const id = await nextId(tx, 'invoices', values.companyId);
  const [row] = await selectTableRows(
    tx,
    invoices,
    sql`INSERT INTO invoices ${valuesList(invoices, [{ ...values, id }])} RETURNING ${INVOICE}`,
  );
  return row!;
}

export async function findInvoice(conn: Conn, companyId: number, id: number): Promise<IssuedInvoiceRow | null> {
  const [row] = await selectTableRows(
    conn,
    invoices,
    sql`SELECT ${INVOICE} FROM invoices WHERE company_id = ${companyId} AND id = ${id}`,
  );
  return row ?? null;
}

export async function invoicesOfSale(conn: Conn, companyId: number, saleId: number): Promise<IssuedInvoiceRow[]> {
  return selectTableRows(
    conn,
    invoices,
    sql`SELECT ${INVOICE} FROM invoices WHERE company_id = ${companyId} AND sale_id = ${saleId} ORDER BY issued_at, id`,
  );
}

export async function listInvoices(
  conn: Conn,
  companyId: number,
  filter: { beforeId?: number | undefined; limit: number; customerId?: number | undefined },
): Promise<IssuedInvoiceRow[]> {
  // A customer's receipts: issued to them (0150), or of their sales (sales.customer_id).
  const ofCustomer =
    filter.customerId === undefined
      ? sql``
      : sql` AND (customer_id = ${filter.customerId} OR EXISTS (SELECT 1 FROM sales s WHERE s.company_id = invoices.company_id
          AND s.id = invoices.sale_id AND s.customer_id = ${filter.customerId}))`;
  return selectTableRows(
    conn,
    invoices,
    sql`SELECT ${INVOICE} FROM invoices
      WHERE company_id = ${companyId}${filter.beforeId ? sql` AND id < ${filter.beforeId}` : sql``}${ofCustomer}
      ORDER BY id DESC LIMIT ${filter.limit}`,
  );
}

export type { AttemptStatus };

/** The sale's status, the row held (FOR SHARE) until the transaction ends; null when it does not exist. */
export async function shareSaleStatus(conn: Conn, companyId: number, saleId: number): Promise<string | null> {
  const [row] = await selectRows<{ status: string }>(
    conn,
    sql`SELECT status FROM sales WHERE company_id = ${companyId} AND id = ${saleId} FOR SHARE`,
  );
  return row?.status ?? null;
}

/** The invoice that already has this receipt (type, point of sale, number), if any. */
export async function invoiceIdOfReceipt(
  conn: Conn,
  companyId: number,
  r: { type: string; pointOfSale: number; number: number },
): Promise<number | null> {
  const [row] = await selectRows<{ id: number }>(
    conn,
    sql`SELECT id FROM invoices WHERE company_id = ${companyId} AND type = ${r.type} AND point_of_sale = ${r.pointOfSale}
      AND number = ${r.number}`,
  );
  return row?.id ?? null;
}

/** An invoice another system issued, with the id it was given. */
export async function insertReceivedInvoice(
  tx: Conn,
  v: {
    companyId: number;
    id: number;
    saleId: number;
    type: string;
    pointOfSale: number;
    number: number;
    cae: string;
    caeExpiration: Date;
    total: string;
    issuedAt: Date;
  },
): Promise<IssuedInvoiceRow> {
  const [row] = await selectTableRows(tx, invoices, sql`INSERT INTO invoices ${valuesList(invoices, [v])} RETURNING ${INVOICE}`);
  return row!;
}

/** The lines of a return with each product's IVA rate: what its credit note credits. */
export function returnLines(
  conn: Conn,
  companyId: number,
  saleId: number,
  returnId: number,
): Promise<{ iva_rate: string; amount: string }[]> {
  return selectRows(
    conn,
    sql`SELECT p.iva_rate, l.amount::text AS amount
      FROM sale_return_lines l JOIN products p ON p.company_id = l.company_id AND p.id = l.product_id
      WHERE l.company_id = ${companyId} AND l.sale_id = ${saleId} AND l.return_id = ${returnId} ORDER BY l.item_id`,
  );
}

/** Whether the sale has returns (a whole-sale credit note would then credit twice). */
export async function hasReturns(conn: Conn, companyId: number, saleId: number): Promise<boolean> {
  const rows = await selectRows(
    conn,
    sql`SELECT 1 FROM sale_returns WHERE company_id = ${companyId} AND sale_id = ${saleId} LIMIT 1`,
  );
  return rows.length > 0;
}

/**
 * Refunds still owing their credit note: returns of a sale with an invoice issued here, and
 * cancelled invoiced sales without returns, with no credit note attempt pending or approved for
 * them (ARCA could not be reached when they were made). Oldest first, every company.
 */
export function refundsAwaitingCreditNote(
  conn: Conn,
  limit: number,
): Promise<{ company_id: number; sale_id: number; return_id: number | null }[]> {
  return selectRows(
    conn,
    sql`WITH invoiced AS (
        SELECT DISTINCT company_id, sale_id FROM invoices WHERE kind = 'invoice' AND source = 'arca'
      ), owed AS (
        SELECT r.company_id, r.sale_id, r.id AS return_id, r.created_at FROM sale_returns r
          JOIN invoiced i ON i.company_id = r.company_id AND i.sale_id = r.sale_id
        UNION ALL
        SELECT s.company_id, s.id, NULL::integer, s.cancelled_at FROM sales s
          JOIN invoiced i ON i.company_id = s.company_id AND i.sale_id = s.id
          WHERE s.status = 'cancelled'
            AND NOT EXISTS (SELECT 1 FROM sale_returns r WHERE r.company_id = s.company_id AND r.sale_id = s.id)
      )
      SELECT o.company_id, o.sale_id, o.return_id FROM owed o
        -- A live attempt settles itself; a rejected one waits for a person (ARCA would reject it again).
        WHERE NOT EXISTS (SELECT 1 FROM invoice_attempts a WHERE a.company_id = o.company_id AND a.sale_id = o.sale_id
            AND a.kind = 'credit_note' AND a.return_id IS NOT DISTINCT FROM o.return_id)
          AND NOT EXISTS (SELECT 1 FROM invoices n WHERE n.company_id = o.company_id AND n.sale_id = o.sale_id
            AND n.kind = 'credit_note' AND n.return_id IS NOT DISTINCT FROM o.return_id)
        ORDER BY o.created_at LIMIT ${limit}`,
  );
}
