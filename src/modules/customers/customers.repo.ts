import { type SQL, sql } from 'drizzle-orm';
import { type Conn, selectRows } from '../../db/client.ts';
import type { customers } from '../../db/schema/index.ts';
import { searchMatches } from '../../db/search.ts';
import type { DocumentType } from './customer-fields.ts';
import { dbDate } from '../../db/dates.ts';

/** A customer row as the database holds it (numerics as text), without the generated search text. */
export type CustomerRow = Omit<typeof customers.$inferSelect, 'search'>;

/** The columns a customer write sets (every one but the keys, created_at and the generated search). */
export type CustomerValues = Omit<CustomerRow, 'companyId' | 'id' | 'createdAt' | 'updatedAt'>;

const CUSTOMER_ROW = sql.raw(`c.company_id AS "companyId", c.id, c.name, c.document_type AS "documentType", c.document,
  c.iva_condition AS "ivaCondition", c.street, c.city, c.province, c.postal_code AS "postalCode", c.email, c.phone,
  c.notes, c.account_enabled AS "accountEnabled", c.credit_limit::text AS "creditLimit", c.enabled,
  c.created_at AS "createdAt", c.updated_at AS "updatedAt"`);

type RawCustomerRow = Omit<CustomerRow, 'createdAt' | 'updatedAt'> & { createdAt: Date | string; updatedAt: Date | string };

function toCustomerRow(raw: RawCustomerRow): CustomerRow {
  return {
    ...raw,
    companyId: Number(raw.companyId),
    id: Number(raw.id),
    ivaCondition: raw.ivaCondition === null ? null : Number(raw.ivaCondition),
    createdAt: dbDate(raw.createdAt),
    updatedAt: dbDate(raw.updatedAt),
  };
}

/** One customer of the company, or null; `lock` takes it FOR UPDATE (a writer that reads, then decides). */
export async function customerById(conn: Conn, companyId: number, id: number, lock = false): Promise<CustomerRow | null> {
  const [row] = await selectRows<RawCustomerRow>(
    conn,
    sql`SELECT ${CUSTOMER_ROW} FROM customers c WHERE c.company_id = ${companyId} AND c.id = ${id}${lock ? sql` FOR UPDATE` : sql``}`,
  );
  return row ? toCustomerRow(row) : null;
}

/** Customers by id (the import's matches), in id order. */
export async function customersByIds(conn: Conn, companyId: number, ids: number[]): Promise<CustomerRow[]> {
  if (ids.length === 0) return [];
  const rows = await selectRows<RawCustomerRow>(
    conn,
    sql`SELECT ${CUSTOMER_ROW} FROM customers c WHERE c.company_id = ${companyId} AND c.id = ANY(${sql.param(ids)}::int[]) ORDER BY c.id`,
  );
  return rows.map(toCustomerRow);
}

/** Customers holding any of these documents (`type:number` keys), for the import to match and to check. */
export async function customersByDocuments(conn: Conn, companyId: number, keys: string[]): Promise<CustomerRow[]> {
  if (keys.length === 0) return [];
  const rows = await selectRows<RawCustomerRow>(
    conn,
    sql`SELECT ${CUSTOMER_ROW} FROM customers c
        WHERE c.company_id = ${companyId} AND c.document IS NOT NULL
          AND c.document_type || ':' || c.document = ANY(${sql.param(keys)}::text[])`,
  );
  return rows.map(toCustomerRow);
}

/** Another customer of this company with this document (the unique key customers_document_key), or null. */
export async function findDocumentOwner(
  conn: Conn,
  companyId: number,
  documentType: DocumentType,
  document: string,
  exceptId: number | null,
): Promise<{ id: number; name: string } | null> {
  const [row] = await selectRows<{ id: number; name: string }>(
    conn,
    sql`SELECT id, name FROM customers
        WHERE company_id = ${companyId} AND document_type = ${documentType} AND document = ${document}
          ${exceptId === null ? sql`` : sql`AND id <> ${exceptId}`}
        LIMIT 1`,
  );
  return row ? { id: Number(row.id), name: row.name } : null;
}

