import { sql } from 'drizzle-orm';
import { type Conn, type Db, preparedStatement, selectRows } from '../../db/client.ts';
import type { IndexedName } from './name-index.ts';

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

/**
 * The scanner's SQL, as named prepared statements (parsed and planned once per connection).
 * Every statement is scoped by company and shows enabled products only.
 */
export function createScannerRepo(db: Db) {
  return {
    /**
     * A barcode match (either GTIN spelling) wins over a sku match: the barcode is asked first, by
     * itself, so the usual scan is one index scan on products_bc_idx (an OR of both codes in one
     * statement planned a bitmap OR and a sort on every scan, issue 33); the sku only when no
     * barcode matched.
     */
    async findByCode(company: number, code: string, alt: string): Promise<ScannerRow | null> {
      const [byBarcode] = await byBarcodeStatement.run(db, [company, code, alt]);
      if (byBarcode) return fromRaw(byBarcode);
      const [bySku] = await bySkuStatement.run(db, [company, code, code, code]);
      return bySku ? fromRaw(bySku) : null;
    },
    /** A product whose sku is one of the spellings of a PLU (as typed, without leading zeros, padded to 5). */
    async findByPlu(company: number, [plu, bare = plu, padded = plu]: string[]): Promise<ScannerRow | null> {
      const [row] = await bySkuStatement.run(db, [company, plu, bare, padded]);
      return row ? fromRaw(row) : null;
    },
    /** The company's enabled names for the in-memory index, and the catalogue version they are. */
    async loadNames(company: number): Promise<{ version: number; names: IndexedName[] }> {
      const rows = await namesStatement.run(db, [company]);
      const version = Number(rows[0]?.version ?? 0);
      const names = rows.filter((row) => row.id !== null).map((row) => ({ id: row.id!, name: row.name!, mark: row.mark }));
      return { version, names };
    },
    /** The ranked products (enabled ones only) and the company's catalogue version, in one statement. */
    async findRanked(company: number, ids: number[]): Promise<{ version: number; rows: ScannerRow[] }> {
      const raw =
        ids.length <= RANKED_IDS
          ? await rankedStatement.run(db, [company, ...ids, ...NO_IDS.slice(ids.length)])
          : await rankedManyStatement.run(db, [company, ids]);
      const version = Number(raw[0]?.version ?? 0);
      const rows = raw.filter((row) => row.id !== null).map(fromRaw);
      return { version, rows };
    },
    /** The company's `settings.scaleLabel` (undefined when the company or the key is absent). */
    async findScaleSetting(company: number): Promise<unknown> {
      const [row] = await scaleSettingStatement.run(db, [company]);
      return row?.setting ?? undefined;
    },
  };
}

const scaleSettingStatement = preparedStatement<{ setting: unknown }>(
  `SELECT settings -> 'scaleLabel' AS setting FROM companies WHERE id = $1`,
);

const VERSION = `(SELECT coalesce((SELECT version FROM catalogue_versions WHERE company_id = $1), 0) AS version)`;

const namesStatement = preparedStatement<{ version: string; id: number | null; name: string | null; mark: string | null }>(
  `SELECT v.version, p.id, p.name, p.mark
     FROM ${VERSION} v
     LEFT JOIN products p ON p.company_id = $1 AND p.enable`,
);

interface RawRow {
  version: string;
  id: number | null;
  name: string;
  description: string;
  bc: string | null;
  base_price: string;
  photo: string | null;
  mark: string | null;
  category_id: number | null;
  enable: boolean;
}

/**
 * A name lookup's answer and alternatives: up to 6 ids, one parameter each (a missing one is
 * NULL, which matches nothing). With `id = ANY($2::int[])` PostgreSQL never kept a generic plan
 * (its estimate of an array's length made the generic plan look dearer than a custom one) and
 * planned the statement again on every lookup: 170–190 µs of the server's CPU per execution,
 * against 55–70 µs with six parameters (issue 33; docs/decisiones.md).
 */
