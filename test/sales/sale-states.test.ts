import { describe, expect, it } from 'vitest';
import type { SaleStatus } from '../../src/db/schema/index.ts';
import { AppError } from '../../src/lib/errors.ts';
import {
  assertTransition,
  assertTransitions,
  nextStatus,
  SALE_ACTIONS,
  SALE_STATUSES,
  SALE_TRANSITIONS,
} from '../../src/modules/sales/sale-states.ts';

// Walks the whole table: every (status, action) pair is either a row of SALE_TRANSITIONS, and
// then assertTransition answers that row's status, or it is refused with a 422 naming the state.
describe('sale state machine', () => {
  const allowed = new Map(SALE_TRANSITIONS.map((t) => [`${t.from}|${t.action}`, t.to]));
  const froms: (SaleStatus | null)[] = [null, ...SALE_STATUSES];

  for (const from of froms) {
    for (const action of SALE_ACTIONS) {
      const expected = allowed.get(`${from}|${action}`) ?? null;
      it(`${from ?? 'new'} + ${action} → ${expected ?? 'refused'}`, () => {
        expect(nextStatus(from, action)).toBe(expected);
        if (expected !== null) {
          expect(assertTransition({ id: 7, status: from }, action)).toBe(expected);
          return;
        }
        let error: unknown;
        try {
          assertTransition({ id: 7, status: from }, action);
        } catch (err) {
          error = err;
        }
        expect(error).toBeInstanceOf(AppError);
        expect((error as AppError).code).toBe('invalid_state');
        // Already in the status the action leads to: "is already paid; it cannot be paid again".
        expect((error as AppError).message).toMatch(
          new RegExp(`^sale 7 is (${from ?? 'new'}; it cannot become |already ${from}; it cannot be \\w+ again$)`),
        );
      });
    }
  }

  it('has exactly the transitions the issues name (a partial return keeps a paid sale paid)', () => {
    const pairs = SALE_TRANSITIONS.map((t) => `${t.from ?? 'new'}→${t.to}`);
    expect(pairs).toEqual(['new→pending', 'pending→paid', 'pending→cancelled', 'paid→cancelled', 'paid→paid']);
    // Every status is reachable from a new sale and every row is unique per (from, action).
    expect(new Set(SALE_TRANSITIONS.map((t) => `${t.from}|${t.action}`)).size).toBe(SALE_TRANSITIONS.length);
    const reachable = new Set<SaleStatus | null>([null]);
    for (let changed = true; changed; ) {
      changed = false;
      for (const t of SALE_TRANSITIONS) {
        if (reachable.has(t.from) && !reachable.has(t.to)) {
          reachable.add(t.to);
          changed = true;
        }
      }
    }
    for (const status of SALE_STATUSES) expect(reachable.has(status)).toBe(true);
  });

  it('walks several actions in a row and stops at the first the table refuses', () => {
    expect(assertTransitions({ id: 1, status: null }, ['create', 'pay'])).toBe('paid');
    expect(assertTransitions({ id: 1, status: null }, ['create', 'pay', 'refund'])).toBe('cancelled');
    expect(() => assertTransitions({ id: 1, status: null }, ['create', 'refund'])).toThrow(
      'sale 1 is pending; it cannot become cancelled',
    );
    expect(() => assertTransitions({ id: 1, status: 'cancelled' }, ['pay'])).toThrow(
      'sale 1 is cancelled; it cannot become paid',
    );
  });
});
