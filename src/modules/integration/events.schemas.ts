import { type Static, type TSchema, Type } from 'typebox';
import { MONEY_DECIMALS, MONEY_MAX, PRECISION, QUANTITY_DECIMALS } from '../../lib/precision.ts';

/**
 * The event catalogue, written once: these JSON Schemas validate inbound events (Ajv), type them
 * (Static), document them (OpenAPI, docs/integraciones-eventos.md) and type outbound payloads.
 * Objects accept unknown fields (forward compatibility, and the outbound shapes carry more fields
 * than inbound processing needs); every field that is present must have the right type.
 */

const INT4_MAX = 2_147_483_647;
/** numeric(14,3) bound (money's is MONEY_MAX). */
const QUANTITY_MAX = 99_999_999_999.999;

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const RecordId = Type.Integer({
  minimum: 1,
  maximum: INT4_MAX,
  description: 'Id of the record (the company’s own number)',
});
export const CompanyIdField = Type.Integer({
  minimum: 1,
  maximum: INT4_MAX,
  description: 'Optional; when present it must be the company of the integration key',
});
export const Money = Type.Number({
  minimum: 0,
  maximum: MONEY_MAX,
  [PRECISION]: MONEY_DECIMALS,
  description: 'Amount in ARS; at most 2 decimals are kept (a value that rounds to 0.00 but is not 0 is refused)',
});
export const Quantity = Type.Number({
  exclusiveMinimum: 0,
  maximum: QUANTITY_MAX,
  [PRECISION]: QUANTITY_DECIMALS,
  description: 'Quantity; up to 3 decimals (weighed goods); it must not round to 0.000',
});
export const SignedQuantity = Type.Number({ minimum: -QUANTITY_MAX, maximum: QUANTITY_MAX, [PRECISION]: QUANTITY_DECIMALS });
export const DateTime = Type.String({
  format: 'date-time',
  description: 'RFC 3339 date-time with offset, from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z; no leap second (:60)',
});
const ShortText = (maxLength: number) => Type.String({ maxLength });

export const SaleItem = Type.Object({
  id: Type.Optional(RecordId),
  product_id: RecordId,
  quantity: Quantity,
  price: Money,
  subtotal: Type.Optional(Money),
});

export const SaleCreated = Type.Object(
  {
    id: RecordId,
    company_id: Type.Optional(CompanyIdField),
    customer_id: Type.Optional(Nullable(RecordId)),
    box_id: Type.Optional(Nullable(RecordId)),
    total: Money,
    status: Type.Optional(Type.Literal('pending')),
    payment_method: Type.Optional(Nullable(ShortText(100))),
    items: Type.Array(SaleItem, { minItems: 1, maxItems: 1000 }),
    created_at: Type.Optional(DateTime),
  },
  { description: 'A new sale; it is recorded as pending' },
);

export const SalePaid = Type.Object(
  {
    id: RecordId,
    company_id: Type.Optional(CompanyIdField),
    total: Type.Optional(Money),
    status: Type.Optional(Type.Literal('paid')),
    paid_at: Type.Optional(DateTime),
    payment_method: Type.Optional(Nullable(ShortText(100))),
    payment_id: Type.Optional(Nullable(ShortText(200))),
  },
  { description: 'A pending sale that was paid' },
);

export const SaleCancelled = Type.Object(
  {
    id: RecordId,
    company_id: Type.Optional(CompanyIdField),
    status: Type.Optional(Type.Literal('cancelled')),
    cancelled_at: Type.Optional(DateTime),
    cancellation_reason: Type.Optional(Nullable(ShortText(500))),
  },
  { description: 'A pending sale that was cancelled' },
);

export const Invoice = Type.Object(
  {
    id: RecordId,
    company_id: Type.Optional(CompanyIdField),
    sale_id: RecordId,
    type: Type.String({ minLength: 1, maxLength: 20, description: 'Receipt type: A, B, C, …' }),
    point_of_sale: Type.Integer({ minimum: 1, maximum: 99_999 }),
    number: Type.Integer({ minimum: 1, maximum: 99_999_999 }),
    cae: Type.String({ pattern: '^[0-9]{14}$', description: 'Electronic authorization code (14 digits)' }),
    cae_expiration: DateTime,
    total: Money,
    issued_at: Type.Optional(DateTime),
  },
  { description: 'A fiscal receipt issued for an existing, not cancelled sale' },
);

export const MOVEMENT_TYPES = ['IN', 'OUT', 'TRANSFER', 'ADJUSTMENT'] as const;

