import { requestFingerprint } from '../../lib/fingerprint.ts';
import { type Conn, readTogether } from '../../db/client.ts';
import { nextId } from '../../db/ids.ts';
import type { CompanyCtx } from '../../http/request-context.ts';
import { AppError } from '../../lib/errors.ts';
import { fromCents, fromMilli, moneyToNumber, toCents, toMilli } from '../../lib/money.ts';
import { creditPayment } from '../accounts/account-ledger.ts';
import { auditBy, recordAudit } from '../audit/audit.repo.ts';
import { applyMovements } from '../stock/stock.ledger.ts';
import { formatReceiptNumber } from '../invoicing/invoices.ts';
import * as returnsRepo from './returns.repo.ts';
import { findSaleRow, listPayments, listSaleItems, type SaleListRow } from './sales.repo.ts';
import { recordReturn } from './sales.service.ts';
import type { ReturnInput, ReturnWire } from './returns.schemas.ts';
import { dbDate } from '../../db/dates.ts';

// A sale's returns (issue 29): lines given back in one or more steps, never beyond what was sold.
// The sale module owns them: the quantities go back to the deposit the sale left (stock ledger),
// the money back in the open shift of the person refunding, or to the customer's account as
// credit; a sale returned whole becomes cancelled (sales.cancelled), a partial return keeps it paid
// (sales.paid again, with the return beside the sale). The credit note of an invoiced sale is
// issued right after the transaction by the caller (the route), through the invoicing module.

export type { ReturnInput, ReturnWire };

/** The people who act on a return: the person's label as shifts record it (opened_by), and whether they act as an admin. */
export interface ReturnActor {
  ctx: CompanyCtx;
  label: string;
  admin: boolean;
  /** The admin who approved, on the spot, a cashier giving money back (audited sale.refund_approved). */
  approvedBy?: string | null;
}

const iso = (value: Date | string) => dbDate(value).toISOString();
/** A quantity in thousandths as people write it: 1, 0.25. */
const qty = (milli: number) => String(milli / 1000);

/** A sale's returns on the wire, with their lines and credit notes. */
export async function readReturns(conn: Conn, companyId: number, saleIds: number[]): Promise<Map<number, ReturnWire[]>> {
  const [returns, lines, receipts] = await readTogether(
    conn,
    () => returnsRepo.listReturns(conn, companyId, saleIds),
    () => returnsRepo.listReturnLines(conn, companyId, saleIds),
    () => returnsRepo.listReturnReceipts(conn, companyId, saleIds),
  );
  const invoiced = new Set<number>();
  for (const id of new Set(returns.map((r) => r.sale_id))) {
    if (await returnsRepo.hasOwnInvoice(conn, companyId, id)) invoiced.add(id);
  }
  const bySale = new Map<number, ReturnWire[]>();
  for (const r of returns) {
    const receipt = receipts.filter((x) => x.sale_id === r.sale_id && x.return_id === r.id).at(-1) ?? null;
    const wire: ReturnWire = {
      id: r.id,
      sale_id: r.sale_id,
      amount: moneyToNumber(r.amount),
      refund: r.store_credit
        ? { store_credit: true, customer_id: r.credit_customer_id!, payment_id: r.credit_payment_id }
        : { store_credit: false, method: r.refund_method!, box_session_id: r.refund_session_id! },
      reason: r.reason,
      exchange_sale_id: r.exchange_sale_id,
      created_by: r.created_by,
      created_at: iso(r.created_at),
      lines: lines
        .filter((l) => l.sale_id === r.sale_id && l.return_id === r.id)
        .map((l) => ({
          item_id: l.item_id,
          product_id: l.product_id,
          quantity: toMilli(l.quantity) / 1000,
          amount: moneyToNumber(l.amount),
        })),
      credit_note: !invoiced.has(r.sale_id)
        ? null
        : receipt?.status === 'approved' && receipt.type !== null
          ? {
              status: 'issued' as const,
              invoice_id: receipt.invoice_id,
              number: formatReceiptNumber(receipt.type, receipt.point_of_sale!, receipt.number!),
            }
          : {
              status: receipt?.status === 'rejected' ? ('rejected' as const) : ('pending' as const),
              invoice_id: null,
              number: null,
            },
    };
    bySale.set(r.sale_id, [...(bySale.get(r.sale_id) ?? []), wire]);
  }
  return bySale;
}

/** One return as the API answers it. */
export async function readReturn(conn: Conn, companyId: number, saleId: number, id: number): Promise<ReturnWire> {
  const found = (await readReturns(conn, companyId, [saleId])).get(saleId)?.find((r) => r.id === id);
  if (!found) throw new AppError('not_found', `return ${id} of sale ${saleId} does not exist`);
  return found;
}

