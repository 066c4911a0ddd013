import { moneyToNumber, quantityToNumber } from '../../lib/money.ts';
import type { SaleCancelledOutData, SaleCreatedOutData, SalePaidOutData } from './sales.schemas.ts';
import type { SaleItemRow, SaleRow } from './sales.repo.ts';

// A sale's rows turned into the payloads of its outbound events (sales.schemas.ts *Out).

/** The sale in sales.created (sales.schemas.ts SaleCreatedOut). */
export function saleToWire(sale: SaleRow, items: SaleItemRow[]): SaleCreatedOutData {
  return {
    id: sale.id,
    company_id: sale.companyId,
    customer_id: sale.customerId,
    box_id: sale.boxId,
    total: moneyToNumber(sale.total),
    status: sale.status,
    payment_method: sale.paymentMethod,
    items: items.map((item) => ({
      id: item.id,
      product_id: item.productId,
      quantity: quantityToNumber(item.quantity),
      price: moneyToNumber(item.price),
      subtotal: moneyToNumber(item.subtotal),
    })),
    created_at: sale.createdAt.toISOString(),
  };
}

/** The sale in sales.paid (sales.schemas.ts SalePaidOut). */
export function salePaidWire(sale: SaleRow): SalePaidOutData {
  return {
    id: sale.id,
    company_id: sale.companyId,
    total: moneyToNumber(sale.total),
    status: 'paid',
    paid_at: (sale.paidAt ?? sale.updatedAt).toISOString(),
    payment_method: sale.paymentMethod,
    payment_id: sale.paymentId,
  };
}

/** The sale in sales.cancelled (sales.schemas.ts SaleCancelledOut). */
export function saleCancelledWire(sale: SaleRow): SaleCancelledOutData {
  return {
    id: sale.id,
    company_id: sale.companyId,
    status: 'cancelled',
    cancelled_at: (sale.cancelledAt ?? sale.updatedAt).toISOString(),
    cancellation_reason: sale.cancellationReason,
  };
}
