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
