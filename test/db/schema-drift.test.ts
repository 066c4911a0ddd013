import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schema from '../../src/db/schema/index.ts';
import { openTestDatabase, type TestDatabase } from '../setup/db.ts';

/** The Drizzle tables (typed queries) and the SQL migrations (the truth) must describe the same columns. */
describe('schema drift', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(() => database.dispose());

  const tables = (Object.values(schema) as unknown[]).filter((value): value is PgTable => value instanceof PgTable);

  it('has a Drizzle table for the tables of the migrations', () => {
    expect(tables.length).toBeGreaterThan(10);
  });

  it.each(tables.map((table) => [getTableConfig(table).name, table] as const))(
    '%s matches the migrated database',
    async (name, table) => {
      const columns = await database.db.query<{ column_name: string; is_nullable: string; data_type: string }>(
        `SELECT column_name, is_nullable, data_type FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name = $1 ORDER BY column_name`,
        [name],
      );
      const actual = columns.map((c) => `${c.column_name}:${c.is_nullable === 'NO' ? 'not null' : 'null'}`);
      const declared = getTableConfig(table)
        .columns.map((c) => `${c.name}:${c.notNull || c.primary ? 'not null' : 'null'}`)
        .sort();
      expect(actual).toEqual(declared);
    },
  );
});
