import { describe, expect, it } from 'vitest';
import { AppError } from '../../lib/errors.ts';
import { checkFiscalRules, normaliseDocument, normalisePhone } from './customer-fields.ts';
import { parseIvaCondition } from './customers-csv.ts';

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return { code: err.code, detail: err.details?.[0] };
    throw err;
  }
  throw new Error('expected a refusal');
};

describe('customer phones: stored in E.164, the mobile form WhatsApp takes', () => {
  it.each([
    ['011 15 4321-5678', '+5491143215678'],
    ['11 4321 5678', '+5491143215678'],
    ['+54 9 11 4321-5678', '+5491143215678'],
    ['+54 11 4321-5678', '+5491143215678'],
    ['5491143215678', '+5491143215678'],
    ['(0221) 15-555-1234', '+5492215551234'],
    ['0294 415 123456', '+5492944123456'],
    ['00 54 9 351 123 4567', '+5493511234567'],
    ['+1 415 555 0100', '+14155550100'],
  ])('%s → %s', (raw, stored) => {
    expect(normalisePhone(raw)).toBe(stored);
  });

  it.each(['hola', '1234', '4321-5678', '011 4321', '+54 9 11 4321-5678-99', '0800 LLAMAR', '', '+'])('refuses %j', (raw) => {
    expect(normalisePhone(raw)).toBeNull();
  });
});

describe('customer documents', () => {
  it('keeps the digits of a CUIT written with dashes', () => {
    expect(normaliseDocument('cuit', '20-12345678-6')).toBe('20123456786');
    expect(normaliseDocument('cuil', '27 28456789 2')).toBe('27284567892');
  });

  it('names the right check digit of a mistyped CUIT', () => {
    expect(refusal(() => normaliseDocument('cuit', '20-12345678-5'))).toEqual({
      code: 'validation_failed',
      detail: { path: '/document', message: 'wrong_check_digit', expected: '6' },
    });
    expect(refusal(() => normaliseDocument('cuit', '2012345678')).detail?.message).toBe('wrong_length');
  });

  it('takes a DNI of 7 or 8 digits with or without dots, and a passport in upper case', () => {
    expect(normaliseDocument('dni', '28.456.789')).toBe('28456789');
    expect(normaliseDocument('dni', '1234567')).toBe('1234567');
    expect(refusal(() => normaliseDocument('dni', '123456')).detail?.message).toBe('not_a_dni');
    expect(refusal(() => normaliseDocument('dni', '20123456786')).detail?.message).toBe('not_a_dni');
    expect(normaliseDocument('pasaporte', 'aab-123456')).toBe('AAB123456');
    expect(refusal(() => normaliseDocument('pasaporte', 'ñ?')).detail?.message).toBe('not_a_passport');
  });
});

describe('customer IVA conditions', () => {
  it('needs a CUIT for the conditions ARCA identifies by CUIT', () => {
    for (const condition of [1, 4, 6, 13, 16]) {
      expect(refusal(() => checkFiscalRules({ documentType: 'dni', ivaCondition: condition })).detail?.message).toBe(
        'cuit_required',
      );
      expect(() => checkFiscalRules({ documentType: 'cuit', ivaCondition: condition })).not.toThrow();
    }
    for (const condition of [5, 7, 8, 9, 10, 15]) {
      expect(() => checkFiscalRules({ documentType: null, ivaCondition: condition })).not.toThrow();
    }
    expect(refusal(() => checkFiscalRules({ documentType: 'cuit', ivaCondition: 3 })).detail?.message).toBe('unknown_condition');
  });

  it.each([
    ['1', 1],
    ['Responsable Inscripto', 1],
    ['IVA Responsable Inscripto', 1],
    ['RI', 1],
    ['consumidor final', 5],
    ['Monotributo', 6],
    ['Responsable Monotributo', 6],
    ['IVA Sujeto Exento', 4],
    ['3', null],
    ['cualquiera', null],
  ])('reads the spreadsheet condition %j as %j', (raw, code) => {
    expect(parseIvaCondition(raw)).toBe(code);
  });
});
