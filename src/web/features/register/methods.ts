/** Payment methods as the API names them, with the label a cashier reads. */
export const METHODS: { id: string; label: string }[] = [
  { id: 'efectivo', label: 'Efectivo' },
  { id: 'debito', label: 'Débito' },
  { id: 'credito', label: 'Crédito' },
  { id: 'transferencia', label: 'Transferencia' },
  { id: 'qr', label: 'QR' },
  { id: 'cuenta_corriente', label: 'Cuenta corriente' },
];

/**
 * What the cashier can charge with. "Cuenta corriente" needs a customer, and the register cannot
 * choose one yet (the customers issue brings it): offering it only led to a 422 on every such sale.
 */
export const PAY_METHODS = METHODS.filter((m) => m.id !== 'cuenta_corriente');

export const methodLabel = (id: string) => METHODS.find((m) => m.id === id)?.label ?? id;
