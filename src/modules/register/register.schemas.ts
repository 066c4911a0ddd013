import { Type } from 'typebox';
import { MONEY_DECIMALS, MONEY_MAX, PRECISION, QUANTITY_DECIMALS } from '../../lib/precision.ts';
import { PaymentInputSchema, PaymentMethodSchema, Sale } from '../sales/sales.schemas.ts';
import { ApprovalSchema } from '../sales/returns.schemas.ts';

// The register's wire schemas (merchant API, /api/v1). Named ones ($id) become OpenAPI components.

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });
const Money = Type.Number({ description: 'Pesos, two decimals' });

// The sale, its lines and payments on the wire are the sales module's (one schema for the sale).
export { Payment, PaymentInputSchema, PaymentMethodSchema, Sale, SaleLine } from '../sales/sales.schemas.ts';

const DiscountBody = (what: string) =>
  Type.Object(
    {
      percent: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 100, description: 'Percent, up to 2 decimals' })),
      amount: Type.Optional(
        Type.Number({ exclusiveMinimum: 0, maximum: MONEY_MAX, [PRECISION]: MONEY_DECIMALS, description: 'Pesos' }),
      ),
      reason: Type.String({ minLength: 1, maxLength: 200 }),
    },
    {
      additionalProperties: false,
      description: `${what}: percent or amount (one of them) and a reason. Beyond the company's limit (discount_limit_percent, default 10) a cashier needs discount_approval`,
    },
  );

export const SaleCreateBody = Type.Object(
  {
    box_id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
    items: Type.Array(
      Type.Object(
        {
          product_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })),
          quantity: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 99_999_999, [PRECISION]: QUANTITY_DECIMALS })),
          price: Type.Optional(
            Type.Number({
              minimum: 0,
              maximum: MONEY_MAX,
              [PRECISION]: MONEY_DECIMALS,
              description: "Another price than the product's needs an admin",
            }),
          ),
          scale_label: Type.Optional(
            Type.String({ pattern: '^2\\d{12}$', description: 'An EAN-13 scale label (20–29): product and weight or price' }),
          ),
          discount: Type.Optional(DiscountBody("The line's discount, on its price × quantity")),
        },
        { additionalProperties: false },
      ),
      { maxItems: 500 },
    ),
    payments: Type.Optional(Type.Array(PaymentInputSchema, { maxItems: 20 })),
    customer: Type.Optional(
      Type.Object(
        {
          id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })),
          name: Type.Optional(Type.String({ maxLength: 200 })),
        },
        { additionalProperties: false },
      ),
    ),
    discount: Type.Optional(DiscountBody("The sale's discount, on what its lines cost after theirs; spread over the lines")),
    discount_approval: Type.Optional(
      Type.Object(
        { email: Type.String({ minLength: 3, maxLength: 320 }), password: Type.String({ minLength: 1, maxLength: 200 }) },
        {
          additionalProperties: false,
          description:
            'An admin of the company approves discounts beyond the limit on the spot with their email and password (checked like a login, rate-limited, audited; never stored and not part of the idempotency fingerprint)',
        },
      ),
    ),
    override_credit_limit: Type.Optional(
      Type.Boolean({ description: "An admin sells on account over the customer's credit limit (audited)" }),
    ),
    sold_at: Type.Optional(Type.String({ format: 'date-time', description: 'When the register made the sale (queued offline)' })),
    catalog_at: Type.Optional(
      Type.String({ format: 'date-time', description: 'Time of the catalogue the register priced with' }),
    ),
  },
  { additionalProperties: false },
);

export const SaleResponse = Type.Object({ sale: Sale });

export const PayBody = Type.Object(
  { payments: Type.Array(PaymentInputSchema, { minItems: 1, maxItems: 20 }) },
  { additionalProperties: false },
);
export const CancelBody = Type.Object(
  { reason: Type.String({ minLength: 1, maxLength: 500 }), approval: Type.Optional(ApprovalSchema) },
  { additionalProperties: false },
);

export const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });

export const SaleListQuery = Type.Object({
  from: Type.Optional(
    Type.String({ description: 'yyyy-mm-dd (company time zone) or date-time with offset, inclusive; years 0001 to 9999' }),
  ),
  to: Type.Optional(
    Type.String({ description: 'yyyy-mm-dd (inclusive day) or date-time with offset (exclusive); years 0001 to 9999' }),
  ),
  box_id: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 2_147_483_647,
      description: "Sales made at this box (register sales; an integration's sale naming it is not one)",
    }),
  ),
  source: Type.Optional(
    Type.Union([Type.Literal('register'), Type.Literal('integration')], {
      description: 'register: made at a box; integration: received through POST /api/integration/in',
    }),
  ),
  box_session_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })),
  customer_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: "The customer's sales" })),
  status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('paid'), Type.Literal('cancelled')])),
  method: Type.Optional(PaymentMethodSchema),
  cursor: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,9}$', description: 'next_cursor of the previous page' })),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
});

