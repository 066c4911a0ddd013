import { sql } from 'drizzle-orm';
import { type Conn, type Database, selectRows } from '../../db/client.ts';
import { nextId } from '../../db/ids.ts';
import type { IvaRate } from '../../db/schema/index.ts';
import type { CompanyCtx } from '../../http/request-context.ts';
import { AppError } from '../../lib/errors.ts';
import { fromCents, fromMilli, moneyToNumber, quantityToNumber, toCents, toMilli } from '../../lib/money.ts';
import type { Clock } from '../../lib/time.ts';
import { auditBy, recordAudit } from '../audit/audit.repo.ts';
import * as repo from './catalog.repo.ts';
import { normaliseBarcode } from './catalog.service.ts';
import {
  csvCell,
  decodeSpreadsheet,
  detectSeparator,
  EXPORT_HEADERS,
  formatAmount,
  type ImportField,
  mapHeaders,
  parseAmount,
  parseBoolean,
  parseCsv,
  parseIva,
} from './csv.ts';
import { findProduct, type ProductInput, type ProductRow, upsertProduct } from './products.service.ts';

export interface ImportError {
  line: number;
  column: string | null;
  message: string;
}

export interface ImportResult {
  created: number;
  updated: number;
  unchanged: number;
  errors: ImportError[];
  dry_run: boolean;
  encoding: 'utf-8' | 'windows-1252';
  separator: ';' | ',';
  ignored_columns: string[];
}

/** A row after parsing: only the columns the file has. */
type Row = Partial<{
  barcode: string | null;
  sku: string | null;
  name: string;
  description: string;
  price: number;
  cost: number | null;
  iva: IvaRate;
  category: string | null;
  mark: string | null;
  enabled: boolean;
  min_stock: number | null;
}>;

export const MAX_IMPORT_ROWS = 50_000;
class DryRun extends Error {}

function parseRow(cells: string[], fields: (ImportField | null)[], headers: string[], separator: ';' | ',', line: number) {
  const row: Row = {};
  const errors: ImportError[] = [];
  const fail = (i: number, message: string) => errors.push({ line, column: headers[i]!, message });
  fields.forEach((field, i) => {
    if (field === null) return;
    const raw = (cells[i] ?? '').trim();
    switch (field) {
      case 'barcode':
        if (raw === '') row.barcode = null;
        else {
          try {
            row.barcode = normaliseBarcode(raw);
          } catch (err) {
            fail(i, (err as Error).message.replace(/^barcode /, 'el código '));
          }
        }
        break;
      case 'sku':
        row.sku = raw === '' ? null : raw;
        break;
      case 'name':
        if (raw !== '') row.name = raw;
        break;
      case 'description':
        row.description = raw;
        break;
      case 'price': {
        if (raw === '') break;
        const value = parseAmount(raw, separator);
        if (value === null || value < 0) fail(i, `precio inválido: "${raw}" (usá 1.234,56 o 1234.56)`);
        else row.price = value;
        break;
      }
      case 'cost': {
        if (raw === '') {
          row.cost = null;
          break;
        }
        const value = parseAmount(raw, separator);
        if (value === null || value < 0) fail(i, `costo inválido: "${raw}"`);
        else row.cost = value;
        break;
      }
      case 'iva': {
        if (raw === '') break;
        const rate = parseIva(raw);
        if (rate === null) fail(i, `IVA inválido: "${raw}" (21, 10,5, 27, 5, 2,5, 0 o exento)`);
        else row.iva = rate as IvaRate;
        break;
      }
      case 'category':
        row.category = raw === '' ? null : raw;
        break;
      case 'mark':
        row.mark = raw === '' ? null : raw;
        break;
      case 'enabled': {
        if (raw === '') break;
        const value = parseBoolean(raw);
        if (value === null) fail(i, `activo debe ser sí o no (dice "${raw}")`);
        else row.enabled = value;
        break;
      }
      case 'min_stock': {
        if (raw === '') {
          row.min_stock = null;
          break;
        }
        const value = parseAmount(raw, separator);
        if (value === null || value < 0) fail(i, `stock mínimo inválido: "${raw}"`);
        else row.min_stock = value;
        break;
      }
    }
  });
  return { row, errors };
}

