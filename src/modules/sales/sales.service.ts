import type { Conn } from '../../db/client.ts';
import { AppError } from '../../lib/errors.ts';
import { toCents } from '../../lib/money.ts';
import { recordOutbound } from '../../outbox/outbox.repo.ts';
import type { LedgerOptions } from '../stock/stock.ledger.ts';
import { methodFromSender } from './payments.ts';
import { assertTransition, type SaleAction } from './sale-states.ts';
import { saleCancelledWire, salePaidWire } from './sale-wire.ts';
import * as repo from './sales.repo.ts';
import type { ReturnWire } from './returns.schemas.ts';

// Every change of a sale's status: the state machine (sale-states.ts) is asked, the row written
// and its outbound event recorded, in the caller's transaction. Creating sales: create-sale.ts.

export {
  type CreatedSale,
  type CreateSaleInput,
  createSale,
  type SaleItemInput,
  saleToWire,
} from './create-sale.ts';
export { SALE_TRANSITIONS } from './sale-states.ts';
export type { SaleItemRow, SaleRow } from './sales.repo.ts';

export function findSaleItems(conn: Conn, companyId: number, saleId: number) {
  return repo.findSaleItems(conn, companyId, saleId);
}

export interface PayInput {
  id: number;
  paidAt?: Date;
  paymentMethod?: string | null;
  paymentId?: string | null;
  /**
   * The sale's payment row comes with the transition (a sale paid outside the register, as an
   * integration reports it): method from the sender's text, amount = total, reference = paymentId.
   * The register books its own payments before it asks.
   */
  bookPayment?: boolean;
}

export type TransitionResult = { sale: repo.SaleRow; changed: boolean };

async function lockExisting(tx: Conn, companyId: number, id: number) {
  const sale = await repo.lockSale(tx, companyId, id);
  if (!sale) throw new AppError('invalid_reference', `sale ${id} does not exist`);
  return sale;
}

/** pending → paid. Repeating it with the same payment data is a no-op success; anything else is refused. */
export async function markSalePaid(
  tx: Conn,
  companyId: number,
  input: PayInput,
  options: LedgerOptions,
): Promise<TransitionResult> {
  const sale = await lockExisting(tx, companyId, input.id);
  if (sale.status === 'paid' && samePayment(sale, input)) return { sale, changed: false };
  assertTransition(sale, 'pay');
  const paidAt = input.paidAt ?? options.now;
  const updated = await repo.updateSaleStatus(
    tx,
    companyId,
    input.id,
    {
      status: 'paid',
      paidAt,
      paymentMethod: input.paymentMethod ?? sale.paymentMethod,
      paymentId: input.paymentId ?? sale.paymentId,
    },
    options.now,
  );
  // A sale of total 0 (a gift, a free sample) is paid with nothing: no payment row (each is > 0).
  if (input.bookPayment && toCents(updated.total) > 0) {
    await repo.insertPayments(tx, {
      companyId,
      saleId: input.id,
      firstId: (await repo.countPayments(tx, companyId, input.id)) + 1,
      sessionId: null,
      now: paidAt,
      payments: [
        {
          method: methodFromSender(updated.paymentMethod),
          amount: updated.total,
          tendered: null,
          change: '0.00',
          reference: updated.paymentId,
        },
      ],
    });
  }
  await recordOutbound(tx, {
    companyId,
    event: 'sales.paid',
    causedBy: options.causedBy ?? null,
    data: { sale: salePaidWire(updated) },
  });
  return { sale: updated, changed: true };
}

function samePayment(sale: repo.SaleRow, input: PayInput) {
  return (
    (input.paymentId === undefined || input.paymentId === sale.paymentId) &&
    (input.paymentMethod === undefined || input.paymentMethod === sale.paymentMethod)
  );
}

export interface CancelInput {
  id: number;
  cancelledAt?: Date;
  reason?: string | null;
  /**
   * cancel (the default): a pending sale. refund: a paid one, which only the register offers (it
   * books the money back in an open session before asking).
   */
  action?: Extract<SaleAction, 'cancel' | 'refund'>;
}

/** pending → cancelled (or paid → cancelled as a refund). Repeating it with the same reason is a no-op success. */
export async function cancelSale(
  tx: Conn,
  companyId: number,
  input: CancelInput,
  options: LedgerOptions,
): Promise<TransitionResult> {
  const sale = await lockExisting(tx, companyId, input.id);
  if (sale.status === 'cancelled' && (input.reason === undefined || input.reason === sale.cancellationReason)) {
    return { sale, changed: false };
  }
  assertTransition(sale, input.action ?? 'cancel');
  const cancelledAt = input.cancelledAt ?? options.now;
  const updated = await repo.updateSaleStatus(
    tx,
    companyId,
    input.id,
    { status: 'cancelled', cancelledAt, reason: input.reason ?? null },
    options.now,
  );
  await recordOutbound(tx, {
    companyId,
    event: 'sales.cancelled',
    causedBy: options.causedBy ?? null,
    data: { sale: saleCancelledWire(updated) },
  });
  return { sale: updated, changed: true };
}

export interface ReturnChange {
  id: number;
  /** The return completes the sale: paid → cancelled (a refund). Otherwise it stays paid. */
  full: boolean;
  reason: string;
  /** The return, carried beside the sale in the event (the contract's sale shape stays as it is). */
  returned: ReturnWire;
}

/**
 * A return's effect on the sale: the last one cancels it (sales.cancelled), a partial one keeps it
 * paid and says so again (sales.paid). Both events carry the return beside the sale: {sale, return}.
 */
export async function recordReturn(tx: Conn, companyId: number, input: ReturnChange, options: LedgerOptions) {
  const sale = await lockExisting(tx, companyId, input.id);
  if (!input.full) {
    assertTransition(sale, 'return');
    await recordOutbound(tx, {
      companyId,
      event: 'sales.paid',
      causedBy: options.causedBy ?? null,
      data: { sale: salePaidWire(sale), return: input.returned },
    });
    return sale;
  }
  assertTransition(sale, 'refund');
  const updated = await repo.updateSaleStatus(
    tx,
    companyId,
    input.id,
    { status: 'cancelled', cancelledAt: options.now, reason: input.reason },
    options.now,
  );
  await recordOutbound(tx, {
    companyId,
    event: 'sales.cancelled',
    causedBy: options.causedBy ?? null,
    data: { sale: saleCancelledWire(updated), return: input.returned },
  });
  return updated;
}
