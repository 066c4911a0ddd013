import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../lib/errors.ts';
import { parseRfc3339 } from '../../lib/time.ts';

/** Accepted distance between x-sent-at and the server clock, both ways. */
export const SENT_AT_TOLERANCE_MS = 5 * 60 * 1000;
const SIGNATURE = /^[0-9a-f]{64}$/;
/** Visible ASCII, 1 to 255 characters: what fits a header and the idempotency index. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** A header's single value; a repeated header is treated as malformed by the callers. */
export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * x-signature: lowercase hex HMAC-SHA256 of the exact raw body with the integration key.
 * Anything else in the header (wrong length, uppercase, a prefix) is a mismatch. Compared in
 * constant time over the 32-byte digests. Returns whether a valid signature was present.
 * The message says which it was: not written as 64 lowercase hex digits (the right HMAC in
 * uppercase, as some languages print hex, is named as such), or another HMAC.
 */
export function verifySignature(header: string | undefined, rawBody: Buffer, key: string): boolean {
  if (header === undefined) return false;
  const expected = createHmac('sha256', key).update(rawBody).digest();
  if (SIGNATURE.test(header)) {
    if (timingSafeEqual(Buffer.from(header, 'hex'), expected)) return true;
    throw new AppError(
      'signature_mismatch',
      'x-signature does not match the body: sign the exact bytes sent with your integration key',
    );
  }
  const upper = /^[0-9A-Fa-f]{64}$/.test(header) && timingSafeEqual(Buffer.from(header, 'hex'), expected);
  throw new AppError(
    'signature_mismatch',
    upper
      ? 'x-signature must be written in lowercase hex: this one is right but in uppercase'
      : 'x-signature must be 64 lowercase hex digits: the HMAC-SHA256 of the exact body, keyed with your integration key (no prefix, not base64)',
  );
}

/** x-sent-at, when present: RFC 3339 with offset, within ±5 minutes of the server clock. */
export function checkSentAt(header: string | undefined, now: Date): void {
  if (header === undefined) return;
  const sentAt = parseRfc3339(header.trim());
  if (!sentAt) {
    const serverTime = now.toISOString();
    throw new AppError('bad_request', `x-sent-at must be an RFC 3339 date-time with offset, like ${serverTime} (server time)`, {
      details: [{ path: 'headers.x-sent-at', message: `"${header.slice(0, 64)}" is not an RFC 3339 date-time` }],
    });
  }
  const skewSeconds = Math.round((now.getTime() - sentAt.getTime()) / 1000);
  if (Math.abs(now.getTime() - sentAt.getTime()) > SENT_AT_TOLERANCE_MS) {
    const serverTime = now.toISOString();
    throw new AppError(
      'timestamp_out_of_window',
      `x-sent-at ${header} is ${Math.abs(skewSeconds)} s ${skewSeconds > 0 ? 'in the past' : 'in the future'}; ` +
        `server time is ${serverTime} and the tolerance is ±300 s`,
      { details: [{ path: 'headers.x-sent-at', message: `server time is ${serverTime}` }] },
    );
  }
}

/** x-idempotency-key, when present: 1–255 visible ASCII characters. */
export function checkIdempotencyKey(header: string | undefined): string | null {
  if (header === undefined) return null;
  if (!IDEMPOTENCY_KEY.test(header)) {
    throw new AppError('bad_request', 'x-idempotency-key must have 1 to 255 visible ASCII characters (no spaces)', {
      details: [{ path: 'headers.x-idempotency-key', message: 'must have 1 to 255 visible ASCII characters' }],
    });
  }
  return header;
}

/** Bearer token of an Authorization header, or null. */
export function bearerToken(header: string | undefined): string | null {
  const match = header === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match ? match[1]! : null;
}
