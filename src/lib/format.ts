/**
 * es-AR formatting shared by the server and the browser (src/web imports this file): dates as
 * dd/mm/aaaa in Buenos Aires time, numbers with a dot for thousands. Money is formatArs in money.ts.
 */

export const AR_TIME_ZONE = 'America/Argentina/Buenos_Aires';

/** Day, month, year, hours and minutes on a 24 h clock: the fields of every date-time we print. */
const DATE_TIME_FIELDS: Intl.DateTimeFormatOptions = {
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
};

const DATE_TIME = new Intl.DateTimeFormat('es-AR', { ...DATE_TIME_FIELDS, timeZone: AR_TIME_ZONE });
const DATE_TIME_SECONDS = new Intl.DateTimeFormat('es-AR', { ...DATE_TIME_FIELDS, second: '2-digit', timeZone: AR_TIME_ZONE });
const DATE = new Intl.DateTimeFormat('es-AR', { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: AR_TIME_ZONE });
const INTEGER = new Intl.NumberFormat('es-AR', { maximumFractionDigits: 0 });

/** A moment as an Argentine reader expects it ("21/11/2026, 10:15"), in Buenos Aires time. */
export function formatDateTime(value: Date | string, options: { seconds?: boolean } = {}): string {
  return (options.seconds ? DATE_TIME_SECONDS : DATE_TIME).format(new Date(value));
}

const LOCAL_DATE_TIME = new Map<string, Intl.DateTimeFormat>();

/**
 * A moment in a given IANA time zone (a company's) as a spreadsheet cell: "25/11/2026 17:38"
 * (dd/mm/aaaa hh:mm, 24 h, no comma).
 */
export function formatLocalDateTime(value: Date | string, timeZone: string): string {
  let formatter = LOCAL_DATE_TIME.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('es-AR', { ...DATE_TIME_FIELDS, timeZone });
    LOCAL_DATE_TIME.set(timeZone, formatter);
  }
  const part = Object.fromEntries(formatter.formatToParts(new Date(value)).map((p) => [p.type, p.value]));
  return `${part['day']}/${part['month']}/${part['year']} ${part['hour']}:${part['minute']}`;
}

/** A day: "21/11/2026". A plain calendar date (2026-11-21) is taken as that day, not as UTC midnight. */
export function formatDate(value: Date | string): string {
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const [year, month, day] = value.split('-');
    return `${day}/${month}/${year}`;
  }
  return DATE.format(new Date(value));
}

/** A count: "1.184". */
export function formatCount(value: number): string {
  return INTEGER.format(value);
}

/** A count with what it counts, singular for one: "1 venta", "1.184 ventas". */
export function formatCountOf(value: number, one: string, many: string): string {
  return `${formatCount(value)} ${value === 1 ? one : many}`;
}

const RELATIVE = new Intl.RelativeTimeFormat('es-AR', { numeric: 'auto' });
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

/** "hace 5 minutos", "ayer"; past a week, the date itself. */
export function formatRelative(value: Date | string, now: Date = new Date()): string {
  const diff = new Date(value).getTime() - now.getTime();
  if (Math.abs(diff) >= 7 * 86_400_000) return formatDate(value);
  for (const [unit, ms] of UNITS) {
    if (Math.abs(diff) >= ms) return RELATIVE.format(Math.round(diff / ms), unit);
  }
  return 'recién';
}

/**
 * A day typed as a person writes it in Argentina, "29/11/2026" (also 29-11-2026, 29.11.2026, 1/3/2026
 * or 29112026), as a calendar date "2026-11-29"; null when it is not a day of the calendar (31/02).
 */
export function parseTypedDate(text: string): string | null {
  const trimmed = text.trim();
  const parts = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(trimmed) ?? /^(\d{2})(\d{2})(\d{4})$/.exec(trimmed);
  if (!parts) return null;
  const [day, month, year] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1) return null;
  // 2000 is a leap year: its months are as long as they get; 29/02 of other years is checked below.
  if (day > new Date(Date.UTC(2000, month, 0)).getUTCDate()) return null;
  if (month === 2 && day === 29 && !(year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0))) return null;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}