const RANKED_IDS = 6;
const NO_IDS: null[] = Array.from({ length: RANKED_IDS }, () => null);
const RANKED_COLUMNS = 'v.version, p.id, p.name, p.description, p.bc, p.base_price, p.photo, p.mark, p.category_id, p.enable';

const rankedStatement = preparedStatement<RawRow>(
  `SELECT ${RANKED_COLUMNS}
     FROM ${VERSION} v
     LEFT JOIN products p ON p.company_id = $1 AND p.id IN ($2, $3, $4, $5, $6, $7) AND p.enable`,
);

/** More ids than that (no caller asks for them today): one array parameter. */
const rankedManyStatement = preparedStatement<RawRow>(
  `SELECT ${RANKED_COLUMNS}
     FROM ${VERSION} v
     LEFT JOIN products p ON p.company_id = $1 AND p.id = ANY($2::int[]) AND p.enable`,
);

/** What a price scanner may show of a product (no cost, no stock), enabled products only. */
const SCANNER_SELECT = `SELECT p.id, p.name, p.description, p.bc, p.base_price::text AS base_price, p.photo, p.mark,
    p.category_id, p.enable FROM products p WHERE p.company_id = $1 AND p.enable`;

const byBarcodeStatement = preparedStatement<RawRow>(`${SCANNER_SELECT} AND p.bc IN ($2, $3) ORDER BY p.id LIMIT 1`);

const bySkuStatement = preparedStatement<RawRow>(`${SCANNER_SELECT} AND p.sku IN ($2, $3, $4) ORDER BY p.id LIMIT 1`);

function fromRaw(row: RawRow): ScannerRow {
  return {
    id: row.id!,
    name: row.name,
    description: row.description,
    bc: row.bc,
    basePrice: String(row.base_price),
    photo: row.photo,
    mark: row.mark,
    categoryId: row.category_id,
    enable: row.enable,
  };
}

export type ScannerRepo = ReturnType<typeof createScannerRepo>;

// --- the scale-label setting (scale-settings.ts) ---

/** The company's stored scale-label setting (companies.settings.scaleLabel); null when the company does not exist. */
export async function findScaleLabelSetting(conn: Conn, companyId: number): Promise<{ setting: unknown } | null> {
  const [row] = await selectRows<{ setting: unknown }>(
    conn,
    sql`SELECT settings -> 'scaleLabel' AS setting FROM companies WHERE id = ${companyId}`,
  );
  return row ?? null;
}

/** A PLU of the catalogue for the preview: a numeric sku, weighed products first. */
export async function findSamplePlu(conn: Conn, companyId: number): Promise<string | null> {
  const [row] = await selectRows<{ sku: string }>(
    conn,
    sql`SELECT sku FROM products WHERE company_id = ${companyId} AND enable AND sku ~ '^[0-9]{1,6}$'
        ORDER BY (unit = 'kg') DESC, id LIMIT 1`,
  );
  return row?.sku ?? null;
}

export async function setScaleLabelSetting(conn: Conn, companyId: number, setting: unknown) {
  await conn.execute(
    sql`UPDATE companies SET settings = jsonb_set(settings, '{scaleLabel}', ${JSON.stringify(setting)}::jsonb)
         WHERE id = ${companyId}`,
  );
}

/** The enabled product whose sku is one of a label's PLU spellings (the lowest id). */
export async function findProductByPluSpellings(
  conn: Conn,
  companyId: number,
  [plu, bare, padded]: [string, string, string],
): Promise<{ id: number; name: string; base_price: string } | null> {
  const [row] = await selectRows<{ id: number; name: string; base_price: string }>(
    conn,
    sql`SELECT id, name, base_price FROM products
         WHERE company_id = ${companyId} AND enable AND sku IN (${plu}, ${bare}, ${padded}) ORDER BY id LIMIT 1`,
  );
  return row ?? null;
}
