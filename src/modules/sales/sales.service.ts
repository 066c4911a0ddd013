import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Conn } from '../../db/client.ts';
import { nextId } from '../../db/ids.ts';
import { products, type SaleStatus, saleItems, sales } from '../../db/schema/index.ts';
import { AppError } from '../../lib/errors.ts';
import { fromCents, fromMilli, lineTotalCents, moneyToNumber, quantityToNumber, toCents, toMilli } from '../../lib/money.ts';
import { recordOutbound } from '../../outbox/outbox.repo.ts';
import type { LedgerOptions } from '../stock/stock.ledger.ts';

/** The sale state machine (contract "States and transitions"): data, not branches. */
export const SALE_TRANSITIONS: Record<SaleStatus, readonly SaleStatus[]> = {
  pending: ['paid', 'cancelled'],
  paid: [],
  cancelled: [],
};

export type SaleRow = typeof sales.$inferSelect;
export type SaleItemRow = typeof saleItems.$inferSelect;

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

async function lockSale(tx: Conn, companyId: number, id: number) {
  const [row] = await tx
    .select()
    .from(sales)
    .where(and(eq(sales.companyId, companyId), eq(sales.id, id)))
    .for('update');
  return row ?? null;
}

export async function findSaleItems(conn: Conn, companyId: number, saleId: number) {
  return conn
    .select()
    .from(saleItems)
    .where(and(eq(saleItems.companyId, companyId), eq(saleItems.saleId, saleId)))
    .orderBy(asc(saleItems.id));
}

/** Records a new pending sale with its items; items must name existing products. Stock is not moved (design §3). */
export async function createSale(tx: Conn, companyId: number, input: CreateSaleInput, options: LedgerOptions) {
  if (input.items.length === 0) throw new AppError('validation_failed', 'a sale needs at least one item');
  if (toCents(input.total) < 0) throw new AppError('validation_failed', `sale total must not be negative (got ${input.total})`);
  let id = input.id;
  if (id === undefined) {
    id = await nextId(tx, 'sales', companyId);
  } else {
    const existing = await lockSale(tx, companyId, id);
    if (existing) throw new AppError('invalid_state', `sale ${id} already exists (status ${existing.status})`);
  }
  const productIds = [...new Set(input.items.map((item) => item.productId))];
  const found = await tx
    .select({ id: products.id })
    .from(products)
    .where(and(eq(products.companyId, companyId), inArray(products.id, productIds)));
  const missing = productIds.filter((pid) => !found.some((row) => row.id === pid));
  if (missing.length > 0) {
    throw new AppError(
      'invalid_reference',
      `sale ${id} refers to product${missing.length > 1 ? 's' : ''} ${missing.join(', ')} that do${missing.length > 1 ? '' : 'es'} not exist`,
    );
  }
  const itemIds = new Set<number>();
  const itemRows = input.items.map((item, index) => {
    const itemId = item.id ?? index + 1;
    if (itemIds.has(itemId)) throw new AppError('validation_failed', `sale ${id} has item id ${itemId} twice`);
    itemIds.add(itemId);
    const subtotal = item.subtotal === undefined ? lineTotalCents(item.price, item.quantity) : toCents(item.subtotal);
    return {
      companyId,
      saleId: id!,
      id: itemId,
      productId: item.productId,
      quantity: fromMilli(toMilli(item.quantity)),
      price: fromCents(toCents(item.price)),
      subtotal: fromCents(subtotal),
    };
  });
  const createdAt = input.createdAt ?? options.now;
  const [sale] = await tx
    .insert(sales)
    .values({
      companyId,
      id,
      customerId: input.customerId ?? null,
      boxId: input.boxId ?? null,
      total: fromCents(toCents(input.total)),
      status: 'pending',
      paymentMethod: input.paymentMethod ?? null,
      createdAt,
      updatedAt: options.now,
    })
    .returning();
  const items = await tx.insert(saleItems).values(itemRows).returning();
  await recordOutbound(tx, {
    companyId,
    event: 'sales.created',
    data: { sale: saleToWire(sale!, items) },
    causedBy: options.causedBy ?? null,
  });
  return { sale: sale!, items };
}

