import { describe, expect, it } from 'vitest';
import { ean13 } from '../../lib/barcode.ts';
import {
  DEFAULT_SCALE_LABEL_LAYOUT,
  decodeScaleLabel,
  parseScaleLabelLayout,
  pluCandidates,
  scaleLabelCheckDigitMessage,
} from './scale-label.ts';

describe('scaleLabelCheckDigitMessage', () => {
  it('names the digit a label of the layout should end in, and says nothing for the rest', () => {
    const good = ean13('200012301234');
    const wrong = `${good.slice(0, 12)}${(Number(good[12]) + 1) % 10}`;
    expect(scaleLabelCheckDigitMessage(wrong, DEFAULT_SCALE_LABEL_LAYOUT)).toBe(
      `La etiqueta de balanza ${wrong} está mal leída o mal escrita: el dígito verificador debería ser ${good[12]}.`,
    );
    expect(scaleLabelCheckDigitMessage(good, DEFAULT_SCALE_LABEL_LAYOUT)).toBeNull();
    expect(scaleLabelCheckDigitMessage('7790001000019', DEFAULT_SCALE_LABEL_LAYOUT)).toBeNull();
    expect(scaleLabelCheckDigitMessage(wrong, null)).toBeNull();
    expect(scaleLabelCheckDigitMessage(wrong.slice(0, 12), DEFAULT_SCALE_LABEL_LAYOUT)).toBeNull();
  });
});

describe('decodeScaleLabel', () => {
  it('reads the default layout: prefix 20–29, PLU 5, price in whole pesos 5, check digit', () => {
    expect(decodeScaleLabel('2000107057455', DEFAULT_SCALE_LABEL_LAYOUT)).toEqual({
      code: '2000107057455',
      plu: '00107',
      value: 'price',
      priceCents: 574_500,
      weightGrams: null,
    });
    expect(decodeScaleLabel(ean13('299999999999'), DEFAULT_SCALE_LABEL_LAYOUT)?.priceCents).toBe(9_999_900);
  });

  it('reads the other selectable layouts: price in cents, weight in grams', () => {
    const cents = parseScaleLabelLayout({ decimals: 2 }).layout!;
    expect(decodeScaleLabel(ean13('200012301234'), cents)).toMatchObject({ plu: '00123', priceCents: 1234 });
    const grams = parseScaleLabelLayout({ value: 'weight' }).layout!;
    expect(decodeScaleLabel(ean13('200012301234'), grams)).toMatchObject({ value: 'weight', weightGrams: 1234 });
  });

  it.each([
    ['a wrong check digit', '2000123012347'],
    ['a GS1 product code', ean13('779000100001')],
    ['12 digits', '200012301234'],
    ['letters', '20001230123A'],
  ])('refuses %s', (_why, code) => {
    expect(decodeScaleLabel(code, DEFAULT_SCALE_LABEL_LAYOUT)).toBeNull();
  });

  it('reads weight layouts in grams and price layouts in whole pesos', () => {
    const weight = parseScaleLabelLayout({ prefixes: ['21'], pluDigits: 4, value: 'weight' }).layout!;
    expect(decodeScaleLabel(ean13('210042001532'), weight)).toMatchObject({ plu: '0042', value: 'weight', weightGrams: 1532 });
    const pesos = parseScaleLabelLayout({ pluDigits: 6, decimals: 0 }).layout!;
    expect(decodeScaleLabel(ean13('201234560150'), pesos)).toMatchObject({ plu: '123456', priceCents: 15000 });
  });
});

describe('parseScaleLabelLayout', () => {
  it('uses the default when nothing is set and turns labels off with false', () => {
    expect(parseScaleLabelLayout(undefined)).toEqual({ layout: DEFAULT_SCALE_LABEL_LAYOUT, problem: null });
    expect(parseScaleLabelLayout(false)).toEqual({ layout: null, problem: null });
  });

  it.each([
    [{ prefixes: ['30'] }, 'prefixes'],
    [{ prefixes: [] }, 'prefixes'],
    [{ pluDigits: 7 }, 'pluDigits'],
    [{ value: 'volume' }, 'value'],
    [{ decimals: 5 }, 'decimals'],
    ['weight', 'object'],
  ])('falls back to the default and names the problem for %j', (setting, field) => {
    const parsed = parseScaleLabelLayout(setting);
    expect(parsed.layout).toBe(DEFAULT_SCALE_LABEL_LAYOUT);
    expect(parsed.problem).toContain(field);
  });
});

describe('pluCandidates', () => {
  it('gives the PLU as printed and without its leading zeros', () => {
    expect(pluCandidates('00123')).toEqual(['00123', '123']);
    expect(pluCandidates('12345')).toEqual(['12345']);
    expect(pluCandidates('00000')).toEqual(['00000', '0']);
  });
});
