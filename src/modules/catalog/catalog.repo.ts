import { type SQL, sql } from 'drizzle-orm';
import {
  type Conn,
  columnList,
  placeholderText,
  preparedTemplate,
  selectRows,
  selectTableRows,
  setList,
  valuesList,
} from '../../db/client.ts';
import { products } from '../../db/schema/index.ts';
import { asParam, type Bind, charPairs, searchMatches, searchPairs, searchWords } from '../../db/search.ts';
import { dbDate } from '../../db/dates.ts';

/** A product row as the database holds it (without the generated search text, which nobody reads back). */
export type ProductRow = Omit<typeof products.$inferSelect, 'search'>;

export interface ProductFilter {
  q?: string | undefined;
  categoryId?: number | undefined;
  mark?: string | undefined;
  enabled?: boolean | undefined;
  lowStock?: boolean | undefined;
}

/**
 * `q` over name (accent- and case-insensitive), sku and barcode; the other filters as given. Values
 * go in as parameters, or through `bind` as the placeholders of a prepared template (listProducts).
 * Every condition binds a value under a name of its own, so the names bound say which conditions
 * the statement has: listProducts keys its prepared statements by them.
 */
export function productWhere(companyId: number, filter: ProductFilter, bind: Bind = asParam): SQL {
  const parts: SQL[] = [sql`p.company_id = ${bind('company', companyId)}`];
  // Every word of q, in the name (accents and case ignored), the sku or the barcode: the stored
  // search column of migration 0017, trigram-indexed (products_search_idx). A shorter word cannot
  // use that index (pg_trgm would read all of it), so it is a plain substring test on the rows found.
  parts.push(...searchMatches(sql`p.search`, filter.q, bind));
  if (filter.categoryId !== undefined) parts.push(sql`p.category_id = ${bind('category', filter.categoryId)}`);
  if (filter.mark?.trim()) parts.push(sql`lower(p.mark) = lower(${bind('mark', filter.mark.trim())})`);
  if (filter.enabled !== undefined) parts.push(sql`p.enable = ${bind('enabled', filter.enabled)}`);
  // Low: at or under its minimum, or below zero whatever its minimum (the shelf sold what the books lacked).
  if (filter.lowStock) {
    parts.push(sql`(p.stock < ${bind('lowStock', 0)} OR (p.min_stock IS NOT NULL AND p.stock <= p.min_stock))`);
  }
  return sql.join(parts, sql` AND `);
}

/**
 * The columns of a product row under ProductRow's names, numerics as text (as drizzle reads them):
 * read with a plain SELECT and mapped by toProductRow, which costs a fraction of drizzle's typed
 * select on 50 or 10,000 rows.
 */
const PRODUCT_ROW = sql.raw(`p.company_id AS "companyId", p.id, p.sku, p.bc, p.name, p.description,
  p.base_price::text AS "basePrice", p.stock::text AS stock, p.category_id AS "categoryId", p.mark, p.enable, p.photo,
  p.created_at AS "createdAt", p.updated_at AS "updatedAt", p.iva_rate AS "ivaRate", p.cost::text AS cost, p.unit,
  p.min_stock::text AS "minStock"`);

type RawProductRow = Omit<ProductRow, 'createdAt' | 'updatedAt'> & { createdAt: Date | string; updatedAt: Date | string };

function toProductRow(raw: RawProductRow): ProductRow {
  return {
    ...raw,
    companyId: Number(raw.companyId),
    id: Number(raw.id),
    categoryId: raw.categoryId === null ? null : Number(raw.categoryId),
    createdAt: dbDate(raw.createdAt),
    updatedAt: dbDate(raw.updatedAt),
  };
}

/** Rows a search reads in id order before it asks the trigram index instead (see listProducts and denseWindow). */
const DENSE_WINDOW_PER_ROW = 40;
/** The most rows per row of the page the dense plan may read when the statistics promise a page within them (denseWindow). */
const DENSE_WINDOW_MAX_PER_ROW = 300;

/**
 * A pair of characters in more than this share of all products is not worth asking the index of
 * pairs for (searchPairs): "de" is in a quarter of the bench's products, and asking for it made
 * "yerba de" slower (4 -> 5.4 ms); "kg" is in 1.7 %.
 */
