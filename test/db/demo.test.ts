import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isValidGtin } from '../../src/lib/barcode.ts';
import { seedDemo, seedDemoIfEmpty } from '../../src/modules/demo/demo.service.ts';
import { buildTestApp, type TestApp } from '../app.ts';

describe('demo seed', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  it('seeds a realistic company once on an empty database', async () => {
    const demo = await seedDemoIfEmpty(t.container);
    expect(demo).not.toBeNull();
    expect(await seedDemoIfEmpty(t.container)).toBeNull();
    const q = <T>(text: string) => t.container.db.query<T>(text, [demo!.companyId]);

    const products = await q<{ bc: string | null; name: string; base_price: string; mark: string | null }>(
      'SELECT bc, name, base_price, mark FROM products WHERE company_id = $1',
    );
    expect(products.length).toBeGreaterThanOrEqual(300);
    const barcodes = products.map((p) => p.bc).filter((bc): bc is string => bc !== null);
    expect(barcodes.length).toBeGreaterThan(250);
    expect(barcodes.every((bc) => bc.startsWith('779') && bc.length === 13 && isValidGtin(bc))).toBe(true);
    expect(new Set(barcodes).size).toBe(barcodes.length);
    expect(products.some((p) => /[áéíóúñü]/i.test(p.name))).toBe(true);
    expect(products.every((p) => Number(p.base_price) > 0)).toBe(true);
    expect(new Set(products.map((p) => p.mark)).size).toBeGreaterThan(50);

    const deposits = await q<{ deposit_id: number; n: number }>(
      'SELECT deposit_id, count(*)::int AS n FROM stock_levels WHERE company_id = $1 AND quantity > 0 GROUP BY deposit_id ORDER BY 1',
    );
    expect(deposits.map((d) => d.deposit_id)).toEqual([1, 2]);
    // products.stock is the sum of the deposits
    const mismatched = await q<{ n: number }>(
      `SELECT count(*)::int AS n FROM products p WHERE company_id = $1 AND stock <> coalesce(
         (SELECT sum(quantity) FROM stock_levels s WHERE s.company_id = p.company_id AND s.product_id = p.id), 0)`,
    );
    expect(mismatched[0]!.n).toBe(0);
    const boxes = await q<{ n: number }>('SELECT count(*)::int AS n FROM boxes WHERE company_id = $1');
    expect(boxes[0]!.n).toBe(2);
    const statuses = await q<{ status: string }>('SELECT DISTINCT status FROM sales WHERE company_id = $1 ORDER BY 1');
    expect(statuses.map((s) => s.status)).toEqual(['cancelled', 'paid', 'pending']);
    const invoices = await q<{ n: number }>('SELECT count(*)::int AS n FROM invoices WHERE company_id = $1');
    expect(invoices[0]!.n).toBe(1);

    expect(demo!.logins.map((l) => l.role)).toEqual(['superadmin', 'admin', 'cashier']);
    expect(demo!.logins.every((l) => l.password && l.password.length >= 10)).toBe(true);
    expect(demo!.banner).toContain(demo!.scannerToken);
    expect(demo!.banner).toContain(demo!.integrationKey);
    expect(demo!.banner).toContain('operador@mostrador.demo');
    expect(await t.container.companies.findCompanyIdByScannerToken(demo!.scannerToken)).toBe(demo!.companyId);
  });

  it('seeds a second demo company on request without touching the first', async () => {
    const again = await seedDemo(t.container);
    expect(again.companyName).toMatch(/^Almacén Don Tito \d+$/);
    expect(again.logins.find((l) => l.role === 'superadmin')!.password).toBeNull();
  });
});
