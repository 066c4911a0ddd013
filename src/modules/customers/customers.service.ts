import type { Conn, Database } from '../../db/client.ts';
import { nextId } from '../../db/ids.ts';
import type { CompanyCtx } from '../../http/request-context.ts';
import { AppError } from '../../lib/errors.ts';
import { fromCents, moneyToNumber, toCents } from '../../lib/money.ts';
import type { Clock } from '../../lib/time.ts';
import {
  checkFiscalRules,
  DEFAULT_IVA_CONDITION,
  type DocumentType,
  invalidField,
  normaliseDocument,
  normaliseEmail,
  normalisePhone,
} from './customer-fields.ts';
import * as repo from './customers.repo.ts';

export type { CustomerRow } from './customers.repo.ts';

/** A customer as every answer shows it (the agreed wire shape: docs/clientes.md). */
export function customerToWire(row: repo.CustomerRow) {
  return {
    id: row.id,
    name: row.name,
    document_type: row.documentType,
    document: row.document,
    iva_condition: row.ivaCondition,
    address: { street: row.street, city: row.city, province: row.province, postal_code: row.postalCode },
    email: row.email,
    phone: row.phone,
    notes: row.notes,
    account_enabled: row.accountEnabled,
    credit_limit: row.creditLimit === null ? null : moneyToNumber(row.creditLimit),
    enabled: row.enabled,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
export type CustomerWire = ReturnType<typeof customerToWire>;

/** What a caller sends (POST takes `name` at least; PATCH any subset). */
export interface CustomerFields {
  name?: string | undefined;
  document_type?: DocumentType | null | undefined;
  document?: string | null | undefined;
  iva_condition?: number | undefined;
  address?:
    | {
        street?: string | null | undefined;
        city?: string | null | undefined;
        province?: string | null | undefined;
        postal_code?: string | null | undefined;
      }
    | undefined;
  email?: string | null | undefined;
  phone?: string | null | undefined;
  notes?: string | null | undefined;
  account_enabled?: boolean | undefined;
  credit_limit?: number | null | undefined;
  enabled?: boolean | undefined;
}

/** Blank text is no text. */
function cleanText(value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

/**
 * The stored values of the fields a caller sent (the others stay undefined): documents, phones and
 * emails normalised, each refusal naming its field. The document and its type travel together:
 * sending one changes the pair, a blank document clears both.
 */
export function toValues(fields: CustomerFields, current: repo.CustomerRow | null): Partial<repo.CustomerValues> {
  const values: Partial<repo.CustomerValues> = {};
  if (fields.name !== undefined) {
    const name = fields.name.trim();
    if (name === '') throw invalidField('name', 'blank', 'must not be blank');
    values.name = name;
  }
  if (fields.document !== undefined || fields.document_type !== undefined) {
    const raw = fields.document === undefined ? (current?.document ?? null) : (cleanText(fields.document) ?? null);
    const type = fields.document_type === undefined ? (current?.documentType ?? null) : fields.document_type;
    if (raw === null && fields.document_type) {
      throw invalidField('document', 'required', `a document_type (${fields.document_type}) needs its document`);
    }
    if (raw === null || (type === null && fields.document === undefined)) {
      values.document = null;
      values.documentType = null;
    } else {
      if (type === null)
        throw invalidField('document_type', 'required', 'a document needs its type (cuit, cuil, dni or pasaporte)');
      values.document = normaliseDocument(type, raw);
      values.documentType = type;
    }
  }
  if (fields.iva_condition !== undefined) values.ivaCondition = fields.iva_condition;
  for (const [key, column] of [
    ['street', 'street'],
    ['city', 'city'],
    ['province', 'province'],
    ['postal_code', 'postalCode'],
  ] as const) {
    const value = fields.address?.[key];
    if (value !== undefined) values[column] = cleanText(value) ?? null;
  }
  if (fields.email !== undefined) {
    const email = cleanText(fields.email) ?? null;
    const normal = email === null ? null : normaliseEmail(email);
    if (email !== null && normal === null)
      throw invalidField('email', 'not_an_email', `"${fields.email}" is not an email address`);
    values.email = normal;
  }
  if (fields.phone !== undefined) {
    const phone = cleanText(fields.phone) ?? null;
    const normal = phone === null ? null : normalisePhone(phone);
    if (phone !== null && normal === null) throw invalidField('phone', 'not_a_phone', `"${fields.phone}" is not a phone number`);
    values.phone = normal;
  }
  if (fields.notes !== undefined) values.notes = cleanText(fields.notes) ?? null;
  if (fields.account_enabled !== undefined) values.accountEnabled = fields.account_enabled;
  if (fields.credit_limit !== undefined) {
    values.creditLimit = fields.credit_limit === null ? null : fromCents(toCents(fields.credit_limit));
  }
  if (fields.enabled !== undefined) values.enabled = fields.enabled;
  return values;
}

/** The values of a new customer: what was sent over the table's defaults (IVA condition Consumidor Final). */
export function newCustomerValues(values: Partial<repo.CustomerValues>): repo.CustomerValues {
  if (values.name === undefined) throw invalidField('name', 'required', 'is required');
  return {
    name: values.name,
    documentType: null,
    document: null,
    ivaCondition: DEFAULT_IVA_CONDITION,
    street: null,
    city: null,
    province: null,
    postalCode: null,
    email: null,
    phone: null,
    notes: null,
    accountEnabled: false,
    creditLimit: null,
    enabled: true,
    ...values,
  };
}

/** The 409 for a document another customer of the same company has, naming that customer. */
export function documentTaken(documentType: string, document: string, owner: { id: number; name: string }): AppError {
  return new AppError(
    'customer_document_taken',
    `${documentType} ${document} already belongs to customer ${owner.id} (${owner.name})`,
    { details: [{ path: '/document', message: 'taken', customer_id: owner.id, customer_name: owner.name }] },
  );
}

export type CustomerService = ReturnType<typeof createCustomerService>;

/**
 * The merchant CRM: customers are created, changed and disabled (never deleted). Each write is one
 * transaction holding the company's customer lock, so two writers never both take one document.
 * No outbound event: customer.created/updated are not in the contract's catalogue yet.
 */
export function createCustomerService({ db, clock }: { db: Database; clock: Clock }) {
  async function checkDocument(tx: Conn, companyId: number, values: repo.CustomerValues, selfId: number | null) {
    checkFiscalRules(values);
    if (values.documentType === null || values.document === null) return;
    const owner = await repo.findDocumentOwner(tx, companyId, values.documentType, values.document, selfId);
    if (owner) throw documentTaken(values.documentType, values.document, owner);
  }

  async function mustFind(conn: Conn, companyId: number, id: number, lock = false) {
    const row = await repo.customerById(conn, companyId, id, lock);
    if (!row) throw new AppError('not_found', `customer ${id} not found`);
    return row;
  }

  return {
    async createCustomer(ctx: CompanyCtx, fields: CustomerFields): Promise<CustomerWire> {
      const values = newCustomerValues(toValues(fields, null));
      return db.orm.transaction(async (tx) => {
        await repo.lockCustomers(tx, ctx.companyId);
        await checkDocument(tx, ctx.companyId, values, null);
        const id = await nextId(tx, 'customers', ctx.companyId);
        await repo.insertCustomers(tx, ctx.companyId, [{ id, values }], clock.now());
        return customerToWire(await mustFind(tx, ctx.companyId, id));
      });
    },

    async updateCustomer(ctx: CompanyCtx, id: number, fields: CustomerFields): Promise<CustomerWire> {
      return db.orm.transaction(async (tx) => {
        await repo.lockCustomers(tx, ctx.companyId);
        const current = await mustFind(tx, ctx.companyId, id, true);
        const changes = toValues(fields, current);
        const { companyId: _c, id: _i, createdAt: _a, updatedAt: _u, ...stored } = current;
        await checkDocument(tx, ctx.companyId, { ...stored, ...changes }, id);
        await repo.updateCustomer(tx, ctx.companyId, id, changes, clock.now());
        return customerToWire(await mustFind(tx, ctx.companyId, id));
      });
    },

    async getCustomer(companyId: number, id: number): Promise<CustomerWire> {
      return customerToWire(await mustFind(db.orm, companyId, id));
    },

    /** The customer row (other modules: invoicing fills the buyer from it), or null when not this company's. */
    findCustomer: (companyId: number, id: number, conn: Conn = db.orm) => repo.customerById(conn, companyId, id),

    async listCustomers(companyId: number, filter: repo.CustomerFilter, page: { limit: number; cursor?: string | undefined }) {
      const after = page.cursor === undefined ? null : decodeCursor(page.cursor);
      const rows = await repo.listCustomers(db.orm, companyId, filter, after, page.limit + 1);
      const shown = rows.slice(0, page.limit);
      const last = shown.at(-1);
      return {
        customers: shown.map(customerToWire),
        meta: { next_cursor: rows.length > page.limit && last ? encodeCursor(last) : null },
      };
    },
  };
}

function encodeCursor(row: { name: string; id: number }): string {
  return Buffer.from(JSON.stringify([row.name, row.id])).toString('base64url');
}

function decodeCursor(cursor: string): { name: string; id: number } {
  let parsed: unknown = null;
  try {
    parsed = /^[A-Za-z0-9_-]+$/.test(cursor) ? JSON.parse(Buffer.from(cursor, 'base64url').toString()) : null;
  } catch {
    parsed = null;
  }
  if (
    !Array.isArray(parsed) ||
    typeof parsed[0] !== 'string' ||
    !Number.isInteger(parsed[1]) ||
    parsed[1] < 0 ||
    parsed[1] > 2_147_483_647
  ) {
    throw invalidField('cursor', 'bad_cursor', 'is not one this API gave');
  }
  return { name: parsed[0], id: parsed[1] };
}