const VALUE_COLUMNS: [keyof CustomerValues, string][] = [
  ['name', 'name'],
  ['documentType', 'document_type'],
  ['document', 'document'],
  ['ivaCondition', 'iva_condition'],
  ['street', 'street'],
  ['city', 'city'],
  ['province', 'province'],
  ['postalCode', 'postal_code'],
  ['email', 'email'],
  ['phone', 'phone'],
  ['notes', 'notes'],
  ['accountEnabled', 'account_enabled'],
  ['creditLimit', 'credit_limit'],
  ['enabled', 'enabled'],
];

/** New customers (ids already taken from the company's counter), in one statement. */
export async function insertCustomers(
  conn: Conn,
  companyId: number,
  rows: { id: number; values: CustomerValues }[],
  now: Date,
): Promise<void> {
  if (rows.length === 0) return;
  const columns = sql.raw(VALUE_COLUMNS.map(([, column]) => column).join(', '));
  const tuples = rows.map(
    ({ id, values }) =>
      sql`(${companyId}, ${id}, ${sql.join(
        VALUE_COLUMNS.map(([key]) => sql`${values[key]}`),
        sql`, `,
      )}, ${now}, ${now})`,
  );
  await conn.execute(
    sql`INSERT INTO customers (company_id, id, ${columns}, created_at, updated_at) VALUES ${sql.join(tuples, sql`, `)}`,
  );
}

/** Sets the given fields and updated_at of one customer. */
export async function updateCustomer(
  conn: Conn,
  companyId: number,
  id: number,
  values: Partial<CustomerValues>,
  now: Date,
): Promise<void> {
  const sets: SQL[] = VALUE_COLUMNS.filter(([key]) => values[key] !== undefined).map(
    ([key, column]) => sql`${sql.identifier(column)} = ${values[key]}`,
  );
  await conn.execute(
    sql`UPDATE customers SET ${sql.join([...sets, sql`updated_at = ${now}`], sql`, `)} WHERE company_id = ${companyId} AND id = ${id}`,
  );
}

export interface CustomerFilter {
  q?: string | undefined;
  enabled?: boolean | undefined;
}

/**
 * A page of customers by name (case ignored), then id, after the cursor's (name, id). `q` matches
 * every word in the stored search text (migration 0140: name without accents, document, email, phone
 * digits; trigram-indexed): a word that is a number as people write it ("20-12345678-6",
 * "4321-5678") is looked up by its digits.
 */
export async function listCustomers(
  conn: Conn,
  companyId: number,
  filter: CustomerFilter,
  after: { name: string; id: number } | null,
  limit: number,
): Promise<CustomerRow[]> {
  const words = (filter.q ?? '')
    .split(/\s+/)
    .map((word) => (/^\+?\d[\d\-.()/]*$/.test(word) ? word.replace(/\D/g, '') : word))
    .join(' ');
  const parts: SQL[] = [sql`c.company_id = ${companyId}`, ...searchMatches(sql`c.search`, words)];
  if (filter.enabled !== undefined) parts.push(sql`c.enabled = ${filter.enabled}`);
  if (after) parts.push(sql`(lower(c.name), c.id) > (lower(${after.name}), ${after.id})`);
  const rows = await selectRows<RawCustomerRow>(
    conn,
    sql`SELECT ${CUSTOMER_ROW} FROM customers c WHERE ${sql.join(parts, sql` AND `)}
        ORDER BY lower(c.name), c.id LIMIT ${limit}`,
  );
  return rows.map(toCustomerRow);
}

/** Every customer of the company in id order (the export). */
export async function allCustomers(conn: Conn, companyId: number): Promise<CustomerRow[]> {
  const rows = await selectRows<RawCustomerRow>(
    conn,
    sql`SELECT ${CUSTOMER_ROW} FROM customers c WHERE c.company_id = ${companyId} ORDER BY c.id`,
  );
  return rows.map(toCustomerRow);
}

/** One writer of a company's customers at a time (an import and a create checking the same document). */
export async function lockCustomers(conn: Conn, companyId: number): Promise<void> {
  await conn.execute(sql`SELECT pg_advisory_xact_lock(hashtext('customers'), ${companyId})`);
}
