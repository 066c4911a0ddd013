import { char, integer, numeric, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { tstz } from './columns.ts';

// Mirrors src/db/migrations/0160_accounts.sql (cuenta corriente); test/db/schema-drift.test.ts keeps them in step.
const money = (name: string) => numeric(name, { precision: 14, scale: 2 });

/** A payment on account: its money is the sale_payments row with no sale and the same id. */
export const accountPayments = pgTable(
  'account_payments',
  {
    companyId: integer('company_id').notNull(),
    id: integer('id').notNull(),
    customerId: integer('customer_id').notNull(),
    note: text('note'),
    createdBy: text('created_by'),
    idempotencyKey: text('idempotency_key'),
    requestSha256: char('request_sha256', { length: 64 }),
    createdAt: tstz('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.id] })],
);

/** What part of a payment on account covers which sale on account. */
export const accountAllocations = pgTable(
  'account_allocations',
  {
    companyId: integer('company_id').notNull(),
    paymentId: integer('payment_id').notNull(),
    saleId: integer('sale_id').notNull(),
    amount: money('amount').notNull(),
    createdAt: tstz('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.paymentId, t.saleId] })],
);

/** A customer's balance (> 0 owes, < 0 saldo a favor); its row is the account's lock. */
export const customerAccounts = pgTable(
  'customer_accounts',
  {
    companyId: integer('company_id').notNull(),
    customerId: integer('customer_id').notNull(),
    balance: money('balance').notNull().default('0'),
    updatedAt: tstz('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.customerId] })],
);

/** A shared read-only statement: only the token's hash is kept. */
export const statementLinks = pgTable('statement_links', {
  tokenSha256: char('token_sha256', { length: 64 }).primaryKey(),
  companyId: integer('company_id').notNull(),
  customerId: integer('customer_id').notNull(),
  expiresAt: tstz('expires_at').notNull(),
  createdBy: text('created_by'),
  createdAt: tstz('created_at').notNull(),
});