/** What a row would change on a product (empty when nothing). */
function differences(product: ProductRow | null, row: Row, categoryId: number | null | undefined): ProductInput {
  const input: ProductInput = {};
  const same = (a: unknown, b: unknown) => a === b;
  if (row.sku !== undefined && !same(product?.sku ?? null, row.sku)) input.sku = row.sku;
  if (row.barcode !== undefined && !same(product?.bc ?? null, row.barcode)) input.bc = row.barcode;
  if (row.name !== undefined && !same(product?.name, row.name)) input.name = row.name;
  if (row.description !== undefined && !same(product?.description ?? '', row.description)) input.description = row.description;
  if (row.price !== undefined && (!product || toCents(product.basePrice) !== toCents(row.price)))
    input.basePrice = fromCents(toCents(row.price));
  if (row.cost !== undefined) {
    const next = row.cost === null ? null : fromCents(toCents(row.cost));
    const current = product?.cost === null || product?.cost === undefined ? null : fromCents(toCents(product.cost));
    if (next !== current) input.cost = next;
  }
  if (row.iva !== undefined && !same(product?.ivaRate, row.iva)) input.ivaRate = row.iva;
  if (categoryId !== undefined && !same(product?.categoryId ?? null, categoryId)) input.categoryId = categoryId;
  if (row.mark !== undefined && !same(product?.mark ?? null, row.mark)) input.mark = row.mark;
  if (row.enabled !== undefined && !same(product?.enable, row.enabled)) input.enable = row.enabled;
  if (row.min_stock !== undefined) {
    const next = row.min_stock === null ? null : fromMilli(toMilli(row.min_stock));
    const current = product?.minStock === null || product?.minStock === undefined ? null : fromMilli(toMilli(product.minStock));
    if (next !== current) input.minStock = next;
  }
  return input;
}

async function findBy(conn: Conn, companyId: number, field: 'sku' | 'bc', value: string): Promise<number | null> {
  const [row] = await selectRows<{ id: number }>(
    conn,
    field === 'sku'
      ? sql`SELECT id FROM products WHERE company_id = ${companyId} AND sku = ${value} ORDER BY id LIMIT 1`
      : sql`SELECT id FROM products WHERE company_id = ${companyId} AND bc = ${value} ORDER BY id LIMIT 1`,
  );
  return row ? Number(row.id) : null;
}

async function findByName(conn: Conn, companyId: number, name: string): Promise<number | null> {
  const rows = await selectRows<{ id: number }>(
    conn,
    sql`SELECT id FROM products WHERE company_id = ${companyId} AND lower(name) = lower(${name}) ORDER BY id LIMIT 2`,
  );
  return rows.length === 1 ? Number(rows[0]!.id) : null;
}

export type CatalogImport = ReturnType<typeof createCatalogImport>;

/**
 * Spreadsheet import and export of the catalogue. Rows with errors are skipped and reported with
 * their line and column; the others are applied in one transaction (a dry run rolls it back), with
 * a product.upserted per created or changed product. A product is matched by sku, then by barcode.
 */