const COMMON_PAIR_SHARE = 0.05;
/** How long the pairs' shares read from PostgreSQL's statistics are kept (they change with ANALYZE). */
const PAIR_STATS_TTL_MS = 10 * 60_000;
let pairStats: { readAt: number; stats: PairShares } | null = null;

/**
 * The share of products that hold each of the most common pairs of characters, as the last ANALYZE
 * of the index of pairs counted them (pg_stats of products_search_pairs_idx; the whole table, as the
 * index is); a pair not listed is rarer than all of them: at most `rarest`, the least share listed
 * (null, and `share` empty, before the first ANALYZE).
 */
export interface PairShares {
  share: Map<string, number>;
  rarest: number | null;
}

/** Reads the statistics again on the next search (a test that has just analyzed its products). */
export function forgetPairStats() {
  pairStats = null;
}

/** PairShares from pg_stats, read again after PAIR_STATS_TTL_MS. */
async function commonPairs(conn: Conn): Promise<PairShares> {
  const now = Date.now();
  if (pairStats && now - pairStats.readAt < PAIR_STATS_TTL_MS) return pairStats.stats;
  const [row] = await selectRows<{ elems: string[] | null; freqs: number[] | null }>(
    conn,
    sql`SELECT most_common_elems::text::text[] AS elems, most_common_elem_freqs AS freqs
      FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'products_search_pairs_idx'`,
  );
  const share = new Map<string, number>();
  // The frequencies go in the order of the elements, then three summary figures: the least of
  // them, the greatest, and the share of null arrays.
  const elems = row?.elems ?? [];
  for (let i = 0; i < elems.length; i++) share.set(elems[i]!, Number(row?.freqs?.[i] ?? 0));
  const least = row?.freqs?.[elems.length];
  const stats = { share, rarest: elems.length > 0 && least !== undefined && least !== null ? Number(least) : null };
  pairStats = { readAt: now, stats };
  return stats;
}

/**
 * How many products in id order the dense plan reads for these words: DENSE_WINDOW_PER_ROW rows per
 * row of the page, or more when the statistics say a page should be found within
 * DENSE_WINDOW_MAX_PER_ROW. A word is in at most the share of products of its rarest pair of
 * characters (a pair not listed: at most the rarest listed), the words taken as independent; the
 * window is the rows where twice a page is expected at that share. "galletitas terrabusi" (one
 * product in 105 of the bench's has both): 2,040 rows found 19 and the indexes then read all 952
 * products with both, 7.1 ms a request; with about 12,000 rows the 51st match stops the reading
 * at row 5,300 (2.2 ms). A common word stops at its page whatever the window; one the statistics
 * call rarer than the maximum keeps the default, which costs little when it finds nothing (the
 * indexes answer). The page is the same with any window: only the time changes.
 */
export function denseWindow(words: string[], pairs: PairShares, limit: number): number {
  const base = limit * DENSE_WINDOW_PER_ROW;
  if (pairs.rarest === null || words.length === 0) return base;
  let share = 1;
  for (const word of words) {
    const wordPairs = charPairs(word);
    if (wordPairs.length === 0) continue; // one character: no pair says how common it is
    share *= Math.min(...wordPairs.map((pair) => pairs.share.get(pair) ?? pairs.rarest!));
  }
  const expected = share > 0 ? Math.ceil((2 * limit) / share) : Number.POSITIVE_INFINITY;
  return expected <= limit * DENSE_WINDOW_MAX_PER_ROW ? Math.max(base, expected) : base;
}

/** The list statement of each shape of filter (the names its WHERE binds), prepared once; see listProducts. */
const listStatements = new Map<string, ReturnType<typeof preparedTemplate<RawProductRow>>>();
/** Shapes kept (a shape is which filters and how many words of which kind): far more than a shop uses. */
const MAX_LIST_SHAPES = 200;

