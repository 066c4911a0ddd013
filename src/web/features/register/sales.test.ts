import { describe, expect, it } from 'vitest';
import { cancelledNotReturned, onAccount, returnable } from './methods.ts';
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

describe('which sales the screens offer to return or exchange', () => {
  const sale = (methods: string[], status = 'paid', source = 'register') => ({
    status,
    source,
    payments: methods.map((method) => ({ method })),
  });

  it('a paid register sale, unless part of it is on the customer’s account (that one is cancelled)', () => {
    expect(returnable(sale(['efectivo', 'qr']))).toBe(true);
    expect(returnable(sale(['cuenta_corriente']))).toBe(false);
    expect(returnable(sale(['efectivo', 'cuenta_corriente']))).toBe(false);
    expect(onAccount(sale(['efectivo', 'cuenta_corriente']))).toBe(true);
    expect(returnable(sale(['efectivo'], 'pending'))).toBe(false);
    expect(returnable(sale(['efectivo'], 'paid', 'integration'))).toBe(false);
    // Said so on a sale on account whether the customer paid it (paid) or still owes it (pending).
    expect(cancelledNotReturned(sale(['cuenta_corriente'], 'pending'))).toBe(true);
    expect(cancelledNotReturned(sale(['efectivo', 'cuenta_corriente']))).toBe(true);
    expect(cancelledNotReturned(sale(['cuenta_corriente'], 'cancelled'))).toBe(false);
    expect(cancelledNotReturned(sale(['efectivo']))).toBe(false);
  });
});
