/**
 * Text PostgreSQL cannot keep: NUL (U+0000) is refused by `text` and `jsonb`, and a lone UTF-16
 * surrogate (half of an emoji, "\ud83d" in JSON) is refused by `jsonb` and garbled in `text`.
 * Whatever arrives from outside (a customer's message through Meta) goes through here before it is
 * stored, so content alone can never make a delivery fail: NUL is dropped, a lone surrogate becomes
 * U+FFFD (the replacement character �).
 */
export function storableText(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what is removed.
  return text.replace(/\u0000/g, '').replace(LONE_SURROGATES, '\uFFFD');
}

/** A high surrogate not followed by a low one, or a low one not preceded by a high one (UTF-16 units). */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/**
 * A JSON value (or an event built from one) with every string, keys included, made storable. Plain
 * objects and arrays are copied; anything else (a Date, a number) is kept as it is.
 */
export function storableJson<T>(value: T): T {
  if (typeof value === 'string') return storableText(value) as T;
  if (Array.isArray(value)) return value.map((item) => storableJson(item)) as T;
  if (value !== null && typeof value === 'object') {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return value;
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, item]) => [storableText(key), storableJson(item)]),
    ) as T;
  }
  return value;
}

/**
 * The longest id taken from a webhook (a Meta `mid` is about 150 characters, a `wamid` about 60).
 * Ids are primary keys: a btree refuses a key of a few kilobytes, and that failure would make the
 * whole delivery a 500 that Meta retries for days. A longer one is not a Meta id: the item is ignored.
 */
export const MAX_WEBHOOK_ID_CHARS = 512;

/** Up to 9999-12-31: later years are written `+010000-…` by Node, which PostgreSQL does not read. */
const LAST_STORABLE_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * A time from outside that PostgreSQL can keep (1970 to 9999), or null: the caller uses the arrival
 * time instead, as for a missing timestamp. An invalid or far-off date must not fail the delivery.
 */
export function storableDate(date: Date): Date | null {
  const ms = date.getTime();
  return Number.isFinite(ms) && ms >= 0 && ms <= LAST_STORABLE_MS ? date : null;
}
