import type { PickedCustomer } from './customer-picker.tsx';
import { discountInput, pricedSale, type SaleState, saleTotal } from './sale-state.ts';
import type { Payment, TicketData } from './types.ts';

/**
 * What the register sends for the sale on screen (POST /api/v1/sales) and the ticket it prints
 * before the server answers: the lines (scale labels as read, discounts only where they take
 * something off), the payments, the customer and when it was sold.
 */
export function checkout(
  sale: SaleState,
  {
    key,
    box,
    payments,
    customer,
    catalogAt,
  }: {
    key: string;
    box: { id: number; name: string };
    payments: Payment[];
    customer: PickedCustomer | null;
    catalogAt: string | null;
  },
): { body: Record<string, unknown>; draft: TicketData } {
  const { lines } = sale;
  const priced = pricedSale(lines, sale.saleDiscount);
  const total = saleTotal(sale);
  const soldAt = new Date().toISOString();
  const body: Record<string, unknown> = {
    box_id: box.id,
    items: lines.map((l, n) => {
      const discount = l.discount && priced.lines[n]!.discountCents > 0 ? { discount: discountInput(l.discount) } : {};
      return l.scaleLabel
        ? { scale_label: l.scaleLabel, ...(l.priceLabel ? {} : { price: l.priceCents / 100 }), ...discount }
        : { product_id: l.product.id, quantity: l.qtyMilli / 1000, price: l.priceCents / 100, ...discount };
    }),
    ...(sale.saleDiscount && priced.saleDiscountCents > 0 ? { discount: discountInput(sale.saleDiscount) } : {}),
    payments: payments.map((p) => ({
      method: p.method,
      amount: p.cents / 100,
      ...(p.reference ? { reference: p.reference } : {}),
    })),
    ...(customer ? { customer: { id: customer.id, name: customer.name } } : {}),
    sold_at: soldAt,
    ...(catalogAt ? { catalog_at: catalogAt } : {}),
  };
  const paidCents = payments.reduce((s, p) => s + p.cents, 0);
  const draft: TicketData = {
    key,
    soldAt,
    boxName: box.name,
    lines,
    saleDiscount: priced.saleDiscountCents > 0 ? sale.saleDiscount : null,
    customerName: customer?.name ?? null,
    payments,
    totalCents: total,
    changeCents: Math.max(0, paidCents - total),
    sale: null,
  };
  return { body, draft };
}
