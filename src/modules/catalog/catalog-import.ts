import type { Conn, Database } from '../../db/client.ts';
import { MONEY_DECIMALS, QUANTITY_DECIMALS, roundsToZeroAt } from '../../lib/precision.ts';
import { idBlock } from '../../db/ids.ts';
import type { IvaRate } from '../../db/schema/index.ts';
import type { CompanyCtx } from '../../http/request-context.ts';
import { AppError } from '../../lib/errors.ts';
import { fromCents, fromMilli, moneyToNumber, quantityToNumber, toCents, toMilli } from '../../lib/money.ts';
import type { Clock } from '../../lib/time.ts';
import { auditBy, recordAudit } from '../audit/audit.repo.ts';
import { applyMovements, findDefaultDepositId } from '../stock/stock.ledger.ts';
import * as repo from './catalog.repo.ts';
import { normaliseBarcode } from './catalog.service.ts';
import { EXPORT_HEADERS, type ImportField, mapHeaders, parseIva, parseUnit } from './csv.ts';
import {
  formatAmount,
  type ImportError,
  type ImportReport,
  parseAmount,
  parseBoolean,
  readSpreadsheet,
  unguardCell,
  writeSpreadsheet,
} from '../../lib/spreadsheet.ts';
import { catalogueFields, type ProductInput, type ProductRow, productToWire } from './products.service.ts';
import { recordOutboundMany } from '../../outbox/outbox.repo.ts';

export type { ImportError };

export interface ImportResult extends ImportReport {
  deposit_id: number | null;
  stock_adjusted: number;
}

/** A row after parsing: only the columns the file has. */
type Row = Partial<{
  id: number;
  unit: 'unit' | 'kg';
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
  stock: number;
}>;

/** The largest quantity a stock column holds (numeric(14,3)). */
const MAX_QUANTITY = 99_999_999_999.999;
/** The reason of the movements the `stock` column books. */
export const IMPORT_STOCK_REASON = 'importación de planilla';
class DryRun extends Error {}

/** A refused barcode in the owner's words, from the refusal's `details`. */
function barcodeProblem(raw: string, err: unknown): string {
  const detail = err instanceof AppError ? err.details?.[0] : undefined;
  switch (detail?.message) {
    case 'wrong_check_digit':
      return `el código ${raw} tiene mal el dígito verificador: el último debería ser ${detail.expected} (revisá que esté bien escrito o leído)`;
    case 'not_digits':
      return `el código "${raw}" tiene caracteres que no son números`;
    case 'wrong_length':
      return `el código ${raw} no tiene 8, 12 ni 13 dígitos (EAN-8, UPC-A o EAN-13)`;
    default:
      return `el código "${raw}" no es válido`;
  }
}

