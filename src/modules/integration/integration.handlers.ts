import type { Conn } from '../../db/client.ts';
import { toCents } from '../../lib/money.ts';
import { AppError } from '../../lib/errors.ts';
import { lockCatalogue } from '../catalog/catalog.repo.ts';
import { upsertProduct } from '../catalog/products.service.ts';
import { recordInvoice } from '../invoicing/invoices.ts';
import { type CreateSaleInput, cancelSale, createSale, markSalePaid } from '../sales/sales.service.ts';
import { applyMovement, type LedgerOptions, setProductStock } from '../stock/stock.ledger.ts';
import type { EventData, EventName } from './events.schemas.ts';

/** What an accepted event did, for logs and tests. */
export type Effect = 'created' | 'updated' | 'unchanged' | 'stale';

type Handler<E extends EventName> = (tx: Conn, companyId: number, data: EventData<E>, options: LedgerOptions) => Promise<Effect>;

/** A sales.created sale as the domain takes it. */
export function saleInput(sale: EventData<'sales.created'>['sale']): CreateSaleInput & { id: number } {
  return {
    id: sale.id,
    customerId: sale.customer_id ?? null,
    boxId: sale.box_id ?? null,
    total: sale.total,
    paymentMethod: sale.payment_method ?? null,
    items: sale.items.map((item) => ({
      ...(item.id === undefined ? {} : { id: item.id }),
      productId: item.product_id,
      quantity: item.quantity,
      price: item.price,
      ...(item.subtotal === undefined ? {} : { subtotal: item.subtotal }),
    })),
    ...(sale.created_at === undefined ? {} : { createdAt: new Date(sale.created_at) }),
  };
}

/**
 * Each supported event mapped onto the domain functions, inside the caller's transaction (the one
 * that stored the inbound event). The domain records the outbound events, carrying `causedBy`.
 */
export const EVENT_HANDLERS: { [E in EventName]: Handler<E> } = {
  async 'sales.created'(tx, companyId, { sale }, options) {
    await createSale(tx, companyId, saleInput(sale), options);
    return 'created';
  },

  async 'sales.paid'(tx, companyId, { sale }, options) {
    const result = await markSalePaid(
      tx,
      companyId,
      {
        id: sale.id,
        ...(sale.paid_at === undefined ? {} : { paidAt: new Date(sale.paid_at) }),
        ...(sale.payment_method === undefined ? {} : { paymentMethod: sale.payment_method }),
        ...(sale.payment_id === undefined ? {} : { paymentId: sale.payment_id }),
        bookPayment: true,
      },
      options,
    );
    if (sale.total !== undefined && toCents(sale.total) !== toCents(result.sale.total)) {
      throw new AppError('invalid_state', `sale ${sale.id} totals ${result.sale.total}; sales.paid says ${sale.total}`, {
        details: [{ path: 'data.sale.total', message: `does not match the sale total ${result.sale.total}` }],
      });
    }
    return result.changed ? 'updated' : 'unchanged';
  },

  async 'sales.cancelled'(tx, companyId, { sale }, options) {
    const result = await cancelSale(
      tx,
      companyId,
      {
        id: sale.id,
        ...(sale.cancelled_at === undefined ? {} : { cancelledAt: new Date(sale.cancelled_at) }),
        ...(sale.cancellation_reason === undefined ? {} : { reason: sale.cancellation_reason }),
      },
      options,
    );
    return result.changed ? 'updated' : 'unchanged';
  },

  async 'invoice.issued'(tx, companyId, { invoice }, options) {
    await recordInvoice(
      tx,
      companyId,
      {
        id: invoice.id,
        saleId: invoice.sale_id,
        type: invoice.type,
        pointOfSale: invoice.point_of_sale,
        number: invoice.number,
        cae: invoice.cae,
        caeExpiration: new Date(invoice.cae_expiration),
        total: invoice.total,
        ...(invoice.issued_at === undefined ? {} : { issuedAt: new Date(invoice.issued_at) }),
      },
      options,
    );
    return 'created';
  },

  async 'movement.created'(tx, companyId, { movement }, options) {
    await applyMovement(
      tx,
      companyId,
      {
        id: movement.id,
        type: movement.type,
        depositId: movement.deposit_id,
        toDepositId: movement.to_deposit_id ?? null,
        productId: movement.product_id,
        amount: movement.amount,
        reason: movement.reason ?? null,
        ...(movement.created_at === undefined ? {} : { createdAt: new Date(movement.created_at) }),
      },
      options,
    );
    return 'created';
  },

  async 'product.upserted'(tx, companyId, { product }, options) {
    // The latest updated_at wins (an older update is ignored); validateEnvelope refused one from the future.
    // A sku or barcode is one product's: take the company's catalogue lock first, as every other
    // catalogue writer does (the merchant API, the spreadsheet import), so two events arriving at
    // once cannot both find a code free and give it to two products.
    if (product.sku || product.BC) await lockCatalogue(tx, companyId);
    const { outcome } = await upsertProduct(
      tx,
      companyId,
      {
        id: product.id,
        ...(product.sku === undefined ? {} : { sku: product.sku }),
        ...(product.BC === undefined ? {} : { bc: product.BC }),
        ...(product.name === undefined ? {} : { name: product.name }),
        ...(product.description === undefined ? {} : { description: product.description }),
        ...(product.base_price === undefined ? {} : { basePrice: product.base_price }),
        ...(product.stock === undefined ? {} : { stock: product.stock }),
        ...(product.category_id === undefined ? {} : { categoryId: product.category_id }),
        ...(product.mark === undefined ? {} : { mark: product.mark }),
        ...(product.enable === undefined ? {} : { enable: product.enable }),
        ...(product.photo === undefined ? {} : { photo: product.photo }),
        ...(product.updated_at === undefined ? {} : { updatedAt: new Date(product.updated_at) }),
      },
      options,
    );
    return outcome;
  },

  async 'product.stock_updated'(tx, companyId, { product }, options) {
    // {id, stock} inbound, or the outbound shape whose current_stock is the new total.
    const stock = product.stock ?? product.current_stock!;
    const applied = await setProductStock(
      tx,
      companyId,
      {
        productId: product.id,
        stock,
        ...(product.deposit_id === undefined ? {} : { depositId: product.deposit_id }),
        reason: 'stock update (integration)',
      },
      options,
    );
    return applied ? 'updated' : 'unchanged';
  },
};
