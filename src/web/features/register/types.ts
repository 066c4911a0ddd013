import type { OfflineInvoice } from './store.ts';
import type { ScaleLabelLayout } from '../../../modules/register/scale.ts';
import type { Product } from './catalog.ts';
import type { SaleWire } from './sync.ts';

/** What the /caja page gives the register when it loads. */
export interface RegisterState {
  company: { name: string; cuit: string | null };
  boxes: { id: number; name: string; deposit_id: number | null; open_session_id: number | null }[];
  scale_label: ScaleLabelLayout | null;
  can_change_prices: boolean;
}

export interface RegisterUser {
  email: string;
  name: string | null;
  role: 'admin' | 'cashier' | null;
}

/** One line of the sale being loaded. */
export interface Line {
  uid: number;
  product: Product;
  qtyMilli: number;
  priceCents: number;
  subtotalCents: number;
  /** The scale label the line came from (the server reads product and quantity from it). */
  scaleLabel: string | null;
  /** A price label: the subtotal is the printed price. */
  priceLabel: boolean;
}

export interface Payment {
  method: string;
  cents: number;
  reference: string;
}

export interface TicketData {
  /** The sale's idempotency key (a queued sale is found by it when it is sent). */
  key: string;
  soldAt: string;
  boxName: string;
  lines: Line[];
  payments: Payment[];
  totalCents: number;
  changeCents: number;
  /** The server's sale; null while it waits to be sent (no connection). */
  sale: SaleWire | null;
  /** The Factura printed offline under the CAEA (caea-offline.ts), if the box held numbers. */
  offlineInvoice?: OfflineInvoice | null;
}
