import type { Conn } from '../../db/client.ts';
import type { CompanyCtx } from '../../http/request-context.ts';
import { AppError } from '../../lib/errors.ts';
import { fromCents, toCents } from '../../lib/money.ts';
import { auditBy, recordAudit } from '../audit/audit.repo.ts';
import { markSalePaid } from '../sales/sales.service.ts';
import * as repo from './accounts.repo.ts';

// The account's rules inside the caller's transaction: who may buy on account, the credit limit,
// charging a sale, crediting a payment, releasing a cancelled sale, and the allocation of payments
// to open sales (oldest first) that turns a covered sale paid through the sales state machine.
// The register's sale path (register/cashier.ts) and the payments service both call these.

const pesos = (cents: number) => fromCents(cents);
/** customer_accounts.balance is numeric(14,2). */
const MAX_BALANCE_CENTS = 99_999_999_999_999;

/**
 * The customer a sale names: another company's or an unknown id is 404 customer_not_found, with
 * `path` where the request named it (a sale's body /customer/id; a route's /id).
 */
export async function customerOfSale(
  conn: Conn,
  companyId: number,
  customerId: number,
  path = '/customer/id',
): Promise<repo.AccountCustomerRow> {
  const customer = await repo.findCustomer(conn, companyId, customerId);
  if (!customer) {
    throw new AppError('customer_not_found', `customer ${customerId} does not exist`, {
      details: [{ path, message: 'no such customer' }],
    });
  }
  return customer;
}

/** The customer must be enabled and sell on account; the amount must fit the limit unless overridden. */
export function assertCanBuyOnAccount(
  customer: repo.AccountCustomerRow,
  balance: string,
  amountCents: number,
  override: { requested: boolean; byAdmin: boolean },
) {
  if (!customer.enabled || !customer.account_enabled) {
    throw new AppError(
      'invalid_state',
      `customer ${customer.id} ${customer.enabled ? 'has no cuenta corriente' : 'is disabled'}; a sale on account needs an enabled customer with an account`,
      { details: [{ path: '/customer/id', message: customer.enabled ? 'account not enabled' : 'customer disabled' }] },
    );
  }
  const after = toCents(balance) + amountCents;
  if (after > MAX_BALANCE_CENTS) {
    // The balance column's own limit (numeric(14,2)): past it the charge could not be stored at all,
    // whatever the credit limit or an admin says; refused here, before the register takes a number.
    throw new AppError(
      'credit_limit_exceeded',
      `the sale on account (${pesos(amountCents)}) takes customer ${customer.id}'s balance to ${pesos(after)}, past the most an account holds (${pesos(MAX_BALANCE_CENTS)})`,
      { details: [{ path: '/payments', message: 'account_balance_max' }] },
    );
  }
  if (customer.credit_limit === null) return;
  if (after <= toCents(customer.credit_limit) || (override.requested && override.byAdmin)) return;
  throw new AppError(
    'credit_limit_exceeded',
    `the sale on account (${pesos(amountCents)}) takes customer ${customer.id}'s balance to ${pesos(after)}, over the credit limit of ${customer.credit_limit}${override.requested ? '; only an admin may override it' : ''}`,
    { details: [{ path: '/payments', message: `balance ${balance}, limit ${customer.credit_limit}` }] },
  );
}

/** Whether the amount would pass the limit (the override is then audited). */
function overLimit(customer: repo.AccountCustomerRow, balance: string, amountCents: number) {
  return customer.credit_limit !== null && toCents(balance) + amountCents > toCents(customer.credit_limit);
}

export interface ChargeInput {
  ctx: CompanyCtx;
  customerId: number;
  saleId: number;
  amountCents: number;
  override: { requested: boolean; byAdmin: boolean };
  now: Date;
}

/**
 * A sale on account joins the customer's balance. The checks run again holding the account's lock
 * (the register checked before taking the sale's number; another sale may have come in between).
 * Credit the customer already has (saldo a favor) covers it at once. Answers whether the sale is paid.
 */
