import { sql } from 'drizzle-orm';
import { type Conn, selectRows } from '../../db/client.ts';

// The demo seed's own statements. The catalogue, stock and sales go through the modules that own
// them (products.service, stock.ledger, sales.service); these are the rows only the demo writes.

/** Serialises seeders across processes until the transaction ends. */
export async function lockDemoSeed(tx: Conn, key: number): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(${key})`);
}

export async function companyCount(conn: Conn): Promise<number> {
  const [row] = await selectRows<{ n: number }>(conn, sql`SELECT count(*)::int AS n FROM companies`);
  return Number(row?.n ?? 0);
}

export async function cuitInUse(conn: Conn, cuit: string): Promise<boolean> {
  const rows = await selectRows(conn, sql`SELECT 1 FROM companies WHERE cuit = ${cuit}`);
  return rows.length > 0;
}

/** How many companies are named like the demo (the next one gets a number). */
export async function companiesNamedLike(conn: Conn, prefix: string): Promise<number> {
  const [row] = await selectRows<{ n: number }>(
    conn,
    sql`SELECT count(*)::int AS n FROM companies WHERE name LIKE ${`${prefix}%`}`,
  );
  return Number(row?.n ?? 0);
}

/** The second deposit and box, and the categories. */
export async function insertPlaces(
  tx: Conn,
  companyId: number,
  places: {
    deposit: { id: number; name: string };
    box: { id: number; name: string };
    categories: { id: number; name: string }[];
  },
): Promise<void> {
  await tx.execute(
    sql`INSERT INTO deposits (company_id, id, name) VALUES (${companyId}, ${places.deposit.id}, ${places.deposit.name})`,
  );
  await tx.execute(sql`INSERT INTO boxes (company_id, id, name) VALUES (${companyId}, ${places.box.id}, ${places.box.name})`);
  await tx.execute(
    sql`INSERT INTO categories (company_id, id, name)
      SELECT ${companyId}, id, name
      FROM unnest(${sql.param(places.categories.map((c) => c.id))}::int[], ${sql.param(places.categories.map((c) => c.name))}::text[]) AS c(id, name)`,
  );
}

export interface DemoCustomer {
  id: number;
  name: string;
  documentType?: 'cuit' | 'dni';
  document?: string;
  ivaCondition: number;
  street?: string;
  city?: string;
  province?: string;
  postalCode?: string;
  email?: string;
  phone?: string;
  creditLimit?: string;
}

/** The demo's customers; those with a credit limit buy on account. */
export async function insertCustomers(tx: Conn, companyId: number, list: DemoCustomer[]): Promise<void> {
  for (const c of list) {
    await tx.execute(
      sql`INSERT INTO customers (company_id, id, name, document_type, document, iva_condition, street, city, province,
          postal_code, email, phone, account_enabled, credit_limit)
        VALUES (${companyId}, ${c.id}, ${c.name}, ${c.documentType ?? null}, ${c.document ?? null}, ${c.ivaCondition},
          ${c.street ?? null}, ${c.city ?? null}, ${c.province ?? null}, ${c.postalCode ?? null}, ${c.email ?? null},
          ${c.phone ?? null}, ${c.creditLimit !== undefined}, ${c.creditLimit ?? null})`,
    );
  }
}

/** The fiscal settings and point of sale with which the demo invoices against the built-in fake ARCA. */
export async function insertFiscal(
  tx: Conn,
  companyId: number,
  f: { legalName: string; address: string; grossIncome: string; activityStart: string; pointOfSale: number },
): Promise<void> {
  await tx.execute(
    sql`INSERT INTO company_fiscal (company_id, iva_condition, legal_name, address, gross_income, activity_start, auth_mode,
        environment, default_point_of_sale)
      VALUES (${companyId}, 'responsable_inscripto', ${f.legalName}, ${f.address}, ${f.grossIncome}, ${f.activityStart}::date,
        'delegation', 'homologacion', ${f.pointOfSale})`,
  );
  await tx.execute(
    sql`INSERT INTO fiscal_points_of_sale (company_id, number, emission_type, blocked)
      VALUES (${companyId}, ${f.pointOfSale}, 'CAE - Ri Iva', false)`,
  );
}

/** Prices of the picked products (a demo sale sells them at their list price). */
export function productPrices(conn: Conn, companyId: number, ids: number[]) {
  return selectRows<{ id: number; basePrice: string }>(
    conn,
    sql`SELECT id, base_price::text AS "basePrice" FROM products WHERE company_id = ${companyId} AND id = ANY(${sql.param(ids)}::int[])`,
  );
}