/**
 * A page of products (whole rows, in id order) after `afterId`, in one statement. Without a search,
 * the primary key in order. With one, two plans, because PostgreSQL cannot tell them apart from its
 * estimates (it takes the words of "harina 1 kg" as independent, walks the primary key expecting a
 * match every hundred rows and reads the whole catalogue to find none):
 * - dense: the next `limit × 40` products in id order, or more when the statistics promise a page
 *   within more (denseWindow: "azucar ledesma"), filtered; when that finds a full page, it is the
 *   page (a common word: "yerba" matches one product in twelve);
 * - sparse: otherwise every match after `afterId` from the trigram index, sorted, the first `limit`
 *   (a rare word or a rare combination, a barcode). Skipped when dense was enough.
 *   A word too short for trigrams ("kg", "1,5") also asks the index of pairs of characters here
 *   (searchPairs) unless all its pairs are common (commonPairs), so "harina 1 kg" reads the few
 *   rows with both instead of every "harina"; dense tests it with strpos alone (cheaper on rows
 *   already read).
 * The statement of each shape of filter is built and prepared once (named, per connection): a call
 * only fills in its values, so neither drizzle nor PostgreSQL parses it again, and PostgreSQL may
 * keep one plan for it (the CTEs fix the plan's shape whatever the values).
 */
export async function listProducts(
  conn: Conn,
  companyId: number,
  filter: ProductFilter,
  afterId: number,
  limit: number,
): Promise<ProductRow[]> {
  const words = searchWords(filter.q);
  const stats = words.length > 0 ? await commonPairs(conn) : null;
  const values: Record<string, unknown> = {
    after: afterId,
    limit,
    window: stats ? denseWindow(words, stats, limit) : limit * DENSE_WINDOW_PER_ROW,
  };
  const names: string[] = [];
  const bind: Bind = (name, value) => {
    values[name] = value;
    names.push(name);
    return sql.placeholder(name);
  };
  const where = productWhere(companyId, filter, bind);
  const pairs = searchPairs(sql`p.search`, filter.q, bind, (wordPairs) =>
    wordPairs.filter((pair) => (stats?.share.get(pair) ?? 0) <= COMMON_PAIR_SHARE),
  );
  // The names bound are the shape (compiling the WHERE to key by its text cost as much as the SQL saved).
  const key = names.join(' ');
  let statement = listStatements.get(key);
  if (!statement) {
    const indexed = pairs.length > 0 ? sql`${where} AND ${sql.join(pairs, sql` AND `)}` : where;
    placeholderText(indexed); // throws if a value went in without bind: it would be baked into the statement
    statement = preparedTemplate<RawProductRow>(listStatement(where, indexed, words.length > 0));
    if (listStatements.size < MAX_LIST_SHAPES) listStatements.set(key, statement);
  }
  return (await statement.run(conn, values)).map(toProductRow);
}

/** `indexed`: `where` and what only an index answers (searchPairs), for the plan that starts from the indexes. */
function listStatement(where: SQL, indexed: SQL, search: boolean): SQL {
  const after = sql.placeholder('after');
  const limit = sql.placeholder('limit');
  const ids = search
    ? sql`WITH dense AS MATERIALIZED (
          SELECT p.id FROM (
            SELECT * FROM products WHERE company_id = ${sql.placeholder('company')} AND id > ${after}
            ORDER BY id LIMIT ${sql.placeholder('window')}
          ) p
          WHERE ${where} ORDER BY p.id LIMIT ${limit}
        ),
        sparse AS MATERIALIZED (
          SELECT p.id FROM products p WHERE ${indexed} AND p.id > ${after} AND (SELECT count(*) FROM dense) < ${limit}
        )
        SELECT id FROM dense WHERE (SELECT count(*) FROM dense) >= ${limit}
        UNION ALL
        (SELECT id FROM sparse ORDER BY id LIMIT ${limit})`
    : sql`SELECT p.id FROM products p WHERE ${where} AND p.id > ${after} ORDER BY p.id LIMIT ${limit}`;
  return sql`SELECT ${PRODUCT_ROW} FROM products p WHERE p.company_id = ${sql.placeholder('company')} AND p.id IN (${ids}) ORDER BY p.id`;
}

/** Whole product rows by id, in id order. */
export async function productsByIds(conn: Conn, companyId: number, ids: number[]): Promise<ProductRow[]> {
  if (ids.length === 0) return [];
  const rows = await selectRows<RawProductRow>(
    conn,
    sql`SELECT ${PRODUCT_ROW} FROM products p WHERE p.company_id = ${companyId} AND p.id = ANY(${sql.param(ids)}::int[]) ORDER BY p.id`,
  );
  return rows.map(toProductRow);
}

