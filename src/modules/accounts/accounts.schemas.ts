import { type Static, type TSchema, Type } from 'typebox';
import { MONEY_DECIMALS, MONEY_MAX, PRECISION } from '../../lib/precision.ts';

// The cuenta corriente on the wire (merchant API, /api/v1/customers/:id/…, /api/v1/accounts). Money
// is a JSON number, like a sale's total. balance > 0: the customer owes; < 0: saldo a favor.

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Money = Type.Number({ description: 'Pesos, two decimals' });
const DateTime = Type.String({ format: 'date-time' });
const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'yyyy-mm-dd (company time zone)' });

export const CustomerParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });

export const AccountSummary = Type.Object(
  {
    balance: Type.Number({ description: '> 0: the customer owes; < 0: saldo a favor' }),
    credit_limit: Nullable(Type.Number({ description: 'null: no limit' })),
    available: Nullable(Type.Number({ description: 'What may still be sold on account (never below 0); null: no limit' })),
    oldest_due_at: Nullable(Type.String({ format: 'date-time', description: 'The date of the oldest open sale on account' })),
  },
  { $id: 'Account', description: "A customer's cuenta corriente" },
);

export const AccountCustomer = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    phone: Nullable(Type.String()),
    email: Nullable(Type.String()),
    enabled: Type.Boolean(),
    account_enabled: Type.Boolean(),
  },
  { $id: 'AccountCustomer', description: 'The customer an account belongs to' },
);

export const OpenSale = Type.Object(
  {
    sale_id: Type.Integer(),
    created_at: DateTime,
    total: Money,
    on_account: Type.Number({ description: 'The part of the sale put on account' }),
    paid: Type.Number({ description: 'What payments on account have covered of it' }),
    open: Type.Number({ description: 'What is still owed of it' }),
    days: Type.Integer({ description: 'Days since the sale (company time zone)' }),
  },
  { $id: 'OpenSale', description: 'A sale on account not yet covered' },
);

export const CustomerAccount = Type.Object(
  { customer: AccountCustomer, account: AccountSummary, open_sales: Type.Array(OpenSale) },
  { $id: 'CustomerAccount', description: "A customer's account with the sales still open, oldest first" },
);

export const PaymentOnAccountBody = Type.Object(
  {
    amount: Type.Number({ exclusiveMinimum: 0, maximum: MONEY_MAX, [PRECISION]: MONEY_DECIMALS }),
    method: Type.Union(
      [
        Type.Literal('efectivo'),
        Type.Literal('debito'),
        Type.Literal('credito'),
        Type.Literal('transferencia'),
        Type.Literal('qr'),
      ],
      { description: 'How the customer paid' },
    ),
    session_id: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 2_147_483_647,
        description: "An open box session: the payment counts in that shift's totals",
      }),
    ),
    reference: Type.Optional(Nullable(Type.String({ maxLength: 200, description: 'Voucher, transfer or QR operation number' }))),
    note: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
  },
  { additionalProperties: false },
);

export const AccountPayment = Type.Object(
  {
    id: Type.Integer(),
    customer_id: Type.Integer(),
    amount: Money,
    method: Type.String(),
    reference: Nullable(Type.String()),
    box_session_id: Nullable(Type.Integer()),
    note: Nullable(Type.String()),
    created_by: Nullable(Type.String()),
    created_at: DateTime,
    allocations: Type.Array(Type.Object({ sale_id: Type.Integer(), amount: Money }), {
      description: 'The sales it covered, oldest first',
    }),
    unallocated: Type.Number({ description: 'What is left as saldo a favor' }),
  },
  { $id: 'AccountPayment', description: 'A payment on account' },
);

export const PaymentResponse = Type.Object({ payment: AccountPayment, account: AccountSummary });

export const StatementQuery = Type.Object({ from: Type.Optional(Day), to: Type.Optional(Day) });

export const Aging = Type.Object(
  {
    days_0_30: Money,
    days_31_60: Money,
    days_61_90: Money,
    days_over_90: Money,
    total: Money,
  },
  { $id: 'Aging', description: 'What is owed today by age of the sale (days since its date, company time zone)' },
);

export const StatementMovement = Type.Object({
  kind: Type.Union([Type.Literal('sale'), Type.Literal('payment'), Type.Literal('credit_note'), Type.Literal('adjustment')]),
  date: DateTime,
  description: Type.String({ description: 'In Spanish, as the printed statement shows it' }),
  sale_id: Nullable(Type.Integer()),
  payment_id: Nullable(Type.Integer()),
  receipt: Nullable(Type.String({ description: 'The invoice or credit note, e.g. "B 0001-00000012"' })),
  method: Nullable(Type.String()),
  amount: Type.Number({ description: '+ charges the account, − credits it' }),
  balance: Type.Number({ description: 'Running balance after this movement' }),
});

export const Statement = Type.Object(
  {
    customer: AccountCustomer,
    company: Type.Object({ name: Type.String() }),
    from: Day,
    to: Day,
    opening_balance: Money,
    movements: Type.Array(StatementMovement),
    closing_balance: Money,
    account: AccountSummary,
    aging: Aging,
    generated_at: DateTime,
  },
  { $id: 'Statement', description: 'A statement of account: opening balance, movements with running balance, closing balance' },
);

export const AccountsQuery = Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }) });

export const AccountList = Type.Object(
  {
    accounts: Type.Array(
      Type.Object({
        customer: AccountCustomer,
        balance: Money,
        credit_limit: Nullable(Type.Number()),
        oldest_due_at: Nullable(DateTime),
        open_sales: Type.Integer(),
      }),
    ),
    total_owed: Type.Number({ description: 'What all customers owe' }),
    count: Type.Integer({ description: 'Customers who owe' }),
  },
  { $id: 'AccountList', description: 'Customers who owe, oldest debt first' },
);

export const StatementShare = Type.Object(
  {
    url: Type.String({ description: 'The read-only statement page (no login), until expires_at' }),
    expires_at: DateTime,
    text: Type.String({ description: 'A short message in Spanish with the link' }),
    whatsapp_url: Type.String({ description: 'wa.me link with the text (to the customer’s phone when known)' }),
    mailto_url: Type.String({ description: 'mailto: draft with the text' }),
  },
  { $id: 'StatementShare', description: 'A link to share a statement' },
);

export type AccountSummaryWire = Static<typeof AccountSummary>;
export type AccountCustomerWire = Static<typeof AccountCustomer>;
export type CustomerAccountWire = Static<typeof CustomerAccount>;
export type AccountPaymentWire = Static<typeof AccountPayment>;
export type StatementWire = Static<typeof Statement>;
export type AccountListWire = Static<typeof AccountList>;
export type StatementShareWire = Static<typeof StatementShare>;
export type PaymentOnAccountInput = Static<typeof PaymentOnAccountBody>;
