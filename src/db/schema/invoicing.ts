import { sql } from 'drizzle-orm';
import { bigint, boolean, char, date, integer, jsonb, pgTable, primaryKey, smallint, text } from 'drizzle-orm/pg-core';
import { tstz } from './columns.ts';

// Mirrors src/db/migrations/0020_invoicing.sql; test/db/schema-drift.test.ts keeps them in step.

export const IVA_CONDITIONS = ['responsable_inscripto', 'monotributo', 'exento'] as const;
export type IvaCondition = (typeof IVA_CONDITIONS)[number];
export type FiscalAuthMode = 'delegation' | 'own_certificate';
export type FiscalEnvironment = 'homologacion' | 'produccion';

export interface FiscalCheck {
  ok: boolean;
  steps: { step: string; ok: boolean; message: string }[];
}

export const companyFiscal = pgTable('company_fiscal', {
  companyId: integer('company_id').primaryKey(),
  ivaCondition: text('iva_condition').$type<IvaCondition>().notNull().default('responsable_inscripto'),
  legalName: text('legal_name'),
  address: text('address'),
  grossIncome: text('gross_income'),
  activityStart: date('activity_start', { mode: 'string' }),
  authMode: text('auth_mode').$type<FiscalAuthMode>().notNull().default('delegation'),
  environment: text('environment').$type<FiscalEnvironment>().notNull().default('homologacion'),
  certPem: text('cert_pem'),
  keySealed: text('key_sealed'),
  pendingKeySealed: text('pending_key_sealed'),
  pendingCsrPem: text('pending_csr_pem'),
  defaultPointOfSale: integer('default_point_of_sale'),
  lastCheckAt: tstz('last_check_at'),
  lastCheck: jsonb('last_check').$type<FiscalCheck>(),
  /** 0230: CAEA contingency and the point of sale (of type CAEA) it issues on. */
  caeaEnabled: boolean('caea_enabled').notNull().default(false),
  caeaPointOfSale: integer('caea_point_of_sale'),
  /** 0301: the CAEA point of sale (of type CAEA) of the register boxes' blocks; null: the one above. */
  caeaRegisterPointOfSale: integer('caea_register_point_of_sale'),
  updatedAt: tstz('updated_at').notNull().default(sql`now()`),
});

export const fiscalPointsOfSale = pgTable(
  'fiscal_points_of_sale',
  {
    companyId: integer('company_id').notNull(),
    number: integer('number').notNull(),
    emissionType: text('emission_type'),
    blocked: boolean('blocked').notNull().default(false),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.number] })],
);

export type InvoiceKind = 'invoice' | 'credit_note';
export type AttemptStatus = 'pending' | 'approved' | 'rejected';
export interface ArcaMessage {
  code: number;
  message: string;
}

export const invoiceAttempts = pgTable(
  'invoice_attempts',
  {
    companyId: integer('company_id').notNull(),
    id: integer('id').notNull(),
    saleId: integer('sale_id').notNull(),
    kind: text('kind').$type<InvoiceKind>().notNull(),
    letter: char('letter', { length: 1 }).$type<'A' | 'B' | 'C'>().notNull(),
    receiptCode: integer('receipt_code').notNull(),
    issuerCuit: char('issuer_cuit', { length: 11 }).notNull(),
    environment: text('environment').$type<FiscalEnvironment>().notNull(),
    pointOfSale: integer('point_of_sale').notNull(),
    number: bigint('number', { mode: 'number' }).notNull(),
    status: text('status').$type<AttemptStatus>().notNull(),
    request: jsonb('request').$type<Record<string, unknown>>().notNull(),
    receiverName: text('receiver_name'),
    associatedInvoiceId: integer('associated_invoice_id'),
    /** 0150: carried to the invoice when ARCA approves. */
    customerId: integer('customer_id'),
    receiverAddress: text('receiver_address'),
    /** 0200: the return a credit note is for (null: an invoice, or the whole sale's credit note). */
    returnId: integer('return_id'),
    errors: jsonb('errors').$type<ArcaMessage[]>().notNull().default([]),
    observations: jsonb('observations').$type<ArcaMessage[]>().notNull().default([]),
    invoiceId: integer('invoice_id'),
    tries: integer('tries').notNull().default(0),
    lastError: text('last_error'),
    /** 0230: the CAEA receipt issued for the sale when this attempt's answer never came. */
    supersededBy: integer('superseded_by'),
    createdBy: text('created_by').notNull(),
    createdAt: tstz('created_at').notNull().default(sql`now()`),
    updatedAt: tstz('updated_at').notNull().default(sql`now()`),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.id] })],
);

// 0230_caea.sql: CAEA contingency.
export const caeaCodes = pgTable('caea_codes', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  companyId: integer('company_id').notNull(),
  issuerCuit: char('issuer_cuit', { length: 11 }).notNull(),
  environment: text('environment').$type<FiscalEnvironment>().notNull(),
  period: integer('period').notNull(),
  fortnight: smallint('fortnight').notNull(),
  caea: char('caea', { length: 14 }).notNull(),
  validFrom: date('valid_from', { mode: 'string' }).notNull(),
  validTo: date('valid_to', { mode: 'string' }).notNull(),
  informBy: date('inform_by', { mode: 'string' }).notNull(),
  processedAt: text('processed_at'),
  observations: jsonb('observations').$type<ArcaMessage[]>().notNull().default([]),
  seriesFloor: jsonb('series_floor').$type<Record<string, number>>().notNull().default({}),
  createdAt: tstz('created_at').notNull().default(sql`now()`),
});

export const caeaNoMovement = pgTable(
  'caea_no_movement',
  {
    companyId: integer('company_id').notNull(),
    caeaId: integer('caea_id').notNull(),
    pointOfSale: integer('point_of_sale').notNull(),
    status: text('status').$type<'informed' | 'rejected'>().notNull(),
    answer: jsonb('answer').$type<Record<string, unknown>>().notNull().default({}),
    tries: integer('tries').notNull().default(1),
    updatedAt: tstz('updated_at').notNull().default(sql`now()`),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.caeaId, t.pointOfSale] })],
);

export const caeaBlocks = pgTable(
  'caea_blocks',
  {
    id: integer('id').notNull(),
    companyId: integer('company_id').notNull(),
    boxId: integer('box_id').notNull(),
    caeaId: integer('caea_id').notNull(),
    issuerCuit: char('issuer_cuit', { length: 11 }).notNull(),
    environment: text('environment').$type<FiscalEnvironment>().notNull(),
    pointOfSale: integer('point_of_sale').notNull(),
    receiptCode: integer('receipt_code').notNull(),
    firstNumber: bigint('first_number', { mode: 'number' }).notNull(),
    lastNumber: bigint('last_number', { mode: 'number' }).notNull(),
    status: text('status').$type<'open' | 'returned'>().notNull().default('open'),
    createdBy: text('created_by').notNull(),
    createdAt: tstz('created_at').notNull().default(sql`now()`),
    returnedAt: tstz('returned_at'),
  },
  // The company's own numbering (migration 0307).
  (t) => [primaryKey({ columns: [t.companyId, t.id] })],
);