/** One whole product row, or null; `lock` takes it FOR UPDATE (a writer that reads, then decides). */
export async function productById(conn: Conn, companyId: number, id: number, lock = false): Promise<ProductRow | null> {
  const [row] = await selectRows<RawProductRow>(
    conn,
    sql`SELECT ${PRODUCT_ROW} FROM products p WHERE p.company_id = ${companyId} AND p.id = ${id}${lock ? sql` FOR UPDATE` : sql``}`,
  );
  return row ? toProductRow(row) : null;
}

/** Sets the given catalogue fields and `updated_at` of one product. */
export async function updateProduct(
  conn: Conn,
  companyId: number,
  id: number,
  fields: Partial<typeof products.$inferInsert>,
  updatedAt: Date,
): Promise<void> {
  await conn.execute(
    sql`UPDATE products SET ${setList(products, { ...fields, updatedAt })} WHERE company_id = ${companyId} AND id = ${id}`,
  );
}

/** The catalogue as the export writes it: one row per product in id order, category by name. */
/** The catalogue's export rows, with each product's stock in one deposit (`deposit_stock`, 0 when none). */
export function exportRows(conn: Conn, companyId: number, depositId: number) {
  return selectRows<{
    id: number;
    sku: string | null;
    bc: string | null;
    name: string;
    description: string;
    base_price: string;
    cost: string | null;
    iva_rate: string;
    category: string | null;
    mark: string | null;
    enable: boolean;
    min_stock: string | null;
    unit: string;
    stock: string;
    deposit_stock: string;
  }>(
    conn,
    sql`SELECT p.id, p.sku, p.bc, p.name, p.description, p.base_price, p.cost, p.iva_rate, c.name AS category, p.mark, p.enable,
        p.min_stock, p.unit, p.stock, coalesce(l.quantity, 0)::text AS deposit_stock
      FROM products p LEFT JOIN categories c ON c.company_id = p.company_id AND c.id = p.category_id
      LEFT JOIN stock_levels l ON l.company_id = p.company_id AND l.deposit_id = ${depositId} AND l.product_id = p.id
      WHERE p.company_id = ${companyId} ORDER BY p.id`,
  );
}