/** What each line of a sale has had returned so far (quantity in thousandths, amount in cents). */
async function returnedSoFar(tx: Conn, companyId: number, saleId: number) {
  const lines = await returnsRepo.listReturnLines(tx, companyId, [saleId]);
  const byItem = new Map<number, { milli: number; cents: number }>();
  for (const l of lines) {
    const seen = byItem.get(l.item_id) ?? { milli: 0, cents: 0 };
    byItem.set(l.item_id, { milli: seen.milli + toMilli(l.quantity), cents: seen.cents + toCents(l.amount) });
  }
  return byItem;
}

/** A register sale that can be returned: paid, not on account, lines as sold. 404 for another company's. */
async function returnableSale(tx: Conn, companyId: number, saleId: number): Promise<SaleListRow> {
  const sale = await findSaleRow(tx, companyId, saleId, true);
  if (!sale) throw new AppError('not_found', `sale ${saleId} does not exist`);
  if (sale.box_session_id === null) {
    throw new AppError('invalid_state', `sale ${saleId} came from an integration; its sender owns its payment and stock`);
  }
  if (sale.status !== 'paid') {
    throw new AppError(
      'invalid_state',
      sale.status === 'pending'
        ? `sale ${saleId} is not paid: cancel it instead of returning it`
        : `sale ${saleId} is cancelled: nothing is left to return`,
      { details: [{ path: 'sale.status', message: `current status is ${sale.status}` }] },
    );
  }
  if ((await listPayments(tx, companyId, [saleId])).some((p) => p.method === 'cuenta_corriente')) {
    throw new AppError(
      'invalid_state',
      `sale ${saleId} was sold on the customer's account: cancel it (its account part leaves the balance)`,
    );
  }
  return sale;
}

/**
 * Records a return in the caller's transaction: checks, amounts, refund, stock, the sale's new
 * state and its event, the audit. Answers the return (replayed: the same key and body again).
 * `exchangeSaleId`: the sale an exchange sold in the same operation.
 */
