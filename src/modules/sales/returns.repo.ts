import { sql } from 'drizzle-orm';
import { type Conn, selectRows } from '../../db/client.ts';

// The SQL of a sale's returns (0200_sale_returns.sql). Every query is scoped by company_id.

export interface ReturnRow {
  sale_id: number;
  id: number;
  amount: string;
  refund_method: string | null;
  refund_session_id: number | null;
  store_credit: boolean;
  credit_customer_id: number | null;
  credit_payment_id: number | null;
  reason: string;
  exchange_sale_id: number | null;
  created_by: string;
  created_at: Date | string;
}

export interface ReturnLineRow {
  sale_id: number;
  return_id: number;
  item_id: number;
  product_id: number;
  quantity: string;
  amount: string;
}

/** A return's credit note as it stands: issued (number), pending with ARCA, or rejected. */
export interface ReturnReceiptRow {
  sale_id: number;
  return_id: number;
  status: 'pending' | 'approved' | 'rejected';
  invoice_id: number | null;
  type: string | null;
  point_of_sale: number | null;
  number: number | null;
}

const RETURN_COLUMNS = sql`sale_id, id, amount::text AS amount, refund_method, refund_session_id, store_credit, credit_customer_id,
  credit_payment_id, reason, exchange_sale_id, created_by, created_at`;

const idList = (ids: number[]) =>
  sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  );

export function listReturns(conn: Conn, companyId: number, saleIds: number[]): Promise<ReturnRow[]> {
  if (saleIds.length === 0) return Promise.resolve([]);
  return selectRows<ReturnRow>(
    conn,
    sql`SELECT ${RETURN_COLUMNS} FROM sale_returns WHERE company_id = ${companyId} AND sale_id IN (${idList(saleIds)})
      ORDER BY sale_id, id`,
  );
}

export function listReturnLines(conn: Conn, companyId: number, saleIds: number[]): Promise<ReturnLineRow[]> {
  if (saleIds.length === 0) return Promise.resolve([]);
  return selectRows<ReturnLineRow>(
    conn,
    sql`SELECT sale_id, return_id, item_id, product_id, quantity::text AS quantity, amount::text AS amount FROM sale_return_lines
      WHERE company_id = ${companyId} AND sale_id IN (${idList(saleIds)}) ORDER BY sale_id, return_id, item_id`,
  );
}

/**
 * The credit note of each return (the live attempt, and its invoice once approved), last per return
 * the one that stands: a note issued under a CAEA (it has no attempt of its own) comes after the
 * attempts, so the CAE attempt it superseded does not show it as pending or rejected.
 */
export function listReturnReceipts(conn: Conn, companyId: number, saleIds: number[]): Promise<ReturnReceiptRow[]> {
  if (saleIds.length === 0) return Promise.resolve([]);
  return selectRows<ReturnReceiptRow>(
    conn,
    sql`SELECT sale_id, return_id, status, invoice_id, type, point_of_sale, number FROM (
        SELECT a.sale_id, a.return_id, a.status, i.id AS invoice_id, i.type, i.point_of_sale, i.number::int AS number,
            0 AS rank, a.id AS id
          FROM invoice_attempts a LEFT JOIN invoices i ON i.company_id = a.company_id AND i.id = a.invoice_id
          WHERE a.company_id = ${companyId} AND a.sale_id IN (${idList(saleIds)}) AND a.kind = 'credit_note'
            AND a.return_id IS NOT NULL
        UNION ALL
        SELECT n.sale_id, n.return_id, 'approved', n.id, n.type, n.point_of_sale, n.number::int, 1, n.id
          FROM invoices n
          WHERE n.company_id = ${companyId} AND n.sale_id IN (${idList(saleIds)}) AND n.kind = 'credit_note'
            AND n.return_id IS NOT NULL AND n.emission = 'caea'
      ) r ORDER BY sale_id, return_id, rank, id`,
  );
}

/** Whether the sale has an invoice issued here (its returns then owe a credit note). */
export async function hasOwnInvoice(conn: Conn, companyId: number, saleId: number): Promise<boolean> {
  const rows = await selectRows(
    conn,
    sql`SELECT 1 FROM invoices WHERE company_id = ${companyId} AND sale_id = ${saleId} AND kind = 'invoice' AND source = 'arca'
      LIMIT 1`,
  );
  return rows.length > 0;
}

