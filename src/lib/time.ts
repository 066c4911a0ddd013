export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** Milliseconds in a day (UTC days: no daylight saving in Argentina, none in our arithmetic). */
export const DAY_MS = 86_400_000;

/** RFC 3339 date-time with an explicit offset or Z (what x-sent-at, `since` and event data accept). */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/**
 * The instants accepted wherever a date-time comes in: from 0001-01-01T00:00:00Z to
 * 9999-12-31T23:59:59.999999Z, in UTC after applying the offset (docs/integraciones.md).
 */
export const DATE_TIME_MIN = '0001-01-01T00:00:00Z';
export const DATE_TIME_MAX = '9999-12-31T23:59:59.999999Z';
const MIN_MS = Date.parse(DATE_TIME_MIN);
/** The last millisecond JavaScript can hold below the maximum (microseconds are checked on the text). */
const MAX_MS = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * An RFC 3339 date-time with offset, or null. Refused as well: impossible days (Feb 30), hours
 * or minutes out of range, offsets beyond ±15:59, leap seconds (:60, which neither JavaScript nor PostgreSQL
 * store), and instants outside DATE_TIME_MIN..DATE_TIME_MAX.
 */
export function parseRfc3339(value: string): Date | null {
  const match = RFC3339.exec(value);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [offsetHour, offsetMinute] = [Number(match[8] ?? 0), Number(match[9] ?? 0)];
  // Offsets beyond ±15:59 are valid RFC 3339 but no place uses them, and PostgreSQL refuses them.
  if (hour > 23 || minute > 59 || second > 59 || offsetHour > 15 || offsetMinute > 59) return null;
  // Date rolls impossible days over (Feb 30 → Mar 2); RFC 3339 (and PostgreSQL) refuse them.
  const calendar = new Date(Date.UTC(2000, month - 1, day));
  calendar.setUTCFullYear(year);
  if (month < 1 || month > 12 || calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return null;
  const date = new Date(value);
  const ms = date.getTime();
  if (Number.isNaN(ms) || ms < MIN_MS || ms > MAX_MS) return null;
  // Within the last millisecond of the range, digits beyond it may still round past the maximum.
  if (ms === MAX_MS && /[1-9]/.test((match[7] ?? '').slice(7))) return null;
  return date;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
