import { PgDialect } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saleNumbersStatement } from '../../src/modules/register/register.repo.ts';
import { openTestDatabase, type TestDatabase } from '../setup/db.ts';

/**
 * The register's numbers statement (takeRegisterSaleIds) checks each sale's idempotency key with one
 * probe of the key's index. As an anti join, the plan a connection cached while the company had few
 * register sales read every one of them into a hash on each sale, more with every sale made (issue
 * 33). The plan checked is the generic one: the plan a pooled connection keeps for the statement.
 */
const SALES_AB = `'[{"n":1,"key":"a","moves":3},{"n":2,"key":"b","moves":1}]'::jsonb`;

describe("the register's numbers statement", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(() => database.dispose());

  it('looks each key up on its own, never reading the register sales into a hash', async () => {
    const built = new PgDialect().sqlToQuery(
      saleNumbersStatement(
        1,
        [
          { key: 'a', movements: 3 },
          { key: 'b', movements: 1 },
        ],
        {},
      ),
    );
    const plan = await database.db.rawTransaction(async (tx) => {
      await tx.exec('SET LOCAL plan_cache_mode = force_generic_plan');
      await tx.query(`PREPARE sale_numbers_plan AS ${built.sql}`);
      const rows = await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE sale_numbers_plan(${SALES_AB}, 1, 1, 1)`);
      await tx.exec('DEALLOCATE sale_numbers_plan');
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
    // The statement's parameters are as many as the EXECUTE above gives (a new one fails here).
    expect(built.params).toHaveLength(4);
    expect(plan).toMatch(/SubPlan/);
    expect(plan).toMatch(/on register_sales x/);
    expect(plan).not.toMatch(/Hash|Anti Join|Seq Scan on register_sales/);
  });

  it('is planned once per connection: after its first custom plans the connection keeps a generic one', async () => {
    // PostgreSQL compares the generic plan's cost with the custom plans' it made in the first five
    // executions. With the sales as arrays it estimated 10 elements generically and the real count
    // in each custom plan, so it replanned every call (issue 33).
    const plans = await database.db.rawTransaction(async (tx) => {
      const [company] = await tx.query<{ id: number }>(`INSERT INTO companies (name) VALUES ('Plan') RETURNING id`);
      const id = company!.id;
      const built = new PgDialect().sqlToQuery(saleNumbersStatement(id, [{ key: 'a', movements: 1 }], {}));
      await tx.query(`PREPARE sale_numbers_cache AS ${built.sql}`);
      for (let n = 0; n < 8; n++) {
        const sales = JSON.stringify([{ n: 1, key: `k${n}`, moves: 1 + (n % 3) }]);
        await tx.query(`EXECUTE sale_numbers_cache('${sales}'::jsonb, ${id}, ${id}, ${id})`);
      }
      const rows = await tx.query<{ generic: number; custom: number }>(
        `SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE name = 'sale_numbers_cache'`,
      );
      await tx.exec('DEALLOCATE sale_numbers_cache');
      return rows[0]!;
    });
    expect(plans.generic).toBeGreaterThanOrEqual(3);
    expect(plans.custom).toBeLessThanOrEqual(5);
  });
});
