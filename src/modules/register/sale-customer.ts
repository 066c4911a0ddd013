import type { Conn } from '../../db/client.ts';
import type { CompanyCtx } from '../../http/request-context.ts';
import { AppError } from '../../lib/errors.ts';
import { fromCents, toCents } from '../../lib/money.ts';
import { assertCanBuyOnAccount, customerOfSale } from '../accounts/account-ledger.ts';
import { findBalance } from '../accounts/accounts.repo.ts';
import type { settlePayments } from '../sales/payments.ts';

// The customer of a register sale: a named customer must be the company's (404 otherwise), and a
// sale on account (a cuenta_corriente payment) must be whole and fit the customer's account.

/** The account part of a sale's payments, in cents. */
export function accountPart(payments: { method: string; amount: string }[]): number {
  return payments.filter((p) => p.method === 'cuenta_corriente').reduce((sum, p) => sum + toCents(p.amount), 0);
}

/**
 * Checked before the sale's number is taken (and again, under the account's lock, when it is
 * charged). Answers the name the register stores and the account part.
 */
export async function checkSaleCustomer(
  conn: Conn,
  ctx: CompanyCtx,
  input: { customer?: { id?: number; name?: string }; override_credit_limit?: boolean },
  settled: ReturnType<typeof settlePayments>,
  totalCents: number,
  isAdmin: boolean,
): Promise<{ customerName: string | null; accountCents: number }> {
  const typed = input.customer?.name?.trim() || null;
  const accountCents = accountPart(settled.rows);
  if (input.customer?.id === undefined) return { customerName: typed, accountCents };
  const customer = await customerOfSale(conn, ctx.companyId, input.customer.id);
  if (accountCents > 0) {
    // The account part covers what the other payments leave: the sale is whole once it is paid on account.
    if (settled.appliedCents < totalCents) {
      throw new AppError(
        'validation_failed',
        `payments (${fromCents(settled.appliedCents)}) do not cover the total (${fromCents(totalCents)}); put the rest on account`,
        { details: [{ path: '/payments', message: 'a sale on account must be covered by its payments' }] },
      );
    }
    const balance = await findBalance(conn, ctx.companyId, customer.id);
    assertCanBuyOnAccount(customer, balance, accountCents, { requested: input.override_credit_limit === true, byAdmin: isAdmin });
  }
  return { customerName: typed ?? customer.name, accountCents };
}