/** Serialises requests with the same idempotency key (released at the end of the transaction). */
export async function lockReturnKey(tx: Conn, companyId: number, key: string) {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`sale-return:${companyId}:${key}`}, 0))`);
}

export async function findReturnByKey(
  conn: Conn,
  companyId: number,
  key: string,
): Promise<{ sale_id: number; id: number; request_sha256: string } | null> {
  const [row] = await selectRows<{ sale_id: number; id: number; request_sha256: string }>(
    conn,
    sql`SELECT sale_id, id, request_sha256 FROM sale_returns WHERE company_id = ${companyId} AND idempotency_key = ${key}`,
  );
  return row ?? null;
}

export interface NewReturn {
  companyId: number;
  saleId: number;
  id: number;
  amount: string;
  refundMethod: string | null;
  refundSessionId: number | null;
  storeCredit: boolean;
  creditCustomerId: number | null;
  creditPaymentId: number | null;
  reason: string;
  exchangeSaleId: number | null;
  createdBy: string;
  key: string;
  sha256: string;
  now: Date;
  lines: { itemId: number; productId: number; quantity: string; amount: string }[];
}

export async function insertReturn(tx: Conn, r: NewReturn) {
  const at = r.now.toISOString();
  await tx.execute(
    sql`INSERT INTO sale_returns (company_id, sale_id, id, amount, refund_method, refund_session_id, store_credit, credit_customer_id,
        credit_payment_id, reason, exchange_sale_id, created_by, idempotency_key, request_sha256, created_at)
      VALUES (${r.companyId}, ${r.saleId}, ${r.id}, ${r.amount}::numeric, ${r.refundMethod}, ${r.refundSessionId}::integer,
        ${r.storeCredit}, ${r.creditCustomerId}::integer, ${r.creditPaymentId}::integer, ${r.reason}, ${r.exchangeSaleId}::integer,
        ${r.createdBy}, ${r.key}, ${r.sha256}, ${at}::timestamptz)`,
  );
  const lines = JSON.stringify(
    r.lines.map((l) => ({ item_id: l.itemId, product_id: l.productId, quantity: l.quantity, amount: l.amount })),
  );
  await tx.execute(
    sql`INSERT INTO sale_return_lines (company_id, sale_id, return_id, item_id, product_id, quantity, amount)
      SELECT ${r.companyId}, ${r.saleId}, ${r.id}, l.item_id, l.product_id, l.quantity, l.amount
      FROM jsonb_to_recordset(${lines}::jsonb) AS l(item_id integer, product_id integer, quantity numeric, amount numeric)`,
  );
}

export async function nextReturnId(tx: Conn, companyId: number, saleId: number): Promise<number> {
  const [row] = await selectRows<{ id: number }>(
    tx,
    sql`SELECT coalesce(max(id), 0)::int + 1 AS id FROM sale_returns WHERE company_id = ${companyId} AND sale_id = ${saleId}`,
  );
  return Number(row!.id);
}

/**
 * The open shift a refund is given from: the one named (any open shift of the company), else the
 * latest one the person opened, else the sale's box's. Held FOR SHARE: it cannot close under the refund.
 */
export async function findRefundSession(
  tx: Conn,
  companyId: number,
  choice: { sessionId?: number | undefined; openedBy: string; boxId: number | null },
): Promise<number | null> {
  const open = sql`SELECT id FROM box_sessions WHERE company_id = ${companyId} AND status = 'open'`;
  if (choice.sessionId !== undefined) {
    const [row] = await selectRows<{ id: number }>(tx, sql`${open} AND id = ${choice.sessionId} FOR SHARE`);
    return row?.id ?? null;
  }
  const [mine] = await selectRows<{ id: number }>(
    tx,
    sql`${open} AND opened_by = ${choice.openedBy} ORDER BY opened_at DESC, id DESC LIMIT 1 FOR SHARE`,
  );
  if (mine) return mine.id;
  if (choice.boxId === null) return null;
  const [ofBox] = await selectRows<{ id: number }>(tx, sql`${open} AND box_id = ${choice.boxId} FOR SHARE`);
  return ofBox?.id ?? null;
}
