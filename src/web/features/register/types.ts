import type { OfflineInvoice } from './store.ts';
import type { ScaleLabelLayout } from '../../../modules/register/scale.ts';
import type { Product } from './catalog.ts';
import type { SaleWire } from './sync.ts';

/** What the /caja page gives the register when it loads. */
export interface RegisterState {
  company: { name: string; cuit: string | null };
  boxes: {
    id: number;
    name: string;
    deposit_id: number | null;
    /** The open shift; OFFLINE_SHIFT: one opened here without connection, not yet sent. */
    open_session_id: number | null;
    /** Whose shift it is (null: nobody's in particular, e.g. opened by an API token). */
    open_session_user_id?: number | null;
    open_session_user_name?: string | null;
  }[];
  scale_label: ScaleLabelLayout | null;
  can_change_prices: boolean;
  /** The signed-in person. */
  user_id?: number | null;
  /** Discounts a cashier gives without an admin (percent); admins give any. */
  discount_limit_percent: number;
  can_discount_freely: boolean;
}

/** A discount as the cashier typed it: a percentage (hundredths of a percent) or an amount (cents). */
export interface Discount {
  kind: 'percent' | 'amount';
  /** Hundredths of a percent (1000 = 10 %) or cents. */
  value: number;
  reason: string;
}

/** The open_session_id of a shift opened without connection (its server id comes when it is sent). */
export const OFFLINE_SHIFT = -1;

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
  /** The line's own discount (the subtotal above is before it). */
  discount?: Discount | null;
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
  /** The sale's own discount. */
  saleDiscount?: Discount | null;
  /** The customer the sale was made to (a sale on account always has one). */
  customerName?: string | null;
  payments: Payment[];
  totalCents: number;
  changeCents: number;
  /** The server's sale; null while it waits to be sent (no connection). */
  sale: SaleWire | null;
  /** The Factura printed offline under the CAEA (caea-offline.ts), if the box held numbers. */
  offlineInvoice?: OfflineInvoice | null;
  /** Sold offline from the RG 5700 threshold: no Factura printed; invoiced online with the buyer's document. */
  invoiceNeedsBuyer?: boolean;
}
