import { PAYMENT_METHOD_LABELS, paymentMethodLabel } from '../../../lib/sale-labels.ts';

/** Payment methods as the API names them, with the label a cashier reads (one table: lib/sale-labels.ts). */
export const METHODS: { id: string; label: string }[] = Object.entries(PAYMENT_METHOD_LABELS)
  .filter(([id]) => id !== 'mixto')
  .map(([id, label]) => ({ id, label }));

/** What the cashier can charge with; "Cuenta corriente" asks for the customer (customer-picker.tsx). */
export const PAY_METHODS = METHODS;

/** Money a customer hands over (a payment on account cannot itself be on account). */
export const MONEY_METHODS = METHODS.filter((m) => m.id !== 'cuenta_corriente');

/** Every method's label, "Mixto" (a sale paid with several) included, which no one picks. */
export const methodLabel = paymentMethodLabel;

/**
 * Whether a sale can be returned or exchanged from the screens: a paid register sale with no part on
 * the customer's account (that one is cancelled instead, so its account part leaves the balance).
 */
export function returnable(sale: { status: string; source: string; payments: { method: string }[] }): boolean {
  return sale.status === 'paid' && sale.source === 'register' && !onAccount(sale);
}

/**
 * A register sale with a part on the customer's account that is not cancelled: the screens say it is
 * cancelled rather than returned. Paid or still owed (a sale all on account stays pending until the
 * customer pays it), the same holds.
 */
export function cancelledNotReturned(sale: { status: string; source: string; payments: { method: string }[] }): boolean {
  return sale.status !== 'cancelled' && sale.source === 'register' && onAccount(sale);
}

/** A sale with a part on the customer's account. */
export function onAccount(sale: { payments: { method: string }[] }): boolean {
  return sale.payments.some((p) => p.method === 'cuenta_corriente');
}
