import { describe, expect, it } from 'vitest';
import { applyDiscounts, beyondLimit, discountLimitOf, percentOf, spread } from './discounts.ts';

describe('register discounts arithmetic', () => {
  it('a percentage rounds half away from zero, to the cent', () => {
    expect(percentOf(1_175_208, 10)).toBe(117_521); // 11.752,08 × 10 % = 1.175,208 → 1.175,21
    expect(percentOf(105, 10)).toBe(11); // 10,5 cents → 11
    expect(percentOf(104, 10)).toBe(10);
    expect(percentOf(12_345, 12.5)).toBe(1543); // 1.543,125 → 1.543
    expect(percentOf(999, 100)).toBe(999);
  });

  it('spreads an amount in proportion, exactly, never above a weight', () => {
    expect(spread(100, [100, 100, 100])).toEqual([34, 33, 33]);
    expect(spread(2, [1, 1, 1])).toEqual([1, 1, 0]);
    expect(spread(1, [0, 5])).toEqual([0, 1]);
    expect(spread(0, [3, 4])).toEqual([0, 0]);
    expect(spread(7, [7])).toEqual([7]);
    for (const [amount, weights] of [
      [50_000, [1_057_687, 221_100, 500_000]],
      [3, [1, 1, 1, 1, 1]],
      [999, [1, 998, 0]],
    ] as const) {
      const shares = spread(amount, [...weights]);
      expect(shares.reduce((a, b) => a + b, 0)).toBe(amount);
      for (const [n, share] of shares.entries()) expect(share).toBeLessThanOrEqual(weights[n]!);
    }
  });

  it("applies each line's discount, then the sale's on what is left; the lines are the total", () => {
    const lines = [{ subtotalCents: 1_175_208 }, { subtotalCents: 221_100 }, { subtotalCents: 500_000 }];
    const sale = applyDiscounts(lines, [{ percent: 10, reason: ' Cliente frecuente ' }, undefined, undefined], {
      amount: 500,
      reason: 'Redondeo',
    });
    expect(sale.lines[0]).toMatchObject({ discountCents: 117_521, reason: 'Cliente frecuente' });
    expect(sale.saleDiscountCents).toBe(50_000);
    expect(sale.totalCents).toBe(1_728_787);
    expect(sale.lines.reduce((s, l) => s + l.netCents, 0)).toBe(sale.totalCents);
    expect(sale.discountCents).toBe(sale.grossCents - sale.totalCents);
    expect(sale.saleReason).toBe('Redondeo');
  });

  it('refuses a discount over its base, with both or neither kind, without a reason, or with 3 decimals', () => {
    const one = [{ subtotalCents: 1000 }];
    expect(() => applyDiscounts(one, [{ amount: 10.01, reason: 'x' }], undefined)).toThrow(/more than/);
    expect(() => applyDiscounts(one, [{ amount: 1, percent: 1, reason: 'x' }], undefined)).toThrow(/either/);
    expect(() => applyDiscounts(one, [{ reason: 'x' }], undefined)).toThrow(/either/);
    expect(() => applyDiscounts(one, [{ percent: 1, reason: ' ' }], undefined)).toThrow(/reason/);
    expect(() => applyDiscounts(one, [{ percent: 1.234, reason: 'x' }], undefined)).toThrow(/decimals/);
    expect(() => applyDiscounts(one, [], { amount: 10.01, reason: 'x' })).toThrow(/more than/);
  });

  it('the limit: each line on its own and the whole sale together; "10 %" is never beyond a 10 % limit', () => {
    const lines = [{ subtotalCents: 105 }, { subtotalCents: 10_000 }];
    const ten = applyDiscounts(
      lines,
      [
        { percent: 10, reason: 'x' },
        { percent: 10, reason: 'x' },
      ],
      undefined,
    );
    expect(beyondLimit(lines, ten, 10)).toBe(false);
    const stacked = applyDiscounts(lines, [undefined, { percent: 10, reason: 'x' }], { percent: 10, reason: 'y' });
    expect(beyondLimit(lines, stacked, 10)).toBe(true);
    expect(beyondLimit(lines, stacked, 20)).toBe(false);
    // A small line discounted beyond the limit is beyond it even when the sale as a whole is not.
    const small = applyDiscounts(lines, [{ amount: 0.5, reason: 'x' }, undefined], undefined);
    expect(beyondLimit(lines, small, 10)).toBe(true);
    expect(beyondLimit(lines, applyDiscounts(lines, [], undefined), 0)).toBe(false);
  });

  it("reads the company's limit, 10 % when unset or out of range", () => {
    expect(discountLimitOf({})).toBe(10);
    expect(discountLimitOf({ discountLimitPercent: 25 })).toBe(25);
    expect(discountLimitOf({ discountLimitPercent: 0 })).toBe(0);
    expect(discountLimitOf({ discountLimitPercent: 150 })).toBe(10);
    expect(discountLimitOf({ discountLimitPercent: '20' })).toBe(10);
  });
});
