import { randomUUID } from 'node:crypto';
import { and, asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectRows } from '../../src/db/client.ts';
import { outboxEvents, sales } from '../../src/db/schema/index.ts';
import { createSalesFromEvents, prepareSaleFromEvent } from '../../src/modules/sales/create-sale.ts';
import { recordInvoice } from '../../src/modules/invoicing/invoices.ts';
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
import { countRows } from '../integration-helpers.ts';

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

  it('keeps the state machine as data: pending pays or cancels, paid refunds or returns lines, cancelled is final', () => {
    expect(SALE_TRANSITIONS.map((t) => `${t.from ?? 'new'} -${t.action}-> ${t.to}`)).toEqual([
      'new -create-> pending',
      'pending -pay-> paid',
      'pending -cancel-> cancelled',
      'paid -refund-> cancelled',
      'paid -return-> paid',
    ]);
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
      'sale 10 is already paid; it cannot be paid again',
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

  describe('createSalesFromEvents: many events in one statement', () => {
    /** A sales.created event of a batch: sale `id`, items naming `productIds`, idempotency `key`. */
    function entry(companyId: number, id: number, productIds: number[], key = `key-${id}`) {
      const payloadText = JSON.stringify({ event: 'sales.created', data: { sale: { id } } });
      return prepareSaleFromEvent({
        companyId,
        input: { id, total: productIds.length, items: productIds.map((productId) => ({ productId, quantity: 1, price: 1 })) },
        inbound: {
          id: randomUUID(),
          event: 'sales.created',
          idempotencyKey: key,
          payloadText,
          bodySha256: 'a'.repeat(64),
          signatureValid: true,
        },
        now: new Date('2026-03-10T15:00:00Z'),
      });
    }

    it('answers each event on its own: created, refused, duplicate of a stored or of an earlier event of the batch', async () => {
      const company = await makeCompany(t.container);
      const p = await makeProduct(t.container, company.id);
      await saleIn(company.id, 1);
      const stored = entry(company.id, 2, [p.id], 'stored');
      expect((await createSalesFromEvents(t.container.db.orm, [stored]))[0]!.outcome).toBe('created');
      const before = await countRows(t.container.db.orm, company.id);

      const batch = [
        entry(company.id, 3, [p.id]),
        entry(company.id, 4, [p.id, 404, 405, 404]),
        entry(company.id, 1, [p.id]),
        entry(company.id, 5, [p.id], 'twice'),
        entry(company.id, 6, [p.id], 'twice'),
        entry(company.id, 2, [p.id], 'stored'),
        entry(company.id, 7, [p.id]),
      ];
      const outcomes = await createSalesFromEvents(t.container.db.orm, batch);
      expect(outcomes.map((o) => (o.outcome === 'refused' ? o.refusal : o.outcome))).toEqual([
        'created',
        { existingStatus: null, missingProducts: [404, 405] },
        { existingStatus: 'pending', missingProducts: [] },
        'created',
        'duplicate',
        'duplicate',
        'created',
      ]);
      const after = await countRows(t.container.db.orm, company.id);
      expect(after).toMatchObject({
        inbound: before.inbound + 3,
        sales: before.sales + 3,
        sale_items: before.sale_items + 3,
        outbox: before.outbox + 3,
      });
      const created = outcomes.flatMap((o) => (o.outcome === 'created' ? [o.created] : []));
      for (const { sale, items } of created) {
        const [row] = await t.container.db.orm
          .select()
          .from(sales)
          .where(and(eq(sales.companyId, company.id), eq(sales.id, sale.id)));
        expect(row).toEqual(sale);
        expect(await findSaleItems(t.container.db.orm, company.id, sale.id)).toEqual(items);
      }
      const outbound = await t.container.db.orm
        .select()
        .from(outboxEvents)
        .where(and(eq(outboxEvents.companyId, company.id), eq(outboxEvents.event, 'sales.created')))
        .orderBy(asc(outboxEvents.seq));
      expect(outbound.slice(-3).map((o) => [o.payload, o.causedBy])).toEqual(
        [batch[0]!, batch[3]!, batch[6]!].map((b, n) => [
          { event: 'sales.created', data: { sale: saleToWire(created[n]!.sale, created[n]!.items) } },
          b.row.event_id,
        ]),
      );
    });

    it('stamps the stored events in batch order, each after every event received before', async () => {
      const company = await makeCompany(t.container);
      const p = await makeProduct(t.container, company.id);
      await createSalesFromEvents(t.container.db.orm, [entry(company.id, 1, [p.id])]);
      const batch = [2, 3, 4, 5].map((id) => entry(company.id, id, [p.id]));
      await createSalesFromEvents(t.container.db.orm, batch);
      // Microseconds apart: compared in the database, as JavaScript dates keep milliseconds only.
      const rows = await selectRows<{ key: string; later: boolean; payload: unknown }>(
        t.container.db.orm,
        sql`SELECT idempotency_key AS key, payload,
                   received_at > lag(received_at) OVER (ORDER BY received_at) AS later
            FROM inbound_events WHERE company_id = ${company.id} ORDER BY received_at`,
      );
      expect(rows.map((r) => r.key)).toEqual(['key-1', 'key-2', 'key-3', 'key-4', 'key-5']);
      expect(rows.map((r) => r.later)).toEqual([null, true, true, true, true]);
      expect(rows[4]!.payload).toEqual({ event: 'sales.created', data: { sale: { id: 5 } } });
    });

    it('fails as a whole, writing nothing, when two events of the batch create the same sale', async () => {
      const company = await makeCompany(t.container);
      const p = await makeProduct(t.container, company.id);
      const before = await countRows(t.container.db.orm, company.id);
      await expect(
        createSalesFromEvents(t.container.db.orm, [entry(company.id, 8, [p.id], 'a'), entry(company.id, 8, [p.id], 'b')]),
      ).rejects.toThrow();
      expect(await countRows(t.container.db.orm, company.id)).toEqual(before);
    });

    it('checks each sale against its own company only', async () => {
      const a = await makeCompany(t.container);
      const b = await makeCompany(t.container);
      const pa = await makeProduct(t.container, a.id);
      await saleIn(b.id, 9);
      const outcomes = await createSalesFromEvents(t.container.db.orm, [
        entry(a.id, 9, [pa.id]),
        entry(b.id, 10, [pa.id + 1000]),
      ]);
      expect(outcomes.map((o) => o.outcome)).toEqual(['created', 'refused']);
      expect((await countRows(t.container.db.orm, b.id)).inbound).toBe(0);
    });
  });
});
