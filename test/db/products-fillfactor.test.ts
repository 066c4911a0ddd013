import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../setup/db.ts';

/**
 * products keeps 10 % of each page free (0288_products_fillfactor.sql): the stock update of every
 * sale stays on the product's page (a HOT update, no index entry), even for a catalogue loaded in
 * one go, instead of moving the row and writing new entries into all six indexes of products.
 */
describe('room for the stock update on the pages of products', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(() => database.dispose());

  const query = <T = Record<string, unknown>>(text: string, params?: unknown[]) => database.db.query<T>(text, params);
  const page = async (companyId: number, id: number) =>
    (
      await query<{ ctid: string }>(`SELECT ctid::text AS ctid FROM products WHERE company_id = $1 AND id = $2`, [companyId, id])
    )[0]!.ctid.replace(/^\((\d+),\d+\)$/, '$1');

  it('is set on the table', async () => {
    const [row] = await query<{ options: string[] | null }>(
      `SELECT reloptions AS options FROM pg_class WHERE oid = 'products'::regclass`,
    );
    expect(row!.options).toContain('fillfactor=90');
  });

  it('a catalogue loaded in one statement leaves room: the first product’s stock changes three times on its page', async () => {
    const [company] = await query<{ id: number }>(`INSERT INTO companies (name) VALUES ('Páginas') RETURNING id`);
    const companyId = company!.id;
    // Rows of one size, so a full page (fillfactor 100) has no room for one more version of any of them.
    await query(
      `INSERT INTO products (company_id, id, sku, bc, name, base_price, stock)
        SELECT $1, g, 'SKU-' || lpad(g::text, 6, '0'), (7790000000000 + g)::text, 'Producto ' || lpad(g::text, 6, '0'), 100, 1000
        FROM generate_series(1, 500) g`,
      [companyId],
    );
    const before = await page(companyId, 1);
    for (let n = 0; n < 3; n++) {
      await query(`UPDATE products SET stock = stock + 1 WHERE company_id = $1 AND id = 1`, [companyId]);
      expect(await page(companyId, 1)).toBe(before);
    }
  });
});
