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
      const rows = await tx.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN EXECUTE sale_numbers_plan('{a,b}'::text[], '{3,1}'::int[], 1, 1, 1)`,
      );
      await tx.exec('DEALLOCATE sale_numbers_plan');
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
    // The statement's parameters are as many as the EXECUTE above gives (a new one fails here).
    expect(built.params).toHaveLength(5);
    expect(plan).toMatch(/SubPlan/);
    expect(plan).toMatch(/on register_sales x/);
    expect(plan).not.toMatch(/Hash|Anti Join|Seq Scan on register_sales/);
  });
});
