import { randomUUID } from 'node:crypto';
import { roundsToZeroAt } from '../../lib/precision.ts';
import type { Conn } from '../../db/client.ts';
import { nextId } from '../../db/ids.ts';
import { AppError } from '../../lib/errors.ts';
import { fromCents, fromMilli, lineTotalCents, toCents, toMilli } from '../../lib/money.ts';
import type { LedgerOptions } from '../stock/stock.ledger.ts';
import { methodOf } from './payments.ts';
import { assertTransition, assertTransitions } from './sale-states.ts';
import type { SaleEvent } from './sales.schemas.ts';
import { salePaidWire, saleToWire } from './sale-wire.ts';

export { saleToWire };
import * as repo from './sales.repo.ts';
import type { PaymentValues, SaleItemRow, SaleItemValues, SaleRow } from './sales.repo.ts';

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

export type { SaleItemRow, SaleRow };
export type CreatedSale = { sale: SaleRow; items: SaleItemRow[] };

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
  const [result] = await repo.insertSales(conn, [prepared.row]);
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
  const results = await repo.insertSalesFromEvents(
    conn,
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
  const row: repo.SaleStatementRow = {
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
    // Larger values are left to the range checks; an exact 0 is refused only where it must be positive.
    if (value === undefined || !(roundsToZeroAt(value, decimals) || (mustBePositive && Number(value) === 0))) return;
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
    status: assertTransition({ id, status: null }, 'create'),
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

function refusalOf(result: repo.SaleStatementResult | undefined): SaleRefusal {
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

/** A sale made whole at once (the register's): its lines as priced, its payments as settled. */
export interface WholeSaleInput {
  companyId: number;
  id: number;
  customerId: number | null;
  boxId: number;
  sessionId: number | null;
  items: SaleItemValues[];
  totalCents: number;
  payments: PaymentValues[];
  /** Whether the payments cover the total: the sale is created and paid in the same step. */
  paid: boolean;
  soldAt: Date;
  now: Date;
}

/**
 * The rows and events of a sale created (and, when its payments cover it, paid) in one go: the
 * state machine walks create (→ pending) then pay (→ paid), and each step's event is the one the
 * separate transitions write (sales.created, then sales.paid). The caller writes the rows with
 * sales.repo saleInsertSteps, with its own steps (the register's row, the stock ledger's) in one
 * statement.
 */
export function wholeSale(v: WholeSaleInput): { values: repo.SaleInsertValues; events: SaleEvent[]; sale: SaleRow } {
  const status = assertTransitions({ id: v.id, status: null }, v.paid ? ['create', 'pay'] : ['create']);
  const paymentMethod = methodOf(v.payments);
  const sale: SaleRow = {
    companyId: v.companyId,
    id: v.id,
    customerId: v.customerId,
    boxId: v.boxId,
    total: fromCents(v.totalCents),
    status,
    paymentMethod,
    paymentId: null,
    paidAt: v.paid ? v.now : null,
    cancelledAt: null,
    cancellationReason: null,
    createdAt: v.soldAt,
    updatedAt: v.now,
  };
  const items = v.items.map(
    (i): SaleItemRow => ({
      companyId: v.companyId,
      saleId: v.id,
      id: i.id,
      productId: i.productId,
      quantity: i.quantity,
      price: i.price,
      subtotal: i.subtotal,
    }),
  );
  const events: SaleEvent[] = [
    { event: 'sales.created', data: { sale: saleToWire({ ...sale, status: 'pending', paidAt: null }, items) } },
    ...(v.paid ? [{ event: 'sales.paid' as const, data: { sale: salePaidWire(sale) } }] : []),
  ];
  const values: repo.SaleInsertValues = {
    id: v.id,
    customerId: v.customerId,
    boxId: v.boxId,
    total: sale.total,
    status,
    paymentMethod,
    paidAt: sale.paidAt,
    createdAt: v.soldAt,
    now: v.now,
    items: v.items,
    sessionId: v.sessionId,
    payments: v.payments,
  };
  return { values, events, sale };
}
