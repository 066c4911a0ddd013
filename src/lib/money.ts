/**
 * Exact money and quantity arithmetic. Amounts travel as decimal strings (PostgreSQL numeric)
 * or JSON numbers, and are computed as integers: cents for money, thousandths for quantities.
 * Both fit well inside Number.MAX_SAFE_INTEGER for numeric(14,2) and numeric(14,3).
 */

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

/** Parses a decimal (string or number) into an integer count of 10^-scale units, rounding half away from zero. */
export function toUnits(value: string | number, scale: number): number {
  if (typeof value === 'number') {
    // Fast path (every JSON amount of an inbound event comes as a number): a number whose decimal
    // form has at most `scale` decimals is `units / 10^scale` exactly, and below 2^43 units two such
    // decimals are always different doubles, so the text path below would read the same units.
    // Anything else (more decimals, 0.1 + 0.2, NaN, huge) takes the text path.
    const factor = 10 ** scale;
    const units = Math.round(value * factor);
    if (units / factor === value && Math.abs(units) < 2 ** 43) return units === 0 ? 0 : units;
  } else {
    // Likewise a decimal text with at most `scale` decimals (numeric columns read back as text):
    // its nearest double times 10^scale rounds to the exact units below 2^43.
    const text = value.trim();
    const dot = text.indexOf('.');
    if ((dot === -1 || text.length - dot - 1 <= scale) && DECIMAL.test(text)) {
      const units = Math.round(Number(text) * 10 ** scale);
      if (Math.abs(units) < 2 ** 43) return units;
    }
  }
  return textToUnits(value, scale);
}

/** toUnits through the decimal text: the reference that the fast path for numbers must agree with. */
export function textToUnits(value: string | number, scale: number): number {
  const { negative, units } = decimalUnits(value, scale);
  if (units > MAX_SAFE_UNITS) throw new RangeError(`number out of range: ${String(value).trim()}`);
  const number = Number(units);
  return negative ? -number : number;
}

const MAX_SAFE_UNITS = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * A decimal's exact count of 10^-scale units, with no upper bound, rounding half away from zero:
 * its size and its sign apart ("-0" stays negative zero for textToUnits). textToUnits and toBigCents.
 */
