import { describe, expect, it } from 'vitest';
import { cancelMoney } from './sales.tsx';

describe('what cancelling a sale moves (the confirmation in Ventas)', () => {
  const pay = (method: string, amount: number) => ({ method, amount }) as never;

  it('a pending sale that took cash gives that cash back; its part on account leaves the balance', () => {
    expect(cancelMoney({ payments: [pay('efectivo', 2000), pay('cuenta_corriente', 2016.6)] })).toEqual({
      back: 2000,
      onAccount: 2016.6,
    });
  });

  it('a sale with nothing taken gives nothing back', () => {
    expect(cancelMoney({ payments: [] })).toEqual({ back: 0, onAccount: 0 });
    expect(cancelMoney({ payments: [pay('cuenta_corriente', 3470)] })).toEqual({ back: 0, onAccount: 3470 });
  });

  it('adds in cents: 0,10 + 0,20 is 0,30', () => {
    expect(cancelMoney({ payments: [pay('efectivo', 0.1), pay('qr', 0.2)] }).back).toBe(0.3);
  });
});
