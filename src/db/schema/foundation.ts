import { sql } from 'drizzle-orm';
import { bigint, boolean, char, date, integer, jsonb, numeric, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { tstz } from './columns.ts';

// Mirrors src/db/migrations/0001_foundation.sql; test/db/schema-drift.test.ts keeps them in step.
const money = (name: string) => numeric(name, { precision: 14, scale: 2 });
const quantity = (name: string) => numeric(name, { precision: 14, scale: 3 });

export const companies = pgTable('companies', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  name: text('name').notNull(),
  cuit: char('cuit', { length: 11 }),
  timezone: text('timezone').notNull().default('America/Argentina/Buenos_Aires'),
  settings: jsonb('settings').$type<Record<string, unknown>>().notNull().default({}),
  createdAt: tstz('created_at').notNull().default(sql`now()`),
});

export const users = pgTable('users', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  email: text('email').notNull(),
  passwordHash: text('password_hash'),
  displayName: text('display_name'),
  disabledAt: tstz('disabled_at'),
  createdAt: tstz('created_at').notNull().default(sql`now()`),
  /** The company chosen last (migration 0037): where a person with several companies lands. */
  lastCompanyId: integer('last_company_id'),
  /** A temporary password (an admin's reset) must be changed at the next sign-in (migration 0210). */
  mustChangePassword: boolean('must_change_password').notNull().default(false),
});

export const superadmins = pgTable('superadmins', {
  userId: integer('user_id').primaryKey(),
  createdAt: tstz('created_at').notNull().default(sql`now()`),
});

/** A person's role in a company (memberships.role). */
export type MembershipRole = 'admin' | 'cashier';

export const memberships = pgTable(
  'memberships',
  {
    companyId: integer('company_id').notNull(),
    userId: integer('user_id').notNull(),
    /**
     * The company's own number for this person (0315): what the company sees instead of users.id.
     * The insert leaves it out and the database's trigger takes the company's next number.
     */
    memberNo: integer('member_no').notNull().default(sql`NULL`),
    role: text('role').$type<MembershipRole>().notNull(),
    createdAt: tstz('created_at').notNull().default(sql`now()`),
    disabledAt: tstz('disabled_at'),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.userId] })],
);

export const categories = pgTable(
  'categories',
  {
    companyId: integer('company_id').notNull(),
    id: integer('id').notNull(),
    name: text('name').notNull(),
    parentId: integer('parent_id'),
    createdAt: tstz('created_at').notNull().default(sql`now()`),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.id] })],
);

export const products = pgTable(
  'products',
  {
    companyId: integer('company_id').notNull(),
    id: integer('id').notNull(),
    sku: text('sku'),
    bc: text('bc'),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    basePrice: money('base_price').notNull().default('0'),
    stock: quantity('stock').notNull().default('0'),
    categoryId: integer('category_id'),
    mark: text('mark'),
    enable: boolean('enable').notNull().default(true),
    photo: text('photo'),
    createdAt: tstz('created_at').notNull().default(sql`now()`),
    updatedAt: tstz('updated_at').notNull().default(sql`now()`),
    ivaRate: text('iva_rate').$type<IvaRate>().notNull().default('21'),
    cost: money('cost'),
    unit: text('unit').$type<ProductUnit>().notNull().default('unit'),
    minStock: quantity('min_stock'),
    /** What a back-office search matches (0017): name without accents, sku and barcode, lower case. */
    search: text('search').generatedAlwaysAs(
      sql`search_text(name) || ' ' || lower(coalesce(sku, '')) || ' ' || coalesce(bc, '')`,
    ),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.id] })],
);

/** IVA rates as ARCA names them; 'exento' is invoiced without IVA. */
export const IVA_RATES = ['21', '10.5', '27', '5', '2.5', '0', 'exento'] as const;
export type IvaRate = (typeof IVA_RATES)[number];
export type ProductUnit = 'unit' | 'kg';

export const deposits = pgTable(
  'deposits',
  {
    companyId: integer('company_id').notNull(),
    id: integer('id').notNull(),
    name: text('name').notNull(),
    isDefault: boolean('is_default').notNull().default(false),
    createdAt: tstz('created_at').notNull().default(sql`now()`),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.id] })],
);

export const stockLevels = pgTable(
  'stock_levels',
  {
    companyId: integer('company_id').notNull(),
    depositId: integer('deposit_id').notNull(),
    productId: integer('product_id').notNull(),
    quantity: quantity('quantity').notNull().default('0'),
    updatedAt: tstz('updated_at').notNull().default(sql`now()`),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.depositId, t.productId] })],
);

