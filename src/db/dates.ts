import pg from 'pg';

/** node-pg's reader of a timestamptz's text (postgres-date): right for every year from 1 to 9999. */
const parsePg = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (value: string) => Date | null;

/** PostgreSQL's text of a timestamptz: "2026-11-28 13:38:21.858-03", "0020-06-01 00:00:00+00". */
const PG_TIMESTAMPTZ = /^\d{4,}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?[+-]\d\d(:\d\d){0,2}( BC)?$/;

/**
 * A timestamptz as a statement's row gives it, as a Date: drizzle's raw statements (both drivers)
 * give PostgreSQL's text, node-pg's own queries a Date. `new Date(text)` reads PostgreSQL's text in
 * years 0-99 as 1900-1999 or not at all ("0012-06-01 …" became 2001-12-06, "0020-06-01 …" Invalid
 * Date), and the API accepts dates from year 1: an event dated year 20 answered 500, and so did the
 * company's sales list ever after. An ISO text ("…T…Z", from JSON) is read as JavaScript reads it.
 */
export function dbDate(value: Date | string): Date {
  if (value instanceof Date) return value;
  // Only years 0-99 ("00…") are misread; the rest keep `new Date`, which costs a third (rows of a
  // product list carry two dates each).
  if (value.startsWith('00') && PG_TIMESTAMPTZ.test(value)) {
    const parsed = parsePg(value);
    if (parsed instanceof Date) return parsed;
  }
  return new Date(value);
}

/** dbDate as ISO 8601 (what the API answers), null kept. */
export function dbIso(value: Date | string | null): string | null {
  return value === null ? null : dbDate(value).toISOString();
}
