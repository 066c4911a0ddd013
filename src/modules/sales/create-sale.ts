import { type SQL, sql } from 'drizzle-orm';
import { type Conn, selectRowsPrepared } from '../../db/client.ts';
import { nextId } from '../../db/ids.ts';
import { refusedWriteFacts } from '../../db/pg-errors.ts';
import type { saleItems, sales } from '../../db/schema/index.ts';
import { AppError } from '../../lib/errors.ts';
import { fromCents, fromMilli, lineTotalCents, moneyToNumber, quantityToNumber, toCents, toMilli } from '../../lib/money.ts';
import { outboundEventInsert } from '../../outbox/outbox.repo.ts';
import type { LedgerOptions } from '../stock/stock.ledger.ts';

export interface SaleItemInput {
  id?: number;
  productId: number;
  quantity: string | number;
  price: string | number;
  subtotal?: string | number;
}

export interface CreateSaleInput {
  id?: number;
  customerId?: number | null;
  boxId?: number | null;
  total: string | number;
  paymentMethod?: string | null;
  items: SaleItemInput[];
  createdAt?: Date;
}

export interface GatedOptions extends LedgerOptions {
  /**
   * A data-modifying statement (such as storing the inbound event) that becomes the first part of
   * the same single statement, as the CTE `gate`: the sale is written only when it returns a row,
   * and nothing is written before it. Requires the sale id (no id is drawn).
   */
  gate: SQL;
}

export type SaleRow = typeof sales.$inferSelect;
export type SaleItemRow = typeof saleItems.$inferSelect;
export type CreatedSale = { sale: SaleRow; items: SaleItemRow[] };

export function saleToWire(sale: SaleRow, items: SaleItemRow[]) {
  return {
    id: sale.id,
    company_id: sale.companyId,
    customer_id: sale.customerId,
    box_id: sale.boxId,
    total: moneyToNumber(sale.total),
    status: sale.status,
    payment_method: sale.paymentMethod,
    items: items.map((item) => ({
      id: item.id,
      product_id: item.productId,
      quantity: quantityToNumber(item.quantity),
      price: moneyToNumber(item.price),
      subtotal: moneyToNumber(item.subtotal),
    })),
    created_at: sale.createdAt.toISOString(),
  };
}

/**
 * Records a new pending sale with its items; items must name existing products. Stock is not moved
 * (design §3). The sale, its items and its outbound event are written by ONE statement that also
 * checks the rules (the id is free, every product exists): atomic on its own, so it needs no
 * transaction around it. With `gate`, returns null when the gate let nothing through.
 */
export async function createSale(
  tx: Conn,
  companyId: number,
  input: CreateSaleInput,
  options: LedgerOptions,
): Promise<CreatedSale>;
export async function createSale(
  conn: Conn,
  companyId: number,
  input: CreateSaleInput,
  options: GatedOptions,
): Promise<CreatedSale | null>;
export async function createSale(
  conn: Conn,
  companyId: number,
  input: CreateSaleInput,
  options: LedgerOptions | GatedOptions,
): Promise<CreatedSale | null> {
  if (input.items.length === 0) throw new AppError('validation_failed', 'a sale needs at least one item');
  if (toCents(input.total) < 0) throw new AppError('validation_failed', `sale total must not be negative (got ${input.total})`);
  const gate = 'gate' in options ? options.gate : null;
  if (gate && input.id === undefined) throw new Error('createSale with a gate needs the sale id');
  const id = input.id ?? (await nextId(conn, 'sales', companyId));
  const created = saleRows(companyId, id, input, options.now);
  const { query: outbound } = outboundEventInsert(
    {
      companyId,
      event: 'sales.created',
      data: { sale: saleToWire(created.sale, created.items) },
      causedBy: options.causedBy ?? null,
    },
    sql`sale`,
  );
  try {
    const rows = await selectRowsPrepared<{ id: number }>(conn, insertSaleStatement(created, gate ?? sql`SELECT 1`, outbound));
    return rows.length > 0 ? created : null;
  } catch (err) {
    const facts = refusedWriteFacts(err) as SaleRefusal | undefined;
    throw facts?.rule === 'sales.create' ? saleRefusalError(id, facts, err) : err;
  }
}