export type MovementType = 'IN' | 'OUT' | 'TRANSFER' | 'ADJUSTMENT';

export const movements = pgTable(
  'movements',
  {
    companyId: integer('company_id').notNull(),
    id: integer('id').notNull(),
    type: text('type').$type<MovementType>().notNull(),
    depositId: integer('deposit_id').notNull(),
    toDepositId: integer('to_deposit_id'),
    productId: integer('product_id').notNull(),
    amount: quantity('amount').notNull(),
    reason: text('reason'),
    createdAt: tstz('created_at').notNull().default(sql`now()`),
    recordedAt: tstz('recorded_at').notNull().default(sql`now()`),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.id] })],
);

export const customers = pgTable(
  'customers',
  {
    companyId: integer('company_id').notNull(),
    id: integer('id').notNull(),
    name: text('name').notNull(),
    /** The bare number: digits (letters too for a passport); null together with documentType. */
    document: text('document'),
    documentType: text('document_type').$type<'cuit' | 'cuil' | 'dni' | 'pasaporte'>(),
    /** ARCA's receiver condition code (CondicionIVAReceptorId): 1 RI, 4 exento, 5 CF, 6 monotributo… */
    ivaCondition: integer('iva_condition'),
    street: text('street'),
    city: text('city'),
    province: text('province'),
    postalCode: text('postal_code'),
    email: text('email'),
    /** Stored normalised for WhatsApp (+54 9 …). */
    phone: text('phone'),
    notes: text('notes'),
    /** Whether the shop sells to them on account (cuenta corriente). */
    accountEnabled: boolean('account_enabled').notNull().default(false),
    /** Null: no limit. */
    creditLimit: money('credit_limit'),
    /** Customers are disabled, never deleted. */
    enabled: boolean('enabled').notNull().default(true),
    createdAt: tstz('created_at').notNull().default(sql`now()`),
    updatedAt: tstz('updated_at').notNull().default(sql`now()`),
    /** What the customer list searches (0140): name without accents, document, email, phone digits. */
    search: text('search').generatedAlwaysAs(
      sql`search_text(name) || ' ' || lower(coalesce(document, '')) || ' ' || lower(coalesce(email, '')) || ' ' || regexp_replace(coalesce(phone, ''), '[^0-9]', '', 'g')`,
    ),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.id] })],
);

export const boxes = pgTable(
  'boxes',
  {
    companyId: integer('company_id').notNull(),
    id: integer('id').notNull(),
    name: text('name').notNull(),
    createdAt: tstz('created_at').notNull().default(sql`now()`),
    /** The deposit the box sells from; null: the company's default deposit. */
    depositId: integer('deposit_id'),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.id] })],
);

export type SaleStatus = 'pending' | 'paid' | 'cancelled';

export const sales = pgTable(
  'sales',
  {
    companyId: integer('company_id').notNull(),
    id: integer('id').notNull(),
    customerId: integer('customer_id'),
    boxId: integer('box_id'),
    total: money('total').notNull(),
    status: text('status').$type<SaleStatus>().notNull().default('pending'),
    paymentMethod: text('payment_method'),
    paymentId: text('payment_id'),
    paidAt: tstz('paid_at'),
    cancelledAt: tstz('cancelled_at'),
    cancellationReason: text('cancellation_reason'),
    createdAt: tstz('created_at').notNull().default(sql`now()`),
    updatedAt: tstz('updated_at').notNull().default(sql`now()`),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.id] })],
);

export const saleItems = pgTable(
  'sale_items',
  {
    companyId: integer('company_id').notNull(),
    saleId: integer('sale_id').notNull(),
    id: integer('id').notNull(),
    productId: integer('product_id').notNull(),
    quantity: quantity('quantity').notNull(),
    price: money('price').notNull(),
    subtotal: money('subtotal').notNull(),
    discount: money('discount').notNull().default('0'),
    saleDiscount: money('sale_discount').notNull().default('0'),
    discountReason: text('discount_reason'),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.saleId, t.id] })],
);