export async function createReturn(
  tx: Conn,
  actor: ReturnActor,
  saleId: number,
  key: string,
  input: ReturnInput,
  options: { now: Date; exchangeSaleId?: number | null; exchangeSale?: (amountCents: number) => Promise<number> },
): Promise<{ ret: ReturnWire; replayed: boolean; full: boolean }> {
  const companyId = actor.ctx.companyId;
  // The approval (an admin's password) is never part of the fingerprint: a retry without it is the same return.
  const { approval: _approval, ...request } = input;
  const sha = requestFingerprint({ sale_id: saleId, ...request });
  await returnsRepo.lockReturnKey(tx, companyId, key);
  const seen = await returnsRepo.findReturnByKey(tx, companyId, key);
  if (seen) {
    if (seen.request_sha256 !== sha || seen.sale_id !== saleId) {
      throw new AppError(
        'conflict',
        `idempotency key "${key}" was already used for return ${seen.id} of sale ${seen.sale_id} with another request; use a new key`,
      );
    }
    return { ret: await readReturn(tx, companyId, saleId, seen.id), replayed: true, full: false };
  }
  const reason = input.reason.trim();
  if (reason.length === 0) {
    throw new AppError('validation_failed', 'reason must not be empty', { details: [{ path: '/reason', message: 'required' }] });
  }
  if (input.lines.length === 0) {
    throw new AppError('validation_failed', 'a return needs at least one line', {
      details: [{ path: '/lines', message: 'must not be empty' }],
    });
  }
  const sale = await returnableSale(tx, companyId, saleId);
  const items = await listSaleItems(tx, companyId, [saleId]);
  const before = await returnedSoFar(tx, companyId, saleId);
  const seenItems = new Set<number>();
  const lines = input.lines.map((line, n) => {
    const item = items.find((i) => i.id === line.item_id);
    if (!item) {
      throw new AppError('invalid_reference', `sale ${saleId} has no line ${line.item_id}`, {
        details: [{ path: `/lines/${n}/item_id`, message: 'not a line of the sale' }],
      });
    }
    if (seenItems.has(item.id)) {
      throw new AppError('validation_failed', `line ${item.id} is named twice`, {
        details: [{ path: `/lines/${n}/item_id`, message: 'named twice' }],
      });
    }
    seenItems.add(item.id);
    const milli = toMilli(line.quantity);
    if (milli <= 0 || (item.unit === 'unit' && milli % 1000 !== 0)) {
      throw new AppError(
        'validation_failed',
        `lines.${n}.quantity must be above zero${item.unit === 'unit' ? ' and whole' : ''}`,
        {
          details: [{ path: `/lines/${n}/quantity`, message: item.unit === 'unit' ? 'a whole number above zero' : 'above zero' }],
        },
      );
    }
    const soldMilli = toMilli(item.quantity);
    const done = before.get(item.id) ?? { milli: 0, cents: 0 };
    const left = soldMilli - done.milli;
    if (milli > left) {
      throw new AppError(
        'return_exceeds_sold',
        `line ${item.id} sold ${qty(soldMilli)}, ${qty(done.milli)} already returned: at most ${qty(left)} can be returned`,
        { details: [{ path: `/lines/${n}/quantity`, message: `at most ${qty(left)}`, expected: qty(left) }] },
      );
    }
    const subtotal = toCents(item.subtotal);
    // The last units of a line take what is left of its subtotal: the returns add up to it exactly.
    const cents = milli === left ? subtotal - done.cents : Math.round((subtotal * milli) / soldMilli);
    return { itemId: item.id, productId: item.product_id, milli, cents };
  });
  const amountCents = lines.reduce((sum, l) => sum + l.cents, 0);
  const full = items.every(
    (i) => toMilli(i.quantity) === (before.get(i.id)?.milli ?? 0) + (lines.find((l) => l.itemId === i.id)?.milli ?? 0),
  );

  const id = await returnsRepo.nextReturnId(tx, companyId, saleId);
  let refundMethod: string | null = null;
  let refundSessionId: number | null = null;
  let creditPaymentId: number | null = null;
  const storeCredit = input.refund === 'store_credit';
  if (input.refund === 'store_credit') {
    if (sale.customer_id === null) {
      throw new AppError('validation_failed', `sale ${saleId} has no customer: store credit needs one`, {
        details: [{ path: '/refund', message: 'store credit needs the sale to have a customer' }],
      });
    }
    if (amountCents > 0) {
      creditPaymentId = await nextId(tx, 'account_payments', companyId);
      await creditPayment(tx, {
        companyId,
        id: creditPaymentId,
        customerId: sale.customer_id,
        method: 'cuenta_corriente',
        amount: fromCents(amountCents),
        sessionId: null,
        reference: `devolución ${id} de la venta ${saleId}`,
        note: reason,
        createdBy: actor.label,
        key: `sale-return:${saleId}:${id}`,
        sha256: sha,
        now: options.now,
      });
    }
  } else {
    if (!actor.admin) {
      throw new AppError('forbidden', `giving money back for sale ${saleId} needs a company admin`, {
        details: [{ path: '/refund', message: 'needs an admin' }],
      });
    }
    refundMethod = input.refund.method;
    refundSessionId = await returnsRepo.findRefundSession(tx, companyId, {
      sessionId: input.box_session_id,
      openedBy: actor.label,
      boxId: sale.box_id,
    });
    if (refundSessionId === null) {
      throw new AppError(
        'no_refund_session',
        input.box_session_id !== undefined
          ? `box session ${input.box_session_id} is not open; the refund needs an open shift`
          : 'the refund needs an open shift: open one (at any box) and retry',
        { details: [{ path: input.box_session_id !== undefined ? '/box_session_id' : '/refund', message: 'no open shift' }] },
      );
    }
  }
  // An exchange sells the new lines here, in the same transaction, once the return is known good:
  // the value returned pays for them.
  const exchangeSaleId = options.exchangeSale ? await options.exchangeSale(amountCents) : (options.exchangeSaleId ?? null);
  await returnsRepo.insertReturn(tx, {
    companyId,
    saleId,
    id,
    amount: fromCents(amountCents),
    refundMethod,
    refundSessionId,
    storeCredit,
    creditCustomerId: storeCredit ? sale.customer_id : null,
    creditPaymentId,
    reason,
    exchangeSaleId,
    createdBy: actor.label,
    key,
    sha256: sha,
    now: options.now,
    lines: lines.map((l) => ({
      itemId: l.itemId,
      productId: l.productId,
      quantity: fromMilli(l.milli),
      amount: fromCents(l.cents),
    })),
  });
  await applyMovements(
    tx,
    companyId,
    lines.map((l) => ({
      type: 'IN' as const,
      depositId: sale.deposit_id!,
      productId: l.productId,
      amount: fromMilli(l.milli),
      reason: `devolución venta ${saleId}`,
    })),
    { now: options.now },
  );
  const ret = await readReturn(tx, companyId, saleId, id);
  await recordReturn(tx, companyId, { id: saleId, full, reason, returned: ret }, { now: options.now });
  await recordAudit(tx, {
    action: 'sale.returned',
    ...auditBy(actor.ctx),
    details: {
      sale_id: saleId,
      return_id: id,
      amount: amountCents / 100,
      full,
      reason,
      refund: storeCredit
        ? { store_credit: true, payment_id: creditPaymentId }
        : { method: refundMethod, session_id: refundSessionId },
      lines: ret.lines,
    },
  });
  if (actor.approvedBy && !storeCredit) {
    await recordAudit(tx, {
      action: 'sale.refund_approved',
      ...auditBy(actor.ctx),
      details: { sale_id: saleId, return_id: id, amount: amountCents / 100, method: refundMethod, approved_by: actor.approvedBy },
    });
  }
  return { ret, replayed: false, full };
}