export const SaleList = Type.Object(
  { sales: Type.Array(Sale), next_cursor: Nullable(Type.String()) },
  { $id: 'SaleList', description: 'A page of sales, newest first' },
);

export const SummaryQuery = Type.Object({ date: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'yyyy-mm-dd' }) });

export const SalesSummary = Type.Object(
  {
    date: Type.String(),
    count: Type.Integer({ description: 'Sales not cancelled' }),
    total: Money,
    pending: Money,
    cancelled: Type.Integer(),
    by_method: Type.Array(Type.Object({ method: Type.String(), amount: Money, count: Type.Integer() })),
    by_box: Type.Array(
      Type.Object({
        box_id: Nullable(Type.Integer({ description: 'null: the sales received through the integration endpoint' })),
        box_name: Nullable(Type.String()),
        origin: Type.Union([Type.Literal('register'), Type.Literal('integration')]),
        count: Type.Integer(),
        total: Money,
      }),
      { description: "Per box only the sales made at it; the integration's sales are one group of their own" },
    ),
    account_payments: Type.Array(Type.Object({ method: Type.String(), amount: Money, count: Type.Integer() }), {
      description: "Payments on account (cuenta corriente) received that day, by method: money taken, not the day's sales",
    }),
  },
  {
    $id: 'SalesSummary',
    description:
      "A day's sales (company time zone). total = Σ by_method + pending (what pending sales still owe; a sale's account part counts under cuenta_corriente) = Σ by_box",
  },
);

export const BoxSession = Type.Object(
  {
    id: Type.Integer(),
    box_id: Type.Integer(),
    box_name: Type.String(),
    status: Type.Union([Type.Literal('open'), Type.Literal('closed')]),
    opening_cash: Money,
    opened_at: DateTime,
    opened_by: Type.String(),
    closed_at: Nullable(DateTime),
    closed_by: Nullable(Type.String()),
    note: Nullable(Type.String()),
    user_id: Nullable(
      Type.Integer({
        description:
          "The person whose shift it is, by the company's own number for them (the user_id of its people list; null: opened by an API token or before shifts had a person)",
      }),
    ),
    user_name: Nullable(Type.String({ description: "That person's name (or email)" })),
    handed_over_to: Nullable(Type.Integer({ description: 'The shift that took over from this one at its close (a handover)' })),
    client_id: Nullable(
      Type.String({ format: 'uuid', description: "The register's own id of a shift opened without connection" }),
    ),
  },
  {
    $id: 'BoxSession',
    description:
      "A box session (turno de caja): one person's shift at a box. A box has at most one open shift; a person sells and moves cash only in their own",
  },
);

const MethodAmounts = Type.Record(Type.String(), Type.Number(), { description: 'Amount per payment method' });

export const BoxSessionReport = Type.Object(
  {
    session: BoxSession,
    sales: Type.Object({ count: Type.Integer(), total: Money }),
    payments: Type.Array(Type.Object({ method: PaymentMethodSchema, amount: Money, count: Type.Integer() })),
    refunds: Type.Array(Type.Object({ method: PaymentMethodSchema, amount: Money, count: Type.Integer() })),
    cash_in: Money,
    cash_out: Money,
    cash_moves: Type.Array(
      Type.Object({
        id: Type.Integer(),
        kind: Type.Union([Type.Literal('in'), Type.Literal('out')]),
        amount: Money,
        reason: Type.String(),
        created_by: Type.String(),
        created_at: DateTime,
      }),
    ),
    expected: MethodAmounts,
    counted: Nullable(MethodAmounts),
    difference: Nullable(MethodAmounts),
    later_refunds: Type.Array(
      Type.Object({
        sale_id: Type.Integer(),
        kind: Type.Union([Type.Literal('cancelled'), Type.Literal('returned')], {
          description:
            'cancelled: the sale was cancelled whole; returned: one return of some of its lines (the sale may still be paid)',
        }),
        total: Money,
        refunded: Money,
        cancelled_at: DateTime,
        refund_session_id: Nullable(Type.Integer({ description: 'The open session the money went back from' })),
      }),
      {
        description:
          'Sales of this shift cancelled after its close, and returns of its sales made after it, one row each ("devoluciones posteriores"; refunded: what was given back, refund_session_id: from which shift, null for store credit); the figures above stay as closed',
      },
    ),
  },
  {
    $id: 'BoxSessionReport',
    description:
      'The close report: expected (opening + cash sales − cash refunds ± cash in/out; other methods: taken − refunded), counted, difference. Fixed at the close: a closed shift is served as it closed',
  },
);

