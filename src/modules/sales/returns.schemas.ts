import { type Static, Type } from 'typebox';
import { PRECISION, QUANTITY_DECIMALS } from '../../lib/precision.ts';

// A sale's return on the wire (POST/GET /api/v1/sales/:id/returns, Sale.returns, and beside the
// sale in the sales.paid / sales.cancelled events a return causes).

const Nullable = <T extends import('typebox').TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Money = Type.Number({ description: 'Pesos, two decimals' });

export const RefundMethodSchema = Type.Union(
  [Type.Literal('efectivo'), Type.Literal('debito'), Type.Literal('credito'), Type.Literal('transferencia'), Type.Literal('qr')],
  { description: 'How the money goes back: efectivo, debito, credito, transferencia, qr' },
);

export const ReturnLineInput = Type.Object(
  {
    item_id: Type.Integer({ minimum: 1, description: 'The sale line (items[].id)' }),
    quantity: Type.Number({
      exclusiveMinimum: 0,
      maximum: 1_000_000,
      [PRECISION]: QUANTITY_DECIMALS,
      description: 'Units, or kg for products sold by weight',
    }),
  },
  { additionalProperties: false },
);

/** An admin's email and password approving, on the spot, money a cashier gives back (never stored). */
export const ApprovalSchema = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254 }),
    password: Type.String({ minLength: 1, maxLength: 200 }),
  },
  {
    additionalProperties: false,
    description:
      "An admin's email and password: a cashier's refund of money needs it (403 refund_needs_approval without it, approval_refused when wrong); never stored, not part of the idempotency fingerprint",
  },
);

export const ReturnBody = Type.Object(
  {
    lines: Type.Array(ReturnLineInput, { minItems: 1, maxItems: 500 }),
    refund: Type.Union(
      [Type.Object({ method: RefundMethodSchema }, { additionalProperties: false }), Type.Literal('store_credit')],
      {
        description:
          '{method}: money back in an open shift; "store_credit": credit on the customer\'s account (the sale needs a customer)',
      },
    ),
    reason: Type.String({ minLength: 1, maxLength: 500 }),
    approval: Type.Optional(ApprovalSchema),
    box_session_id: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          "The open shift the money leaves; by default the latest one the person opened, else the sale's box's open shift",
      }),
    ),
  },
  { additionalProperties: false },
);

export const ReturnLine = Type.Object({
  item_id: Type.Integer(),
  product_id: Type.Integer(),
  quantity: Type.Number(),
  amount: Money,
});

export const SaleReturn = Type.Object(
  {
    id: Type.Integer({ description: 'Numbered per sale: 1, 2, …' }),
    sale_id: Type.Integer(),
    amount: Type.Number({ description: 'What was given back (pesos): the returned lines at the price they were sold' }),
    refund: Type.Union([
      Type.Object({ store_credit: Type.Literal(false), method: Type.String(), box_session_id: Type.Integer() }),
      Type.Object({ store_credit: Type.Literal(true), customer_id: Type.Integer(), payment_id: Nullable(Type.Integer()) }),
    ]),
    reason: Type.String(),
    exchange_sale_id: Nullable(Type.Integer({ description: 'An exchange: the sale sold in the same operation' })),
    created_by: Type.String(),
    created_at: Type.String({ format: 'date-time' }),
    lines: Type.Array(ReturnLine),
    credit_note: Nullable(
      Type.Object(
        {
          status: Type.Union([Type.Literal('issued'), Type.Literal('pending'), Type.Literal('rejected')]),
          invoice_id: Nullable(Type.Integer()),
          number: Nullable(Type.String({ description: 'e.g. "NC B 0001-00000003"' })),
        },
        { description: 'null: the sale has no invoice issued here' },
      ),
    ),
  },
  { description: 'A return of some lines of a sale' },
);

export type ReturnInput = Static<typeof ReturnBody>;
export type ReturnWire = Static<typeof SaleReturn>;
