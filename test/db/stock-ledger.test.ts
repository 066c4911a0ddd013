import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deposits, movements, outboxEvents } from '../../src/db/schema/index.ts';
import { findProduct } from '../../src/modules/catalog/products.service.ts';
import { applyMovement, findStockLevels, setProductStock } from '../../src/modules/stock/stock.ledger.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct } from '../factories.ts';

describe('stock ledger', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  const now = () => new Date();

  async function setup() {
    const company = await makeCompany(t.container);
    await t.container.db.orm.insert(deposits).values({ companyId: company.id, id: 2, name: 'Sucursal' });
    const product = await makeProduct(t.container, company.id, { sku: 'A-1' });
    return { companyId: company.id, productId: product.id };
  }

  const apply = (companyId: number, input: Parameters<typeof applyMovement>[2]) =>
    t.container.db.orm.transaction((tx) => applyMovement(tx, companyId, input, { now: now() }));

  it('adds IN, subtracts OUT, moves TRANSFER and applies signed ADJUSTMENT', async () => {
    const { companyId, productId } = await setup();
    await apply(companyId, { type: 'IN', depositId: 1, productId, amount: 10.5 });
    await apply(companyId, { type: 'OUT', depositId: 1, productId, amount: '0.25' });
    await apply(companyId, { type: 'TRANSFER', depositId: 1, toDepositId: 2, productId, amount: 4 });
    await apply(companyId, { type: 'ADJUSTMENT', depositId: 2, productId, amount: -1.125 });

    const levels = await findStockLevels(t.container.db.orm, companyId, productId);
    expect(levels).toEqual([
      { depositId: 1, quantity: 6.25 },
      { depositId: 2, quantity: 2.875 },
    ]);
    const product = await findProduct(t.container.db.orm, companyId, productId);
    expect(product!.stock).toBe('9.125');
    const rows = await t.container.db.orm.select().from(movements).where(eq(movements.companyId, companyId));
    expect(rows.map((r) => r.type)).toEqual(['IN', 'OUT', 'TRANSFER', 'ADJUSTMENT']);
  });

  it('allows negative stock and reports it', async () => {
    const { companyId, productId } = await setup();
    const result = await apply(companyId, { type: 'OUT', depositId: 1, productId, amount: 3 });
    expect(result.stockChange).toMatchObject({ previousStock: 0, currentStock: -3, change: -3, depositId: 1 });
  });

  it('sets a total stock as an ADJUSTMENT of the difference at the default deposit', async () => {
    const { companyId, productId } = await setup();
    await apply(companyId, { type: 'IN', depositId: 2, productId, amount: 5 });
    const result = await t.container.db.orm.transaction((tx) =>
      setProductStock(tx, companyId, { productId, stock: 12 }, { now: now() }),
    );
    expect(result!.movement).toMatchObject({ type: 'ADJUSTMENT', deposit_id: 1, amount: 7 });
    expect(await findStockLevels(t.container.db.orm, companyId, productId)).toEqual([
      { depositId: 1, quantity: 7 },
      { depositId: 2, quantity: 5 },
    ]);
    const same = await t.container.db.orm.transaction((tx) =>
      setProductStock(tx, companyId, { productId, stock: 12 }, { now: now() }),
    );
    expect(same).toBeNull();
  });

  it('records movement.created and product.stock_updated in the same transaction', async () => {
    const { companyId, productId } = await setup();
    await apply(companyId, { id: 77, type: 'IN', depositId: 1, productId, amount: 2, reason: 'compra' });
    const events = await t.container.db.orm.select().from(outboxEvents).where(eq(outboxEvents.companyId, companyId));
    const stock = events.find(
      (e) => e.event === 'product.stock_updated' && (e.payload.data['product'] as { current_stock: number }).current_stock === 2,
    );
    expect(events.some((e) => e.event === 'movement.created' && (e.payload.data['movement'] as { id: number }).id === 77)).toBe(
      true,
    );
    expect(stock!.payload.data['product']).toMatchObject({
      id: productId,
      sku: 'A-1',
      previous_stock: 0,
      current_stock: 2,
      change: 2,
      deposit_id: 1,
    });
  });

  it('rolls back everything when one part fails', async () => {
    const { companyId, productId } = await setup();
    await expect(apply(companyId, { type: 'TRANSFER', depositId: 1, toDepositId: 9, productId, amount: 1 })).rejects.toThrow(
      'deposit 9 does not exist',
    );
    expect(await findStockLevels(t.container.db.orm, companyId, productId)).toEqual([]);
  });

  it.each([
    [{ type: 'IN', amount: 0 }, 'must be positive'],
    [{ type: 'OUT', amount: -1 }, 'must be positive'],
    [{ type: 'TRANSFER', amount: 1 }, 'needs to_deposit_id'],
    [{ type: 'IN', amount: 1, toDepositId: 2 }, 'only allowed on TRANSFER'],
  ] as const)('refuses %o', async (partial, message) => {
    const { companyId, productId } = await setup();
    await expect(apply(companyId, { depositId: 1, productId, ...partial })).rejects.toThrow(message);
  });

  it("never touches another company's product or deposit", async () => {
    const a = await setup();
    const b = await setup();
    await expect(apply(b.companyId, { type: 'IN', depositId: 1, productId: a.productId + 1000, amount: 1 })).rejects.toThrow(
      'does not exist',
    );
    await apply(b.companyId, { type: 'IN', depositId: 2, productId: b.productId, amount: 3 });
    expect(await findStockLevels(t.container.db.orm, a.companyId, a.productId)).toEqual([]);
    const aDeposits = await t.container.db.orm
      .select()
      .from(deposits)
      .where(and(eq(deposits.companyId, a.companyId)));
    expect(aDeposits).toHaveLength(2);
  });
});
