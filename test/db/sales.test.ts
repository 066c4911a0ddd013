import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboxEvents, sales } from '../../src/db/schema/index.ts';
import { recordInvoice } from '../../src/modules/invoices/invoices.service.ts';
import {
  cancelSale,
  createSale,
  findSaleItems,
  markSalePaid,
  SALE_TRANSITIONS,
  saleToWire,
} from '../../src/modules/sales/sales.service.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct } from '../factories.ts';

describe('sales and invoices', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  const tx = <T>(fn: (conn: Parameters<Parameters<TestApp['container']['db']['orm']['transaction']>[0]>[0]) => Promise<T>) =>
    t.container.db.orm.transaction(fn);
  const opts = () => ({ now: new Date() });

  async function saleIn(companyId: number, id = 10) {
    const product = await makeProduct(t.container, companyId, { basePrice: 1999.99 });
    return tx((c) =>
      createSale(
        c,
        companyId,
        { id, total: 1509.99, items: [{ productId: product.id, quantity: 0.755, price: 1999.99 }] },
        opts(),
      ),
    );
  }

  it('keeps the state machine as data: only pending can move', () => {
    expect(SALE_TRANSITIONS).toEqual({ pending: ['paid', 'cancelled'], paid: [], cancelled: [] });
  });

  it('creates a pending sale with exact subtotals', async () => {
    const company = await makeCompany(t.container);
    const { sale } = await saleIn(company.id);
    expect(sale.status).toBe('pending');
    const items = await findSaleItems(t.container.db.orm, company.id, sale.id);
    expect(items[0]).toMatchObject({ quantity: '0.755', price: '1999.99', subtotal: '1509.99' });
  });

  it('pays once, repeats the same payment as a no-op, and refuses every illegal move naming the state', async () => {
    const company = await makeCompany(t.container);
    await saleIn(company.id);
    const paid = await tx((c) =>
      markSalePaid(c, company.id, { id: 10, paymentId: 'mp-1', paymentMethod: 'Mercado Pago' }, opts()),
    );
    expect(paid.changed).toBe(true);
    const again = await tx((c) => markSalePaid(c, company.id, { id: 10, paymentId: 'mp-1' }, opts()));
    expect(again.changed).toBe(false);
    await expect(tx((c) => markSalePaid(c, company.id, { id: 10, paymentId: 'mp-2' }, opts()))).rejects.toThrow(
      'sale 10 is paid; it cannot become paid',
    );
    await expect(tx((c) => cancelSale(c, company.id, { id: 10, reason: 'x' }, opts()))).rejects.toThrow(
      'sale 10 is paid; it cannot become cancelled',
    );
    await expect(tx((c) => markSalePaid(c, company.id, { id: 11 }, opts()))).rejects.toThrow('sale 11 does not exist');
  });

  it('refuses an invoice for a cancelled sale and a repeated receipt number', async () => {
    const company = await makeCompany(t.container);
    await saleIn(company.id, 1);
    await saleIn(company.id, 2);
    await tx((c) => cancelSale(c, company.id, { id: 2, reason: 'error de carga' }, opts()));
    const invoice = { type: 'B', pointOfSale: 1, number: 42, cae: '76000000000001', caeExpiration: new Date(), total: 1509.99 };
    await tx((c) => recordInvoice(c, company.id, { ...invoice, saleId: 1 }, opts()));
    await expect(tx((c) => recordInvoice(c, company.id, { ...invoice, saleId: 1 }, opts()))).rejects.toThrow(
      'receipt B 0001-00000042 already exists',
    );
    await expect(tx((c) => recordInvoice(c, company.id, { ...invoice, number: 43, saleId: 2 }, opts()))).rejects.toThrow(
      'sale 2 is cancelled',
    );
  });

  it("never reads or changes another company's sales", async () => {
    const a = await makeCompany(t.container);
    const b = await makeCompany(t.container);
    await saleIn(a.id, 5);
    await expect(tx((c) => markSalePaid(c, b.id, { id: 5 }, opts()))).rejects.toThrow('sale 5 does not exist');
    await expect(tx((c) => cancelSale(c, b.id, { id: 5 }, opts()))).rejects.toThrow('sale 5 does not exist');
    const invoice = { saleId: 5, type: 'C', pointOfSale: 1, number: 1, cae: '1', caeExpiration: new Date(), total: 1 };
    await expect(tx((c) => recordInvoice(c, b.id, invoice, opts()))).rejects.toThrow('sale 5, which does not exist');
    expect(await findSaleItems(t.container.db.orm, b.id, 5)).toEqual([]);
    // B can use the same sale number for its own sale: ids are per company.
    await saleIn(b.id, 5);
  });

  describe('createSale as one statement', () => {
    it('returns the sale and items exactly as stored, and records the outbound event with them', async () => {
      const company = await makeCompany(t.container);
      const p = await makeProduct(t.container, company.id);
      const created = await tx((c) =>
        createSale(
          c,
          company.id,
          {
            customerId: 7,
            total: '-0',
            paymentMethod: 'efectivo',
            items: [
              { productId: p.id, quantity: 2, price: 0.1 },
              { id: 9, productId: p.id, quantity: '0.0005', price: '12.345', subtotal: 0 },
            ],
          },
          { now: new Date('2026-03-10T15:00:00.123Z'), causedBy: null },
        ),
      );
      const [stored] = await t.container.db.orm
        .select()
        .from(sales)
        .where(and(eq(sales.companyId, company.id), eq(sales.id, created.sale.id)));
      expect(created.sale).toEqual(stored);
      expect(created.items).toEqual(await findSaleItems(t.container.db.orm, company.id, created.sale.id));
      const outbound = await t.container.db.orm
        .select()
        .from(outboxEvents)
        .where(and(eq(outboxEvents.companyId, company.id), eq(outboxEvents.event, 'sales.created')));
      expect(outbound.map((o) => o.payload)).toEqual([
        { event: 'sales.created', data: { sale: saleToWire(stored!, created.items) } },
      ]);
    });

    it('lists every missing product in the order the items name them, and writes nothing', async () => {
      const company = await makeCompany(t.container);
      const p = await makeProduct(t.container, company.id);
      const items = [9, p.id, 7, 9].map((productId) => ({ productId, quantity: 1, price: 1 }));
      await expect(tx((c) => createSale(c, company.id, { id: 3, total: 4, items }, opts()))).rejects.toThrow(
        'sale 3 refers to products 9, 7 that do not exist',
      );
      const rows = await t.container.db.orm.select().from(sales).where(eq(sales.companyId, company.id));
      expect(rows).toEqual([]);
      expect(
        await t.container.db.orm
          .select()
          .from(outboxEvents)
          .where(and(eq(outboxEvents.companyId, company.id), eq(outboxEvents.event, 'sales.created'))),
      ).toEqual([]);
    });
  });
});
