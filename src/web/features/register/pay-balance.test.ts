import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { payBalance } from './pay-balance.ts';

describe('payBalance (the payment dialog\'s "Falta" / "Vuelto")', () => {
  it('the report: $ 20.000 due, $ 9.462 typed in cash is short $ 10.538, no change', () => {
    expect(payBalance(2_000_000, 0, 946_200, true)).toEqual({ kind: 'short', cents: 1_053_800 });
  });

  it('cash over the total is change only; exact is neither; a card over what is left is refused, not change', () => {
    expect(payBalance(2_000_000, 0, 2_946_200, true)).toEqual({ kind: 'change', cents: 946_200 });
    expect(payBalance(2_000_000, 0, 2_000_000, true)).toEqual({ kind: 'even' });
    expect(payBalance(995_000, 500_000, 500_000, true)).toEqual({ kind: 'change', cents: 5_000 });
    expect(payBalance(995_000, 500_000, 600_000, false)).toEqual({ kind: 'over_without_cash', cents: 105_000 });
    expect(payBalance(995_000, 500_000, null, true)).toEqual({ kind: 'short', cents: 495_000 });
    expect(payBalance(995_000, 995_000, null, true)).toEqual({ kind: 'even' });
    // Cash added with "Agregar otro pago" over the total: its change still shows.
    expect(payBalance(995_000, 1_000_000, null, false)).toEqual({ kind: 'change', cents: 5_000 });
  });

  it('never both, never a zero: short + paid + typed = total, change = paid + typed − total', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.option(fc.integer({ min: -100, max: 20_000_000 })),
        fc.boolean(),
        (total, paid, typed, cash) => {
          const b = payBalance(total, paid, typed, cash);
          const t = typed !== null && typed > 0 ? typed : 0;
          if (b.kind === 'short') {
            expect(b.cents).toBeGreaterThan(0);
            expect(paid + t + b.cents).toBe(total);
          } else if (b.kind === 'change') {
            expect(cash || t === 0).toBe(true);
            expect(b.cents).toBeGreaterThan(0);
            expect(paid + t - b.cents).toBe(total);
          } else if (b.kind === 'over_without_cash') {
            expect(cash).toBe(false);
            expect(b.cents).toBeGreaterThan(0);
          } else {
            expect(paid + t).toBe(total);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
