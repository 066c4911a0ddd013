import { describe, expect, it } from 'vitest';
import {
  bigCentsToNumber,
  formatArs,
  formatDecimal,
  formatPesos,
  formatQuantity,
  formatWide,
  fromBigCents,
  fromCents,
  lineTotalCents,
  moneyToNumber,
  parseAmount,
  parseAmountText,
  parseCents,
  parseDecimal,
  textToUnits,
  toBigCents,
  toCents,
  toMilli,
  toUnits,
  wideCents,
  wideToNumber,
} from './money.ts';

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

  it('reads numbers the same way as their decimal text (fast path for numbers)', () => {
    const values = [0, -0, 0.5, 1250.25, 4550.5, 0.1 + 0.2, 1.005, 2.675, -12.345, 0.0005, 1e-7, 99_999_999_999.999];
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let n = 0; n < 4000; n++) {
      const decimals = n % 6;
      const magnitude = 10 ** (n % 13);
      const value = Number(((random() - 0.5) * magnitude).toFixed(decimals));
      values.push(value, random() * magnitude);
    }
    for (const value of values) {
      for (const scale of [0, 2, 3]) {
        expect([value, scale, toUnits(value, scale)]).toEqual([value, scale, textToUnits(value, scale)]);
        for (const text of [String(value), value.toFixed(scale), ` ${value.toFixed(scale + 1)} `]) {
          if (/e/.test(text)) continue;
          expect([text, scale, toUnits(text, scale)]).toEqual([text, scale, textToUnits(text, scale)]);
        }
      }
    }
    for (const text of ['-0', '-0.00', '007.5', '5.', '.5', '1e3', '', ' 12.50 ', '999999999999.99', '99999999999.999']) {
      for (const scale of [0, 2, 3]) {
        const fast = (() => {
          try {
            return toUnits(text, scale);
          } catch {
            return 'throws';
          }
        })();
        const reference = (() => {
          try {
            return textToUnits(text, scale);
          } catch {
            return 'throws';
          }
        })();
        expect([text, scale, fast]).toEqual([text, scale, reference]);
      }
    }
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
    expect(formatArs(123456)).toBe('$\u00a01.234,56');
    expect(formatArs(5)).toBe('$\u00a00,05');
    expect(formatArs(-100000000)).toBe('-$\u00a01.000.000,00');
    // A cart or sum past 2^53 cents: whole pesos, never a throw while a screen draws it.
    expect(formatArs(91 * 99_999_999_999_999)).toBe('$\u00a090.999.999.999.999');
    expect(formatArs(-(2 ** 53))).toBe('-$\u00a090.071.992.547.410');
  });
});

describe('formatArs', () => {
  const nb = '\u00a0';
  it.each([
    [0, `$${nb}0,00`],
    [5, `$${nb}0,05`],
    [123456, `$${nb}1.234,56`],
    [-123456, `-$${nb}1.234,56`],
    [-5, `-$${nb}0,05`],
    [99999999999999, `$${nb}999.999.999.999,99`],
  ])('writes %i cents as %s', (cents, text) => {
    expect(formatArs(cents)).toBe(text);
  });

  it('keeps $ and the amount together with a non-breaking space', () => {
    expect(formatArs(100)).not.toContain(' ');
    expect(formatArs(100).charCodeAt(1)).toBe(0xa0);
  });

  it('leaves out ,00 of a whole amount when asked (chat replies)', () => {
    expect(formatArs(2490000, { wholeWithoutCents: true })).toBe(`$${nb}24.900`);
    expect(formatArs(2490050, { wholeWithoutCents: true })).toBe(`$${nb}24.900,50`);
    expect(formatArs(2490010, { wholeWithoutCents: true })).toBe(`$${nb}24.900,10`);
  });

  it('formats pesos given as numbers or numeric strings, rounding half away from zero', () => {
    expect(formatPesos(1234.5)).toBe(`$${nb}1.234,50`);
    expect(formatPesos('1234.565')).toBe(`$${nb}1.234,57`);
    expect(formatPesos('-1234.565')).toBe(`-$${nb}1.234,57`);
    expect(formatPesos(0.1 + 0.2)).toBe(`$${nb}0,30`);
  });

  it('answers sums past 2^53 cents with the nearest double instead of failing, and writes their whole pesos', () => {
    // 91 sales of $ 999.999.999.999,99: each value fits a column, their sum does not fit exact cents.
    const sum = '90999999999999.09';
    expect(() => toCents(sum)).toThrow(RangeError);
    expect(moneyToNumber(sum)).toBe(Number(sum));
    expect(moneyToNumber('-90999999999999.09')).toBe(-Number(sum));
    expect(formatPesos(sum)).toBe(`$${nb}90.999.999.999.999`);
    expect(formatPesos(`-${sum}`)).toBe(`-$${nb}90.999.999.999.999`);
    // Below that nothing changes, and what is not a number still fails.
    expect(moneyToNumber('999999999999.99')).toBe(999999999999.99);
    expect(() => moneyToNumber('abc')).toThrow(RangeError);
    expect(wideCents(sum)).toBe(Number(sum) * 100);
    expect(wideCents('1234.565')).toBe(123457);
  });
});

