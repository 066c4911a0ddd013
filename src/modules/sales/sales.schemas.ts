import { type Static, type TSchema, Type } from 'typebox';
import { MONEY_DECIMALS, MONEY_MAX, PRECISION } from '../../lib/precision.ts';
import { SaleReturn } from './returns.schemas.ts';

/**
 * The sale on the wire, written once. `Sale` is what the merchant API answers (/api/v1/sales…);
 * the outbound `sales.*` event payloads are picked from it (plus company_id), so a field renamed
 * here is renamed everywhere; `test/sales/sale-wire.test.ts` checks them against the contract's
 * inbound shapes (integration/events.schemas.ts). The browser imports the types with
 * `import type { SaleWire } from '…/modules/sales/sales.schemas.ts'`.
 */

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });
const Money = Type.Number({ description: 'Pesos, two decimals' });

export const SaleStatusSchema = Type.Union([Type.Literal('pending'), Type.Literal('paid'), Type.Literal('cancelled')]);

export const PaymentMethodSchema = Type.Union(
  [
    Type.Literal('efectivo'),
    Type.Literal('debito'),
    Type.Literal('credito'),
    Type.Literal('transferencia'),
    Type.Literal('qr'),
    Type.Literal('cuenta_corriente'),
  ],
  { description: 'efectivo, debito, credito, transferencia, qr (Mercado Pago or other), cuenta_corriente' },
);
const MethodOrMixed = Nullable(Type.String({ description: 'The payment method, "mixto" for several; null when unpaid' }));

export const PaymentInputSchema = Type.Object(
  {
    method: PaymentMethodSchema,
    amount: Type.Number({
      exclusiveMinimum: 0,
      maximum: MONEY_MAX,
      [PRECISION]: MONEY_DECIMALS,
      description: 'For efectivo: what the customer handed (change is computed); otherwise the amount charged',
    }),
    reference: Type.Optional(
      Nullable(Type.String({ maxLength: 200, description: 'Card voucher, transfer or QR operation number' })),
    ),
  },
  { additionalProperties: false },
);

export const Payment = Type.Object(
  {
    id: Type.Integer(),
    method: PaymentMethodSchema,
    amount: Type.Number({ description: 'What counts toward the total' }),
    tendered: Nullable(Type.Number({ description: 'Cash handed by the customer (efectivo only)' })),
    change: Type.Number({ description: 'Change given (efectivo only)' }),
    reference: Nullable(Type.String()),
    box_session_id: Nullable(Type.Integer()),
    created_at: DateTime,
  },
  { $id: 'Payment', description: 'One payment of a sale' },
);

export const SaleLine = Type.Object({
  id: Type.Integer(),
  product_id: Type.Integer(),
  name: Type.String(),
  unit: Type.Union([Type.Literal('unit'), Type.Literal('kg')]),
  quantity: Type.Number(),
  price: Money,
  subtotal: Money,
  discount: Type.Number({ description: "The line's own discount, pesos (0: none)" }),
  sale_discount: Type.Number({ description: "The line's share of the sale's discount, pesos" }),
  discount_reason: Nullable(Type.String()),
  returned_quantity: Type.Optional(Type.Number({ description: 'What its returns gave back so far (0: none)' })),
});

export const Sale = Type.Object(
  {
    id: Type.Integer(),
    source: Type.Union([Type.Literal('register'), Type.Literal('integration')], {
      description: 'register: sold at a box (stock moved); integration: received from another system',
    }),
    status: SaleStatusSchema,
    box_id: Nullable(Type.Integer()),
    box_name: Nullable(Type.String()),
    box_session_id: Nullable(Type.Integer()),
    deposit_id: Nullable(Type.Integer({ description: 'The deposit the stock left (register sales)' })),
    customer_id: Nullable(Type.Integer()),
    customer_name: Nullable(Type.String()),
    total: Money,
    discount: Type.Number({
      description: "Every discount of the sale (its lines' and its own), pesos: total + discount = Σ price × quantity",
    }),
    sale_discount: Type.Number({ description: "The sale's own discount, spread over its lines' subtotals" }),
    discount_reason: Nullable(Type.String({ description: "Why the sale's own discount" })),
    discount_approved_by: Nullable(
      Type.String({ description: "The admin who approved discounts beyond the company's limit (email)" }),
    ),
    paid_total: Money,
    change: Money,
    payment_method: MethodOrMixed,
    items: Type.Array(SaleLine),
    payments: Type.Array(Payment),
    sold_by: Nullable(Type.String()),
    refund_session_id: Nullable(Type.Integer({ description: 'The session the refund of a paid sale was booked in' })),
    created_at: DateTime,
    paid_at: Nullable(DateTime),
    cancelled_at: Nullable(DateTime),
    cancellation_reason: Nullable(Type.String()),
    returned_total: Type.Optional(Money),
    returns: Type.Optional(Type.Array(SaleReturn, { description: 'Its returns, oldest first (docs/api-ventas.md)' })),
  },
  { $id: 'Sale', description: 'A sale with its lines and payments' },
);

const CompanyId = Type.Integer();

/** The sale in sales.created: the sale's own fields, its lines without the product's name and unit. */
export const SaleCreatedOut = Type.Object({
  ...Type.Pick(Sale, ['id', 'customer_id', 'box_id', 'total', 'status', 'payment_method', 'created_at']).properties,
  company_id: CompanyId,
  items: Type.Array(Type.Pick(SaleLine, ['id', 'product_id', 'quantity', 'price', 'subtotal'])),
});

/** The sale in sales.paid (payment_id: the external payment's reference, when one was given). */
export const SalePaidOut = Type.Object({
  ...Type.Pick(Sale, ['id', 'total', 'paid_at', 'payment_method']).properties,
  company_id: CompanyId,
  status: Type.Literal('paid'),
  payment_id: Nullable(Type.String()),
});

/** The sale in sales.cancelled. */
export const SaleCancelledOut = Type.Object({
  ...Type.Pick(Sale, ['id', 'cancelled_at', 'cancellation_reason']).properties,
  company_id: CompanyId,
  status: Type.Literal('cancelled'),
});

export type SaleWire = Static<typeof Sale>;
export type SaleLineWire = Static<typeof SaleLine>;
export type PaymentWire = Static<typeof Payment>;
export type PaymentInput = Static<typeof PaymentInputSchema>;
export type SaleCreatedOutData = Static<typeof SaleCreatedOut>;
export type SalePaidOutData = Static<typeof SalePaidOut>;
export type SaleCancelledOutData = Static<typeof SaleCancelledOut>;

/** The outbound events of a sale, as the outbox stores them ({event, data: {sale}}). */
export type SaleEvent =
  | { event: 'sales.created'; data: { sale: SaleCreatedOutData } }
  | { event: 'sales.paid'; data: { sale: SalePaidOutData } }
  | { event: 'sales.cancelled'; data: { sale: SaleCancelledOutData } };
