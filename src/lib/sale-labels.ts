/**
 * What a shop owner reads for a sale's status, origin and payment method (the API keeps its
 * English/short ids). Shared by the server (the sales CSV) and the screens.
 */

export const PAYMENT_METHOD_LABELS: Record<string, string> = {
  efectivo: 'Efectivo',
  debito: 'Débito',
  credito: 'Crédito',
  transferencia: 'Transferencia',
  qr: 'QR',
  cuenta_corriente: 'Cuenta corriente',
  mixto: 'Mixto',
};

export const SALE_STATUS_LABELS: Record<string, string> = { pending: 'Pendiente', paid: 'Pagada', cancelled: 'Anulada' };

export const SALE_SOURCE_LABELS: Record<string, string> = { register: 'Caja', integration: 'Integración' };

/** A method's label; a method a sender named freely (integration sales: "Mercado Pago") as sent. */
export const paymentMethodLabel = (method: string): string => PAYMENT_METHOD_LABELS[method] ?? method;
