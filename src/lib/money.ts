/**
 * Exact money and quantity arithmetic. Amounts travel as decimal strings (PostgreSQL numeric)
 * or JSON numbers, and are computed as integers: cents for money, thousandths for quantities.
 * Both fit well inside Number.MAX_SAFE_INTEGER for numeric(14,2) and numeric(14,3).
 */

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

/** Parses a decimal (string or number) into an integer count of 10^-scale units, rounding half away from zero. */
export function toUnits(value: string | number, scale: number): number {
  const text = typeof value === 'number' ? numberToPlain(value) : value.trim();
  const match = DECIMAL.exec(text);
  if (!match) throw new RangeError(`not a decimal number: ${JSON.stringify(value)}`);
  const [, sign, whole = '0', fraction = ''] = match;
  const kept = (fraction + '0'.repeat(scale)).slice(0, scale);
  const nextDigit = fraction.length > scale ? Number(fraction[scale]) : 0;
  let units = Number(whole) * 10 ** scale + Number(kept || '0');
  if (nextDigit >= 5) units += 1;
  if (!Number.isSafeInteger(units)) throw new RangeError(`number out of range: ${text}`);
  return sign ? -units : units;
}

/** Formats an integer count of 10^-scale units as a plain decimal string ("-12.50"). */
export function fromUnits(units: number, scale: number): string {
  if (!Number.isSafeInteger(units)) throw new RangeError(`units out of range: ${units}`);
  const negative = units < 0;
  const digits = String(Math.abs(units)).padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale);
  return `${negative ? '-' : ''}${whole}${scale > 0 ? `.${fraction}` : ''}`;
}

function numberToPlain(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
  // toString gives exponent notation outside 1e-7..1e21; toFixed(20) keeps digits we then trim.
  const text = Math.abs(value) < 1e-6 || Math.abs(value) >= 1e21 ? value.toFixed(20) : String(value);
  return text.includes('e') ? value.toFixed(20) : text;
}

export const toCents = (value: string | number): number => toUnits(value, 2);
export const fromCents = (cents: number): string => fromUnits(cents, 2);
export const toMilli = (value: string | number): number => toUnits(value, 3);
export const fromMilli = (milli: number): string => fromUnits(milli, 3);

/** Money as a JSON number (the wire format), from a numeric string. */
export function moneyToNumber(value: string | number): number {
  return toCents(value) / 100;
}

/** Quantity as a JSON number, from a numeric string. */
export function quantityToNumber(value: string | number): number {
  return toMilli(value) / 1000;
}

/** price × quantity in cents, rounded half away from zero. */
export function lineTotalCents(price: string | number, quantity: string | number): number {
  const product = toCents(price) * toMilli(quantity);
  const sign = product < 0 ? -1 : 1;
  return sign * Math.floor((Math.abs(product) + 500) / 1000);
}

/** Formats cents the way an Argentine reader expects: "$ 1.234,56". */
export function formatArs(cents: number): string {
  const negative = cents < 0;
  const [whole, fraction] = fromCents(Math.abs(cents)).split('.') as [string, string];
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${negative ? '-' : ''}$ ${grouped},${fraction}`;
}

/**
 * The largest magnitude an amount may have: money is numeric(14,2) and quantities numeric(14,3),
 * so nothing at or above 10^12 can be stored, and below it cents and thousandths stay safe integers.
 */
export const AMOUNT_LIMIT = 1e12;

const AMOUNT_TEXT = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;

/**
 * The one parser of amounts that arrive as text (a JSON string where a number goes, a query value):
 * a plain decimal, optionally with an exponent. Returns the number, or null when the text is not a
 * number, is not finite (`Infinity`, `1e999`) or its magnitude is not below AMOUNT_LIMIT.
 */
export function parseAmountText(text: string): number | null {
  const trimmed = text.trim();
  if (!AMOUNT_TEXT.test(trimmed)) return null;
  const value = Number(trimmed);
  return isAmount(value) ? value : null;
}

/** A number an amount column can hold: finite and of magnitude below AMOUNT_LIMIT. */
export function isAmount(value: number): boolean {
  return Number.isFinite(value) && Math.abs(value) < AMOUNT_LIMIT;
}
