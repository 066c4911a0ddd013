import { randomUUID } from 'node:crypto';
import { type Conn, type PreparedStatement, preparedStatement } from '../../db/client.ts';
import { nextId } from '../../db/ids.ts';
import type { saleItems, sales } from '../../db/schema/index.ts';
import { AppError } from '../../lib/errors.ts';
import { outboundRowsInsert } from '../../outbox/outbox.repo.ts';
import { fromCents, fromMilli, lineTotalCents, moneyToNumber, quantityToNumber, toCents, toMilli } from '../../lib/money.ts';
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

/**
 * The inbound event that carries a sale (POST /api/integration/in): stored by the same statement
 * that creates the sale, as its gate. A sale whose event is already stored is not created again.
 */
export interface SaleInboundEvent {
  id: string;
  event: string;
  idempotencyKey: string;
  /** The envelope exactly as received. */
  payloadText: string;
  bodySha256: string;
  signatureValid: boolean;
}

/** One sale of a batch for createSalesFromEvents: the sale id is the sender's, never drawn. */
export interface SaleFromEvent {
  companyId: number;
  input: CreateSaleInput & { id: number };
  inbound: SaleInboundEvent;
  now: Date;
}

/**
 * What became of one sale of a batch: created with its event; a duplicate (its event was already
 * stored: nothing written); or refused by a rule (nothing written; the caller decides what to say).
 */
export type SaleOutcome =
  | { outcome: 'created'; created: CreatedSale }
  | { outcome: 'duplicate' }
  | { outcome: 'refused'; refusal: SaleRefusal };

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
 * transaction around it. A refused sale writes nothing and throws the rule's 422.
 */
export async function createSale(
  conn: Conn,
  companyId: number,
  input: CreateSaleInput,
  options: LedgerOptions,
): Promise<CreatedSale> {
  const id = input.id ?? (await nextId(conn, 'sales', companyId));
  const prepared = prepareSale(companyId, { ...input, id }, options.now, options.causedBy ?? null, null);
  const [result] = await runSalesStatement(conn, SALES_STATEMENT, [prepared.row]);
  if (result?.outcome === 'created') return prepared.created;
  throw saleRefusalError(id, refusalOf(result));
}

/**
 * Stores inbound events and creates the sales they carry, many at once, in ONE statement (one
 * transaction, one commit): the batched fast path of POST /api/integration/in. Each sale's rules
 * are checked on their own; a refused or duplicate sale writes nothing and does not stop the
 * others. Answers one outcome per sale, in order. The statement as a whole fails, writing
 * nothing, when two of the sales have the same id or the database fails: callers then apply
 * them one by one.
 */
export async function createSalesFromEvents(conn: Conn, sales: PreparedSale[]): Promise<SaleOutcome[]> {
  const results = await runSalesStatement(
    conn,
    SALES_FROM_EVENTS_STATEMENT,
    sales.map((p) => p.row),
  );
  return sales.map((p, n): SaleOutcome => {
    const result = results[n];
    if (result?.outcome === 'created') return { outcome: 'created', created: p.created };
    if (result?.outcome === 'duplicate') return { outcome: 'duplicate' };
    return { outcome: 'refused', refusal: refusalOf(result) };
  });
}

/** A sale checked and turned into its statement row; throws the 422 of a malformed sale. */
export type PreparedSale = ReturnType<typeof prepareSale>;

export function prepareSaleFromEvent({ companyId, input, inbound, now }: SaleFromEvent): PreparedSale {
  return prepareSale(companyId, input, now, inbound.id, inbound);
}

/** The sale's rows as stored, and its row of the statement's input (with its outbound event). */
function prepareSale(
  companyId: number,
  input: CreateSaleInput & { id: number },
  now: Date,
  causedBy: string | null,
  inbound: SaleInboundEvent | null,
) {
  if (input.items.length === 0) throw new AppError('validation_failed', 'a sale needs at least one item');
  if (toCents(input.total) < 0) throw new AppError('validation_failed', `sale total must not be negative (got ${input.total})`);
  assertStorablePrecision(input);
  const created = saleRows(companyId, input.id, input, now);
  const { sale, items } = created;
  const row: StatementRow = {
    company_id: companyId,
    sale_id: sale.id,
    customer_id: sale.customerId,
    box_id: sale.boxId,
    total: sale.total,
    payment_method: sale.paymentMethod,
    created_at: sale.createdAt.toISOString(),
    updated_at: sale.updatedAt.toISOString(),
    items: items.map((i) => ({ id: i.id, product_id: i.productId, quantity: i.quantity, price: i.price, subtotal: i.subtotal })),
    product_ids: [...new Set(items.map((item) => item.productId))],
    outbound_id: randomUUID(),
    outbound: { event: 'sales.created', data: { sale: saleToWire(sale, items) } },
    caused_by: causedBy,
    ...(inbound && {
      event_id: inbound.id,
      event: inbound.event,
      idempotency_key: inbound.idempotencyKey,
      payload: inbound.payloadText,
      body_sha256: inbound.bodySha256,
      signature_valid: inbound.signatureValid,
    }),
  };
  return { created, row };
}

