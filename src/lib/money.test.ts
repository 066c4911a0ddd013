import { describe, expect, it } from 'vitest';
import { formatArs, fromCents, lineTotalCents, moneyToNumber, parseAmountText, toCents, toMilli } from './money.ts';

describe('money', () => {
  it.each([
    ['0', 0],
    ['12.5', 1250],
    ['12.345', 1235],
    ['12.344', 1234],
    ['-12.345', -1235],
    [0.1 + 0.2, 30],
    [1234.56, 123456],
    ['999999999999.99', 99999999999999],
  ])('reads %s as %i cents', (input, cents) => {
    expect(toCents(input)).toBe(cents);
  });

  it('rejects what is not a decimal', () => {
    expect(() => toCents('1e3')).toThrow(RangeError);
    expect(() => toCents('12,50')).toThrow(RangeError);
    expect(() => toCents(Number.NaN)).toThrow(RangeError);
  });

  it('multiplies price by weighed quantity rounding half away from zero', () => {
    expect(lineTotalCents('1999.99', '0.755')).toBe(150_999); // 1509.99245 → 1509.99
    expect(lineTotalCents('1000.01', '0.5')).toBe(50_001); // 500.005 → 500.01
    expect(lineTotalCents('0.05', '0.5')).toBe(3); // 0.025 → 0.03
    expect(lineTotalCents('-0.05', '0.5')).toBe(-3);
    expect(lineTotalCents('100', '3')).toBe(30_000);
  });

  it('keeps sums exact where floats drift', () => {
    const cents = ['0.1', '0.2', '0.3'].map(toCents).reduce((a, b) => a + b, 0);
    expect(fromCents(cents)).toBe('0.60');
    expect(moneyToNumber('0.60')).toBe(0.6);
    expect(toMilli('1.0005')).toBe(1001);
  });

  it('formats pesos the Argentine way', () => {
    expect(formatArs(123456)).toBe('$ 1.234,56');
    expect(formatArs(5)).toBe('$ 0,05');
    expect(formatArs(-100000000)).toBe('-$ 1.000.000,00');
  });
});

describe('parseAmountText', () => {
  it('reads plain decimals and exponents', () => {
    expect(parseAmountText('1234.5')).toBe(1234.5);
    expect(parseAmountText(' -0.25 ')).toBe(-0.25);
    expect(parseAmountText('1e3')).toBe(1000);
    expect(parseAmountText('.5')).toBe(0.5);
  });
  it('refuses what is not a finite amount a column can hold', () => {
    for (const bad of ['Infinity', '-Infinity', '1e999', 'NaN', '', '1,5', '0x10', '1e12', '-1e12', '12abc']) {
      expect(parseAmountText(bad), bad).toBeNull();
    }
    expect(parseAmountText('999999999999.99')).toBe(999_999_999_999.99);
  });
});
