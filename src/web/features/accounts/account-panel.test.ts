import { describe, expect, it } from 'vitest';
import { balanceText, daysText } from './account-panel.tsx';

describe('the account panel in words', () => {
  it('says how old an open sale is in the singular for one day', () => {
    expect([0, 1, 2, 31].map(daysText)).toEqual(['0 días', '1 día', '2 días', '31 días']);
  });

  it('says what is owed or in favour', () => {
    expect([1590, 0, -250.5].map(balanceText)).toEqual(['Debe $\u00a01.590,00', 'Sin deuda', 'Saldo a favor $\u00a0250,50']);
  });
});