export const invoices = pgTable(
  'invoices',
  {
    companyId: integer('company_id').notNull(),
    id: integer('id').notNull(),
    saleId: integer('sale_id').notNull(),
    type: text('type').notNull(),
    pointOfSale: integer('point_of_sale').notNull(),
    number: bigint('number', { mode: 'number' }).notNull(),
    cae: text('cae').notNull(),
    caeExpiration: tstz('cae_expiration').notNull(),
    total: money('total').notNull(),
    issuedAt: tstz('issued_at').notNull().default(sql`now()`),
    // 0020_invoicing.sql: the fiscal data of receipts issued here (null for integration-received ones).
    source: text('source').$type<'integration' | 'arca'>().notNull().default('integration'),
    kind: text('kind').$type<'invoice' | 'credit_note'>().notNull().default('invoice'),
    receiptCode: integer('receipt_code'),
    issueDate: date('issue_date', { mode: 'string' }),
    docType: integer('doc_type'),
    docNumber: text('doc_number'),
    receiverIvaCondition: integer('receiver_iva_condition'),
    receiverName: text('receiver_name'),
    net: money('net'),
    iva: money('iva'),
    exempt: money('exempt'),
    ivaLines: jsonb('iva_lines').$type<{ id: number; rate: string; base: string; amount: string }[]>(),
    environment: text('environment'),
    issuerCuit: char('issuer_cuit', { length: 11 }),
    associatedInvoiceId: integer('associated_invoice_id'),
    /** 0150: the customer the receipt was issued to, and the buyer's address as printed. */
    customerId: integer('customer_id'),
    receiverAddress: text('receiver_address'),
    observations: jsonb('observations').$type<{ code: number; message: string }[]>(),
    /** 0200: the return a partial credit note is for (null: an invoice, or the whole sale's credit note). */
    returnId: integer('return_id'),
    /** 0230_caea.sql: how it was authorised, and for CAEA receipts what informing it needs and got. */
    emission: text('emission').$type<'cae' | 'caea'>().notNull().default('cae'),
    caeaId: integer('caea_id'),
    generatedAt: text('generated_at'),
    caeaRequest: jsonb('caea_request').$type<Record<string, unknown>>(),
    caeaBlockId: integer('caea_block_id'),
    informStatus: text('inform_status').$type<'pending' | 'informed' | 'rejected'>(),
    informBy: date('inform_by', { mode: 'string' }),
    informTries: integer('inform_tries').notNull().default(0),
    informError: text('inform_error'),
    informAnswer: jsonb('inform_answer').$type<Record<string, unknown>>(),
    informedAt: tstz('informed_at'),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.id] })],
);

export const integrationKeys = pgTable('integration_keys', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  companyId: integer('company_id').notNull(),
  keyHash: char('key_hash', { length: 64 }).notNull(),
  keyEncrypted: text('key_encrypted').notNull(),
  createdAt: tstz('created_at').notNull().default(sql`now()`),
  revokedAt: tstz('revoked_at'),
});

export const scannerTokens = pgTable('scanner_tokens', {
  id: integer('id').primaryKey().generatedByDefaultAsIdentity(),
  companyId: integer('company_id').notNull(),
  tokenHash: char('token_hash', { length: 64 }).notNull(),
  createdAt: tstz('created_at').notNull().default(sql`now()`),
  revokedAt: tstz('revoked_at'),
});

export const outboxEvents = pgTable('outbox_events', {
  id: uuid('id').primaryKey(),
  companyId: integer('company_id').notNull(),
  event: text('event').notNull(),
  payload: jsonb('payload').$type<{ event: string; data: Record<string, unknown> }>().notNull(),
  causedBy: uuid('caused_by'),
  createdAt: tstz('created_at').notNull().default(sql`clock_timestamp()`),
  /** Set by the webhook relay (0005_webhooks.sql) once the event's deliveries exist. */
  dispatchedAt: tstz('dispatched_at'),
  /** The writing transaction (0005): deliveries of one change keep their order. */
  txId: bigint('tx_id', { mode: 'number' }).notNull().default(sql`txid_current()`),
  /** Insertion order (0005): orders the events of one transaction. */
  seq: bigint('seq', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
});

export type ApiTokenScope = 'read' | 'read-write';

/** Company API tokens (`mos_api_…`), stored as SHA-256 only (migration 0014). */
export const apiTokens = pgTable(
  'api_tokens',
  {
    id: integer('id').notNull(),
    companyId: integer('company_id').notNull(),
    name: text('name').notNull(),
    scope: text('scope').$type<ApiTokenScope>().notNull(),
    tokenHash: char('token_hash', { length: 64 }).notNull(),
    hint: text('hint').notNull(),
    createdByUserId: integer('created_by_user_id'),
    createdAt: tstz('created_at').notNull().default(sql`now()`),
    lastUsedAt: tstz('last_used_at'),
    revokedAt: tstz('revoked_at'),
  },
  // The company's own numbering (migration 0306).
  (t) => [primaryKey({ columns: [t.companyId, t.id] })],
);