const ClientId = Type.String({
  format: 'uuid',
  description: "The register's own id for the operation (made without connection): the same id again answers the same result",
});
const ClientAt = Type.String({
  format: 'date-time',
  description: 'When the register did it (queued offline); a time ahead of the server is taken as now',
});

export const OpenSessionBody = Type.Object(
  {
    box_id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
    opening_cash: Type.Number({
      minimum: 0,
      maximum: MONEY_MAX,
      [PRECISION]: MONEY_DECIMALS,
      description: "The opener's own count",
    }),
    client_id: Type.Optional(ClientId),
    opened_at: Type.Optional(ClientAt),
  },
  { additionalProperties: false },
);

/** A count per method: cash is 0 or more; another method may be negative (its refunds passed its takings). */
const CountedAmount = Type.Number({
  minimum: -MONEY_MAX,
  maximum: MONEY_MAX,
  [PRECISION]: MONEY_DECIMALS,
  description: 'Pesos; efectivo is 0 or more, another method may be negative when the shift refunded more than it took',
});
const Counted = Type.Record(Type.String(), CountedAmount);

export const CloseSessionBody = Type.Object(
  {
    counted: Counted,
    note: Type.Optional(Type.String({ maxLength: 500 })),
    client_id: Type.Optional(ClientId),
    closed_at: Type.Optional(ClientAt),
  },
  { additionalProperties: false },
);

export const ClientIdParams = Type.Object({ client_id: Type.String({ format: 'uuid' }) });

export const HandoverBody = Type.Object(
  {
    counted: Type.Record(Type.String(), CountedAmount, { description: 'What the outgoing shift counted, per method' }),
    note: Type.Optional(Type.String({ maxLength: 500 })),
    opening_cash: Type.Number({
      minimum: 0,
      maximum: MONEY_MAX,
      [PRECISION]: MONEY_DECIMALS,
      description: "The incoming person's own count",
    }),
    client_id: Type.Optional(ClientId),
  },
  { additionalProperties: false },
);

export const HandoverResponse = Type.Object(
  {
    closed: BoxSessionReport,
    session: Type.Object(BoxSession.properties, { description: "The incoming person's shift (a BoxSession)" }),
  },
  { description: "The outgoing shift's close report and the incoming person's new shift" },
);

export const CashMoveBody = Type.Object(
  {
    kind: Type.Union([Type.Literal('in'), Type.Literal('out')]),
    amount: Type.Number({ exclusiveMinimum: 0, maximum: MONEY_MAX, [PRECISION]: MONEY_DECIMALS }),
    reason: Type.String({ minLength: 1, maxLength: 200 }),
  },
  { additionalProperties: false },
);

export const SessionListQuery = Type.Object({
  box_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })),
  user_id: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 2_147_483_647,
      description:
        "One person's shifts, by the company's own number for them (the user_id of a shift or of GET /api/v1/me; a cashier always sees only their own)",
    }),
  ),
  from: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' })),
  to: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' })),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 30 }),
});

export const RegisterState = Type.Object(
  {
    company: Type.Object({ name: Type.String(), cuit: Nullable(Type.String()) }),
    boxes: Type.Array(
      Type.Object({
        id: Type.Integer(),
        name: Type.String(),
        deposit_id: Nullable(Type.Integer()),
        open_session_id: Nullable(Type.Integer()),
        open_session_user_id: Nullable(
          Type.Integer({ description: "Whose shift is open there, by the company's own number for the person" }),
        ),
        open_session_user_name: Nullable(Type.String()),
      }),
    ),
    scale_label: Nullable(
      Type.Object({
        prefixes: Type.Array(Type.String()),
        pluDigits: Type.Integer(),
        value: Type.Union([Type.Literal('price'), Type.Literal('weight')]),
        decimals: Type.Integer(),
      }),
    ),
    can_change_prices: Type.Boolean(),
    discount_limit_percent: Type.Number({
      description: "Discounts a cashier gives without an admin's approval, in percent (companies' setting, default 10)",
    }),
    can_discount_freely: Type.Boolean({ description: 'The caller is an admin: no limit applies' }),
    user_id: Nullable(
      Type.Integer({ description: "The signed-in person, by the company's own number for them (null for an API token)" }),
    ),
  },
  { $id: 'RegisterState', description: 'What the register screen needs to start: the shop, its boxes, the scale-label layout' },
);

export const RegisterSettings = Type.Object(
  {
    discount_limit_percent: Type.Number({
      minimum: 0,
      maximum: 100,
      description: "Cashiers' discount limit in percent (line and sale); beyond it an admin approves",
    }),
  },
  { $id: 'RegisterSettings', additionalProperties: false, description: "The register's settings the owner chooses" },
);
