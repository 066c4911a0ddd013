import { entityKind, Name, Param, type QueryTypingsValue, type QueryWithTypings as Query, SQL, StringChunk } from 'drizzle-orm';
import type { PgDialect } from 'drizzle-orm/pg-core';
import { isDeepStrictEqual } from 'node:util';

/**
 * The text and parameters of a raw `sql` statement, built in one pass over its chunks.
 *
 * Drizzle's builder (SQL.toQuery) answers each chunk by asking it, in turn, whether it is a
 * table, a column, a view, a placeholder, a subquery… (each question walks the chunk's class
 * chain), and merges one small {sql, params} object per chunk: for the register sale's statement
 * (some 120 parameters) that was ~0.2 ms of Node per sale, about a tenth of its Node time. This
 * walk knows only what raw statements are made of — text, nested `sql`, `sql.identifier`,
 * `sql.param`, lists and plain values — and answers null at the first anything else (a table or a
 * column of the query builder, a placeholder, an inlined fragment), for Drizzle's own builder to
 * build the whole statement as always. Where it answers, it answers exactly what Drizzle would:
 * while the test suite runs, every statement it builds is also built by Drizzle and compared
 * (installFastSqlBuild).
 */
export function fastSqlToQuery(query: SQL, dialect: PgDialect): Query | null {
  if (inlines(query)) return null;
  const out: Built = { sql: '', params: [], typings: [] };
  if (!walk(query.queryChunks, out, dialect)) return null;
  return out.params.length > 0 ? out : { sql: out.sql, params: out.params };
}

interface Built {
  sql: string;
  params: unknown[];
  typings: QueryTypingsValue[];
}

function walk(chunks: readonly unknown[], out: Built, dialect: PgDialect): boolean {
  for (const chunk of chunks) {
    if (chunk instanceof StringChunk) {
      out.sql += chunk.value.length === 1 ? chunk.value[0] : chunk.value.join('');
    } else if (chunk === undefined) {
      // nothing, as in Drizzle
    } else if (Array.isArray(chunk)) {
      // A list of values: (a, b, c).
      out.sql += '(';
      for (let i = 0; i < chunk.length; i++) {
        if (i > 0) out.sql += ', ';
        if (!walk([chunk[i]], out, dialect)) return false;
      }
      out.sql += ')';
    } else if (chunk instanceof SQL) {
      if (inlines(chunk) || !walk(chunk.queryChunks, out, dialect)) return false;
    } else if (chunk instanceof Name) {
      out.sql += dialect.escapeName(chunk.value);
    } else if (chunk instanceof Param) {
      if (isEntity(chunk.value)) return false; // a placeholder
      const value = chunk.value === null ? null : chunk.encoder.mapToDriverValue(chunk.value);
      if (isEntity(value)) return false; // an encoder that answers SQL
      out.params.push(value);
      out.sql += dialect.escapeParam(out.params.length - 1);
      out.typings.push(dialect.prepareTyping(chunk.encoder));
    } else if (typeof chunk === 'function' || isEntity(chunk) || isWrapper(chunk)) {
      // A table, column, view, placeholder, alias, subquery, enum…: Drizzle's builder builds it.
      return false;
    } else {
      out.params.push(chunk);
      out.sql += dialect.escapeParam(out.params.length - 1);
      out.typings.push('none');
    }
  }
  return true;
}

/** A fragment whose values are written into its text (`.inlineParams()`): Drizzle's builder builds it. */
function inlines(query: SQL): boolean {
  return (query as unknown as { shouldInlineParams: boolean }).shouldInlineParams;
}

/** An instance of a Drizzle class (its class, or one it extends, declares an entity kind). */
function isEntity(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const ctor = (value as { constructor?: unknown }).constructor;
  return typeof ctor === 'function' && entityKind in ctor;
}

function isWrapper(value: unknown): boolean {
  return typeof value === 'object' && value !== null && typeof (value as { getSQL?: unknown }).getSQL === 'function';
}

let crossCheck = false;

/**
 * While on, every statement fastSqlToQuery builds is also built by Drizzle and a difference
 * throws. The test suite's setup turns it on: every raw statement the suite runs proves that the
 * two builders agree.
 */
export function crossCheckSqlBuild(on: boolean): void {
  crossCheck = on;
}

/** Builds a Drizzle database's raw statements with fastSqlToQuery (its query builder's keep Drizzle's builder). */
export function installFastSqlBuild(dialect: PgDialect): void {
  const drizzleBuild = dialect.sqlToQuery.bind(dialect);
  dialect.sqlToQuery = (query: SQL, invokeSource?: 'indexes' | undefined) => {
    const fast = invokeSource === undefined ? fastSqlToQuery(query, dialect) : null;
    if (fast === null) return drizzleBuild(query, invokeSource);
    if (crossCheck) assertSameQuery(fast, drizzleBuild(query, invokeSource));
    return fast;
  };
}

export function assertSameQuery(fast: Query, drizzle: Query): void {
  const same =
    fast.sql === drizzle.sql &&
    isDeepStrictEqual(fast.params, drizzle.params) &&
    JSON.stringify(fast.typings ?? null) === JSON.stringify(drizzle.typings ?? null);
  if (!same) {
    throw new Error(
      `fastSqlToQuery differs from Drizzle's builder:\n${fast.sql}\n${JSON.stringify(fast.typings)}\n--- Drizzle:\n${drizzle.sql}\n${JSON.stringify(drizzle.typings)}`,
    );
  }
}