/** The rows exactly as the statement stores them (numeric text as PostgreSQL prints it). */
function saleRows(companyId: number, id: number, input: CreateSaleInput, now: Date): CreatedSale {
  const itemIds = new Set<number>();
  const items = input.items.map((item, index): SaleItemRow => {
    const itemId = item.id ?? index + 1;
    if (itemIds.has(itemId)) throw new AppError('validation_failed', `sale ${id} has item id ${itemId} twice`);
    itemIds.add(itemId);
    const subtotal = item.subtotal === undefined ? lineTotalCents(item.price, item.quantity) : toCents(item.subtotal);
    return {
      companyId,
      saleId: id,
      id: itemId,
      productId: item.productId,
      quantity: fromMilli(toMilli(item.quantity)),
      price: fromCents(toCents(item.price)),
      subtotal: fromCents(subtotal),
    };
  });
  const sale: SaleRow = {
    companyId,
    id,
    customerId: input.customerId ?? null,
    boxId: input.boxId ?? null,
    total: fromCents(toCents(input.total)),
    status: 'pending',
    paymentMethod: input.paymentMethod ?? null,
    paymentId: null,
    paidAt: null,
    cancelledAt: null,
    cancellationReason: null,
    createdAt: input.createdAt ?? now,
    updatedAt: now,
  };
  return { sale, items };
}

/** What refuse_write() reports when a rule of createSale fails. */
interface SaleRefusal {
  rule: 'sales.create';
  existing_status: string | null;
  missing_products: number[] | null;
}

function saleRefusalError(id: number, facts: SaleRefusal, cause: unknown): AppError {
  if (facts.existing_status !== null) {
    return new AppError('invalid_state', `sale ${id} already exists (status ${facts.existing_status})`, { cause });
  }
  const missing = facts.missing_products ?? [];
  const plural = missing.length > 1;
  return new AppError(
    'invalid_reference',
    `sale ${id} refers to product${plural ? 's' : ''} ${missing.join(', ')} that do${plural ? '' : 'es'} not exist`,
    { cause },
  );
}

/**
 * gate → rules → sale → items and outbound event, in one statement. The rules are read after the
 * gate let a row through and, when one fails, refuse_write() undoes the whole statement (gate
 * included). Missing products are listed in the order the items first name them.
 */
function insertSaleStatement({ sale, items }: CreatedSale, gate: SQL, outbound: SQL): SQL {
  // Validated integers, as an array literal (drizzle would expand a JS array into a list).
  const productIds = `{${[...new Set(items.map((item) => item.productId))].join(',')}}`;
  const itemsJson = JSON.stringify(
    items.map((i) => ({ id: i.id, product_id: i.productId, quantity: i.quantity, price: i.price, subtotal: i.subtotal })),
  );
  const c = sql`${sale.companyId}::integer`;
  return sql`WITH gate AS (${gate}),
    facts AS MATERIALIZED (
      SELECT (SELECT status FROM sales WHERE company_id = ${c} AND id = ${sale.id}::integer) AS existing_status,
             -- The named products that exist, in one index scan (never a scan of the company's catalogue).
             (SELECT jsonb_agg(p.id ORDER BY p.n) FROM unnest(${productIds}::integer[]) WITH ORDINALITY AS p(id, n)
               WHERE p.id <> ALL (ARRAY(SELECT id FROM products WHERE company_id = ${c} AND id = ANY (${productIds}::integer[]))))
               AS missing_products
    ),
    checked AS (
      SELECT CASE WHEN f.existing_status IS NULL AND f.missing_products IS NULL THEN true
                  ELSE refuse_write(jsonb_build_object('rule', 'sales.create', 'existing_status', f.existing_status,
                                                       'missing_products', f.missing_products)) END AS ok
      FROM gate CROSS JOIN facts AS f
    ),
    sale AS (
      INSERT INTO sales (company_id, id, customer_id, box_id, total, status, payment_method, created_at, updated_at)
      SELECT ${c}, ${sale.id}::integer, ${sale.customerId}::integer, ${sale.boxId}::integer, ${sale.total}::numeric, 'pending',
             ${sale.paymentMethod}::text, ${sale.createdAt.toISOString()}::timestamptz, ${sale.updatedAt.toISOString()}::timestamptz
      FROM checked
      RETURNING company_id, id
    ),
    items AS (
      INSERT INTO sale_items (company_id, sale_id, id, product_id, quantity, price, subtotal)
      SELECT s.company_id, s.id, i.id, i.product_id, i.quantity, i.price, i.subtotal
      FROM sale AS s CROSS JOIN jsonb_to_recordset(${itemsJson}::jsonb)
        AS i(id integer, product_id integer, quantity numeric, price numeric, subtotal numeric)
    ),
    outbound AS (${outbound})
    SELECT id FROM sale`;
}
