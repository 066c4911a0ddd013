import type { Conn } from '../../db/client.ts';
import { nextId } from '../../db/ids.ts';
import type { products } from '../../db/schema/index.ts';
import { AppError } from '../../lib/errors.ts';
import { fromCents, moneyToNumber, quantityToNumber, toCents } from '../../lib/money.ts';
import { recordOutbound } from '../../outbox/outbox.repo.ts';
import { type LedgerOptions, setProductStock } from '../stock/stock.ledger.ts';
import * as repo from './catalog.repo.ts';

export type { ProductRow } from './catalog.repo.ts';
type ProductRow = repo.ProductRow;

export interface ProductInput {
  id?: number;
  sku?: string | null;
  bc?: string | null;
  name?: string;
  description?: string | null;
  basePrice?: string | number;
  stock?: string | number;
  /** The deposit where a change of `stock` is booked (the default deposit when absent). */
  stockDepositId?: number;
  categoryId?: number | null;
  mark?: string | null;
  enable?: boolean;
  photo?: string | null;
  updatedAt?: Date;
  /** Back-office fields (the integration events do not carry them). */
  ivaRate?: ProductRow['ivaRate'];
  cost?: string | null;
  unit?: ProductRow['unit'];
  minStock?: string | null;
}

export interface UpsertResult {
  product: ProductRow;
  outcome: 'created' | 'updated' | 'stale';
}

/** The contract's product shape (product.upserted), numbers for money and quantities. */
export function productToWire(row: ProductRow) {
  return {
    id: row.id,
    company_id: row.companyId,
    sku: row.sku,
    BC: row.bc,
    name: row.name,
    description: row.description,
    base_price: moneyToNumber(row.basePrice),
    stock: quantityToNumber(row.stock),
    category_id: row.categoryId,
    mark: row.mark,
    enable: row.enable,
    photo: row.photo,
    updated_at: row.updatedAt.toISOString(),
  };
}

export function catalogueFields(input: ProductInput) {
  const fields: Partial<typeof products.$inferInsert> = {};
  if (input.sku !== undefined) fields.sku = input.sku;
  if (input.bc !== undefined) fields.bc = input.bc;
  if (input.name !== undefined) fields.name = input.name;
  if (input.description !== undefined) fields.description = input.description ?? '';
  if (input.basePrice !== undefined) {
    if (toCents(input.basePrice) < 0)
      throw new AppError('validation_failed', `base_price must not be negative (got ${input.basePrice})`);
    fields.basePrice = fromCents(toCents(input.basePrice));
  }
  if (input.categoryId !== undefined) fields.categoryId = input.categoryId;
  if (input.mark !== undefined) fields.mark = input.mark;
  if (input.enable !== undefined) fields.enable = input.enable;
  if (input.photo !== undefined) fields.photo = input.photo;
  if (input.ivaRate !== undefined) fields.ivaRate = input.ivaRate;
  if (input.cost !== undefined) fields.cost = input.cost;
  if (input.unit !== undefined) fields.unit = input.unit;
  if (input.minStock !== undefined) fields.minStock = input.minStock;
  return fields;
}

/** A sku or barcode that another product of the company already has. */
export interface CodeClash {
  field: 'sku' | 'bc';
  value: string;
  product: { id: number; name: string };
}

/**
 * A sku or barcode is one product's in its company (the scanner answers a code with one product):
 * one that is set or changed here and already belongs to another product is refused, whoever
 * writes it. By default a 422 in the integration's field names (product.upserted); the merchant API
 * answers its own 409 through `onClash`.
 */
async function checkCodesFree(
  tx: Conn,
  companyId: number,
  id: number,
  input: ProductInput,
  existing: { sku: string | null; bc: string | null } | null,
  onClash: (id: number, clashes: CodeClash[]) => AppError,
) {
  const clashes: CodeClash[] = [];
  for (const field of ['sku', 'bc'] as const) {
    const value = input[field];
    if (!value || value === existing?.[field]) continue;
    const product = await repo.findClash(tx, companyId, field, value, id);
    if (product) clashes.push({ field, value, product });
  }
  if (clashes.length > 0) throw onClash(id, clashes);
}

/** product.upserted's answer to a taken code: 422 with the event's paths (sku, BC). */
function eventCodeClash(id: number, clashes: CodeClash[]): AppError {
  const details = clashes.map((c) => ({
    path: c.field === 'sku' ? 'sku' : 'BC',
    message: `"${c.value}" already belongs to product ${c.product.id}`,
  }));
  return new AppError('validation_failed', `product ${id}: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}`, {
    details,
  });
}

/**
 * Creates or updates a product by id. An update older than the stored `updated_at` is ignored
 * (out-of-order delivery is normal). A `stock` different from the current one is booked in the
 * ledger as an ADJUSTMENT, so the ledger always explains the stock.
 *
 * `latest`: the shop's own edit (the merchant API, a screen), made now: it is never stale, and is
 * stamped no earlier than the stored `updated_at`, which an integration may have set ahead of our
 * clock (a skewed clock, a date in the future); before, such an edit answered 200 and changed nothing.
 */
export async function upsertProduct(
  tx: Conn,
  companyId: number,
  input: ProductInput,
  options: LedgerOptions,
  {
    latest = false,
    onClash = eventCodeClash,
  }: { latest?: boolean; onClash?: (id: number, clashes: CodeClash[]) => AppError } = {},
): Promise<UpsertResult> {
  const fields = catalogueFields(input);
  let id = input.id;
  const existing = id === undefined ? null : await repo.productById(tx, companyId, id, true);
  let updatedAt = input.updatedAt ?? options.now;
  if (latest && existing && existing.updatedAt.getTime() > updatedAt.getTime()) updatedAt = existing.updatedAt;

  let outcome: UpsertResult['outcome'];
  if (!existing) {
    if (!input.name?.trim()) {
      throw new AppError('validation_failed', `product ${id ?? '(new)'} does not exist yet, so name is required to create it`, {
        details: [{ path: 'name', message: 'is required when the product is created' }],
      });
    }
    id ??= await nextId(tx, 'products', companyId);
    await checkCodesFree(tx, companyId, id, input, null, onClash);
    await repo.insertProducts(tx, [{ ...fields, name: input.name, companyId, id, updatedAt, createdAt: options.now }]);
    outcome = 'created';
  } else if (existing.updatedAt.getTime() > updatedAt.getTime()) {
    return { product: existing, outcome: 'stale' };
  } else {
    await checkCodesFree(tx, companyId, id!, input, existing, onClash);
    await repo.updateProduct(tx, companyId, id!, fields, updatedAt);
    outcome = 'updated';
  }
  if (input.stock !== undefined) {
    await setProductStock(
      tx,
      companyId,
      {
        productId: id!,
        stock: input.stock,
        reason: outcome === 'created' ? 'stock inicial' : 'product update',
        ...(input.stockDepositId !== undefined ? { depositId: input.stockDepositId } : {}),
      },
      options,
    );
  }
  const row = await repo.productById(tx, companyId, id!);
  await recordOutbound(tx, {
    companyId,
    event: 'product.upserted',
    data: { product: productToWire(row!) },
    causedBy: options.causedBy ?? null,
  });
  return { product: row!, outcome };
}

export async function findProduct(conn: Conn, companyId: number, id: number): Promise<ProductRow | null> {
  return repo.productById(conn, companyId, id);
}
