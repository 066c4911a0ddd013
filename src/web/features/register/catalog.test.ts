import { describe, expect, it } from 'vitest';
import { gs1CheckDigit } from '../../../lib/barcode.ts';
import { DEFAULT_SCALE_LABEL_LAYOUT } from '../../../modules/scanner/scale-label.ts';
import { Catalog } from './catalog.ts';

// Issue 26: a scale label typed or read with a wrong check digit is named as such at the register.
describe('register catalogue scan', () => {
  const catalog = new Catalog([[1, 'Queso por kg', 9000, null, '123', 'kg']], DEFAULT_SCALE_LABEL_LAYOUT);
  const body = '200012301234';
  const good = `${body}${gs1CheckDigit(body)}`;
  const wrong = `${body}${(gs1CheckDigit(body) + 1) % 10}`;

  it('names the check digit a mistyped scale label should end in', () => {
    expect(catalog.scan(wrong)).toEqual({
      kind: 'unknown',
      code: wrong,
      reason: `La etiqueta de balanza ${wrong} está mal leída o mal escrita: el dígito verificador debería ser ${good[12]}.`,
    });
  });

  it('still reads a good label and says "No encontramos" for an unknown code', () => {
    expect(catalog.scan(good).kind).toBe('scale');
    expect(catalog.scan('7790001000019')).toMatchObject({ kind: 'unknown', reason: 'No encontramos el código 7790001000019.' });
  });
});
