import { and, asc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { type Conn, selectRows } from '../../db/client.ts';
import { products } from '../../db/schema/index.ts';

export interface ProductFilter {
  q?: string | undefined;
  categoryId?: number | undefined;
  mark?: string | undefined;
  enabled?: boolean | undefined;
  lowStock?: boolean | undefined;
}

/** `q` over name (accent- and case-insensitive), sku and barcode; the other filters as given. */
export function productWhere(companyId: number, filter: ProductFilter): SQL {
  const parts: SQL[] = [sql`p.company_id = ${companyId}`];
  // Every word of q, in the name (accents and case ignored), the sku or the barcode; the expression
  // is the one indexed by products_search_trgm_idx (migration 0016).
  const words = (filter.q ?? '')
    .toLowerCase()
    .split(/\s+/)
    .map((w) =>
      w
        .normalize('NFD')
        .replace(/\p{M}/gu, '')
        .replace(/[\\%_]/g, ''),
    )
    .filter(Boolean)
    .slice(0, 8);
  for (const word of words) {
    parts.push(sql`(search_text(p.name) || ' ' || lower(coalesce(p.sku, '')) || ' ' || coalesce(p.bc, '')) LIKE ${`%${word}%`}`);
  }
  if (filter.categoryId !== undefined) parts.push(sql`p.category_id = ${filter.categoryId}`);
  if (filter.mark?.trim()) parts.push(sql`lower(p.mark) = lower(${filter.mark.trim()})`);
  if (filter.enabled !== undefined) parts.push(sql`p.enable = ${filter.enabled}`);
  if (filter.lowStock) parts.push(sql`p.min_stock IS NOT NULL AND p.stock <= p.min_stock`);
  return sql.join(parts, sql` AND `);
}

/** A page of products by id, after `afterId`. */
export function listProductIds(conn: Conn, companyId: number, filter: ProductFilter, afterId: number, limit: number) {
  return selectRows<{ id: number }>(
    conn,
    sql`SELECT p.id FROM products p WHERE ${productWhere(companyId, filter)} AND p.id > ${afterId} ORDER BY p.id LIMIT ${limit}`,
  );
}

/** Whole product rows of one page, in id order. */
export function productsByIds(conn: Conn, companyId: number, ids: number[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return conn
    .select()
    .from(products)
    .where(and(eq(products.companyId, companyId), inArray(products.id, ids)))
    .orderBy(asc(products.id));
}

/** The other product of the company that already has this sku or barcode, if any. */
export async function findClash(
  conn: Conn,
  companyId: number,
  field: 'sku' | 'bc',
  value: string,
  exceptId: number | null,
): Promise<{ id: number; name: string } | null> {
  const column = field === 'sku' ? sql`sku` : sql`bc`;
  const [row] = await selectRows<{ id: number; name: string }>(
    conn,
    sql`SELECT id, name FROM products WHERE company_id = ${companyId} AND ${column} = ${value}
      AND id <> ${exceptId ?? 0} ORDER BY id LIMIT 1`,
  );
  return row ?? null;
}

/** Serialises the company's catalogue writers, so two of them cannot both take one sku or barcode. */
export async function lockCatalogue(tx: Conn, companyId: number): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('catalogue-unique'), ${companyId})`);
}

export async function categoryExists(conn: Conn, companyId: number, id: number): Promise<boolean> {
  return (await selectRows(conn, sql`SELECT 1 FROM categories WHERE company_id = ${companyId} AND id = ${id}`)).length > 0;
}

export function listCategories(conn: Conn, companyId: number) {
  return selectRows<{ id: number; name: string; products: number }>(
    conn,
    sql`SELECT c.id, c.name, (SELECT count(*) FROM products p WHERE p.company_id = c.company_id AND p.category_id = c.id)::int AS products
      FROM categories c WHERE c.company_id = ${companyId} ORDER BY lower(c.name), c.id`,
  );
}

export async function findCategoryByName(conn: Conn, companyId: number, name: string) {
  const [row] = await selectRows<{ id: number; name: string }>(
    conn,
    sql`SELECT id, name FROM categories WHERE company_id = ${companyId} AND lower(name) = lower(${name}) ORDER BY id LIMIT 1`,
  );
  return row ?? null;
}

export async function insertCategory(conn: Conn, companyId: number, id: number, name: string): Promise<void> {
  await conn.execute(sql`INSERT INTO categories (company_id, id, name) VALUES (${companyId}, ${id}, ${name})`);
}

export async function renameRow(
  conn: Conn,
  table: 'categories' | 'deposits' | 'boxes',
  companyId: number,
  id: number,
  name: string,
) {
  const rows = await selectRows<{ id: number }>(
    conn,
    sql`UPDATE ${sql.identifier(table)} SET name = ${name} WHERE company_id = ${companyId} AND id = ${id} RETURNING id`,
  );
  return rows.length > 0;
}

export function listDeposits(conn: Conn, companyId: number) {
  return selectRows<{ id: number; name: string; is_default: boolean }>(
    conn,
    sql`SELECT id, name, is_default FROM deposits WHERE company_id = ${companyId} ORDER BY id`,
  );
}

export async function depositExists(conn: Conn, companyId: number, id: number): Promise<boolean> {
  return (await selectRows(conn, sql`SELECT 1 FROM deposits WHERE company_id = ${companyId} AND id = ${id}`)).length > 0;
}

export async function insertDeposit(conn: Conn, companyId: number, id: number, name: string): Promise<void> {
  await conn.execute(sql`INSERT INTO deposits (company_id, id, name) VALUES (${companyId}, ${id}, ${name})`);
}

export function listBoxes(conn: Conn, companyId: number) {
  return selectRows<{ id: number; name: string; deposit_id: number }>(
    conn,
    sql`SELECT b.id, b.name, coalesce(b.deposit_id, (SELECT d.id FROM deposits d WHERE d.company_id = b.company_id AND d.is_default)) AS deposit_id
      FROM boxes b WHERE b.company_id = ${companyId} ORDER BY b.id`,
  );
}

export async function insertBox(conn: Conn, companyId: number, id: number, name: string, depositId: number | null) {
  await conn.execute(
    sql`INSERT INTO boxes (company_id, id, name, deposit_id) VALUES (${companyId}, ${id}, ${name}, ${depositId})`,
  );
}

export async function updateBox(conn: Conn, companyId: number, id: number, patch: { name?: string; depositId?: number }) {
  const sets: SQL[] = [];
  if (patch.name !== undefined) sets.push(sql`name = ${patch.name}`);
  if (patch.depositId !== undefined) sets.push(sql`deposit_id = ${patch.depositId}`);
  const rows = await selectRows<{ id: number }>(
    conn,
    sql`UPDATE boxes SET ${sql.join(sets, sql`, `)} WHERE company_id = ${companyId} AND id = ${id} RETURNING id`,
  );
  return rows.length > 0;
}

export interface StockRow {
  product_id: number;
  deposit_id: number;
  name: string;
  sku: string | null;
  stock: string;
  min_stock: string | null;
}

/** Stock per (product, deposit): every enabled product in every deposit (0 where nothing was booked). */
export function listStock(
  conn: Conn,
  companyId: number,
  filter: { depositId?: number | undefined; q?: string | undefined; lowStock?: boolean | undefined },
  after: { productId: number; depositId: number },
  limit: number,
) {
  const where = productWhere(companyId, { q: filter.q, enabled: true });
  return selectRows<StockRow>(
    conn,
    sql`SELECT p.id AS product_id, d.id AS deposit_id, p.name, p.sku, coalesce(sl.quantity, 0) AS stock, p.min_stock
      FROM products p
      JOIN deposits d ON d.company_id = p.company_id
      LEFT JOIN stock_levels sl ON sl.company_id = p.company_id AND sl.product_id = p.id AND sl.deposit_id = d.id
      WHERE ${where}
        ${filter.depositId !== undefined ? sql`AND d.id = ${filter.depositId}` : sql``}
        ${filter.lowStock ? sql`AND p.min_stock IS NOT NULL AND coalesce(sl.quantity, 0) <= p.min_stock` : sql``}
        AND (p.id, d.id) > (${after.productId}, ${after.depositId})
      ORDER BY p.id, d.id LIMIT ${limit}`,
  );
}

/** The quantity of a product in one deposit (0 when nothing was booked there). */
export async function quantityIn(conn: Conn, companyId: number, productId: number, depositId: number): Promise<string> {
  const [row] = await selectRows<{ quantity: string }>(
    conn,
    sql`SELECT quantity FROM stock_levels WHERE company_id = ${companyId} AND product_id = ${productId} AND deposit_id = ${depositId}`,
  );
  return row?.quantity ?? '0';
}

export function listMovements(conn: Conn, companyId: number, productId: number, beforeId: number, limit: number) {
  return selectRows<{
    id: number;
    type: 'IN' | 'OUT' | 'TRANSFER' | 'ADJUSTMENT';
    deposit_id: number;
    to_deposit_id: number | null;
    product_id: number;
    amount: string;
    reason: string | null;
    created_at: Date | string;
  }>(
    conn,
    sql`SELECT id, type, deposit_id, to_deposit_id, product_id, amount, reason, created_at FROM movements
      WHERE company_id = ${companyId} AND product_id = ${productId} AND id < ${beforeId}
      ORDER BY id DESC LIMIT ${limit}`,
  );
}

/** Products matched by a price change, locked for the update. */
export function productsForPriceChange(tx: Conn, companyId: number, filter: ProductFilter, lock: boolean) {
  return selectRows<{ id: number; name: string; base_price: string }>(
    tx,
    sql`SELECT p.id, p.name, p.base_price FROM products p WHERE ${productWhere(companyId, filter)} ORDER BY p.id${lock ? sql` FOR UPDATE` : sql``}`,
  );
}
