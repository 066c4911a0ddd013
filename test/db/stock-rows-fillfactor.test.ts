import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../setup/db.ts';

/**
 * products and stock_levels keep 10 % of each page free (0288_products_fillfactor.sql,
 * 0289_stock_levels_fillfactor.sql): the stock updates of every sale stay on their rows' pages (HOT
 * updates, no index entry), even for a catalogue loaded in one go, instead of moving the rows and
 * writing new entries into every index of the table (six on products, two of them GIN).
 */
describe('room for the stock updates on the pages of products and stock_levels', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(() => database.dispose());

  const query = <T = Record<string, unknown>>(text: string, params?: unknown[]) => database.db.query<T>(text, params);

  /** The page of a row: the block of its ctid. */
  async function page(table: string, where: string, params: unknown[]): Promise<string> {
    const [row] = await query<{ ctid: string }>(`SELECT ctid::text AS ctid FROM ${table} WHERE ${where}`, params);
    return row!.ctid.replace(/^\((\d+),\d+\)$/, '$1');
  }

  it('is set on both tables', async () => {
    for (const table of ['products', 'stock_levels']) {
      const [row] = await query<{ options: string[] | null }>(
        `SELECT reloptions AS options FROM pg_class WHERE oid = $1::regclass`,
        [table],
      );
      expect(row!.options ?? [], table).toContain('fillfactor=90');
    }
  });

  it('a catalogue loaded in one statement leaves room: the first product’s stock and level change three times on their pages', async () => {
    const [company] = await query<{ id: number }>(`INSERT INTO companies (name) VALUES ('Páginas') RETURNING id`);
    const companyId = company!.id;
    await query(`INSERT INTO deposits (company_id, id, name) VALUES ($1, 1, 'Local')`, [companyId]);
    // Rows of one size, so a full page (fillfactor 100) has no room for one more version of any of them.
    await query(
      `INSERT INTO products (company_id, id, sku, bc, name, base_price, stock)
        SELECT $1, g, 'SKU-' || lpad(g::text, 6, '0'), (7790000000000 + g)::text, 'Producto ' || lpad(g::text, 6, '0'), 100, 1000
        FROM generate_series(1, 500) g`,
      [companyId],
    );
    await query(
      `INSERT INTO stock_levels (company_id, deposit_id, product_id, quantity) SELECT $1, 1, g, 1000 FROM generate_series(1, 500) g`,
      [companyId],
    );
    const pages = async () => ({
      product: await page('products', 'company_id = $1 AND id = 1', [companyId]),
      level: await page('stock_levels', 'company_id = $1 AND deposit_id = 1 AND product_id = 1', [companyId]),
    });
    const before = await pages();
    for (let n = 0; n < 3; n++) {
      await query(`UPDATE products SET stock = stock + 1 WHERE company_id = $1 AND id = 1`, [companyId]);
      await query(
        `UPDATE stock_levels SET quantity = quantity + 1, updated_at = now() WHERE company_id = $1 AND deposit_id = 1 AND product_id = 1`,
        [companyId],
      );
      expect(await pages()).toEqual(before);
    }
  });
});
