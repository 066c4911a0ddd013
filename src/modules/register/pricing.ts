import type { Conn } from '../../db/client.ts';
import type { CompanyCtx } from '../../http/request-context.ts';
import { AppError } from '../../lib/errors.ts';
import { fromCents, fromMilli, lineTotalCents, MAX_AMOUNT_CENTS, toCents, toMilli } from '../../lib/money.ts';
import { pluCandidates } from '../scanner/scale-label.ts';
import { actsAsAdmin } from './actor.ts';
import type { DiscountInput } from './discounts.ts';
import * as repo from './register.repo.ts';
import { readScaleLabel, registerScaleLayout } from './scale.ts';
import { dbDate } from '../../db/dates.ts';

// Pricing a register sale's lines: the product (by id or by scale label), quantity and price.

export interface SaleItemInput {
  product_id?: number;
  quantity?: number;
  price?: number;
  scale_label?: string;
  discount?: DiscountInput;
}

export type PricedLine = Awaited<ReturnType<typeof priceLines>>[number];

/** The lines as sold: product, quantity (a scale label's weight or price), price and whether it was changed. */
export async function priceLines(
  tx: Conn,
  ctx: CompanyCtx,
  items: SaleItemInput[],
  /** The company's settings and the products the items name (read with the selling point). */
  company: { settings: Record<string, unknown>; products: repo.ProductForSale[] },
  catalogAt: Date | null,
) {
  const layout = registerScaleLayout(company.settings['scaleLabel']);
  const byId = new Map(company.products.map((p) => [p.id, p]));
  const mayChange = actsAsAdmin(ctx) || company.settings['registerPriceOverride'] === true;
  const lines = [];
  for (const [n, item] of items.entries()) {
    const path = `/items/${n}`;
    let product: repo.ProductForSale | null = null;
    let quantityMilli: number | null = item.quantity === undefined ? null : toMilli(item.quantity);
    let labelCents: number | null = null;
    if (item.scale_label !== undefined) {
      const label = readScaleLabel(item.scale_label, layout);
      if (!label) {
        throw new AppError(
          'validation_failed',
          `items.${n}.scale_label "${item.scale_label}" is not a scale label of this company`,
          {
            details: [{ path: `${path}/scale_label`, message: 'not a scale label' }],
          },
        );
      }
      product = await repo.findProductByPlu(tx, ctx.companyId, pluCandidates(label.plu));
      if (!product) {
        throw new AppError('unknown_scale_plu', `items.${n}: no product has the scale PLU ${label.plu} (as its SKU)`);
      }
      if (item.product_id !== undefined && item.product_id !== product.id) {
        throw new AppError('validation_failed', `items.${n}: the scale label is product ${product.id}, not ${item.product_id}`, {
          details: [{ path: `${path}/product_id`, message: `the scale label is product ${product.id}` }],
        });
      }
      if (label.weightGrams !== null) quantityMilli = label.weightGrams;
      else labelCents = label.priceCents;
    } else {
      if (item.product_id === undefined) {
        throw new AppError('validation_failed', `items.${n} needs product_id (or scale_label)`, {
          details: [{ path: `${path}/product_id`, message: 'required' }],
        });
      }
      product = byId.get(item.product_id) ?? null;
      if (!product) {
        throw new AppError('invalid_reference', `items.${n}: product ${item.product_id} does not exist`, {
          details: [{ path: `${path}/product_id`, message: 'unknown product' }],
        });
      }
    }
    const listCents = toCents(product.base_price);
    let priceCents = item.price === undefined ? listCents : toCents(item.price);
    if (priceCents < 0) {
      throw new AppError('validation_failed', `items.${n}.price must not be negative`, {
        details: [{ path: `${path}/price`, message: 'must not be negative' }],
      });
    }
    const overridden = priceCents !== listCents;
    if (overridden && !mayChange) {
      // A register that priced the sale with an older catalogue charged the price then shown (offline sales).
      const changedSince = catalogAt !== null && dbDate(product.updated_at).getTime() > catalogAt.getTime();
      if (!changedSince) {
        throw new AppError(
          'price_needs_admin',
          `items.${n}: a price other than the product's (${fromCents(listCents)}) needs a company admin`,
        );
      }
    }
    let subtotalCents: number;
    if (labelCents !== null) {
      // A price label: the line costs what the scale printed; the quantity follows from the price per unit.
      subtotalCents = labelCents;
      if (priceCents > 0) quantityMilli = Math.max(1, Math.round((labelCents * 1000) / priceCents));
      else {
        quantityMilli = 1000;
        priceCents = labelCents;
      }
    } else {
      if (quantityMilli === null) {
        throw new AppError('validation_failed', `items.${n}.quantity is required`, {
          details: [{ path: `${path}/quantity`, message: 'required' }],
        });
      }
      if (quantityMilli <= 0) {
        throw new AppError('validation_failed', `items.${n}.quantity must be above zero (got ${item.quantity})`, {
          details: [{ path: `${path}/quantity`, message: 'must be above zero' }],
        });
      }
      subtotalCents = lineTotalCents(fromCents(priceCents), fromMilli(quantityMilli));
    }
    if (subtotalCents > MAX_AMOUNT_CENTS) {
      // Stored as numeric(14,2): past it the line cannot be written (and past 2^53 cents not even counted).
      throw new AppError(
        'validation_failed',
        `items.${n}: price × quantity is more than an amount holds (${fromCents(MAX_AMOUNT_CENTS)})`,
        { details: [{ path, message: 'amount_max' }] },
      );
    }
    if (product.unit === 'unit' && quantityMilli! % 1000 !== 0) {
      // Decimals only for what is sold by weight: "1,5" of a product sold by the unit is a typo.
      throw new AppError(
        'validation_failed',
        `items.${n}: product ${product.id} is sold by the unit; quantity ${fromMilli(quantityMilli!)} is not a whole number`,
        { details: [{ path: `${path}/quantity`, message: 'must be a whole number (the product is sold by the unit)' }] },
      );
    }
    lines.push({
      productId: product.id,
      name: product.name,
      unit: product.unit,
      quantityMilli: quantityMilli!,
      priceCents,
      subtotalCents,
      listCents,
      overridden,
    });
  }
  // The sale's total is stored as one amount too; discounts only lower it, so its lines are the bound.
  if (lines.reduce((sum, l) => sum + l.subtotalCents, 0) > MAX_AMOUNT_CENTS) {
    throw new AppError(
      'validation_failed',
      `the sale's lines add up to more than an amount holds (${fromCents(MAX_AMOUNT_CENTS)})`,
      {
        details: [{ path: '/items', message: 'amount_max' }],
      },
    );
  }
  return lines;
}
