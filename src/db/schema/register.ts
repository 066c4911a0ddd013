import { sql } from 'drizzle-orm';
import { char, integer, jsonb, numeric, pgTable, primaryKey, text, unique, uuid } from 'drizzle-orm/pg-core';
import { tstz } from './columns.ts';

// Mirrors src/db/migrations/0018_register.sql (and 0030 for sale_payments); test/db/schema-drift.test.ts keeps them in step.
const money = (name: string) => numeric(name, { precision: 14, scale: 2 });

export const PAYMENT_METHODS = ['efectivo', 'debito', 'credito', 'transferencia', 'qr', 'cuenta_corriente'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

export const boxSessions = pgTable(
  'box_sessions',
  {
    companyId: integer('company_id').notNull(),
    id: integer('id').notNull(),
    boxId: integer('box_id').notNull(),
    status: text('status').$type<'open' | 'closed'>().notNull().default('open'),
    openingCash: money('opening_cash').notNull(),
    openedAt: tstz('opened_at').notNull().default(sql`now()`),
    openedBy: text('opened_by').notNull(),
    counted: jsonb('counted').$type<Record<string, string>>(),
    expected: jsonb('expected').$type<Record<string, string>>(),
    closedAt: tstz('closed_at'),
    closedBy: text('closed_by'),
    note: text('note'),
    /** The report's sales figure, fixed at the close (null while open). */
    salesCount: integer('sales_count'),
    // Migration 0286: a sum of sales, wider than one sale's money column.
    salesTotal: numeric('sales_total', { precision: 18, scale: 2 }),
    /** 0210: the person whose shift it is (null: a token's, or from before), who closed it, the next shift of a handover. */
    userId: integer('user_id'),
    closedByUserId: integer('closed_by_user_id'),
    handedOverTo: integer('handed_over_to'),
    /** 0210: the register's own ids for an open and a close made offline (sent once). */
    clientId: uuid('client_id'),
    closeClientId: uuid('close_client_id'),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.id] })],
);

export const boxCashMoves = pgTable(
  'box_cash_moves',
  {
    companyId: integer('company_id').notNull(),
    sessionId: integer('session_id').notNull(),
    id: integer('id').notNull(),
    kind: text('kind').$type<'in' | 'out'>().notNull(),
    amount: money('amount').notNull(),
    reason: text('reason').notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: tstz('created_at').notNull().default(sql`now()`),
    /** 0210: the person who moved the cash. */
    createdByUserId: integer('created_by_user_id'),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.sessionId, t.id] })],
);

export const registerSales = pgTable(
  'register_sales',
  {
    companyId: integer('company_id').notNull(),
    saleId: integer('sale_id').notNull(),
    boxSessionId: integer('box_session_id').notNull(),
    depositId: integer('deposit_id').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    requestSha256: char('request_sha256', { length: 64 }).notNull(),
    customerName: text('customer_name'),
    soldBy: text('sold_by').notNull(),
    /** 0210: the person who sold (null for a token). */
    soldByUserId: integer('sold_by_user_id'),
    soldAt: tstz('sold_at').notNull(),
    change: money('change').notNull().default('0'),
    refundSessionId: integer('refund_session_id'),
    discountReason: text('discount_reason'),
    discountApprovedBy: text('discount_approved_by'),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.saleId] })],
);

export const salePayments = pgTable(
  'sale_payments',
  {
    companyId: integer('company_id').notNull(),
    /** Null for a payment on account (no sale; see account_payments, 0160). */
    saleId: integer('sale_id'),
    id: integer('id').notNull(),
    method: text('method').$type<PaymentMethod>().notNull(),
    amount: money('amount').notNull(),
    tendered: money('tendered'),
    change: money('change').notNull().default('0'),
    reference: text('reference'),
    boxSessionId: integer('box_session_id'),
    createdAt: tstz('created_at').notNull().default(sql`now()`),
    /** The customer of a sale's cuenta_corriente row or of a payment on account (0160). */
    customerId: integer('customer_id'),
  },
  (t) => [unique('sale_payments_sale_key').on(t.companyId, t.saleId, t.id)],
);