function decimalUnits(value: string | number, scale: number): { negative: boolean; units: bigint } {
  const text = typeof value === 'number' ? numberToPlain(value) : value.trim();
  const match = DECIMAL.exec(text);
  if (!match) throw new RangeError(`not a decimal number: ${JSON.stringify(value)}`);
  const [, sign, whole = '0', fraction = ''] = match;
  let units = BigInt(whole) * 10n ** BigInt(scale) + BigInt(fraction.padEnd(scale, '0').slice(0, scale) || '0');
  if (Number(fraction[scale] ?? '0') >= 5) units += 1n;
  return { negative: sign !== undefined, units };
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

/** Beyond this many cents a double no longer holds every cent: only a sum gets there. */
const EXACT_CENTS = Number.MAX_SAFE_INTEGER;

/** Whether an amount is a sum past what a double holds in exact cents. */
const pastExactCents = (number: number) => Number.isFinite(number) && Math.abs(number) * 100 >= EXACT_CENTS;

/**
 * Cents of an amount that may be such a sum (a report's total, a day's): exact below 2^53 cents, the
 * nearest double beyond, where toCents throws.
 */
export function wideCents(value: string | number): number {
  const number = Number(value);
  return pastExactCents(number) ? number * 100 : toCents(value);
}

/**
 * Money as a JSON number (the wire format), from a numeric string. Exact in cents; past 2^53 cents,
 * which only a sum reaches (a column holds 10^14 cents at most), the nearest double: a day of sales
 * each at the most a total holds must not fail the day's summary.
 */
export function moneyToNumber(value: string | number): number {
  const number = Number(value);
  return pastExactCents(number) ? number : toCents(value) / 100;
}

/** Quantity as a JSON number, from a numeric string. */
export function quantityToNumber(value: string | number): number {
  return toMilli(value) / 1000;
}

/**
 * A decimal that may be past what exact units hold (2^53 units: about 90 billion pesos in cents,
 * 9 billion in thousandths), as a JSON number: exact below that, the nearest double beyond. For
 * aggregates of stored values (a stock valuation is Σ stock × price, and each may be near its own
 * column's limit), which must not fail a report that every value in it passed on its way in.
 */
export function wideToNumber(value: string, scale: number): number {
  const number = Number(value);
  return Math.abs(number) * 10 ** scale < Number.MAX_SAFE_INTEGER ? toUnits(value, scale) / 10 ** scale : number;
}

/**
 * Exact cents of a decimal with no upper bound, for arithmetic on sums that may pass 2^53 cents (a
 * drawer's expected cash is the opening plus every cash move and sale of its shift, each up to its
 * column's limit). Rounds half away from zero, as toCents.
 */
export function toBigCents(value: string | number): bigint {
  const { negative, units } = decimalUnits(value, 2);
  return negative ? -units : units;
}

/** fromCents of exact cents with no upper bound ("-12.50"). */
export function fromBigCents(cents: bigint): string {
  const digits = (cents < 0n ? -cents : cents).toString().padStart(3, '0');
  return `${cents < 0n ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/** Exact cents as a JSON amount: exact below 2^53 cents, the nearest double beyond (moneyToNumber). */
export const bigCentsToNumber = (cents: bigint): number => moneyToNumber(fromBigCents(cents));

/** formatDecimal of a JSON number that may be past exact units: beyond them, its whole part only. */
export function formatWide(value: number, scale: number, options: { minDecimals?: number; grouping?: boolean } = {}): string {
  if (Math.abs(value) * 10 ** scale < Number.MAX_SAFE_INTEGER) return formatDecimal(toUnits(value, scale), scale, options);
  const whole = BigInt(Math.round(value)).toString();
  return options.grouping === false ? whole : whole.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
}

/** price × quantity in cents, rounded half away from zero. */
export function lineTotalCents(price: string | number, quantity: string | number): number {
  const product = toCents(price) * toMilli(quantity);
  const sign = product < 0 ? -1 : 1;
  return sign * Math.floor((Math.abs(product) + 500) / 1000);
}

/** The space between `$` and the amount: non-breaking, so a price never wraps across lines. */
export const MONEY_SPACE = '\u00a0';

/**
 * An integer count of 10^-scale units written the es-AR way: decimal comma, dot for thousands
 * (`grouping: false` leaves them out, as a spreadsheet wants). Trailing zeros beyond `minDecimals`
 * are dropped (default: all `scale` decimals are kept).
 */
export function formatDecimal(units: number, scale: number, options: { minDecimals?: number; grouping?: boolean } = {}): string {
  const { minDecimals = scale, grouping = true } = options;
  const negative = units < 0;
  const [whole = '0', fraction = ''] = fromUnits(Math.abs(units), scale).split('.');
  let kept = fraction;
  while (kept.length > minDecimals && kept.endsWith('0')) kept = kept.slice(0, -1);
  const grouped = grouping ? whole.replace(/\B(?=(\d{3})+(?!\d))/g, '.') : whole;
  return `${negative && units !== 0 ? '-' : ''}${grouped}${kept ? `,${kept}` : ''}`;
}

/**
 * Cents the way an Argentine reader expects them: "$ 1.234,56" (non-breaking space), "-$ 50,00".
 * `wholeWithoutCents` writes a whole amount without ",00" ("$ 24.900"), as a chat reply does.
 */
export function formatArs(cents: number, options: { wholeWithoutCents?: boolean } = {}): string {
  // Past 2^53 cents (a cart or sum no amount can hold) the whole pesos, as formatPesos: never a throw while drawing.
  if (!Number.isSafeInteger(cents)) return formatPesos(cents / 100);
  const whole = options.wholeWithoutCents && cents % 100 === 0;
  const body = formatDecimal(Math.abs(cents), 2, { minDecimals: whole ? 0 : 2 });
  return `${cents < 0 ? '-' : ''}$${MONEY_SPACE}${body}`;
}

/** An amount in pesos (a JSON number or a numeric string) formatted as {@link formatArs} does. */
export function formatPesos(amount: number | string, options: { wholeWithoutCents?: boolean } = {}): string {
  // Past 2^53 cents (only a sum: see moneyToNumber) the whole pesos, as formatWide writes them.
  const number = Number(amount);
  if (pastExactCents(number)) {
    return `${number < 0 ? '-' : ''}$${MONEY_SPACE}${formatWide(Math.abs(number), 2)}`;
  }
  return formatArs(toCents(amount), options);
}

/** A quantity for a reader: "1,500 kg" for weighed goods, "3" or "0,5" otherwise. */
export function formatQuantity(quantity: number | string, unit?: string): string {
  // Past 2^53 thousandths (only a sum: each quantity column holds 10^11) the whole units, as formatWide.
  const number = Number(quantity);
  if (Number.isFinite(number) && Math.abs(number) * 1000 >= Number.MAX_SAFE_INTEGER) {
    const whole = formatWide(number, 3);
    return unit === 'kg' ? `${whole} kg` : whole;
  }
  const milli = toMilli(quantity);
  return unit === 'kg' ? `${formatDecimal(milli, 3)} kg` : formatDecimal(milli, 3, { minDecimals: 0 });
}

/**
 * An amount as people type it, into a plain decimal string ("1234.56"), or null when it is not one:
 * `1.234,56`, `1234,5`, `1234.50`, `$ 1.234`, `-50`. With both marks the last one is the decimal
 * one; several of the same mark are thousands marks. A lone `.` followed by exactly three digits
 * ("1.234") is a thousands mark unless `loneDotIsDecimal` (a comma-separated CSV file, where the
 * dot is the decimal point).
 */
export function parseDecimal(raw: string, options: { loneDotIsDecimal?: boolean } = {}): string | null {
  let text = raw.replace(/^\s*(-?)\s*\$/, '$1').replace(/\s/g, '');
  if (!/^-?\d[\d.,]*$/.test(text) || /[.,]$/.test(text)) return null;
  const lastDot = text.lastIndexOf('.');
  const lastComma = text.lastIndexOf(',');
  const groupsOk = (whole: string, mark: string) => {
    const groups = whole.replace('-', '').split(mark);
    return groups.slice(1).every((g) => g.length === 3);
  };
  if (lastDot >= 0 && lastComma >= 0) {
    const decimal = lastDot > lastComma ? '.' : ',';
    const thousands = decimal === '.' ? ',' : '.';
    const cut = text.lastIndexOf(decimal);
    const whole = text.slice(0, cut);
    if (whole.includes(decimal) || !groupsOk(whole, thousands)) return null;
    text = `${whole.replaceAll(thousands, '')}.${text.slice(cut + 1)}`;
  } else if (lastComma >= 0) {
    const commas = text.split(',').length - 1;
    if (commas > 1) {
      if (!groupsOk(text, ',')) return null;
      text = text.replaceAll(',', '');
    } else text = text.replace(',', '.');
  } else if (lastDot >= 0) {
    const dots = text.split('.').length - 1;
    const thousandsLike = groupsOk(text, '.');
    if (dots > 1 || (thousandsLike && !options.loneDotIsDecimal)) {
      if (!thousandsLike) return null;
      text = text.replaceAll('.', '');
    }
  }
  if (!/^-?\d+(\.\d+)?$/.test(text)) return null;
  return text;
}

/** {@link parseDecimal} as a JSON number (null when it is not an amount). */
export function parseAmount(raw: string, options: { loneDotIsDecimal?: boolean } = {}): number | null {
  const text = parseDecimal(raw, options);
  return text === null ? null : Number(text);
}

/**
 * An amount a person pays, counts or moves, in cents, exact (no float on the way): null when it is
 * not an amount, is negative or has more than two decimals.
 */
export function parseCents(raw: string): number | null {
  const text = parseDecimal(raw);
  if (text === null || text.startsWith('-') || /\.\d{3,}$/.test(text)) return null;
  try {
    return toCents(text);
  } catch {
    return null;
  }
}

/** The most one stored amount holds (numeric(14,2)), in cents: a sale's line or total above it is refused. */
export const MAX_AMOUNT_CENTS = 99_999_999_999_999;

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
