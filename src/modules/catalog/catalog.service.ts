import type { Database } from '../../db/client.ts';
import { nextId } from '../../db/ids.ts';
import type { IvaRate, ProductUnit } from '../../db/schema/index.ts';
import type { CompanyCtx } from '../../http/request-context.ts';
import { gs1CheckDigit, isValidGtin } from '../../lib/barcode.ts';
import { AppError, unknownRecord } from '../../lib/errors.ts';
import { fromCents, fromMilli, moneyToNumber, quantityToNumber, toCents, toMilli } from '../../lib/money.ts';
import type { Clock } from '../../lib/time.ts';
import { auditBy, recordAudit } from '../audit/audit.repo.ts';
import { applyMovement, type MovementWire, toDepositProblem } from '../stock/stock.ledger.ts';
import * as repo from './catalog.repo.ts';
import { recordOutboundMany } from '../../outbox/outbox.repo.ts';
import {
  type CodeClash,
  findProduct,
  type ProductInput,
  type ProductRow,
  productToWire,
  upsertProduct,
} from './products.service.ts';
import { dbDate } from '../../db/dates.ts';

/** A product as the merchant API shows it: the contract's fields plus what the back office adds. */
export function merchantProduct(row: ProductRow) {
  return {
    id: row.id,
    company_id: row.companyId,
    sku: row.sku,
    barcode: row.bc,
    BC: row.bc,
    name: row.name,
    description: row.description,
    base_price: moneyToNumber(row.basePrice),
    cost: row.cost === null ? null : moneyToNumber(row.cost),
    iva_rate: row.ivaRate,
    unit: row.unit,
    stock: quantityToNumber(row.stock),
    min_stock: row.minStock === null ? null : quantityToNumber(row.minStock),
    category_id: row.categoryId,
    mark: row.mark,
    enable: row.enable,
    photo: row.photo,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
export type MerchantProduct = ReturnType<typeof merchantProduct>;

export interface ProductFields {
  sku?: string | null | undefined;
  barcode?: string | null | undefined;
  name?: string | undefined;
  description?: string | undefined;
  base_price?: number | undefined;
  cost?: number | null | undefined;
  iva_rate?: IvaRate | undefined;
  unit?: ProductUnit | undefined;
  min_stock?: number | null | undefined;
  category_id?: number | null | undefined;
  mark?: string | null | undefined;
  enable?: boolean | undefined;
  photo?: string | null | undefined;
  stock?: number | undefined;
  /** Where the opening stock of a new product is booked (the default deposit when absent). */
  deposit_id?: number | undefined;
}

const invalid = (path: string, message: string) =>
  new AppError('validation_failed', `${path} ${message}`, { details: [{ path: `/${path}`, message }] });

/**
 * A barcode as stored: digits only, a valid GS1 check digit, UPC-A (12 digits) as its EAN-13
 * (a leading 0), EAN-8 and EAN-13 as given. Anything else is refused naming the problem.
 */
export function normaliseBarcode(raw: string): string {
  const code = raw.trim();
  if (!/^\d+$/.test(code)) {
    throw new AppError('validation_failed', `barcode must be digits only (got "${raw}")`, {
      details: [{ path: '/barcode', message: 'not_digits' }],
    });
  }
  if (![8, 12, 13].includes(code.length)) {
    throw new AppError('validation_failed', `barcode must be an EAN-13, UPC-A (12 digits) or EAN-8 (got ${code.length} digits)`, {
      details: [{ path: '/barcode', message: 'wrong_length' }],
    });
  }
  if (!isValidGtin(code)) {
    const expected = gs1CheckDigit(code.slice(0, -1));
    throw new AppError('validation_failed', `barcode has a wrong check digit (${code}): it should end in ${expected}`, {
      details: [{ path: '/barcode', message: 'wrong_check_digit', expected: String(expected) }],
    });
  }
  return code.length === 12 ? `0${code}` : code;
}

function cleanText(value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

export type CatalogService = ReturnType<typeof createCatalogService>;

/** The merchant API's answer to a taken sku or barcode: 409 naming the product that has it. */
function merchantCodeClash(_id: number, clashes: CodeClash[]): AppError {
  const [first] = clashes;
  const what = first!.field === 'sku' ? `sku "${first!.value}"` : `barcode ${first!.value}`;
  return new AppError('conflict', `${what} already belongs to product ${first!.product.id} (${first!.product.name})`, {
    details: clashes.map((c) => ({
      path: c.field === 'sku' ? '/sku' : '/barcode',
      message: 'taken',
      product_id: c.product.id,
      product_name: c.product.name,
    })),
  });
}

/**
 * The back office's catalogue: products, categories, deposits, boxes and stock as the merchant API
 * exposes them. Every write is one transaction that also writes its outbound events (through
 * `upsertProduct` and the stock ledger, exactly as integration-received changes do).
 */
export function createCatalogService({ db, clock }: { db: Database; clock: Clock }) {
  function toInput(fields: ProductFields): ProductInput {
    const input: ProductInput = {};
    if (fields.sku !== undefined) input.sku = cleanText(fields.sku) ?? null;
    if (fields.barcode !== undefined)
      input.bc = fields.barcode === null || fields.barcode.trim() === '' ? null : normaliseBarcode(fields.barcode);
    if (fields.name !== undefined) {
      const name = fields.name.trim();
      if (name === '') throw invalid('name', 'must not be blank');
      input.name = name;
    }
    if (fields.description !== undefined) input.description = fields.description;
    if (fields.base_price !== undefined) input.basePrice = fields.base_price;
    if (fields.category_id !== undefined) input.categoryId = fields.category_id;
    if (fields.mark !== undefined) input.mark = cleanText(fields.mark) ?? null;
    if (fields.enable !== undefined) input.enable = fields.enable;
    if (fields.photo !== undefined) {
      const photo = cleanText(fields.photo) ?? null;
      if (photo !== null && !/^https?:\/\/\S+$/i.test(photo)) throw invalid('photo', 'must be an http(s) address');
      input.photo = photo;
    }
    if (fields.stock !== undefined) input.stock = fields.stock;
    if (fields.deposit_id !== undefined) input.stockDepositId = fields.deposit_id;
    if (fields.cost !== undefined) input.cost = fields.cost === null ? null : fromCents(toCents(fields.cost));
    if (fields.iva_rate !== undefined) input.ivaRate = fields.iva_rate;
    if (fields.unit !== undefined) input.unit = fields.unit;
    if (fields.min_stock !== undefined) input.minStock = fields.min_stock === null ? null : fromMilli(toMilli(fields.min_stock));
    return input;
  }

  async function write(ctx: CompanyCtx, id: number | null, fields: ProductFields): Promise<MerchantProduct> {
    const input = toInput(fields);
    return db.orm.transaction(async (tx) => {
      await repo.lockCatalogue(tx, ctx.companyId);
      if (id !== null && !(await findProduct(tx, ctx.companyId, id))) throw new AppError('not_found', `product ${id} not found`);
      if (
        input.categoryId !== undefined &&
        input.categoryId !== null &&
        !(await repo.categoryExists(tx, ctx.companyId, input.categoryId))
      ) {
        throw unknownRecord('category_id', 'category', input.categoryId);
      }
      if (input.stockDepositId !== undefined && !(await repo.depositExists(tx, ctx.companyId, input.stockDepositId))) {
        throw unknownRecord('deposit_id', 'deposit', input.stockDepositId);
      }
      const now = clock.now();
      const result = await upsertProduct(
        tx,
        ctx.companyId,
        { ...input, ...(id !== null ? { id } : {}) },
        { now },
        { latest: true, onClash: merchantCodeClash },
      );
      return merchantProduct(result.product);
    });
  }

  return {
    async listProducts(companyId: number, filter: repo.ProductFilter, page: { limit: number; cursor?: string | undefined }) {
      const after = page.cursor === undefined ? 0 : decodeCursor(page.cursor);
      const rows = await repo.listProducts(db.orm, companyId, filter, after, page.limit + 1);
      const products = rows.slice(0, page.limit).map(merchantProduct);
      const last = products.at(-1)?.id;
      return { products, meta: { next_cursor: rows.length > page.limit && last !== undefined ? encodeCursor(last) : null } };
    },

    async getProduct(companyId: number, id: number) {
      const row = await findProduct(db.orm, companyId, id);
      if (!row) throw new AppError('not_found', `product ${id} not found`);
      return merchantProduct(row);
    },

    createProduct: (ctx: CompanyCtx, fields: ProductFields) => write(ctx, null, fields),
    updateProduct: (ctx: CompanyCtx, id: number, fields: ProductFields) => write(ctx, id, fields),

    listCategories: (companyId: number) => repo.listCategories(db.orm, companyId),

    async createCategory(ctx: CompanyCtx, name: string) {
      return db.orm.transaction(async (tx) => {
        await repo.lockCatalogue(tx, ctx.companyId);
        const clean = name.trim();
        if (!clean) throw invalid('name', 'must not be blank');
        const taken = await repo.findCategoryByName(tx, ctx.companyId, clean);
        if (taken) throw new AppError('conflict', `category "${taken.name}" already exists (id ${taken.id})`);
        const id = await nextId(tx, 'categories', ctx.companyId);
        await repo.insertCategory(tx, ctx.companyId, id, clean);
        return { id, name: clean, products: 0 };
      });
    },

    async renameCategory(ctx: CompanyCtx, id: number, name: string) {
      const clean = name.trim();
      if (!clean) throw invalid('name', 'must not be blank');
      return db.orm.transaction(async (tx) => {
        await repo.lockCatalogue(tx, ctx.companyId);
        const taken = await repo.findCategoryByName(tx, ctx.companyId, clean);
        if (taken && Number(taken.id) !== id)
          throw new AppError('conflict', `category "${taken.name}" already exists (id ${taken.id})`);
        if (!(await repo.renameRow(tx, 'categories', ctx.companyId, id, clean)))
          throw new AppError('not_found', `category ${id} not found`);
        return (await repo.listCategories(tx, ctx.companyId)).find((row) => Number(row.id) === id)!;
      });
    },

    async renameDeposit(ctx: CompanyCtx, id: number, name: string) {
      const clean = name.trim();
      if (!clean) throw invalid('name', 'must not be blank');
      if (!(await repo.renameRow(db.orm, 'deposits', ctx.companyId, id, clean)))
        throw new AppError('not_found', `deposit ${id} not found`);
      return (await repo.listDeposits(db.orm, ctx.companyId)).find((row) => Number(row.id) === id)!;
    },

    listDeposits: (companyId: number) => repo.listDeposits(db.orm, companyId),

    async createDeposit(ctx: CompanyCtx, name: string) {
      const clean = name.trim();
      if (!clean) throw invalid('name', 'must not be blank');
      return db.orm.transaction(async (tx) => {
        const id = await nextId(tx, 'deposits', ctx.companyId);
        await repo.insertDeposit(tx, ctx.companyId, id, clean);
        return { id, name: clean, is_default: false };
      });
    },

    listBoxes: (companyId: number) => repo.listBoxes(db.orm, companyId),

    async createBox(ctx: CompanyCtx, input: { name: string; deposit_id?: number | undefined }) {
      const clean = input.name.trim();
      if (!clean) throw invalid('name', 'must not be blank');
      return db.orm.transaction(async (tx) => {
        if (input.deposit_id !== undefined && !(await repo.depositExists(tx, ctx.companyId, input.deposit_id))) {
          throw unknownRecord('deposit_id', 'deposit', input.deposit_id);
        }
        const id = await nextId(tx, 'boxes', ctx.companyId);
        await repo.insertBox(tx, ctx.companyId, id, clean, input.deposit_id ?? null);
        return (await repo.listBoxes(tx, ctx.companyId)).find((b) => Number(b.id) === id)!;
      });
    },

    async updateBox(ctx: CompanyCtx, id: number, input: { name?: string | undefined; deposit_id?: number | undefined }) {
      return db.orm.transaction(async (tx) => {
        if (input.deposit_id !== undefined && !(await repo.depositExists(tx, ctx.companyId, input.deposit_id))) {
          throw unknownRecord('deposit_id', 'deposit', input.deposit_id);
        }
        const name = input.name?.trim();
        if (input.name !== undefined && !name) throw invalid('name', 'must not be blank');
        const found = await repo.updateBox(tx, ctx.companyId, id, {
          ...(name ? { name } : {}),
          ...(input.deposit_id !== undefined ? { depositId: input.deposit_id } : {}),
        });
        if (!found) throw new AppError('not_found', `box ${id} not found`);
        return (await repo.listBoxes(tx, ctx.companyId)).find((b) => Number(b.id) === id)!;
      });
    },

    async listStock(
      companyId: number,
      filter: { depositId?: number | undefined; q?: string | undefined; lowStock?: boolean | undefined },
      page: { limit: number; cursor?: string | undefined },
    ) {
      if (filter.depositId !== undefined && !(await repo.depositExists(db.orm, companyId, filter.depositId))) {
        throw new AppError('not_found', `deposit ${filter.depositId} not found`);
      }
      const [productId, depositId] = page.cursor === undefined ? [0, 0] : decodePair(page.cursor);
      const rows = await repo.listStock(db.orm, companyId, filter, { productId, depositId }, page.limit + 1);
      const shown = rows.slice(0, page.limit);
      const last = shown.at(-1);
      return {
        stock: shown.map((r) => ({
          product_id: Number(r.product_id),
          deposit_id: Number(r.deposit_id),
          name: r.name,
          sku: r.sku,
          stock: quantityToNumber(r.stock),
          min_stock: r.min_stock === null ? null : quantityToNumber(r.min_stock),
        })),
        meta: {
          next_cursor:
            rows.length > page.limit && last ? encodeCursor(`${Number(last.product_id)}.${Number(last.deposit_id)}`) : null,
        },
      };
    },

    async listMovements(companyId: number, productId: number, page: { limit: number; cursor?: string | undefined }) {
      if (!(await findProduct(db.orm, companyId, productId))) throw new AppError('not_found', `product ${productId} not found`);
      const before = page.cursor === undefined ? 2_147_483_647 : decodeCursor(page.cursor);
      const rows = await repo.listMovements(db.orm, companyId, productId, before, page.limit + 1);
      const shown = rows.slice(0, page.limit);
      const last = shown.at(-1);
      return {
        movements: shown.map((m) => ({
          id: Number(m.id),
          company_id: companyId,
          type: m.type,
          deposit_id: Number(m.deposit_id),
          ...(m.to_deposit_id !== null ? { to_deposit_id: Number(m.to_deposit_id) } : {}),
          product_id: Number(m.product_id),
          amount: quantityToNumber(m.amount),
          reason: m.reason,
          created_at: dbDate(m.created_at).toISOString(),
        })),
        meta: { next_cursor: rows.length > page.limit && last ? encodeCursor(Number(last.id)) : null },
      };
    },

    /**
     * A stock movement through the ledger. IN, OUT and TRANSFER move `amount`; an ADJUSTMENT is a
     * count: the deposit now has `amount`, and the ledger books the difference.
     */
    async createMovement(
      ctx: CompanyCtx,
      input: {
        type: 'IN' | 'OUT' | 'TRANSFER' | 'ADJUSTMENT';
        product_id: number;
        deposit_id: number;
        amount: number;
        reason?: string | undefined;
        to_deposit_id?: number | undefined;
        allow_negative?: boolean | undefined;
      },
    ): Promise<MovementWire> {
      // The deposits, refused with the field's path before anything is read (the ledger checks them again, bare).
      const depositProblem = toDepositProblem(input.type, input.deposit_id, input.to_deposit_id);
      if (depositProblem) throw invalid('to_deposit_id', depositProblem);
      return db.orm.transaction(async (tx) => {
        // Records named in the body that are not the company's: 422 with the field, as every body says.
        const product = await findProduct(tx, ctx.companyId, input.product_id);
        if (!product) {
          throw unknownRecord('product_id', 'product', input.product_id);
        }
        if (product.unit === 'unit' && toMilli(input.amount) % 1000 !== 0) {
          throw invalid('amount', `must be a whole number: product ${input.product_id} is sold by the unit`);
        }
        for (const [field, deposit] of [
          ['deposit_id', input.deposit_id],
          ['to_deposit_id', input.to_deposit_id],
        ] as const) {
          if (deposit !== undefined && !(await repo.depositExists(tx, ctx.companyId, deposit))) {
            throw unknownRecord(field, 'deposit', deposit);
          }
        }
        let amount: string = fromMilli(toMilli(input.amount));
        if (input.type === 'ADJUSTMENT') {
          const current = await repo.quantityIn(tx, ctx.companyId, input.product_id, input.deposit_id);
          const delta = toMilli(input.amount) - toMilli(current);
          if (delta === 0) {
            throw new AppError(
              'invalid_state',
              `the count matches the stock already (${quantityToNumber(current)}): nothing to adjust`,
            );
          }
          amount = fromMilli(delta);
        } else if (toMilli(input.amount) <= 0) {
          throw invalid('amount', `must be more than 0 for ${input.type}`);
        }
        const reason =
          input.reason?.trim() ||
          (input.type === 'ADJUSTMENT' ? `count: ${quantityToNumber(fromMilli(toMilli(input.amount)))}` : null);
        const applied = await applyMovement(
          tx,
          ctx.companyId,
          {
            type: input.type,
            productId: input.product_id,
            depositId: input.deposit_id,
            ...(input.to_deposit_id !== undefined ? { toDepositId: input.to_deposit_id } : {}),
            amount,
            reason,
            refuseBelowZero: input.allow_negative !== true,
          },
          { now: clock.now() },
        );
        return applied.movement;
      });
    },

    /**
     * Raises or lowers the base price of every matched product by `percent`, rounded to the
     * nearest `rounding` pesos. A dry run only shows what would change; applying is one
     * transaction, audited, with one product.upserted per changed product.
     */
    async changePrices(
      ctx: CompanyCtx,
      input: {
        percent: number;
        filter?: { category_id?: number | undefined; mark?: string | undefined; q?: string | undefined } | undefined;
        rounding?: 'none' | '1' | '10' | '50' | '100' | undefined;
        dry_run?: boolean | undefined;
      },
    ) {
      if (input.percent === 0) throw invalid('percent', 'must not be 0');
      const filter: repo.ProductFilter = {
        categoryId: input.filter?.category_id,
        mark: input.filter?.mark,
        q: input.filter?.q,
      };
      const rounding = input.rounding ?? 'none';
      const step = rounding === 'none' ? 1 : Number(rounding) * 100;
      const dryRun = input.dry_run ?? false;
      return db.orm.transaction(async (tx) => {
        if (!dryRun) await repo.lockCatalogue(tx, ctx.companyId);
        const matched = await repo.productsForPriceChange(tx, ctx.companyId, filter, !dryRun);
        const changes = matched
          .map((p) => {
            const before = toCents(p.base_price);
            const raw = (before * (100 + input.percent)) / 100;
            const after = Math.max(0, Math.round(raw / step) * step);
            return { id: Number(p.id), name: p.name, before, after };
          })
          .filter((c) => c.after !== c.before);
        if (!dryRun) {
          // One UPDATE for every changed price and the events in multi-row INSERTs, one
          // product.upserted per product changed.
          const now = clock.now();
          const updated = new Set(
            await repo.updateProducts(
              tx,
              ctx.companyId,
              changes.map((c) => ({ id: c.id, base_price: fromCents(c.after) })),
              now,
            ),
          );
          const written = changes.map((c) => c.id).filter((id) => updated.has(id));
          const rows: ProductRow[] = [];
          for (let i = 0; i < written.length; i += 1000) {
            rows.push(...(await repo.productsByIds(tx, ctx.companyId, written.slice(i, i + 1000))));
          }
          await recordOutboundMany(
            tx,
            ctx.companyId,
            rows.map((row) => ({ event: 'product.upserted', data: { product: productToWire(row) } })),
          );
          await recordAudit(tx, {
            action: 'catalog.price_change',
            ...auditBy(ctx),
            details: {
              percent: input.percent,
              rounding,
              filter: input.filter ?? {},
              matched: matched.length,
              changed: changes.length,
            },
          });
        }
        return {
          matched: matched.length,
          changed: changes.length,
          applied: !dryRun,
          sample: changes.slice(0, 10).map((c) => ({ id: c.id, name: c.name, before: c.before / 100, after: c.after / 100 })),
        };
      });
    },
  };
}

function encodeCursor(value: number | string): string {
  return Buffer.from(String(value)).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const text = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
  const value = /^\d+$/.test(text) ? Number(text) : -1;
  if (!Number.isInteger(value) || value < 0 || value > 2_147_483_647) throw invalid('cursor', 'is not one this API gave');
  return value;
}

function decodePair(cursor: string): [number, number] {
  const text = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
  if (!/^\d+\.\d+$/.test(text)) throw invalid('cursor', 'is not one this API gave');
  const [a, b] = text.split('.').map(Number);
  if (!Number.isInteger(a) || !Number.isInteger(b) || a! < 0 || b! < 0) throw invalid('cursor', 'is not one this API gave');
  return [a!, b!];
}
