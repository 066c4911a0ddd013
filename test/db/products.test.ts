import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboxEvents } from '../../src/db/schema/index.ts';
import { findProduct, type ProductInput, upsertProduct } from '../../src/modules/catalog/products.service.ts';
import { findStockLevels } from '../../src/modules/stock/stock.ledger.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany } from '../factories.ts';

describe('products', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  const upsert = (companyId: number, input: ProductInput) =>
    t.container.db.orm.transaction((tx) => upsertProduct(tx, companyId, input, { now: new Date() }));

  it('creates, updates, and ignores an update older than the stored one', async () => {
    const { id: companyId } = await makeCompany(t.container);
    const v1 = new Date('2026-11-01T10:00:00Z');
    const created = await upsert(companyId, { id: 7, name: 'Yerba Playadito 1 kg', basePrice: '4899.90', updatedAt: v1 });
    expect(created.outcome).toBe('created');
    const updated = await upsert(companyId, { id: 7, basePrice: 5100, updatedAt: new Date('2026-11-02T10:00:00Z') });
    expect(updated.outcome).toBe('updated');
    expect(updated.product).toMatchObject({ name: 'Yerba Playadito 1 kg', basePrice: '5100.00' });
    const stale = await upsert(companyId, { id: 7, basePrice: 1, updatedAt: v1 });
    expect(stale.outcome).toBe('stale');
    expect((await findProduct(t.container.db.orm, companyId, 7))!.basePrice).toBe('5100.00');
  });

  it('needs a name to create a product and refuses negative prices, writing nothing', async () => {
    const { id: companyId } = await makeCompany(t.container);
    await expect(upsert(companyId, { id: 1, basePrice: 10 })).rejects.toThrow('name is required');
    await expect(upsert(companyId, { id: 1, name: 'X', basePrice: -1 })).rejects.toThrow('must not be negative');
    expect(await findProduct(t.container.db.orm, companyId, 1)).toBeNull();
    const events = await t.container.db.orm.select().from(outboxEvents).where(eq(outboxEvents.companyId, companyId));
    expect(events).toEqual([]);
  });

  it('books a stock value in the ledger and emits product.upserted', async () => {
    const { id: companyId } = await makeCompany(t.container);
    await upsert(companyId, { id: 3, name: 'Fernet Branca 750 ml', stock: 24 });
    expect(await findStockLevels(t.container.db.orm, companyId, 3)).toEqual([{ depositId: 1, quantity: 24 }]);
    const events = await t.container.db.orm.select().from(outboxEvents).where(eq(outboxEvents.companyId, companyId));
    expect(events.map((e) => e.event).sort()).toEqual(['movement.created', 'product.stock_updated', 'product.upserted']);
    const upserted = events.find((e) => e.event === 'product.upserted')!.payload.data['product'];
    expect(upserted).toMatchObject({ id: 3, company_id: companyId, name: 'Fernet Branca 750 ml', stock: 24, enable: true });
  });

  it("keeps each company's products apart, even with the same id", async () => {
    const a = await makeCompany(t.container);
    const b = await makeCompany(t.container);
    await upsert(a.id, { id: 1, name: 'De A' });
    await upsert(b.id, { id: 1, name: 'De B' });
    await upsert(b.id, { id: 1, name: 'De B, cambiado' });
    expect((await findProduct(t.container.db.orm, a.id, 1))!.name).toBe('De A');
    expect((await findProduct(t.container.db.orm, b.id, 1))!.name).toBe('De B, cambiado');
  });
});