/**
 * A quantity, price, subtotal or total that is not zero but rounds to zero at the column's
 * precision would be stored as 0 without a word: refused (422) naming the field and the decimals.
 * A quantity must also stay above zero once rounded.
 */
function assertStorablePrecision(input: CreateSaleInput) {
  const details: { path: string; message: string }[] = [];
  const check = (path: string, value: string | number | undefined, decimals: number, mustBePositive = false) => {
    // Only a fraction can round to zero; larger values are left to the range checks.
    if (value === undefined || !(Math.abs(Number(value)) < 1)) return;
    const units = decimals === 3 ? toMilli(value) : toCents(value);
    if (units !== 0 || (Number(value) === 0 && !mustBePositive)) return;
    const smallest = (10 ** -decimals).toFixed(decimals);
    details.push({ path, message: `rounds to 0 at ${decimals} decimals (the stored precision): the least is ${smallest}` });
  };
  check('sale.total', input.total, 2);
  input.items.forEach((item, index) => {
    check(`sale.items.${index}.quantity`, item.quantity, 3, true);
    check(`sale.items.${index}.price`, item.price, 2);
    check(`sale.items.${index}.subtotal`, item.subtotal, 2);
  });
  if (details.length > 0) {
    const summary = details.map((d) => `${d.path} ${d.message}`).join('; ');
    throw new AppError('validation_failed', `sale values lost at the stored precision: ${summary}`, { details });
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

/** Why the statement refused a sale: it exists already, or names products that do not exist. */
export interface SaleRefusal {
  existingStatus: string | null;
  missingProducts: number[];
}

function refusalOf(result: StatementResult | undefined): SaleRefusal {
  if (!result) throw new Error('the sales statement answered fewer rows than it was given');
  return { existingStatus: result.existing_status, missingProducts: result.missing_products ?? [] };
}

/** The 422 of a refused sale, naming the sale and its state or the missing products. */
function saleRefusalError(id: number, refusal: SaleRefusal): AppError {
  if (refusal.existingStatus !== null) {
    return new AppError('invalid_state', `sale ${id} already exists (status ${refusal.existingStatus})`);
  }
  const missing = refusal.missingProducts;
  const plural = missing.length > 1;
  return new AppError(
    'invalid_reference',
    `sale ${id} refers to product${plural ? 's' : ''} ${missing.join(', ')} that do${plural ? '' : 'es'} not exist`,
  );
}

/** One sale as the statement reads it (keys are the columns of `input` below). */
interface StatementRow {
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

interface StatementResult {
  outcome: 'created' | 'duplicate' | 'refused';
  existing_status: string | null;
  missing_products: number[] | null;
}

async function runSalesStatement(conn: Conn, statement: PreparedStatement<StatementResult>, rows: StatementRow[]) {
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
            WHEN f.existing_status IS NULL AND f.missing_products IS NULL THEN 'duplicate'
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
      SELECT i.ord,
             (SELECT s.status FROM sales AS s WHERE s.company_id = i.company_id AND s.id = i.sale_id) AS existing_status,
             (SELECT jsonb_agg(p.id ORDER BY p.n) FROM unnest(i.product_ids) WITH ORDINALITY AS p(id, n)
               WHERE NOT EXISTS (SELECT 1 FROM products AS pr WHERE pr.company_id = i.company_id AND pr.id = p.id))
               AS missing_products
      FROM input AS i
    ),
    admitted AS MATERIALIZED (
      SELECT i.* FROM input AS i JOIN facts AS f USING (ord)
      WHERE f.existing_status IS NULL AND f.missing_products IS NULL
    ),
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
      ${outboundRowsInsert("SELECT a.outbound_id, a.company_id, 'sales.created', a.outbound, a.caused_by FROM applied AS a")}
    )
    SELECT ${outcome} AS outcome, f.existing_status, f.missing_products
    FROM input AS i JOIN facts AS f USING (ord) LEFT JOIN applied AS a USING (ord)
    ORDER BY i.ord`;
}

const SALES_STATEMENT = preparedStatement<StatementResult>(salesStatement(false));
const SALES_FROM_EVENTS_STATEMENT = preparedStatement<StatementResult>(salesStatement(true));
