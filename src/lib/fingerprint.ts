import { createHash } from 'node:crypto';

/**
 * A request's fingerprint for its idempotency key: the SHA-256 of its canonical JSON (object keys
 * sorted at every level), so the same body sent again with its keys in another order matches.
 */
export function requestFingerprint(body: unknown): string {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.keys(value as object)
          .sort()
          .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
      );
    }
    return value;
  };
  return createHash('sha256')
    .update(JSON.stringify(canonical(body)))
    .digest('hex');
}