describe('formatDecimal and formatQuantity', () => {
  it('writes a decimal comma, with or without thousands marks', () => {
    expect(formatDecimal(123456, 2)).toBe('1.234,56');
    expect(formatDecimal(123456, 2, { grouping: false })).toBe('1234,56');
    expect(formatDecimal(-50, 2, { grouping: false })).toBe('-0,50');
    expect(formatDecimal(1500, 3, { minDecimals: 0 })).toBe('1,5');
    expect(formatDecimal(3000, 3, { minDecimals: 0 })).toBe('3');
  });

  it('shows weighed goods with three decimals and units without them', () => {
    expect(formatQuantity('1.5', 'kg')).toBe('1,500 kg');
    expect(formatQuantity(3, 'unit')).toBe('3');
    expect(formatQuantity(0.5)).toBe('0,5');
    expect(formatQuantity(1234)).toBe('1.234');
  });

  it('writes a sum of quantities past 2^53 thousandths in whole units instead of failing', () => {
    // 91 lines of 99.999.999.999,999 units: each fits its column, their sum does not fit exact thousandths.
    const sum = 91 * 99_999_999_999.999;
    expect(formatQuantity(sum)).toBe('9.100.000.000.000'); // 9.099.999.999.999,909 rounded
    expect(formatQuantity(-sum, 'kg')).toBe('-9.100.000.000.000 kg');
    expect(formatQuantity('99999999999.999', 'kg')).toBe('99.999.999.999,999 kg');
  });
});

describe('parseDecimal / parseAmount / parseCents', () => {
  it.each([
    ['1.234,56', '1234.56'],
    ['1234,5', '1234.5'],
    ['1234.50', '1234.50'],
    ['1.234', '1234'],
    ['1.234.567', '1234567'],
    ['1,234.56', '1234.56'],
    ['1.234.567,89', '1234567.89'],
    ['$ 1.234', '1234'],
    [`$\u00a01.234,56`, '1234.56'],
    ['0', '0'],
    ['0,00', '0.00'],
    ['-1.234,56', '-1234.56'],
    ['-$ 50', '-50'],
    ['  12  ', '12'],
    ['999.999.999.999,99', '999999999999.99'],
  ])('reads %s as %s', (typed, plain) => {
    expect(parseDecimal(typed)).toBe(plain);
  });

  it.each(['', 'abc', '12a', '1,2,3', '1.23.4', '1.234,5.6', ',5', '5,', '1e3', '--5', '$'])('rejects %j', (typed) => {
    expect(parseDecimal(typed)).toBeNull();
    expect(parseAmount(typed)).toBeNull();
  });

  it('takes a lone dot as the decimal point where the file says so', () => {
    expect(parseAmount('1.234')).toBe(1234);
    expect(parseAmount('1.234', { loneDotIsDecimal: true })).toBe(1.234);
    expect(parseAmount('1.234.567', { loneDotIsDecimal: true })).toBe(1234567);
  });

  it('gives cents exactly, refusing negatives and a third decimal', () => {
    expect(parseCents('1.234,56')).toBe(123456);
    expect(parseCents('1234,5')).toBe(123450);
    expect(parseCents('1234.50')).toBe(123450);
    expect(parseCents('0')).toBe(0);
    expect(parseCents('999.999.999.999,99')).toBe(99999999999999);
    expect(parseCents('0,1')).toBe(10);
    expect(parseCents('-5')).toBeNull();
    expect(parseCents('1,234')).toBeNull();
    expect(parseCents('nada')).toBeNull();
  });

  it('reads back what it formats', () => {
    for (const cents of [0, 1, 99, 100, 123456, 99999999999999]) {
      expect(parseCents(formatArs(cents))).toBe(cents);
    }
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

describe('wideToNumber / formatWide (aggregates past exact cents)', () => {
  it('is exact below 2^53 units and the nearest double beyond, never a RangeError', () => {
    expect(wideToNumber('1234.56', 2)).toBe(1234.56);
    expect(wideToNumber('0.1', 3)).toBe(0.1);
    const huge = '18446744185444792725.95';
    expect(wideToNumber(huge, 2)).toBe(Number(huge));
    expect(wideToNumber('-90071992547409.93', 2)).toBe(Number('-90071992547409.93'));
    expect(wideToNumber('90071992547409.91', 2)).toBe(90071992547409.91);
    expect(formatWide(1234.5, 2, { grouping: false })).toBe('1234,50');
    expect(formatWide(Number(huge), 2, { grouping: false })).toBe('18446744185444794368');
    expect(formatWide(1e23, 3)).toBe('99.999.999.999.999.991.611.392');
  });
});

describe('toBigCents / fromBigCents (a shift’s sums past 2^53 cents)', () => {
  it('agrees with toCents and fromCents wherever those hold, rounding half away from zero', () => {
    for (const value of ['0', '0.004', '0.005', '-0.005', '12.5', '-12.345', '999999999999.99', 1234.56, -0.1, 0]) {
      expect(toBigCents(value)).toBe(BigInt(toCents(value)));
      expect(fromBigCents(toBigCents(value))).toBe(fromCents(toCents(value)));
    }
  });
  it('stays exact past 2^53 cents, where a double skips cents', () => {
    const most = toBigCents('999999999999.99');
    const sum = most * 91n + 1n;
    expect(fromBigCents(sum)).toBe('90999999999999.10');
    expect(fromBigCents(-sum)).toBe('-90999999999999.10');
    expect(toBigCents(fromBigCents(sum))).toBe(sum);
    // As a JSON amount: the nearest double of the exact decimal.
    expect(bigCentsToNumber(sum)).toBe(90999999999999.1);
    expect(bigCentsToNumber(12345n)).toBe(123.45);
    expect(() => toBigCents('1e5')).toThrow(RangeError);
  });
});