export const Movement = Type.Object(
  {
    id: RecordId,
    company_id: Type.Optional(CompanyIdField),
    type: Type.Enum(MOVEMENT_TYPES),
    deposit_id: RecordId,
    to_deposit_id: Type.Optional(RecordId),
    product_id: RecordId,
    amount: Type.Number({
      minimum: -QUANTITY_MAX,
      maximum: QUANTITY_MAX,
      [PRECISION]: QUANTITY_DECIMALS,
      description: 'Positive for IN, OUT and TRANSFER; a signed difference (not 0) for ADJUSTMENT; up to 3 decimals',
    }),
    reason: Type.Optional(Nullable(ShortText(500))),
    created_at: Type.Optional(DateTime),
  },
  {
    description: 'A stock movement; TRANSFER needs to_deposit_id',
    // JSON Schema conditionals: Ajv reports them with paths and OpenAPI 3.1 documents them.
    allOf: [
      {
        if: { type: 'object', properties: { type: { const: 'TRANSFER' } }, required: ['type'] },
        // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword, not a promise
        then: { type: 'object', properties: { to_deposit_id: RecordId }, required: ['to_deposit_id'] },
      },
      {
        if: { type: 'object', properties: { type: { enum: ['IN', 'OUT', 'TRANSFER'] } }, required: ['type'] },
        // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword, not a promise
        then: { type: 'object', properties: { amount: { type: 'number', exclusiveMinimum: 0 } } },
      },
    ],
  },
);

export const Product = Type.Object(
  {
    id: RecordId,
    company_id: Type.Optional(CompanyIdField),
    sku: Type.Optional(Nullable(ShortText(64))),
    BC: Type.Optional(Nullable(ShortText(64))),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Required when the product is new' })),
    description: Type.Optional(Nullable(ShortText(5000))),
    base_price: Type.Optional(Money),
    stock: Type.Optional(SignedQuantity),
    category_id: Type.Optional(Nullable(RecordId)),
    mark: Type.Optional(Nullable(ShortText(100))),
    enable: Type.Optional(Type.Boolean()),
    photo: Type.Optional(
      Nullable(
        Type.String({
          format: 'uri',
          pattern: '^[hH][tT][tT][pP][sS]?://',
          maxLength: 2048,
          description: 'An absolute http:// or https:// URL',
        }),
      ),
    ),
    updated_at: Type.Optional(DateTime),
  },
  { description: 'A product created or updated; an update older than the stored updated_at is ignored' },
);

export const StockUpdate = Type.Object(
  {
    id: RecordId,
    company_id: Type.Optional(CompanyIdField),
    stock: Type.Optional(SignedQuantity),
    current_stock: Type.Optional(SignedQuantity),
    deposit_id: Type.Optional(RecordId),
    sku: Type.Optional(Nullable(ShortText(64))),
    previous_stock: Type.Optional(SignedQuantity),
    change: Type.Optional(SignedQuantity),
    updated_at: Type.Optional(DateTime),
  },
  {
    description:
      'The new total stock of a product: {id, stock}, or the outbound shape whose current_stock is the new stock. ' +
      'The difference is booked as an ADJUSTMENT at deposit_id (default deposit when absent).',
    anyOf: [
      { type: 'object', required: ['stock'] },
      { type: 'object', required: ['current_stock'] },
    ],
  },
);

/** Inbound data schema of each supported event, by name. */
export const EVENT_DATA = {
  'sales.created': Type.Object({ sale: SaleCreated }),
  'sales.paid': Type.Object({ sale: SalePaid }),
  'sales.cancelled': Type.Object({ sale: SaleCancelled }),
  'invoice.issued': Type.Object({ invoice: Invoice }),
  'movement.created': Type.Object({ movement: Movement }),
  'product.upserted': Type.Object({ product: Product }),
  'product.stock_updated': Type.Object({ product: StockUpdate }),
} as const;

export type EventName = keyof typeof EVENT_DATA;
export type EventData<E extends EventName> = Static<(typeof EVENT_DATA)[E]>;

export const SUPPORTED_EVENTS = Object.keys(EVENT_DATA) as EventName[];
/** Announced in the contract as possible future additions; refused (422) until supported. */
export const FUTURE_EVENTS = ['customer.created', 'customer.updated', 'deposit.created', 'promotion.activated', 'order.shipped'];

export function isSupportedEvent(name: string): name is EventName {
  return Object.hasOwn(EVENT_DATA, name);
}

/** The envelope {event, data} of every supported event, for the OpenAPI document. */
export const EventEnvelope = Type.Union(
  SUPPORTED_EVENTS.map((name) => Type.Object({ event: Type.Literal(name), data: EVENT_DATA[name] }, { title: name })),
  { description: 'One event: {event, data}' },
);

// Outbound payloads share these shapes (same envelope, design §5).
export type SaleCreatedData = Static<typeof SaleCreated>;
export type SalePaidData = Static<typeof SalePaid>;
export type SaleCancelledData = Static<typeof SaleCancelled>;
export type InvoiceData = Static<typeof Invoice>;
export type MovementData = Static<typeof Movement>;
export type ProductData = Static<typeof Product>;
export type StockUpdateData = Static<typeof StockUpdate>;