function assertTransition(sale: SaleRow, next: SaleStatus) {
  if (!SALE_TRANSITIONS[sale.status].includes(next)) {
    throw new AppError('invalid_state', `sale ${sale.id} is ${sale.status}; it cannot become ${next}`, {
      details: [{ path: 'sale.status', message: `current status is ${sale.status}` }],
    });
  }
}

export interface PayInput {
  id: number;
  paidAt?: Date;
  paymentMethod?: string | null;
  paymentId?: string | null;
}

export type TransitionResult = { sale: SaleRow; changed: boolean };

/** pending → paid. Repeating it with the same payment data is a no-op success; anything else is refused. */
export async function markSalePaid(
  tx: Conn,
  companyId: number,
  input: PayInput,
  options: LedgerOptions,
): Promise<TransitionResult> {
  const sale = await lockSale(tx, companyId, input.id);
  if (!sale) throw new AppError('invalid_reference', `sale ${input.id} does not exist`);
  if (sale.status === 'paid' && samePayment(sale, input)) return { sale, changed: false };
  assertTransition(sale, 'paid');
  const paidAt = input.paidAt ?? options.now;
  const [updated] = await tx
    .update(sales)
    .set({
      status: 'paid',
      paidAt,
      paymentMethod: input.paymentMethod ?? sale.paymentMethod,
      paymentId: input.paymentId ?? sale.paymentId,
      updatedAt: options.now,
    })
    .where(and(eq(sales.companyId, companyId), eq(sales.id, input.id)))
    .returning();
  await recordOutbound(tx, {
    companyId,
    event: 'sales.paid',
    causedBy: options.causedBy ?? null,
    data: {
      sale: {
        id: updated!.id,
        company_id: companyId,
        total: moneyToNumber(updated!.total),
        status: 'paid',
        paid_at: paidAt.toISOString(),
        payment_method: updated!.paymentMethod,
        payment_id: updated!.paymentId,
      },
    },
  });
  return { sale: updated!, changed: true };
}

function samePayment(sale: SaleRow, input: PayInput) {
  return (
    (input.paymentId === undefined || input.paymentId === sale.paymentId) &&
    (input.paymentMethod === undefined || input.paymentMethod === sale.paymentMethod)
  );
}

export interface CancelInput {
  id: number;
  cancelledAt?: Date;
  reason?: string | null;
}

/** pending → cancelled. Repeating it with the same reason is a no-op success. */
export async function cancelSale(
  tx: Conn,
  companyId: number,
  input: CancelInput,
  options: LedgerOptions,
): Promise<TransitionResult> {
  const sale = await lockSale(tx, companyId, input.id);
  if (!sale) throw new AppError('invalid_reference', `sale ${input.id} does not exist`);
  if (sale.status === 'cancelled' && (input.reason === undefined || input.reason === sale.cancellationReason)) {
    return { sale, changed: false };
  }
  assertTransition(sale, 'cancelled');
  const cancelledAt = input.cancelledAt ?? options.now;
  const [updated] = await tx
    .update(sales)
    .set({ status: 'cancelled', cancelledAt, cancellationReason: input.reason ?? null, updatedAt: options.now })
    .where(and(eq(sales.companyId, companyId), eq(sales.id, input.id)))
    .returning();
  await recordOutbound(tx, {
    companyId,
    event: 'sales.cancelled',
    causedBy: options.causedBy ?? null,
    data: {
      sale: {
        id: updated!.id,
        company_id: companyId,
        status: 'cancelled',
        cancelled_at: cancelledAt.toISOString(),
        cancellation_reason: updated!.cancellationReason,
      },
    },
  });
  return { sale: updated!, changed: true };
}
