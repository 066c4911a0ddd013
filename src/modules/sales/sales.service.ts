import { and, asc, eq } from 'drizzle-orm';
import type { Conn } from '../../db/client.ts';
import { type SaleStatus, saleItems, sales } from '../../db/schema/index.ts';
import type { SaleRow } from './create-sale.ts';
import { AppError } from '../../lib/errors.ts';
import { moneyToNumber } from '../../lib/money.ts';
import { recordOutbound } from '../../outbox/outbox.repo.ts';
import type { LedgerOptions } from '../stock/stock.ledger.ts';

/** The sale state machine (contract "States and transitions"): data, not branches. */
export const SALE_TRANSITIONS: Record<SaleStatus, readonly SaleStatus[]> = {
  pending: ['paid', 'cancelled'],
  paid: [],
  cancelled: [],
};

export {
  type CreatedSale,
  type CreateSaleInput,
  createSale,
  type SaleItemInput,
  type SaleItemRow,
  type SaleRow,
  saleToWire,
} from './create-sale.ts';

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