export async function chargeSale(tx: Conn, input: ChargeInput): Promise<boolean> {
  const { ctx, customerId, saleId, amountCents, now } = input;
  const companyId = ctx.companyId;
  const customer = await customerOfSale(tx, companyId, customerId);
  const balance = await repo.lockAccount(tx, companyId, customerId, now);
  assertCanBuyOnAccount(customer, balance, amountCents, input.override);
  if (overLimit(customer, balance, amountCents)) {
    await recordAudit(tx, {
      action: 'account.credit_limit_overridden',
      ...auditBy(ctx),
      details: {
        customer_id: customerId,
        sale_id: saleId,
        amount: amountCents / 100,
        balance: toCents(balance) / 100,
        credit_limit: toCents(customer.credit_limit!) / 100,
      },
    });
  }
  await repo.addToBalance(tx, companyId, customerId, pesos(amountCents), now);
  const paid = await settleAccount(tx, companyId, customerId, now);
  return paid.includes(saleId);
}

/** A payment on account lowers the balance and covers open sales, oldest first. Answers the sales it paid. */
export async function creditPayment(tx: Conn, payment: repo.NewAccountPayment): Promise<number[]> {
  const balance = await repo.lockAccount(tx, payment.companyId, payment.customerId, payment.now);
  const after = toCents(balance) - toCents(payment.amount);
  if (after < -MAX_BALANCE_CENTS) {
    // Saldo a favor has the same column limit as a debt: past it the payment could not be stored.
    throw new AppError(
      'validation_failed',
      `the payment (${payment.amount}) takes customer ${payment.customerId}'s balance to ${pesos(after)}, past the most an account holds (-${pesos(MAX_BALANCE_CENTS)})`,
      { details: [{ path: '/amount', message: 'account_balance_max' }] },
    );
  }
  await repo.insertAccountPayment(tx, payment);
  await repo.addToBalance(tx, payment.companyId, payment.customerId, `-${payment.amount}`, payment.now);
  return settleAccount(tx, payment.companyId, payment.customerId, payment.now);
}

/**
 * A sale on account being cancelled (or refunded) leaves the balance; what payments had allocated to
 * it is free again (credit) and goes to the customer's other open sales. Call before the sale's
 * status changes; nothing to do for a sale not on account.
 */
export async function releaseSale(tx: Conn, companyId: number, saleId: number, now: Date): Promise<void> {
  const onAccount = await repo.findSaleOnAccount(tx, companyId, saleId);
  if (!onAccount) return;
  await repo.lockAccount(tx, companyId, onAccount.customer_id, now);
  await repo.deleteSaleAllocations(tx, companyId, saleId);
  await repo.addToBalance(tx, companyId, onAccount.customer_id, `-${onAccount.amount}`, now);
  await settleAccount(tx, companyId, onAccount.customer_id, now, saleId);
}

/**
 * Allocates the customer's free payment money to their open sales on account, oldest sale and
 * oldest payment first; a sale whose account part is covered becomes paid (pending → paid, one
 * sales.paid) through the sales module. The account's lock is held by the caller. `skipSaleId`:
 * a sale about to be cancelled. Answers the sales it paid.
 */
export async function settleAccount(
  tx: Conn,
  companyId: number,
  customerId: number,
  now: Date,
  skipSaleId?: number,
): Promise<number[]> {
  const free = (await repo.listFreePayments(tx, companyId, customerId)).map((p) => ({
    id: p.payment_id,
    cents: toCents(p.free),
  }));
  if (free.length === 0) return [];
  const open = (await repo.listOpenSales(tx, companyId, customerId)).filter((s) => s.sale_id !== skipSaleId);
  const allocations: { paymentId: number; saleId: number; amount: string }[] = [];
  const covered: number[] = [];
  for (const sale of open) {
    let owed = toCents(sale.open);
    for (const payment of free) {
      if (owed === 0) break;
      const take = Math.min(owed, payment.cents);
      if (take === 0) continue;
      allocations.push({ paymentId: payment.id, saleId: sale.sale_id, amount: pesos(take) });
      payment.cents -= take;
      owed -= take;
    }
    if (owed === 0) covered.push(sale.sale_id);
    else break;
  }
  await repo.insertAllocations(tx, companyId, allocations, now);
  const paid: number[] = [];
  for (const saleId of covered) {
    const result = await markSalePaid(tx, companyId, { id: saleId, paidAt: now }, { now });
    if (result.changed) paid.push(saleId);
  }
  return paid;
}
