import { and, eq, inArray, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { companies, products } from '../../db/schema/index.ts';

/** What a price scanner may show of a product: no cost, no stock. */
const SCANNER_COLUMNS = {
  id: products.id,
  name: products.name,
  description: products.description,
  bc: products.bc,
  basePrice: products.basePrice,
  photo: products.photo,
  mark: products.mark,
  categoryId: products.categoryId,
  enable: products.enable,
};

export interface ScannerRow {
  id: number;
  name: string;
  description: string;
  bc: string | null;
  basePrice: string;
  photo: string | null;
  mark: string | null;
  categoryId: number | null;
  enable: boolean;
}

export interface NameCandidate extends ScannerRow {
  /** word_similarity(query, name): how well the query matches some stretch of the name. */
  score: number;
  /** similarity(query, name): closeness of the whole strings, to order equal scores. */
  closeness: number;
}

/** How many nearest names the index hands over before they are filtered and re-ranked. */
export const NAME_CANDIDATES = 10;

/**
 * The scanner's SQL, as named prepared statements (parsed and planned once per connection).
 * Every statement is scoped by company and shows enabled products only.
 */
export function createScannerRepo(db: Db) {
  const companyId = sql.placeholder('companyId');
  const enabledOf = and(eq(products.companyId, companyId), eq(products.enable, true));

  // Two spellings of the code (EAN-13 and its UPC-A form) keep both partial indexes usable.
  const byCode = db
    .select(SCANNER_COLUMNS)
    .from(products)
    .where(
      and(
        enabledOf,
        or(inArray(products.bc, [sql.placeholder('code'), sql.placeholder('alt')]), eq(products.sku, sql.placeholder('code'))),
      ),
    )
    // A barcode match wins over a sku match.
    .orderBy(sql`(${products.bc} IN (${sql.placeholder('code')}, ${sql.placeholder('alt')})) DESC NULLS LAST`, products.id)
    .limit(1)
    .prepare('scanner_by_code');

  const bySku = db
    .select(SCANNER_COLUMNS)
    .from(products)
    .where(and(enabledOf, inArray(products.sku, [sql.placeholder('plu'), sql.placeholder('bare')])))
    .orderBy(products.id)
    .limit(1)
    .prepare('scanner_by_plu');

  // k-nearest-neighbour walk of the (company_id, search_text(name)) GiST index by word distance.
  // The scalar subquery makes the normalised query an InitPlan, computed once per execution (a
  // generic plan would otherwise recompute it for every row).
  const query = sql`(SELECT search_text(${sql.placeholder('query')}::text))`;
  const byName = db
    .select({
      ...SCANNER_COLUMNS,
      score: sql<number>`word_similarity(${query}, search_text(${products.name}))`.mapWith(Number),
      closeness: sql<number>`similarity(${query}, search_text(${products.name}))`.mapWith(Number),
    })
    .from(products)
    .where(enabledOf)
    .orderBy(sql`search_text(${products.name}) <->> ${query}`)
    .limit(NAME_CANDIDATES)
    .prepare('scanner_by_name');

  const scaleSetting = db
    .select({ setting: sql<unknown>`${companies.settings} -> 'scaleLabel'` })
    .from(companies)
    .where(eq(companies.id, companyId))
    .prepare('scanner_scale_setting');

  return {
    async findByCode(company: number, code: string, alt: string): Promise<ScannerRow | null> {
      const [row] = await byCode.execute({ companyId: company, code, alt });
      return row ?? null;
    },
    async findByPlu(company: number, plu: string, bare: string): Promise<ScannerRow | null> {
      const [row] = await bySku.execute({ companyId: company, plu, bare });
      return row ?? null;
    },
    async nearestByName(company: number, text: string): Promise<NameCandidate[]> {
      return byName.execute({ companyId: company, query: text });
    },
    /** The company's `settings.scaleLabel` (undefined when the company or the key is absent). */
    async findScaleSetting(company: number): Promise<unknown> {
      const [row] = await scaleSetting.execute({ companyId: company });
      return row?.setting ?? undefined;
    },
  };
}

export type ScannerRepo = ReturnType<typeof createScannerRepo>;
