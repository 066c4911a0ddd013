import { AppError } from '../../lib/errors.ts';

// Local calendar days (yyyy-mm-dd) as plain UTC dates: adding days never meets a DST change.

const DAY_MS = 86_400_000;

/** A real calendar day (2026-02-30 is not; nor is year 0000, which PostgreSQL does not have), or null. */
export function parseDay(text: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || text < '0001') return null;
  const at = new Date(`${text}T00:00:00Z`);
  return Number.isNaN(at.getTime()) || at.toISOString().slice(0, 10) !== text ? null : at;
}

export const dayText = (at: Date) => at.toISOString().slice(0, 10);

export function addDays(day: string, n: number): string {
  return dayText(new Date(parseDay(day)!.getTime() + n * DAY_MS));
}

/**
 * Every day from `from` to `to`, both included. Never asks for the day after `to`: after 9999-12-31
 * it is year 10000, which JavaScript writes "+010000-01-01" (a string that sorts before any day, so
 * the walk never ended and then failed: a 500).
 */
export function daysBetween(from: string, to: string): string[] {
  if (from > to) return [];
  const days = [from];
  while (days[days.length - 1]! < to) days.push(addDays(days[days.length - 1]!, 1));
  return days;
}

/** Today in a time zone, as yyyy-mm-dd. */
export function localToday(now: Date, timeZone: string): string {
  return now.toLocaleDateString('en-CA', { timeZone });
}

export const MAX_RANGE_DAYS = 366;

/** from/to of a report: defaults to this month so far; real days, in order, at most a year and a day. */
export function reportDays(query: { from?: string | undefined; to?: string | undefined }, today: string) {
  const to = query.to ?? (query.from && query.from > today ? query.from : today);
  const from = query.from ?? `${to.slice(0, 8)}01`;
  const details = [];
  if (!parseDay(from)) details.push({ path: '/from', message: `${from} is not a calendar day (yyyy-mm-dd)` });
  if (!parseDay(to)) details.push({ path: '/to', message: `${to} is not a calendar day (yyyy-mm-dd)` });
  if (details.length > 0) throw new AppError('validation_failed', details.map((d) => d.message).join('; '), { details });
  if (from > to) {
    throw new AppError('validation_failed', `from (${from}) is after to (${to})`, {
      details: [{ path: '/from', message: 'must not be after to' }],
    });
  }
  if ((parseDay(to)!.getTime() - parseDay(from)!.getTime()) / DAY_MS + 1 > MAX_RANGE_DAYS) {
    throw new AppError('validation_failed', `a report covers at most ${MAX_RANGE_DAYS} days (${from} to ${to} is longer)`, {
      details: [{ path: '/to', message: `at most ${MAX_RANGE_DAYS} days after from` }],
    });
  }
  return { from, to };
}

/**
 * YYYYMM → its first and last day, or a 422. The last day is worked out within the month (never from
 * the first day of the next): year 9999's next month is year 10000, which is no yyyy-mm-dd, and a
 * year below 1000 written without its zeros (0368 + 1 = "369") was no day either — both were a 500.
 */
export function periodDays(period: string): { first: string; last: string } {
  const month = Number(period.slice(4, 6));
  const first = `${period.slice(0, 4)}-${period.slice(4, 6)}-01`;
  if (!/^\d{6}$/.test(period) || month < 1 || month > 12 || !parseDay(first)) {
    throw new AppError('validation_failed', `period ${period} is not a month (YYYYMM, year 0001 to 9999)`, {
      details: [{ path: '/period', message: 'YYYYMM, year 0001 to 9999, month 01 to 12' }],
    });
  }
  // Day 0 of the next month is the last of this one; setUTCFullYear keeps years 0001-0099 as they are.
  const last = new Date(0);
  last.setUTCFullYear(Number(period.slice(0, 4)), month, 0);
  return { first, last: dayText(last) };
}
