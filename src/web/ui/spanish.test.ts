import { describe, expect, it } from 'vitest';
import { ERROR_STATUS, type ErrorDetail } from '../../lib/errors.ts';
import { messageFor } from './api.ts';
import { PRODUCT_MESSAGES } from './catalog.ts';
import { englishWords } from './english.ts';
import { describeError } from './messages.ts';

/** Representative `details` the server sends (validation paths, barcode problems, conflicts, files). */
const DETAILS: (ErrorDetail[] | undefined)[] = [
  undefined,
  [],
  [{ path: '/name', message: 'must NOT have more than 200 characters' }],
  [{ path: '/items/0/price', message: 'must be >= 0' }],
  [{ path: '/barcode', message: 'wrong_check_digit', expected: '7' }],
  [{ path: '/barcode', message: 'wrong_length' }],
  [{ path: '/barcode', message: 'not_digits' }],
  [{ path: '/barcode', message: 'taken', product_id: 314, product_name: 'Queso cremoso' }],
  [{ path: '/sku', message: 'taken', product_id: 12, product_name: 'Yerba 1 kg' }],
  [{ path: '/body', message: 'not_text', found: 'xlsx' }],
  [{ path: '/body', message: 'not_text', found: 'pdf' }],
  [{ path: '/body', message: 'binary_data', found: 'utf-8', line: 3 }],
  [{ path: '/body', message: 'unknown_encoding', found: 'unknown', line: 7 }],
  [{ path: '/body', message: 'mixed_encoding', found: 'utf-8', line: 2 }],
  [{ path: '/body', message: 'repeated_column', found: 'price', line: 1 }],
  [{ path: '/buyer', message: 'buyer_identification_required' }],
  [{ path: '/buyer/doc_type', message: 'cuit' }],
];
const ENGLISH_ERROR = 'barcode 7790895000997 already belongs to product 314 (Queso)';

describe('every error a screen can receive reads in Spanish (issue 26)', () => {
  it('the English detector catches the sentences seen on the screens', () => {
    expect(englishWords('el código has a wrong check digit (7795550000061): check that it was typed or read right')).not.toEqual(
      [],
    );
    expect(englishWords('Ese código ya lo usa otro producto: barcode 7790895000997 already belongs to product 314')).not.toEqual(
      [],
    );
    expect(englishWords('falló: Instagram did not answer GET /v25.0/1/conversations within 8000 ms')).not.toEqual([]);
    expect(englishWords('El dígito verificador no coincide: el último debería ser 7 (EAN-13, CSV UTF-8).')).toEqual([]);
  });

  it('describeError and the product form word every code × details without English', () => {
    let rendered = 0;
    for (const code of [...Object.keys(ERROR_STATUS), 'offline']) {
      for (const details of DETAILS) {
        const body = { code, error: ENGLISH_ERROR, ...(details ? { details } : {}) };
        const status = ERROR_STATUS[code as keyof typeof ERROR_STATUS] ?? 0;
        for (const text of [describeError(body), messageFor(status, body), messageFor(status, body, PRODUCT_MESSAGES)]) {
          expect(englishWords(text), `${code} ${JSON.stringify(details)} → ${text}`).toEqual([]);
          rendered++;
        }
      }
    }
    expect(rendered).toBeGreaterThan(100);
  });

  it('names the expected check digit, the other product and the bad line of a file', () => {
    expect(
      describeError({ code: 'validation_failed', details: [{ path: '/barcode', message: 'wrong_check_digit', expected: '7' }] }),
    ).toContain('debería ser 7');
    const taken = { code: 'conflict', details: [{ path: '/barcode', message: 'taken', product_id: 314, product_name: 'Queso' }] };
    expect(messageFor(409, taken, PRODUCT_MESSAGES)).toBe('El código de barras ya lo usa «Queso» (producto 314).');
    expect(messageFor(409, { code: 'conflict' }, PRODUCT_MESSAGES)).toBe(
      'Ese código (de barras o interno) ya lo usa otro producto.',
    );
    expect(
      describeError({ code: 'validation_failed', details: [{ path: '/body', message: 'mixed_encoding', line: 4 }] }),
    ).toContain('línea 4');
    expect(
      describeError({ code: 'validation_failed', details: [{ path: '/body', message: 'not_text', found: 'xlsx' }] }),
    ).toContain('Excel');
    // A sale line or total past what an amount holds (POST /api/v1/sales): says so, in pesos.
    expect(describeError({ code: 'validation_failed', details: [{ path: '/items/0', message: 'amount_max' }] })).toBe(
      'El importe pasa el máximo que se puede registrar ($\u00a0999.999.999.999,99): revisá la cantidad y el precio.',
    );
  });
});
