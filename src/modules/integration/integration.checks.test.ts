import { describe, expect, it } from 'vitest';
import { hmacSha256Hex } from '../../lib/secrets.ts';
import { bearerToken, checkIdempotencyKey, checkSentAt, verifySignature } from './integration.checks.ts';

describe('verifySignature', () => {
  const key = 'mos_int_ejemplo';
  const body = Buffer.from('{"event":"sales.paid","data":{"sale":{"id":1}}}');
  const good = hmacSha256Hex(key, body);

  it('matches a known answer', () => {
    // HMAC-SHA256 of the body above with the key above, computed independently (openssl dgst -sha256 -hmac).
    expect(good).toBe('bcf633cc8ebf33de9609b28e3c19e99f8a5db705c6660767f1b263520ebee772');
  });

  it('accepts the exact signature and reports it', () => {
    expect(verifySignature(good, body, key)).toBe(true);
  });

  it('reports an absent signature as not valid, without refusing', () => {
    expect(verifySignature(undefined, body, key)).toBe(false);
  });

  it.each([
    ['uppercase', good.toUpperCase()],
    ['truncated', good.slice(0, 63)],
    ['too long', `${good}0`],
    ['prefixed', `sha256=${good}`],
    ['non-hex', `${good.slice(0, 63)}g`],
    ['empty', ''],
    ['a repeated header', `${good}, ${good}`],
  ])('refuses a %s signature', (_name, header) => {
    expect(() => verifySignature(header, body, key)).toThrow(expect.objectContaining({ code: 'signature_mismatch' }));
  });

  it('says why: a right signature in uppercase, a header that is no hex signature, or another HMAC', () => {
    const refusal = (header: string, raw = body) => {
      try {
        verifySignature(header, raw, key);
      } catch (err) {
        return (err as Error).message;
      }
      throw new Error('not refused');
    };
    expect(refusal(good.toUpperCase())).toBe('x-signature must be written in lowercase hex: this one is right but in uppercase');
    for (const header of [`sha256=${good}`, good.slice(0, 63), Buffer.from(good, 'hex').toString('base64'), '']) {
      expect(refusal(header)).toMatch(/^x-signature must be 64 lowercase hex digits/);
    }
    expect(refusal(hmacSha256Hex('mos_int_otra', body).toUpperCase())).toMatch(/^x-signature must be 64 lowercase hex digits/);
    expect(refusal(hmacSha256Hex('mos_int_otra', body))).toMatch(/^x-signature does not match the body/);
  });

  it('refuses a signature of one changed byte', () => {
    const changed = Buffer.from(body);
    changed[10] = changed[10]! ^ 1;
    expect(() => verifySignature(good, changed, key)).toThrow(expect.objectContaining({ code: 'signature_mismatch' }));
  });
});

describe('checkSentAt', () => {
  const now = new Date('2026-03-10T15:00:00.000Z');
  it.each(['2026-03-10T14:55:00Z', '2026-03-10T15:05:00Z', '2026-03-10T12:00:00-03:00', '2026-03-10T15:00:00.123456789Z'])(
    'accepts %s',
    (value) => {
      expect(() => checkSentAt(value, now)).not.toThrow();
    },
  );
  it.each(['2026-03-10T14:54:59.999Z', '2026-03-10T15:05:00.001Z'])('refuses %s just outside the window', (value) => {
    expect(() => checkSentAt(value, now)).toThrow(expect.objectContaining({ code: 'timestamp_out_of_window' }));
  });
  it.each(['2026-03-10T15:00:00', 'NaN', 'Infinity', '1741618800', '2026-02-30T15:00:00Z'])(
    'refuses the malformed %s',
    (value) => {
      expect(() => checkSentAt(value, now)).toThrow(expect.objectContaining({ code: 'bad_request' }));
    },
  );
  it('accepts an absent header', () => {
    expect(() => checkSentAt(undefined, now)).not.toThrow();
  });
});

describe('checkIdempotencyKey', () => {
  it.each(['a', 'order-123:paid', 'x'.repeat(255)])('accepts %j', (key) => {
    expect(checkIdempotencyKey(key)).toBe(key);
  });
  it.each(['', ' a', 'x'.repeat(256), 'tab\tkey'])('refuses %j', (key) => {
    expect(() => checkIdempotencyKey(key)).toThrow(expect.objectContaining({ code: 'bad_request' }));
  });
});

describe('bearerToken', () => {
  it.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['Bearer   abc  ', 'abc'],
    ['Basic abc', null],
    ['Bearer', null],
    ['Bearer a b', null],
    [undefined, null],
  ])('reads %j as %j', (header, expected) => {
    expect(bearerToken(header)).toBe(expected);
  });
});
