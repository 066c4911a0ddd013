import { and, eq } from 'drizzle-orm';
import { verifyBooksOn } from '../books/books-shop.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deposits, invoices, movements, outboxEvents, products, sales, saleItems } from '../../src/db/schema/index.ts';
import { findStockLevels } from '../../src/modules/stock/stock.ledger.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct } from '../factories.ts';
import { countRows, saleCreated, sendEvent } from '../integration-helpers.ts';

describe('inbound events: effects and business rules', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  async function setup() {
    const company = await makeCompany(t.container);
    await t.container.db.orm.insert(deposits).values({ companyId: company.id, id: 2, name: 'Sucursal Centro' });
    const product = await makeProduct(t.container, company.id, { id: 10, sku: 'YERBA-1', name: 'Yerba 1 kg', basePrice: 3500 });
    const send = (envelope: unknown, options = {}) => sendEvent(t.app, company.integrationKey, envelope, options);
    return { companyId: company.id, key: company.integrationKey, productId: product.id, send };
  }

  const db = () => t.container.db.orm;
  const findSale = async (companyId: number, id: number) =>
    (
      await db()
        .select()
        .from(sales)
        .where(and(eq(sales.companyId, companyId), eq(sales.id, id)))
    )[0];
  const outboxCausedBy = (companyId: number, inboundId: string) =>
    db()
      .select()
      .from(outboxEvents)
      .where(and(eq(outboxEvents.companyId, companyId), eq(outboxEvents.causedBy, inboundId)));
  const stockOf = async (companyId: number, id: number) =>
    (
      await db()
        .select()
        .from(products)
        .where(and(eq(products.companyId, companyId), eq(products.id, id)))
    )[0]!.stock;

  async function expectRefused(c: Awaited<ReturnType<typeof setup>>, envelope: unknown, code: string, message: string | RegExp) {
    const before = await countRows(db(), c.companyId);
    const res = await c.send(envelope);
    expect(res.statusCode).toBe(422);
    const error = typeof message === 'string' ? expect.stringContaining(message) : expect.stringMatching(message);
    expect(res.json()).toMatchObject({ code, error });
    expect(await countRows(db(), c.companyId)).toEqual(before);
    return res;
  }

  describe('sales.created', () => {
    it('records a pending sale with its items and the outbound event, without moving stock', async () => {
      const c = await setup();
      const res = await c.send(
        saleCreated(501, c.productId, { customer_id: 77, box_id: 9, created_at: '2026-03-10T12:00:00-03:00' }),
      );
      expect(res.json()).toEqual({ status: 'ok' });
      const sale = await findSale(c.companyId, 501);
      expect(sale).toMatchObject({ status: 'pending', total: '300.00', customerId: 77, boxId: 9, paymentMethod: 'efectivo' });
      expect(sale!.createdAt.toISOString()).toBe('2026-03-10T15:00:00.000Z');
      const items = await db().select().from(saleItems).where(eq(saleItems.companyId, c.companyId));
      expect(items.map((i) => [i.id, i.quantity, i.price, i.subtotal])).toEqual([
        [1, '2.000', '100.00', '200.00'],
        [2, '1.000', '100.00', '100.00'],
      ]);
      const outbound = await outboxCausedBy(c.companyId, res.headers['x-event-id'] as string);
      expect(outbound.map((e) => e.event)).toEqual(['sales.created']);
      expect(outbound[0]!.payload.data['sale']).toMatchObject({ id: 501, status: 'pending', total: 300 });
      expect(await stockOf(c.companyId, c.productId)).toBe('0.000');
    });

    it('refuses items of unknown products, naming them', async () => {
      const c = await setup();
      await expectRefused(c, saleCreated(502, 999), 'invalid_reference', 'sale 502 refers to product 999 that does not exist');
    });

    it('refuses a sale id that exists, naming its status', async () => {
      const c = await setup();
      await c.send(saleCreated(503, c.productId));
      await expectRefused(c, saleCreated(503, c.productId), 'invalid_state', 'sale 503 already exists (status pending)');
    });

    it.each([
      ['no items', { items: [] }, 'data.sale.items'],
      ['a status other than pending', { status: 'paid' }, 'data.sale.status'],
      ['a string total', { total: '300' }, 'data.sale.total'],
    ])('refuses %s', async (_name, extra, path) => {
      const c = await setup();
      const res = await expectRefused(c, saleCreated(504, c.productId, extra), 'validation_failed', path);
      expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path);
    });
  });

  describe('sales.created item ids', () => {
    const item = (extra: Record<string, unknown> = {}) => ({ product_id: 10, quantity: 1, price: 100, ...extra });

    it.each([
      [
        'two items with the same id',
        [item({ id: 3 }), item({ id: 3 })],
        [{ path: 'data.sale.items.1.id', message: 'is 3, the id of data.sale.items.0 too: item ids must differ' }],
      ],
      [
        'an item whose position is the id of another',
        [item({ id: 2 }), item()],
        [
          {
            path: 'data.sale.items.1',
            message:
              'has no id, so it takes its position 2, the id of data.sale.items.0 too: give every item its own id, or none',
          },
        ],
      ],
    ])('refuses %s, pointing at the item', async (_name, items, details) => {
      const c = await setup();
      const res = await expectRefused(
        c,
        saleCreated(505, c.productId, { items, total: 200 }),
        'validation_failed',
        'data.sale.items.1',
      );
      expect(res.json().details).toEqual(details);
    });

    it('takes ids that differ, given or by position', async () => {
      const c = await setup();
      const res = await c.send(saleCreated(506, c.productId, { items: [item({ id: 2 }), item({ id: 1 }), item({ id: 7 })] }));
      expect(res.json()).toEqual({ status: 'ok' });
    });
  });

  describe('sale transitions', () => {
    async function saleIn(status: 'pending' | 'paid' | 'cancelled') {
      const c = await setup();
      await c.send(saleCreated(600, c.productId));
      if (status === 'paid') await c.send({ event: 'sales.paid', data: { sale: { id: 600, payment_id: 'MP-1' } } });
      if (status === 'cancelled')
        await c.send({ event: 'sales.cancelled', data: { sale: { id: 600, cancellation_reason: 'x' } } });
      return c;
    }

    it.each([
      ['pending', 'sales.paid', 'paid'],
      ['pending', 'sales.cancelled', 'cancelled'],
    ] as const)('%s --%s--> %s', async (from, event, to) => {
      const c = await saleIn(from);
      const res = await c.send({ event, data: { sale: { id: 600 } } });
      expect(res.json()).toEqual({ status: 'ok' });
      expect((await findSale(c.companyId, 600))!.status).toBe(to);
      const outbound = await outboxCausedBy(c.companyId, res.headers['x-event-id'] as string);
      expect(outbound.map((e) => e.event)).toEqual([event]);
    });

    it.each([
      ['paid', 'sales.cancelled', 'sale 600 is paid; it cannot become cancelled'],
      ['cancelled', 'sales.paid', 'sale 600 is cancelled; it cannot become paid'],
      ['paid', 'sales.paid', 'sale 600 is already paid; it cannot be paid again'],
    ] as const)('refuses %s --%s--> with a message naming the state', async (from, event, message) => {
      const c = await saleIn(from);
      const data = event === 'sales.paid' ? { id: 600, payment_id: 'MP-OTHER' } : { id: 600 };
      const res = await expectRefused(c, { event, data: { sale: data } }, 'invalid_state', message);
      expect(res.json().details).toEqual([{ path: 'data.sale.status', message: `current status is ${from}` }]);
    });

    it('takes a repeated transition with the same data as a no-op success', async () => {
      const c = await saleIn('paid');
      const outboxBefore = (await countRows(db(), c.companyId)).outbox;
      const res = await c.send({ event: 'sales.paid', data: { sale: { id: 600, payment_id: 'MP-1' } } });
      expect(res.json()).toEqual({ status: 'ok' });
      expect((await countRows(db(), c.companyId)).outbox).toBe(outboxBefore);
      const again = await c.send({ event: 'sales.cancelled', data: { sale: { id: 600 } } });
      expect(again.statusCode).toBe(422);
    });

    it('records payment data and the time it was paid', async () => {
      const c = await saleIn('pending');
      const res = await c.send({
        event: 'sales.paid',
        data: {
          sale: { id: 600, total: 300, paid_at: '2026-03-10T16:00:00Z', payment_method: 'mercadopago', payment_id: 'MP-99' },
        },
      });
      expect(res.statusCode).toBe(200);
      expect(await findSale(c.companyId, 600)).toMatchObject({
        status: 'paid',
        paymentMethod: 'mercadopago',
        paymentId: 'MP-99',
      });
    });

    it('pays a sale of total 0 (a gift, a free sample): paid with no payment row, nothing to collect', async () => {
      const c = await setup();
      const free = { id: 601, total: 0, items: [{ product_id: c.productId, quantity: 1, price: 0 }] };
      expect((await c.send({ event: 'sales.created', data: { sale: free } })).statusCode).toBe(200);
      const res = await c.send({ event: 'sales.paid', data: { sale: { id: 601, payment_id: 'REGALO-1' } } });
      expect(res.statusCode, res.body).toBe(200);
      expect((await findSale(c.companyId, 601))!.status).toBe('paid');
      const summary = await t.container.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM sale_payments WHERE company_id = $1 AND sale_id = 601',
        [c.companyId],
      );
      expect(summary).toEqual([{ n: 0 }]);
      expect((await verifyBooksOn(t.container, c.companyId)).code).toBe(0);
    });

    it('refuses a payment whose total differs from the sale', async () => {
      const c = await saleIn('pending');
      await expectRefused(
        c,
        { event: 'sales.paid', data: { sale: { id: 600, total: 299.99 } } },
        'invalid_state',
        'sale 600 totals',
      );
      expect((await findSale(c.companyId, 600))!.status).toBe('pending');
    });

    it('records the cancellation reason', async () => {
      const c = await saleIn('pending');
      await c.send({ event: 'sales.cancelled', data: { sale: { id: 600, cancellation_reason: 'cliente desistió' } } });
      expect(await findSale(c.companyId, 600)).toMatchObject({ status: 'cancelled', cancellationReason: 'cliente desistió' });
    });

    it.each(['sales.paid', 'sales.cancelled'])('%s refuses an unknown sale', async (event) => {
      const c = await setup();
      await expectRefused(c, { event, data: { sale: { id: 404 } } }, 'invalid_reference', 'sale 404 does not exist');
    });
  });

  describe('invoice.issued', () => {
    const invoice = (extra: Record<string, unknown> = {}) => ({
      event: 'invoice.issued',
      data: {
        invoice: {
          id: 1,
          sale_id: 700,
          type: 'B',
          point_of_sale: 3,
          number: 42,
          cae: '74123456789012',
          cae_expiration: '2026-03-20T00:00:00-03:00',
          total: 300,
          ...extra,
        },
      },
    });

    it('records the receipt of an existing sale', async () => {
      const c = await setup();
      await c.send(saleCreated(700, c.productId));
      const res = await c.send(invoice());
      expect(res.json()).toEqual({ status: 'ok' });
      const [row] = await db().select().from(invoices).where(eq(invoices.companyId, c.companyId));
      expect(row).toMatchObject({
        id: 1,
        saleId: 700,
        type: 'B',
        pointOfSale: 3,
        number: 42,
        cae: '74123456789012',
        total: '300.00',
      });
      const outbound = await outboxCausedBy(c.companyId, res.headers['x-event-id'] as string);
      expect(outbound.map((e) => e.event)).toEqual(['invoice.issued']);
    });

    it('refuses an unknown sale', async () => {
      const c = await setup();
      await expectRefused(c, invoice(), 'invalid_reference', 'invoice refers to sale 700, which does not exist');
    });

    it('refuses a cancelled sale', async () => {
      const c = await setup();
      await c.send(saleCreated(700, c.productId));
      await c.send({ event: 'sales.cancelled', data: { sale: { id: 700 } } });
      await expectRefused(c, invoice(), 'invalid_state', 'sale 700 is cancelled');
    });

    it('refuses a receipt number that exists', async () => {
      const c = await setup();
      await c.send(saleCreated(700, c.productId));
      await c.send(invoice());
      await expectRefused(c, invoice({ id: 2 }), 'invalid_state', 'receipt B 0003-00000042 already exists as invoice 1');
    });

    it.each([
      ['a CAE that is not 14 digits', { cae: '123' }, 'data.invoice.cae'],
      ['a missing cae_expiration', { cae_expiration: undefined }, 'data.invoice.cae_expiration'],
      ['a date without offset', { cae_expiration: '2026-03-20' }, 'data.invoice.cae_expiration'],
      ['point of sale 0', { point_of_sale: 0 }, 'data.invoice.point_of_sale'],
    ])('refuses %s', async (_name, extra, path) => {
      const c = await setup();
      const res = await expectRefused(c, invoice(extra), 'validation_failed', path);
      expect(res.json().details.map((d: { path: string }) => d.path)).toContain(path);
    });
  });

  describe('movement.created', () => {
    const movement = (id: number, extra: Record<string, unknown>) => ({
      event: 'movement.created',
      data: { movement: { id, deposit_id: 1, product_id: 10, reason: 'compra', ...extra } },
    });

    it('applies IN, OUT, TRANSFER and ADJUSTMENT to the ledger', async () => {
      const c = await setup();
      for (const [id, extra] of [
        [1, { type: 'IN', amount: 20 }],
        [2, { type: 'OUT', amount: 2.5 }],
        [3, { type: 'TRANSFER', amount: 5, to_deposit_id: 2 }],
        [4, { type: 'ADJUSTMENT', amount: -0.5, deposit_id: 2 }],
      ] as const) {
        expect((await c.send(movement(id, extra))).json()).toEqual({ status: 'ok' });
      }
      expect(await findStockLevels(db(), c.companyId, 10)).toEqual([
        { depositId: 1, quantity: 12.5 },
        { depositId: 2, quantity: 4.5 },
      ]);
      expect(await stockOf(c.companyId, 10)).toBe('17.000');
      const rows = await db().select().from(movements).where(eq(movements.companyId, c.companyId));
      expect(rows.map((m) => [m.id, m.type])).toEqual([
        [1, 'IN'],
        [2, 'OUT'],
        [3, 'TRANSFER'],
        [4, 'ADJUSTMENT'],
      ]);
    });

    it('records movement.created and product.stock_updated caused by the inbound event', async () => {
      const c = await setup();
      const res = await c.send(movement(1, { type: 'IN', amount: 3 }));
      const outbound = await outboxCausedBy(c.companyId, res.headers['x-event-id'] as string);
      expect(outbound.map((e) => e.event).sort()).toEqual(['movement.created', 'product.stock_updated']);
    });

    it.each([
      ['a TRANSFER without to_deposit_id', { type: 'TRANSFER', amount: 1 }, 'validation_failed', 'data.movement.to_deposit_id'],
      ['a negative IN', { type: 'IN', amount: -1 }, 'validation_failed', 'data.movement.amount'],
      ['an unknown type', { type: 'LOSS', amount: 1 }, 'validation_failed', 'data.movement.type'],
      ['an unknown deposit', { type: 'IN', amount: 1, deposit_id: 9 }, 'invalid_reference', 'deposit 9 does not exist'],
      ['an unknown product', { type: 'IN', amount: 1, product_id: 99 }, 'invalid_reference', 'product 99 does not exist'],
      ['to_deposit_id on an IN', { type: 'IN', amount: 1, to_deposit_id: 2 }, 'validation_failed', 'only allowed on TRANSFER'],
    ])('refuses %s', async (_name, extra, code, message) => {
      const c = await setup();
      await expectRefused(c, movement(5, extra), code, message);
    });

    it('points at to_deposit_id when it does not fit the type, with the other problems of data', async () => {
      const c = await setup();
      for (const [extra, message] of [
        [{ type: 'IN', amount: 1, to_deposit_id: 2 }, 'is only allowed on TRANSFER movements (type is IN)'],
        [{ type: 'TRANSFER', amount: 1, to_deposit_id: 1 }, 'must be another deposit than deposit_id (both are 1)'],
      ] as const) {
        const res = await expectRefused(
          c,
          movement(6, { ...extra, reason: 7 }),
          'validation_failed',
          'data.movement.to_deposit_id',
        );
        expect(res.json().details).toEqual([
          { path: 'data.movement.reason', message: 'must be string' },
          { path: 'data.movement.to_deposit_id', message },
        ]);
      }
    });

    it('refuses a movement id that exists', async () => {
      const c = await setup();
      await c.send(movement(1, { type: 'IN', amount: 1 }));
      await expectRefused(c, movement(1, { type: 'IN', amount: 1 }), 'invalid_state', 'movement 1 already exists');
    });
  });

  describe('product.upserted', () => {
    const upsert = (product: Record<string, unknown>) => ({ event: 'product.upserted', data: { product } });

    it('creates a product with every field, booking its stock in the ledger', async () => {
      const c = await setup();
      const res = await c.send(
        upsert({
          id: 20,
          sku: 'AZ-1',
          BC: '7790070012345',
          name: 'Azúcar 1 kg',
          description: 'Azúcar común',
          base_price: 1250.5,
          stock: 8,
          category_id: 3,
          mark: 'Ledesma',
          enable: true,
          photo: 'https://example.com/azucar.jpg',
          updated_at: '2026-03-10T10:00:00Z',
        }),
      );
      expect(res.json()).toEqual({ status: 'ok' });
      const [row] = await db()
        .select()
        .from(products)
        .where(and(eq(products.companyId, c.companyId), eq(products.id, 20)));
      expect(row).toMatchObject({
        sku: 'AZ-1',
        bc: '7790070012345',
        name: 'Azúcar 1 kg',
        basePrice: '1250.50',
        stock: '8.000',
        categoryId: 3,
      });
      expect(await findStockLevels(db(), c.companyId, 20)).toEqual([{ depositId: 1, quantity: 8 }]);
    });

    it('updates a product and ignores an older update', async () => {
      const c = await setup();
      await c.send(upsert({ id: 21, name: 'Aceite', base_price: 100, updated_at: '2026-03-10T10:00:00Z' }));
      await c.send(upsert({ id: 21, base_price: 120, updated_at: '2026-03-10T11:00:00Z' }));
      const stale = await c.send(upsert({ id: 21, name: 'Aceite viejo', base_price: 90, updated_at: '2026-03-10T10:30:00Z' }));
      expect(stale.json()).toEqual({ status: 'ok' });
      const [row] = await db()
        .select()
        .from(products)
        .where(and(eq(products.companyId, c.companyId), eq(products.id, 21)));
      expect(row).toMatchObject({ name: 'Aceite', basePrice: '120.00' });
      expect(await outboxCausedBy(c.companyId, stale.headers['x-event-id'] as string)).toEqual([]);
    });

    it('refuses an updated_at more than 5 minutes ahead, so a later update still applies', async () => {
      const c = await setup();
      const future = new Date(Date.now() + 60 * 60_000).toISOString();
      const res = await expectRefused(
        c,
        upsert({ id: 10, base_price: 1, updated_at: future }),
        'validation_failed',
        'updated_at',
      );
      expect(res.json().details).toEqual([{ path: 'data.product.updated_at', message: expect.stringContaining('ahead') }]);
      const skew = new Date(Date.now() + 60_000).toISOString();
      expect((await c.send(upsert({ id: 10, base_price: 3600, updated_at: skew }))).statusCode).toBe(200);
      const [row] = await db()
        .select()
        .from(products)
        .where(and(eq(products.companyId, c.companyId), eq(products.id, 10)));
      expect(row).toMatchObject({ basePrice: '3600.00' });
    });

    it('refuses a sku or barcode another product of the company has, naming it; its own codes are kept', async () => {
      const c = await setup();
      await c.send(upsert({ id: 30, name: 'Fideos', sku: 'FID-1', BC: '7791234567897' }));
      const sku = await expectRefused(c, upsert({ id: 31, name: 'Otro', sku: 'YERBA-1' }), 'validation_failed', 'sku');
      expect(sku.json().details).toEqual([{ path: 'data.product.sku', message: '"YERBA-1" already belongs to product 10' }]);
      const bc = await expectRefused(c, upsert({ id: 10, BC: '7791234567897' }), 'validation_failed', 'BC');
      expect(bc.json().details).toEqual([{ path: 'data.product.BC', message: '"7791234567897" already belongs to product 30' }]);
      // Sending a product's own codes again is an ordinary update.
      expect((await c.send(upsert({ id: 30, sku: 'FID-1', BC: '7791234567897', base_price: 900 }))).statusCode).toBe(200);
      // Another company's codes are not this company's business.
      const other = await setup();
      expect((await other.send(upsert({ id: 30, name: 'Fideos', sku: 'FID-1', BC: '7791234567897' }))).statusCode).toBe(200);
    });

    it('refuses to create a product without a name, pointing at the field', async () => {
      const c = await setup();
      const res = await expectRefused(c, upsert({ id: 22, base_price: 10 }), 'validation_failed', 'name is required');
      expect(res.json().details).toEqual([{ path: 'data.product.name', message: 'is required when the product is created' }]);
    });

    it.each([
      ['a negative price', { base_price: -1 }, 'data.product.base_price'],
      ['a photo that is not a URL', { photo: 'foto.jpg' }, 'data.product.photo'],
      ['enable as a string', { enable: 'yes' }, 'data.product.enable'],
    ])('refuses %s', async (_name, extra, path) => {
      const c = await setup();
      const res = await expectRefused(c, upsert({ id: 23, name: 'X', ...extra }), 'validation_failed', path);
      // Every detail names that field (a photo breaks both its standard `uri` format and its http(s) pattern).
      const details = res.json().details as { path: string }[];
      expect(details.length).toBeGreaterThan(0);
      expect(details.map((d) => d.path)).toEqual(details.map(() => path));
    });
  });

  describe('product.stock_updated', () => {
    const stock = (product: Record<string, unknown>) => ({ event: 'product.stock_updated', data: { product } });

    it('books {id, stock} as an ADJUSTMENT of the difference at the default deposit', async () => {
      const c = await setup();
      await c.send(stock({ id: 10, stock: 12 }));
      await c.send(stock({ id: 10, stock: 7.5 }));
      expect(await stockOf(c.companyId, 10)).toBe('7.500');
      const rows = await db().select().from(movements).where(eq(movements.companyId, c.companyId));
      expect(rows.map((m) => [m.type, m.depositId, m.amount])).toEqual([
        ['ADJUSTMENT', 1, '12.000'],
        ['ADJUSTMENT', 1, '-4.500'],
      ]);
    });

    it('accepts the outbound shape, whose current_stock is the new stock, at its deposit', async () => {
      const c = await setup();
      const res = await c.send(
        stock({
          id: 10,
          sku: 'YERBA-1',
          previous_stock: 0,
          current_stock: 4,
          change: 4,
          deposit_id: 2,
          updated_at: '2026-03-10T10:00:00Z',
        }),
      );
      expect(res.json()).toEqual({ status: 'ok' });
      expect(await findStockLevels(db(), c.companyId, 10)).toEqual([{ depositId: 2, quantity: 4 }]);
    });

    it('accepts an unchanged stock without recording a movement', async () => {
      const c = await setup();
      const res = await c.send(stock({ id: 10, stock: 0 }));
      expect(res.json()).toEqual({ status: 'ok' });
      expect((await countRows(db(), c.companyId)).movements).toBe(0);
    });

    it.each([
      ['no stock at all', { id: 10 }, 'validation_failed', 'data.product.stock is required'],
      ['stock and current_stock that disagree', { id: 10, stock: 1, current_stock: 2 }, 'validation_failed', 'current_stock'],
      ['an unknown product', { id: 99, stock: 1 }, 'invalid_reference', 'product 99 does not exist'],
      ['an unknown deposit', { id: 10, stock: 1, deposit_id: 9 }, 'invalid_reference', 'deposit 9 does not exist'],
    ])('refuses %s', async (_name, product, code, message) => {
      const c = await setup();
      await expectRefused(c, stock(product), code, message);
    });
  });

  describe('tenancy: a key acts only on its own company', () => {
    it('cannot pay, cancel or invoice another company’s sale, nor move its stock', async () => {
      const a = await setup();
      const b = await setup();
      await a.send(saleCreated(800, a.productId));
      await expectRefused(
        b,
        { event: 'sales.paid', data: { sale: { id: 800 } } },
        'invalid_reference',
        'sale 800 does not exist',
      );
      await expectRefused(b, { event: 'sales.cancelled', data: { sale: { id: 800 } } }, 'invalid_reference', 'does not exist');
      expect((await findSale(a.companyId, 800))!.status).toBe('pending');
      // Same product number in B is B's own product: A's stock is untouched.
      await b.send({ event: 'product.stock_updated', data: { product: { id: 10, stock: 50 } } });
      expect(await stockOf(a.companyId, 10)).toBe('0.000');
      expect(await stockOf(b.companyId, 10)).toBe('50.000');
    });

    it('scopes idempotency keys by company', async () => {
      const a = await setup();
      const b = await setup();
      const ra = await a.send(saleCreated(900, a.productId), { idempotencyKey: 'same-key' });
      const rb = await b.send(saleCreated(900, b.productId), { idempotencyKey: 'same-key' });
      expect(ra.json()).toEqual({ status: 'ok' });
      expect(rb.json()).toEqual({ status: 'ok' });
      expect(await findSale(b.companyId, 900)).toBeDefined();
    });

    it('refuses data that names another company', async () => {
      const a = await setup();
      const b = await setup();
      const res = await expectRefused(
        a,
        saleCreated(901, a.productId, { company_id: b.companyId }),
        'validation_failed',
        'company_id',
      );
      expect(res.json().details).toEqual([
        { path: 'data.sale.company_id', message: `is ${b.companyId} but the integration key belongs to company ${a.companyId}` },
      ]);
    });
  });

  describe('event times ahead of the server clock', () => {
    const ahead = [
      ['ten years on', () => new Date(Date.now() + 10 * 365 * 86_400_000).toISOString()],
      ['year 9999', () => '9999-12-31T23:59:59Z'],
    ] as const;
    const events = {
      'sales.created': (at: string) => saleCreated(801, 10, { created_at: at }),
      'sales.paid': (at: string) => ({ event: 'sales.paid', data: { sale: { id: 800, paid_at: at } } }),
      'sales.cancelled': (at: string) => ({ event: 'sales.cancelled', data: { sale: { id: 800, cancelled_at: at } } }),
      'invoice.issued': (at: string) => ({
        event: 'invoice.issued',
        data: {
          invoice: {
            id: 1,
            sale_id: 800,
            type: 'B',
            point_of_sale: 3,
            number: 42,
            cae: '74123456789012',
            cae_expiration: '2036-03-20T00:00:00-03:00',
            total: 300,
            issued_at: at,
          },
        },
      }),
      'movement.created': (at: string) => ({
        event: 'movement.created',
        data: { movement: { id: 1, type: 'IN', deposit_id: 1, product_id: 10, amount: 1, created_at: at } },
      }),
    } as const;
    const paths = {
      'sales.created': 'data.sale.created_at',
      'sales.paid': 'data.sale.paid_at',
      'sales.cancelled': 'data.sale.cancelled_at',
      'invoice.issued': 'data.invoice.issued_at',
      'movement.created': 'data.movement.created_at',
    } as const;

    it.each(Object.keys(events) as (keyof typeof events)[])(
      'refuses a %s dated more than 5 minutes ahead (naming the field); one a minute ahead or years back is kept',
      async (event) => {
        const c = await setup();
        await c.send(saleCreated(800, c.productId));
        for (const [name, at] of ahead) {
          const res = await expectRefused(c, events[event](at()), 'validation_failed', 'ahead of the server clock');
          expect(res.json().details, name).toEqual([
            { path: paths[event], message: 'is more than 5 minutes ahead of the server clock' },
          ]);
        }
        const skew = new Date(Date.now() + 60_000).toISOString();
        expect((await c.send(events[event](skew))).json()).toEqual({ status: 'ok' });
        if (event === 'sales.created') {
          expect((await c.send(saleCreated(802, c.productId, { created_at: '2015-06-01T12:00:00-03:00' }))).statusCode).toBe(200);
        }
      },
    );

    it('names a time ahead together with the other problems of the data, in one answer', async () => {
      const c = await setup();
      const res = await expectRefused(
        c,
        saleCreated(803, c.productId, { created_at: '9999-12-31T23:59:59Z', total: 'mucho' }),
        'validation_failed',
        'ahead of the server clock',
      );
      expect(res.json().details).toEqual([
        { path: 'data.sale.total', message: expect.any(String) },
        { path: 'data.sale.created_at', message: 'is more than 5 minutes ahead of the server clock' },
      ]);
    });
  });
});
