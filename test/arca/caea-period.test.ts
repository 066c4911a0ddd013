import { describe, expect, it } from 'vitest';
import { fortnightOf, fortnightRange, nextFortnight, requestWindow, validFortnight } from '../../src/modules/arca/caea-period.ts';

/** CAEA fortnights (WSFEv1 manual, FECAEASolicitar): Orden 1 is days 1–15, 2 the rest; requests from 5 days before. */
describe('CAEA fortnights', () => {
  it('day 15 belongs to the first fortnight, day 16 to the second', () => {
    expect(fortnightOf('20260715')).toEqual({ period: 202607, order: 1 });
    expect(fortnightOf('20260716')).toEqual({ period: 202607, order: 2 });
    expect(fortnightOf('20260701')).toEqual({ period: 202607, order: 1 });
  });

  it('the second fortnight ends on the month’s last day (28 to 31)', () => {
    expect(fortnightRange({ period: 202602, order: 2 })).toEqual({ from: '20260216', to: '20260228' });
    expect(fortnightRange({ period: 202802, order: 2 })).toEqual({ from: '20280216', to: '20280229' });
    expect(fortnightRange({ period: 202612, order: 2 })).toEqual({ from: '20261216', to: '20261231' });
    expect(fortnightRange({ period: 202604, order: 2 }).to).toBe('20260430');
  });

  it('the next fortnight crosses months and years', () => {
    expect(nextFortnight({ period: 202611, order: 1 })).toEqual({ period: 202611, order: 2 });
    expect(nextFortnight({ period: 202611, order: 2 })).toEqual({ period: 202612, order: 1 });
    expect(nextFortnight({ period: 202612, order: 2 })).toEqual({ period: 202701, order: 1 });
  });

  it('a CAEA is requested from 5 days before its fortnight until its last day', () => {
    expect(requestWindow({ period: 202612, order: 1 })).toEqual({ opens: '20261126', closes: '20261215' });
    expect(requestWindow({ period: 202603, order: 1 })).toEqual({ opens: '20260224', closes: '20260315' });
  });

  it('Periodo is YYYYMM and Orden 1 or 2', () => {
    expect(validFortnight(202612, 1)).toBe(true);
    expect(validFortnight(202613, 1)).toBe(false);
    expect(validFortnight(202612, 3)).toBe(false);
  });
});
