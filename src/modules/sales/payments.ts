import { AppError } from '../../lib/errors.ts';
import { fromCents, toCents } from '../../lib/money.ts';
import type { PaymentMethod } from '../../db/schema/index.ts';
import type { PaymentInput } from './sales.schemas.ts';
import type { PaymentValues } from './sales.repo.ts';

// A sale's payments: checked against what is left to pay, with cash tendered and change.

export type { PaymentInput };

/** Payments checked against what is left to pay: amounts applied, cash tendered and change. */
export function settlePayments(
  remainingCents: number,
  payments: PaymentInput[],
  hasCustomer: boolean,
): { rows: PaymentValues[]; appliedCents: number; changeCents: number } {
  let nonCash = 0;
  let cash = 0;
  payments.forEach((p, n) => {
    const cents = toCents(p.amount);
    if (cents <= 0) {
      throw new AppError('validation_failed', `payments.${n}.amount must be above zero (got ${p.amount})`, {
        details: [{ path: `/payments/${n}/amount`, message: 'must be above zero' }],
      });
    }
    if (p.method === 'cuenta_corriente' && !hasCustomer) {
      throw new AppError('validation_failed', 'a cuenta_corriente payment needs the customer (customer.id)', {
        details: [{ path: `/payments/${n}/method`, message: 'cuenta_corriente needs customer.id' }],
      });
    }
    if (p.method === 'efectivo') cash += cents;
    else nonCash += cents;
  });
  if (nonCash > remainingCents) {
    throw new AppError(
      'validation_failed',
      `payments other than cash (${fromCents(nonCash)}) exceed what is to be paid (${fromCents(remainingCents)}); only cash gives change`,
      { details: [{ path: '/payments', message: 'non-cash payments exceed the total' }] },
    );
  }
  let changeCents = Math.max(0, nonCash + cash - remainingCents);
  const totalChange = changeCents;
  // Change comes out of the cash handed, the last cash payment first.
  const rows: PaymentValues[] = payments.map((p) => ({
    method: p.method,
    amount: fromCents(toCents(p.amount)),
    tendered: p.method === 'efectivo' ? fromCents(toCents(p.amount)) : null,
    change: '0.00',
    reference: p.reference ?? null,
  }));
  for (let n = rows.length - 1; n >= 0 && changeCents > 0; n--) {
    const row = rows[n]!;
    if (row.method !== 'efectivo') continue;
    const tendered = toCents(row.tendered!);
    const given = Math.min(tendered, changeCents);
    row.amount = fromCents(tendered - given);
    row.change = fromCents(given);
    changeCents -= given;
  }
  if (rows.some((r) => toCents(r.amount) === 0)) {
    throw new AppError('validation_failed', 'a cash payment is not needed: the other payments already cover the total', {
      details: [{ path: '/payments', message: 'a cash payment covers nothing' }],
    });
  }
  const applied = rows.reduce((sum, r) => sum + toCents(r.amount), 0);
  return { rows, appliedCents: applied, changeCents: totalChange };
}

/** The sale's payment method: the one used, "mixto" for several, null for none. */
export function methodOf(payments: { method: string }[]): string | null {
  const methods = [...new Set(payments.map((p) => p.method))];
  if (methods.length === 0) return null;
  return methods.length === 1 ? methods[0]! : 'mixto';
}

const SENDER_METHODS: [RegExp, PaymentMethod][] = [
  [/^(efectivo|cash|contado)$/, 'efectivo'],
  [/^(debito|tarjeta de debito|debit|debit card)$/, 'debito'],
  [/^(credito|tarjeta de credito|tarjeta|credit|credit card|card)$/, 'credito'],
  [/^(qr|mercado ?pago|mp|modo|billetera|wallet)$/, 'qr'],
  [/^(transferencia|transfer|bank transfer|cbu|cvu)$/, 'transferencia'],
  [/^(cuenta[ _]corriente|on account)$/, 'cuenta_corriente'],
];

/**
 * The method a payment reported by an integration sender (free text, e.g. "Mercado Pago") counts
 * under. Anything not recognised is an electronic payment received outside the box: transferencia
 * (docs/decisiones.md); the sender's own words stay on the sale (sales.payment_method).
 */
export function methodFromSender(text: string | null | undefined): PaymentMethod {
  const key = (text ?? '')
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .trim()
    .toLowerCase()
    .replace(/[-_]+/g, ' ')
    .replace(/\s+/g, ' ');
  for (const [pattern, method] of SENDER_METHODS) if (pattern.test(key)) return method;
  return 'transferencia';
}
