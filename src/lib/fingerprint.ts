import { createHash } from 'node:crypto';

/**
 * A request's fingerprint for its idempotency key: the SHA-256 of its canonical JSON (object keys
 * sorted at every level), so the same body sent again with its keys in another order matches.
 * Fingerprints are stored with the keys they answer, so the text hashed never changes between
 * versions: it is what JSON.stringify writes for the body rebuilt with sorted keys (see canonicalJson).
 */
export function requestFingerprint(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

const ARRAY_INDEX = /^(?:0|[1-9]\d*)$/;

/**
 * The canonical JSON of a value, written in one pass: exactly what
 * `JSON.stringify(sorted(value))` wrote when `sorted` rebuilt every object with
 * `Object.fromEntries` of its sorted keys (the implementation before, ~5× slower). So: an object
 * is its own enumerable keys (a Date or any other object without them is `{}`, as no `toJSON` is
 * asked), integer-like keys first in numeric order (as a rebuilt object orders them), then the
 * others sorted; a function, symbol or undefined is left out of an object and is `null` in an
 * array; numbers, strings, booleans and null as JSON.stringify writes them.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) as string;
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += omitted(value[i]) ? 'null' : canonicalJson(value[i]);
    }
    return `${out}]`;
  }
  const object = value as Record<string, unknown>;
  let out = '{';
  let first = true;
  for (const key of orderedKeys(Object.keys(object))) {
    const item = object[key];
    if (omitted(item)) continue;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${canonicalJson(item)}`;
    first = false;
  }
  return `${out}}`;
}

function omitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/** Sorted keys in the order a plain object built from them lists them: array indices first, by number. */
function orderedKeys(keys: string[]): string[] {
  const sorted = keys.sort();
  if (!sorted.some(isArrayIndex)) return sorted;
  const indices = sorted.filter(isArrayIndex).sort((a, b) => Number(a) - Number(b));
  return [...indices, ...sorted.filter((k) => !isArrayIndex(k))];
}

function isArrayIndex(key: string): boolean {
  return ARRAY_INDEX.test(key) && Number(key) < 2 ** 32 - 1;
}