export function createCatalogImport({ db, clock }: { db: Database; clock: Clock }) {
  async function importCsv(ctx: CompanyCtx, bytes: Uint8Array, dryRun: boolean): Promise<ImportResult> {
    const { text, encoding } = decodeSpreadsheet(bytes);
    const separator = detectSeparator(text);
    const rows = parseCsv(text, separator);
    const header = rows[0];
    if (!header || header.every((h) => h.trim() === '')) {
      throw new AppError(
        'validation_failed',
        'the file is empty: the first line must name the columns (nombre, precio, sku, codigo…)',
      );
    }
    const fields = mapHeaders(header);
    if (!fields.includes('name') && !fields.includes('sku') && !fields.includes('barcode')) {
      throw new AppError(
        'validation_failed',
        'no known column: the first line must name the columns, e.g. sku;codigo;nombre;precio (see /docs/api-comercio)',
      );
    }
    if (rows.length - 1 > MAX_IMPORT_ROWS) {
      throw new AppError('payload_too_large', `at most ${MAX_IMPORT_ROWS} rows per import (got ${rows.length - 1})`);
    }
    const result: ImportResult = {
      created: 0,
      updated: 0,
      unchanged: 0,
      errors: [],
      dry_run: dryRun,
      encoding,
      separator,
      ignored_columns: header
        .filter((_, i) => fields[i] === null)
        .map((h) => h.trim())
        .filter(Boolean),
    };
    try {
      await db.orm.transaction(async (tx) => {
        await repo.lockCatalogue(tx, ctx.companyId);
        const now = clock.now();
        const categories = new Map<string, number>();
        const seen = new Map<string, number>();
        for (let index = 1; index < rows.length; index++) {
          const cells = rows[index]!;
          const line = index + 1;
          if (cells.every((c) => c.trim() === '')) continue;
          const { row, errors } = parseRow(cells, fields, header, separator, line);
          if (errors.length > 0) {
            result.errors.push(...errors);
            continue;
          }
          const rowError = (column: string | null, message: string) => result.errors.push({ line, column, message });
          const key = row.sku ? `sku:${row.sku}` : row.barcode ? `bc:${row.barcode}` : null;
          if (key && seen.has(key)) {
            rowError(null, `repite el ${row.sku ? `sku ${row.sku}` : `código ${row.barcode}`} de la línea ${seen.get(key)}`);
            continue;
          }
          let id = row.sku ? await findBy(tx, ctx.companyId, 'sku', row.sku) : null;
          if (id === null && row.barcode) id = await findBy(tx, ctx.companyId, 'bc', row.barcode);
          // Neither code: the product of that exact name, when only one has it (an export of products
          // without codes imports back onto themselves).
          if (id === null && !row.sku && !row.barcode && row.name) id = await findByName(tx, ctx.companyId, row.name);
          const existing = id === null ? null : await findProduct(tx, ctx.companyId, id);
          if (!existing) {
            if (!row.name) {
              rowError('nombre', 'falta el nombre (el producto no existe y hace falta para crearlo)');
              continue;
            }
            if (row.price === undefined) {
              rowError('precio', 'falta el precio (el producto no existe y hace falta para crearlo)');
              continue;
            }
          }
          for (const [field, value] of [
            ['sku', row.sku],
            ['bc', row.barcode],
          ] as const) {
            if (!value) continue;
            const clash = await repo.findClash(tx, ctx.companyId, field, value, existing?.id ?? null);
            if (clash) {
              rowError(field === 'sku' ? 'sku' : 'codigo', `${value} ya es del producto ${clash.id} (${clash.name})`);
              id = -1;
            }
          }
          if (id === -1) continue;
          let categoryId: number | null | undefined;
          if (row.category !== undefined) {
            if (row.category === null) categoryId = null;
            else {
              const name = row.category;
              const known = categories.get(name.toLowerCase()) ?? (await repo.findCategoryByName(tx, ctx.companyId, name))?.id;
              if (known !== undefined) categoryId = Number(known);
              else {
                categoryId = await nextId(tx, 'categories', ctx.companyId);
                await repo.insertCategory(tx, ctx.companyId, categoryId, name);
              }
              categories.set(name.toLowerCase(), categoryId);
            }
          }
          if (key) seen.set(key, line);
          const changes = differences(existing, row, categoryId);
          if (existing && Object.keys(changes).length === 0) {
            result.unchanged++;
            continue;
          }
          await upsertProduct(tx, ctx.companyId, { ...changes, ...(existing ? { id: existing.id } : {}) }, { now });
          if (existing) result.updated++;
          else result.created++;
        }
        if (dryRun) throw new DryRun();
        await recordAudit(tx, {
          action: 'catalog.imported',
          ...auditBy(ctx),
          details: {
            created: result.created,
            updated: result.updated,
            unchanged: result.unchanged,
            errors: result.errors.length,
          },
        });
      });
    } catch (err) {
      if (!(err instanceof DryRun)) throw err;
    }
    return result;
  }

  /** The catalogue as a spreadsheet: `;`, decimal comma, UTF-8 with BOM; importing it back changes nothing. */
  async function exportCsv(companyId: number): Promise<string> {
    const rows = await selectRows<{
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
    }>(
      db.orm,
      sql`SELECT p.sku, p.bc, p.name, p.description, p.base_price, p.cost, p.iva_rate, c.name AS category, p.mark, p.enable, p.min_stock
        FROM products p LEFT JOIN categories c ON c.company_id = p.company_id AND c.id = p.category_id
        WHERE p.company_id = ${companyId} ORDER BY p.id`,
    );
    const lines = rows.map((r) =>
      [
        r.sku,
        r.bc,
        r.name,
        r.description,
        formatAmount(moneyToNumber(r.base_price), 2),
        r.cost === null ? null : formatAmount(moneyToNumber(r.cost), 2),
        r.iva_rate === 'exento' ? 'exento' : r.iva_rate.replace('.', ','),
        r.category,
        r.mark,
        r.enable ? 'si' : 'no',
        r.min_stock === null ? null : formatAmount(quantityToNumber(r.min_stock), 3),
      ]
        .map((v) => csvCell(v, ';'))
        .join(';'),
    );
    return `\uFEFF${[EXPORT_HEADERS.join(';'), ...lines].join('\r\n')}\r\n`;
  }

  return { importCsv, exportCsv };
}
