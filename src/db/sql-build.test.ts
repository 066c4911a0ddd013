import { eq, type SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { companies, movements, products } from './schema/index.ts';
import { fastSqlToQuery } from './sql-build.ts';

// A dialect of its own, not patched by installFastSqlBuild: Drizzle's builder as shipped.
const dialect = new PgDialect();
const drizzle = (query: SQL) => dialect.sqlToQuery(query);

describe('fastSqlToQuery', () => {
  const when = new Date('2026-11-26T12:00:00.000Z');
  const cases: [string, SQL][] = [
    ['text only', sql`SELECT 1`],
    ['plain values', sql`SELECT ${1}, ${'a'}, ${null}, ${true}, ${12.5}, ${when}, ${{ a: 1 }}, ${Buffer.from('x')}`],
    ['undefined leaves nothing', sql`SELECT 1${undefined} AS x`],
    ['nested fragments', sql`WITH a AS (${sql`SELECT ${1} AS n`}), b AS (${sql`SELECT ${sql`${2}`} AS n`}) SELECT ${3}`],
    ['a list in the template', sql`SELECT ${[1, 2, [3, 4], sql`now()`]} AS x`],
    ['an empty list', sql`SELECT ${[]} AS x`],
    ['sql.join', sql`VALUES ${sql.join([sql`(${1}, ${'a'})`, sql`(${2}, ${'b'})`], sql`, `)}`],
    ['sql.raw', sql`SELECT ${sql.raw('count(*)')} FROM t WHERE id = ${7}`],
    ['sql.identifier', sql`SELECT ${sql.identifier('we"ird')} FROM t`],
    ['sql.param of an array', sql`SELECT ${sql.param([1, 2, 3])}::int[]`],
    [
      'sql.param with column encoders',
      sql`UPDATE p SET a = ${sql.param({ a: [1] }, companies.settings)}, b = ${sql.param('1.50', products.basePrice)},
        c = ${sql.param(when, movements.createdAt)}, d = ${sql.param('x', products.name)}`,
    ],
    ['an empty fragment', sql``],
  ];
  for (const [name, query] of cases) {
    it(`builds ${name} as Drizzle does`, () => {
      const fast = fastSqlToQuery(query, dialect);
      expect(fast).not.toBeNull();
      expect(fast).toEqual(drizzle(query));
    });
  }

  it('numbers its parameters across nested fragments in order', () => {
    const fast = fastSqlToQuery(sql`SELECT ${'a'}, ${sql`${'b'}, ${sql`${'c'}`}`}, ${'d'}`, dialect)!;
    expect(fast.sql).toBe('SELECT $1, $2, $3, $4');
    expect(fast.params).toEqual(['a', 'b', 'c', 'd']);
  });

  it("leaves to Drizzle what only Drizzle's builder knows", () => {
    const withTable = sql`SELECT * FROM ${products} WHERE ${eq(products.id, 1)}`;
    const withColumn = sql`SELECT ${products.name} FROM products`;
    const withPlaceholder = sql`SELECT ${sql.placeholder('x')}`;
    const inlined = sql`SELECT ${'a'}`.inlineParams();
    const innerInlined = sql`SELECT ${sql`${'a'}`.inlineParams()}`;
    for (const query of [withTable, withColumn, withPlaceholder, inlined, innerInlined]) {
      expect(fastSqlToQuery(query, dialect)).toBeNull();
    }
  });
});
