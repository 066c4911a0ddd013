import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, requestFingerprint } from './fingerprint.ts';

/** The implementation the stored fingerprints were made with: the new one must write the same text. */
function previousCanonical(body: unknown): string {
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
  return JSON.stringify(canonical(body));
}

describe('requestFingerprint', () => {
  it('hashes the same text as before for any JSON body', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (body) => {
        expect(canonicalJson(body)).toBe(previousCanonical(body));
      }),
      { numRuns: 2000 },
    );
  });

  it('hashes the same text as before for what JSON cannot carry and for integer-like keys', () => {
    const key = fc.oneof(
      fc.string(),
      fc.constantFrom('0', '1', '2', '10', '01', '-1', '4294967294', '4294967295', '1e3', '__proto__'),
    );
    const leaf = fc.oneof(
      fc.constantFrom(undefined, null, Number.NaN, Number.POSITIVE_INFINITY, -0, () => 1, Symbol('s'), new Date(0)),
      fc.double(),
      fc.string(),
      fc.boolean(),
    );
    const { tree } = fc.letrec((tie) => ({
      tree: fc.oneof(
        { depthSize: 'small', maxDepth: 3 },
        leaf,
        fc.array(tie('tree'), { maxLength: 4 }),
        fc.dictionary(key, tie('tree'), { maxKeys: 4 }),
      ),
    }));
    fc.assert(
      fc.property(fc.oneof(fc.array(tree, { maxLength: 5 }), fc.dictionary(key, tree, { maxKeys: 6 })), (body) => {
        expect(canonicalJson(body)).toBe(previousCanonical(body));
      }),
      { numRuns: 1000 },
    );
  });

  it('matches a body with its keys in another order, and only that', () => {
    const a = requestFingerprint({ box_id: 1, items: [{ quantity: 2, product_id: 1 }], payments: [] });
    const b = requestFingerprint({ payments: [], items: [{ product_id: 1, quantity: 2 }], box_id: 1 });
    const c = requestFingerprint({ payments: [], items: [{ product_id: 1, quantity: 3 }], box_id: 1 });
    expect(a).toBe(b);
    expect(c).not.toBe(a);
    expect(a).toBe(
      createHash('sha256').update('{"box_id":1,"items":[{"product_id":1,"quantity":2}],"payments":[]}').digest('hex'),
    );
  });
});
