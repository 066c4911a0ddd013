import { describe, expect, it } from 'vitest';
import { cuitCheckDigit, formatCuit, normalizeCuit } from './cuit.ts';

describe('CUIT', () => {
  it.each(['20-12345678-6', '20123456786', '30-71234567-1', '27-28033514-8'])('accepts %s', (cuit) => {
    expect(normalizeCuit(cuit)).toBe(cuit.replace(/-/g, ''));
  });

  it.each([
    ['20-12345678-5', 'wrong check digit'],
    ['2012345678', 'too short'],
    ['99-12345678-6', 'unknown prefix'],
    ['20.12345678.6', 'wrong separators'],
    ['', 'empty'],
  ])('rejects %s (%s)', (cuit) => {
    expect(normalizeCuit(cuit)).toBeNull();
  });

  it('has no check digit when the remainder gives 10', () => {
    // 20-00000002-? : sum = 5*2+4*0+... find a body whose digit would be 10
    let found = '';
    for (let n = 0; n < 1000 && !found; n++) {
      const body = `20${String(n).padStart(8, '0')}`;
      if (cuitCheckDigit(body) === -1) found = body;
    }
    expect(found).not.toBe('');
    expect(normalizeCuit(`${found}0`)).toBeNull();
  });

  it('formats with dashes', () => {
    expect(formatCuit('20123456786')).toBe('20-12345678-6');
  });
});