/** The quantity of each of these products in one deposit (absent: none booked there). */
export async function depositQuantities(
  conn: Conn,
  companyId: number,
  depositId: number,
  productIds: number[],
): Promise<Map<number, string>> {
  if (productIds.length === 0) return new Map();
  const rows = await selectRows<{ product_id: number; quantity: string }>(
    conn,
    sql`SELECT product_id, quantity::text AS quantity FROM stock_levels
      WHERE company_id = ${companyId} AND deposit_id = ${depositId}
        AND product_id = ANY(${sql.param(productIds)}::int[])`,
  );
  return new Map(rows.map((r) => [Number(r.product_id), r.quantity]));
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
        ${filter.lowStock ? sql`AND (coalesce(sl.quantity, 0) < 0 OR (p.min_stock IS NOT NULL AND coalesce(sl.quantity, 0) <= p.min_stock))` : sql``}
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

/**
 * The products a spreadsheet import can touch, in one statement: those with one of the file's skus
 * or barcodes, or whose name (lower case, as PostgreSQL lowers it) is one of `names`. Each with its
 * lower-cased name.
 */
export async function productsForImport(
  conn: Conn,
  companyId: number,
  keys: { ids: number[]; skus: string[]; barcodes: string[]; names: string[] },
) {
  const rows = await selectTableRows(
    conn,
    products,
    sql`SELECT ${columnList(products, 'p')}, lower(p.name) AS lname FROM products p
      WHERE p.company_id = ${companyId} AND (p.id = ANY(${sql.param(keys.ids)}::int[])
        OR p.sku = ANY(${sql.param(keys.skus)}::text[])
        OR p.bc = ANY(${sql.param(keys.barcodes)}::text[])
        OR lower(p.name) IN (SELECT lower(n) FROM unnest(${sql.param(keys.names)}::text[]) AS n))
      ORDER BY p.id`,
  );
  return rows.map((row) => {
    const { lname, ...product } = row as typeof row & { lname: string };
    return { product: product as typeof products.$inferSelect, lname };
  });
}

/** Each text as PostgreSQL's lower() spells it (names compare as the database compares them). */
export async function lowerTexts(conn: Conn, texts: string[]): Promise<Map<string, string>> {
  const rows = await selectRows<{ t: string; l: string }>(
    conn,
    sql`SELECT t, lower(t) AS l FROM unnest(${sql.param(texts)}::text[]) AS t`,
  );
  return new Map(rows.map((r) => [r.t, r.l]));
}

/** The company's categories by lower-cased name (the first one of each name). */
export async function categoryIdsByName(conn: Conn, companyId: number): Promise<Map<string, number>> {
  const rows = await selectRows<{ id: number; l: string }>(
    conn,
    sql`SELECT id, lower(name) AS l FROM categories WHERE company_id = ${companyId} ORDER BY id DESC`,
  );
  return new Map(rows.map((r) => [r.l, Number(r.id)]));
}

export async function insertCategories(conn: Conn, companyId: number, rows: { id: number; name: string }[]): Promise<void> {
  if (rows.length === 0) return;
  await conn.execute(
    sql`INSERT INTO categories (company_id, id, name)
      SELECT ${companyId}, id, name FROM unnest(${sql.param(rows.map((r) => r.id))}::int[], ${sql.param(rows.map((r) => r.name))}::text[]) AS c(id, name)`,
  );
}

/** Rows per INSERT of new products (18 columns: well under the 65,535 parameters of a statement). */
const INSERT_CHUNK = 1000;

/** New products in multi-row INSERTs; a column a row does not give takes the table's default. */
export async function insertProducts(conn: Conn, rows: (typeof products.$inferInsert)[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await conn.execute(sql`INSERT INTO products ${valuesList(products, rows.slice(i, i + INSERT_CHUNK))}`);
  }
}

/** A product update: the fields to set (a key absent is left as it is; null sets NULL). */
export interface ProductPatch {
  id: number;
  sku?: string | null;
  bc?: string | null;
  name?: string;
  description?: string;
  base_price?: string;
  cost?: string | null;
  iva_rate?: string;
  category_id?: number | null;
  mark?: string | null;
  enable?: boolean;
  min_stock?: string | null;
  unit?: string;
  photo?: string | null;
}

const PATCHABLE: [column: keyof Omit<ProductPatch, 'id'>, type: string][] = [
  ['sku', 'text'],
  ['bc', 'text'],
  ['name', 'text'],
  ['description', 'text'],
  ['base_price', 'numeric'],
  ['cost', 'numeric'],
  ['iva_rate', 'text'],
  ['category_id', 'integer'],
  ['mark', 'text'],
  ['enable', 'boolean'],
  ['min_stock', 'numeric'],
  ['unit', 'text'],
  ['photo', 'text'],
];

/**
 * Several product updates in one statement (UPDATE … FROM the patches as JSON), each setting only
 * its own fields and `updated_at`. They are the shop's own edits (an import, a price change), made
 * now: each applies, stamped `updatedAt` or the stored `updated_at` if an integration set it later
 * (as upsertProduct's `latest`). Returns the ids updated.
 */
export async function updateProducts(conn: Conn, companyId: number, patches: ProductPatch[], updatedAt: Date): Promise<number[]> {
  if (patches.length === 0) return [];
  const sets = PATCHABLE.map(
    ([column, type]) =>
      sql`${sql.identifier(column)} = CASE WHEN e.v ? ${column} THEN (e.v->>${column})::${sql.raw(type)} ELSE p.${sql.identifier(column)} END`,
  );
  const rows = await selectRows<{ id: number }>(
    conn,
    sql`UPDATE products p SET ${sql.join(sets, sql`, `)},
        updated_at = greatest(p.updated_at, ${updatedAt.toISOString()}::timestamptz)
      FROM jsonb_array_elements(${JSON.stringify(patches)}::jsonb) AS e(v)
      WHERE p.company_id = ${companyId} AND p.id = (e.v->>'id')::integer
      RETURNING p.id`,
  );
  return rows.map((r) => Number(r.id));
}
