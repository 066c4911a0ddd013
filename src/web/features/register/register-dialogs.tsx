import { formatArs } from '../../../lib/money.ts';
import { ApprovalDialog } from './approval-dialog.tsx';
import { DiscountDialog } from './discount-dialog.tsx';
import { needsApproval, pricedSale, type SaleState } from './sale-state.ts';
import type { Discount } from './types.ts';

/** The discount of a line (its index) or of the whole sale (null), with the cashier's limit. */
export function SaleDiscountDialog({
  sale,
  index,
  limitPercent,
  free,
  onSave,
  onCancel,
}: {
  sale: SaleState;
  index: number | null;
  limitPercent: number;
  /** An admin: no limit applies. */
  free: boolean;
  onSave: (discount: Discount | null) => void;
  onCancel: () => void;
}) {
  const line = index === null ? null : sale.lines[index];
  const beyondLimit = (d: Discount) =>
    index === null
      ? needsApproval(sale.lines, d, limitPercent)
      : needsApproval(
          sale.lines.map((l, n) => (n === index ? { ...l, discount: d } : l)),
          sale.saleDiscount,
          limitPercent,
        );
  return (
    <DiscountDialog
      title={index === null ? 'Descuento a la venta' : `Descuento a ${line?.product.name ?? 'la línea'}`}
      baseCents={index === null ? pricedSale(sale.lines, null).totalCents : (line?.subtotalCents ?? 0)}
      initial={index === null ? sale.saleDiscount : (line?.discount ?? null)}
      limitPercent={free ? null : limitPercent}
      beyondLimit={beyondLimit}
      onCancel={onCancel}
      onSave={onSave}
    />
  );
}

/** An admin approves, on the spot, the sale's discounts beyond the cashier's limit. */
export function DiscountApproval({
  sale,
  limitPercent,
  error,
  busy,
  onApprove,
  onCancel,
}: {
  sale: SaleState;
  limitPercent: number;
  error: string | null;
  busy: boolean;
  onApprove: (email: string, password: string) => void;
  onCancel: () => void;
}) {
  const off = formatArs(pricedSale(sale.lines, sale.saleDiscount).discountCents);
  const limit = String(limitPercent).replace('.', ',');
  return (
    <ApprovalDialog
      summary={`Los descuentos de esta venta (${off}) superan el límite de ${limit}\u00a0% para cajeros.`}
      error={error}
      busy={busy}
      onCancel={onCancel}
      onApprove={onApprove}
    />
  );
}