function parseRow(cells: string[], fields: (ImportField | null)[], headers: string[], separator: ';' | ',', line: number) {
  const row: Row = {};
  const errors: ImportError[] = [];
  const fail = (i: number, message: string) => errors.push({ line, column: headers[i]!, message });
  fields.forEach((field, i) => {
    if (field === null) return;
    // The export put an apostrophe before text a spreadsheet would run as a formula: take it back.
    const raw = unguardCell((cells[i] ?? '').trim());
    switch (field) {
      case 'id': {
        if (raw === '') break;
        const id = /^\d{1,9}$/.test(raw) ? Number(raw) : 0;
        if (id < 1) fail(i, `id inválido: "${raw}" (el número que da la exportación, o vacío)`);
        else row.id = id;
        break;
      }
      case 'unit': {
        if (raw === '') break;
        const unit = parseUnit(raw);
        if (unit === null) fail(i, `unidad inválida: "${raw}" (unidad o kg)`);
        else row.unit = unit;
        break;
      }
      case 'barcode':
        if (raw === '') row.barcode = null;
        else {
          try {
            row.barcode = normaliseBarcode(raw);
          } catch (err) {
            // Worded from the refusal's details (never its English message): the report is read by the owner.
            fail(i, barcodeProblem(raw, err));
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
        else if (roundsToZeroAt(value, MONEY_DECIMALS)) fail(i, `precio inválido: "${raw}" queda en $ 0 (se guardan centavos)`);
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
        else if (roundsToZeroAt(value, MONEY_DECIMALS)) fail(i, `costo inválido: "${raw}" queda en $ 0 (se guardan centavos)`);
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
      case 'stock': {
        if (raw === '') break;
        const value = parseAmount(raw, separator);
        if (value === null || Math.abs(value) > MAX_QUANTITY) fail(i, `stock inválido: "${raw}" (por ejemplo 12 o 2,5)`);
        else if (roundsToZeroAt(value, QUANTITY_DECIMALS))
          fail(i, `stock inválido: "${raw}" queda en 0 (se guardan 3 decimales)`);
        else row.stock = value;
        break;
      }
      case 'min_stock': {
        if (raw === '') {
          row.min_stock = null;
          break;
        }
        const value = parseAmount(raw, separator);
        if (value === null || value < 0) fail(i, `stock mínimo inválido: "${raw}"`);
        else if (roundsToZeroAt(value, QUANTITY_DECIMALS))
          fail(i, `stock mínimo inválido: "${raw}" queda en 0 (se guardan 3 decimales)`);
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
  if (row.unit !== undefined && !same(product?.unit ?? 'unit', row.unit)) input.unit = row.unit;
  if (row.min_stock !== undefined) {
    const next = row.min_stock === null ? null : fromMilli(toMilli(row.min_stock));
    const current = product?.minStock === null || product?.minStock === undefined ? null : fromMilli(toMilli(product.minStock));
    if (next !== current) input.minStock = next;
  }
  return input;
}

/**
 * The products an import can touch, as the database has them plus what the rows before applied:
 * lookups by sku, barcode and name answer as the SELECTs of a row-by-row import would. Names are
 * keyed as PostgreSQL lower-cases them (`lower` maps every name of the file).
 */
class Catalogue {
  private readonly rows = new Map<number, ProductRow>();
  private readonly index = {
    sku: new Map<string, Set<number>>(),
    bc: new Map<string, Set<number>>(),
    name: new Map<string, Set<number>>(),
  };
  private readonly names = new Map<number, string>();
  private readonly changed = new Map<number, ProductInput>();
  /** Ids created by the file, in order. */
  readonly created: number[] = [];
  /** Ids created or changed, in the order the file first touched them. */
  readonly touched: number[] = [];

  constructor(
    loaded: { product: ProductRow; lname: string }[],
    private readonly lower: Map<string, string>,
  ) {
    for (const { product, lname } of loaded) this.put(product, lname);
  }

  private key(field: 'sku' | 'bc' | 'name', value: string | null) {
    if (value === null) return null;
    return field === 'name' ? (this.lower.get(value) ?? value.toLowerCase()) : value;
  }

  private put(product: ProductRow, lname = this.key('name', product.name)!) {
    this.rows.set(product.id, product);
    this.names.set(product.id, lname);
    for (const field of ['sku', 'bc', 'name'] as const) {
      const key = field === 'name' ? lname : this.key(field, product[field]);
      if (key === null) continue;
      const ids = this.index[field].get(key);
      if (ids) ids.add(product.id);
      else this.index[field].set(key, new Set([product.id]));
    }
  }

  private drop(product: ProductRow) {
    for (const field of ['sku', 'bc', 'name'] as const) {
      const key = field === 'name' ? this.names.get(product.id)! : this.key(field, product[field]);
      if (key !== null) this.index[field].get(key)?.delete(product.id);
    }
  }

  get(id: number): ProductRow | null {
    return this.rows.get(id) ?? null;
  }

  /** The lowest id with this sku or barcode (`ORDER BY id LIMIT 1`). */
  firstWith(field: 'sku' | 'bc', value: string): number | null {
    let first: number | null = null;
    for (const id of this.index[field].get(value) ?? []) if (first === null || id < first) first = id;
    return first;
  }

  /** The product of exactly this name (case ignored), when only one has it. */
  onlyNamed(name: string): number | null {
    const ids = [...(this.index.name.get(this.key('name', name)!) ?? [])];
    return ids.length === 1 ? ids[0]! : null;
  }

  /** Another product with this sku or barcode (the lowest id), as findClash finds it. */
  clash(field: 'sku' | 'bc', value: string, exceptId: number | null): { id: number; name: string } | null {
    let first: number | null = null;
    for (const id of this.index[field].get(value) ?? []) if (id !== exceptId && (first === null || id < first)) first = id;
    return first === null ? null : { id: first, name: this.rows.get(first)!.name };
  }

  private touch(id: number) {
    if (!this.changed.has(id)) {
      this.changed.set(id, {});
      this.touched.push(id);
    }
  }

  /**
   * A new product as the INSERT's defaults leave it (description '', price 0, IVA 21, unit, enabled),
   * with the row's fields on top. Only for the rows after it in this file; the table sets the defaults.
   */
  create(companyId: number, id: number, input: ProductInput, now: Date) {
    this.touch(id);
    this.created.push(id);
    Object.assign(this.changed.get(id)!, input);
    this.put({
      companyId,
      id,
      sku: null,
      bc: null,
      name: input.name ?? '',
      description: '',
      basePrice: '0',
      stock: '0',
      categoryId: null,
      mark: null,
      enable: true,
      photo: null,
      createdAt: now,
      updatedAt: now,
      ivaRate: '21',
      cost: null,
      unit: 'unit',
      minStock: null,
      ...catalogueFields(input),
    });
  }

  update(id: number, input: ProductInput) {
    const product = this.rows.get(id)!;
    this.touch(id);
    Object.assign(this.changed.get(id)!, input);
    this.drop(product);
    this.put({ ...product, ...catalogueFields(input) }, input.name === undefined ? this.names.get(id) : undefined);
  }

  /** The INSERT rows of the products the file creates. */
  inserts() {
    return this.created.map((id) => {
      const product = this.rows.get(id)!;
      return {
        ...catalogueFields(this.changed.get(id)!),
        name: product.name,
        companyId: product.companyId,
        id,
        createdAt: product.createdAt,
        updatedAt: product.updatedAt,
      };
    });
  }

  /** The UPDATE patches of the existing products the file changes: each only its changed fields. */
  patches(): repo.ProductPatch[] {
    const created = new Set(this.created);
    return this.touched
      .filter((id) => !created.has(id))
      .map((id) => {
        const f = catalogueFields(this.changed.get(id)!);
        const patch: repo.ProductPatch = { id };
        if (f.sku !== undefined) patch.sku = f.sku;
        if (f.bc !== undefined) patch.bc = f.bc;
        if (f.name !== undefined) patch.name = f.name;
        if (f.description !== undefined) patch.description = f.description;
        if (f.basePrice !== undefined) patch.base_price = f.basePrice;
        if (f.cost !== undefined) patch.cost = f.cost;
        if (f.ivaRate !== undefined) patch.iva_rate = f.ivaRate;
        if (f.categoryId !== undefined) patch.category_id = f.categoryId;
        if (f.mark !== undefined) patch.mark = f.mark;
        if (f.enable !== undefined) patch.enable = f.enable;
        if (f.minStock !== undefined) patch.min_stock = f.minStock;
        if (f.unit !== undefined) patch.unit = f.unit;
        return patch;
      });
  }
}

export type CatalogImport = ReturnType<typeof createCatalogImport>;

/**
 * Spreadsheet import and export of the catalogue. Rows with errors are skipped and reported with
 * their line and column; the others are applied in one transaction (a dry run rolls it back), with
 * a product.upserted per created or changed product. A product is matched by sku, then by barcode.
 */
export function createCatalogImport({ db, clock }: { db: Database; clock: Clock }) {
  /** The deposit a file's stock is read from or written to: the one asked for, or the default one. */
  async function depositFor(tx: Conn, companyId: number, depositId: number | undefined): Promise<number> {
    if (depositId === undefined) return findDefaultDepositId(tx, companyId);
    if (!(await repo.depositExists(tx, companyId, depositId))) {
      throw new AppError('not_found', `deposit ${depositId} not found`, {
        details: [{ path: '/deposit_id', message: 'unknown deposit' }],
      });
    }
    return depositId;
  }

  async function importCsv(
    ctx: CompanyCtx,
    bytes: Uint8Array,
    dryRun: boolean,
    options: { depositId?: number | undefined } = {},
  ): Promise<ImportResult> {
    const { header, fields, separator, lines, report } = readSpreadsheet(bytes, mapHeaders, {
      required: ['name', 'sku', 'barcode', 'id'],
      example: 'sku;codigo;nombre;precio',
    });
    const result: ImportResult = { ...report, dry_run: dryRun, deposit_id: null, stock_adjusted: 0 };
    // Parse every row first (no database), then read in a few statements everything the rows can
    // touch, decide each row in file order against that in-memory picture (kept up to date as rows
    // apply), and write the outcome in multi-row statements: the answer is the one row-by-row
    // upserts gave, in a handful of round trips instead of ~8 per row.
    const parsed = lines.map(({ line, cells }) => ({ line, ...parseRow(cells, fields, header, separator, line) }));
    const valid = parsed.filter((p) => p.errors.length === 0).map((p) => p.row);
    const texts = (pick: (row: Row) => string | null | undefined) => [
      ...new Set(valid.map(pick).filter((v): v is string => typeof v === 'string' && v !== '')),
    ];
    try {
      await db.orm.transaction(async (tx) => {
        await repo.lockCatalogue(tx, ctx.companyId);
        const now = clock.now();
        // The stock column sets each product's quantity in one deposit (chosen, or the default one).
        const depositId =
          fields.includes('stock') || options.depositId !== undefined
            ? await depositFor(tx, ctx.companyId, options.depositId)
            : null;
        result.deposit_id = depositId;
        const stockTargets = new Map<number, number>();
        const unchangedIds = new Set<number>();
        const lower = await repo.lowerTexts(tx, [...texts((r) => r.name), ...texts((r) => r.category)]);
        const catalogue = new Catalogue(
          await repo.productsForImport(tx, ctx.companyId, {
            ids: [...new Set(valid.map((r) => r.id).filter((v): v is number => v !== undefined))],
            skus: texts((r) => r.sku),
            barcodes: texts((r) => r.barcode),
            names: texts((r) => (!r.sku && !r.barcode ? r.name : undefined)),
          }),
          lower,
        );
        const categories = await repo.categoryIdsByName(tx, ctx.companyId);
        const newCategories: { id: number; name: string }[] = [];
        // Own numbers from the company's counters, a block of at most one per row taken on first need.
        let categoryIds: Awaited<ReturnType<typeof idBlock>> | null = null;
        let productIds: Awaited<ReturnType<typeof idBlock>> | null = null;
        const seen = new Map<string, number>();
        for (const { line, row, errors } of parsed) {
          if (errors.length > 0) {
            result.errors.push(...errors);
            continue;
          }
          const rowError = (column: string | null, message: string) => result.errors.push({ line, column, message });
          // A sku or a barcode twice in one file: the second row is an error naming the first one's line.
          const keys = [
            row.id !== undefined ? `id:${row.id}` : null,
            row.sku ? `sku:${row.sku}` : null,
            row.barcode ? `bc:${row.barcode}` : null,
          ].filter((k): k is string => k !== null);
          const repeated = keys.find((k) => seen.has(k));
          if (repeated) {
            const [what, column] = repeated.startsWith('id:')
              ? [`el id ${row.id}`, 'id']
              : repeated.startsWith('sku:')
                ? [`el sku ${row.sku}`, 'sku']
                : [`el código ${row.barcode}`, 'codigo'];
            rowError(column, `repite ${what} de la línea ${seen.get(repeated)}`);
            continue;
          }
          // The export's id first: this company's product of that number (another company's number, or
          // one deleted since, is not a match: the row goes on by its codes and name as if it had no id).
          let id = row.id !== undefined && catalogue.get(row.id) ? row.id : null;
          if (id === null && row.sku) id = catalogue.firstWith('sku', row.sku);
          if (id === null && row.barcode) id = catalogue.firstWith('bc', row.barcode);
          // Neither code: the product of that exact name, when only one has it (an export of products
          // without codes imports back onto themselves).
          if (id === null && !row.sku && !row.barcode && row.name) id = catalogue.onlyNamed(row.name);
          const existing = id === null ? null : catalogue.get(id);
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
          let clashed = false;
          for (const [field, value] of [
            ['sku', row.sku],
            ['bc', row.barcode],
          ] as const) {
            if (!value) continue;
            const clash = catalogue.clash(field, value, existing?.id ?? null);
            if (clash) {
              rowError(field === 'sku' ? 'sku' : 'codigo', `${value} ya es del producto ${clash.id} (${clash.name})`);
              clashed = true;
            }
          }
          if (clashed) continue;
          let categoryId: number | null | undefined;
          if (row.category !== undefined) {
            if (row.category === null) categoryId = null;
            else {
              const name = lower.get(row.category) ?? row.category.toLowerCase();
              categoryId = categories.get(name);
              if (categoryId === undefined) {
                categoryIds ??= await idBlock(tx, 'categories', ctx.companyId, valid.length);
                categoryId = categoryIds.take();
                newCategories.push({ id: categoryId, name: row.category });
                categories.set(name, categoryId);
              }
            }
          }
          for (const k of keys) seen.set(k, line);
          const changes = differences(existing, row, categoryId);
          if (existing && Object.keys(changes).length === 0) {
            result.unchanged++;
            unchangedIds.add(existing.id);
            if (row.stock !== undefined) stockTargets.set(existing.id, row.stock);
            continue;
          }
          let productId: number;
          if (existing) {
            productId = existing.id;
            catalogue.update(existing.id, changes);
            result.updated++;
          } else {
            productIds ??= await idBlock(tx, 'products', ctx.companyId, valid.length);
            productId = productIds.take();
            catalogue.create(ctx.companyId, productId, changes, now);
            result.created++;
          }
          if (row.stock !== undefined) stockTargets.set(productId, row.stock);
        }
        await categoryIds?.finish();
        await productIds?.finish();
        await repo.insertCategories(tx, ctx.companyId, newCategories);
        await repo.insertProducts(tx, catalogue.inserts());
        const updated = await repo.updateProducts(tx, ctx.companyId, catalogue.patches(), now);
        // One product.upserted per product created or changed (its state after the whole file), in
        // the order the file first touched them.
        const written = new Set([...catalogue.created, ...updated]);
        const rowsById = new Map<number, ProductRow>();
        const order = catalogue.touched.filter((touchedId) => written.has(touchedId));
        for (let i = 0; i < order.length; i += 1000) {
          for (const product of await repo.productsByIds(tx, ctx.companyId, order.slice(i, i + 1000))) {
            rowsById.set(product.id, product);
          }
        }
        await recordOutboundMany(
          tx,
          ctx.companyId,
          order.map((productId) => ({ event: 'product.upserted', data: { product: productToWire(rowsById.get(productId)!) } })),
        );
        // The stock column: one ADJUSTMENT per product whose quantity in the deposit differs, through
        // the ledger (its product.stock_updated and movement.created events), after the products exist.
        if (depositId !== null && stockTargets.size > 0) {
          const levels = await repo.depositQuantities(tx, ctx.companyId, depositId, [...stockTargets.keys()]);
          const adjustments = [...stockTargets]
            .map(([productId, target]) => ({ productId, delta: toMilli(target) - toMilli(levels.get(productId) ?? '0') }))
            .filter(({ delta }) => delta !== 0);
          await applyMovements(
            tx,
            ctx.companyId,
            adjustments.map(({ productId, delta }) => ({
              type: 'ADJUSTMENT' as const,
              depositId,
              productId,
              amount: fromMilli(delta),
              reason: IMPORT_STOCK_REASON,
            })),
            { now, depositKnown: true },
          );
          result.stock_adjusted = adjustments.length;
          // A product whose only change is its stock was changed, not left as it was.
          for (const { productId } of adjustments) {
            if (unchangedIds.has(productId)) {
              result.unchanged--;
              result.updated++;
            }
          }
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
            stock_adjusted: result.stock_adjusted,
            deposit_id: result.deposit_id,
          },
        });
      });
    } catch (err) {
      if (!(err instanceof DryRun)) throw err;
    }
    return result;
  }

  /** The catalogue as a spreadsheet: `;`, decimal comma, UTF-8 with BOM; importing it back changes nothing. */
  async function exportCsv(companyId: number, options: { depositId?: number | undefined } = {}): Promise<string> {
    const depositId = await depositFor(db.orm, companyId, options.depositId);
    const rows = await repo.exportRows(db.orm, companyId, depositId);
    return writeSpreadsheet(
      EXPORT_HEADERS,
      rows.map((r) => [
        r.id,
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
        r.unit === 'kg' ? 'kg' : 'unidad',
        formatAmount(quantityToNumber(r.deposit_stock), 3),
      ]),
    );
  }

  return { importCsv, exportCsv };
}
