import { describe, expect, it } from 'vitest';
import { cuitCheckDigit } from '../../lib/cuit.ts';
import { AppError } from '../../lib/errors.ts';
import { arcaDate } from '../arca/time.ts';
import {
  chooseLetter,
  computeAmounts,
  divideHalfEven,
  IDENTIFICATION_THRESHOLD_CENTS,
  IVA_IDS,
  qrUrl,
  resolveBuyer,
} from './fiscal-rules.ts';

const cents = (s: string) => Math.round(Number(s) * 100);

describe('class of a receipt', () => {
  const final = resolveBuyer(undefined, 12100);
  it('a Responsable Inscripto gives A to a Responsable Inscripto or a monotributista with CUIT, B to anyone else', () => {
    expect(
      chooseLetter(
        'responsable_inscripto',
        resolveBuyer({ doc_type: 'cuit', doc_number: '30-71234567-1', iva_condition: 1 }, 100),
      ),
    ).toBe('A');
    expect(
      chooseLetter('responsable_inscripto', resolveBuyer({ doc_type: 'cuit', doc_number: '20123456786', iva_condition: 6 }, 100)),
    ).toBe('A');
    expect(
      chooseLetter('responsable_inscripto', resolveBuyer({ doc_type: 'cuit', doc_number: '20123456786', iva_condition: 4 }, 100)),
    ).toBe('B');
    expect(chooseLetter('responsable_inscripto', final)).toBe('B');
    expect(chooseLetter('responsable_inscripto', resolveBuyer({ doc_type: 'dni', doc_number: '30.123.456' }, 100))).toBe('B');
  });
  it('a monotributista or an exempt issuer always gives C', () => {
    expect(chooseLetter('monotributo', final)).toBe('C');
    expect(
      chooseLetter('monotributo', resolveBuyer({ doc_type: 'cuit', doc_number: '30712345671', iva_condition: 1 }, 100)),
    ).toBe('C');
    expect(chooseLetter('exento', final)).toBe('C');
  });
});

describe('buyer', () => {
  it('none is an unidentified final consumer (99/0, condition 5)', () => {
    expect(resolveBuyer(undefined, 100)).toEqual({ docType: 99, docNumber: '0', ivaCondition: 5, name: null });
  });
  it('from $ 10.000.000 a final consumer must be identified (RG 5700)', () => {
    expect(() => resolveBuyer(undefined, IDENTIFICATION_THRESHOLD_CENTS)).toThrow(AppError);
    expect(resolveBuyer(undefined, IDENTIFICATION_THRESHOLD_CENTS - 1).docType).toBe(99);
    expect(resolveBuyer({ doc_type: 'dni', doc_number: '30123456' }, IDENTIFICATION_THRESHOLD_CENTS)).toMatchObject({
      docType: 96,
      docNumber: '30123456',
    });
  });
  it('a CUIT is checked and normalised; a Responsable Inscripto needs one', () => {
    expect(resolveBuyer({ doc_type: 'cuit', doc_number: '30-71234567-1', iva_condition: 1 }, 1).docNumber).toBe('30712345671');
    expect(() => resolveBuyer({ doc_type: 'cuit', doc_number: '30-71234567-2', iva_condition: 1 }, 1)).toThrow(
      /not a valid CUIT/,
    );
    expect(() => resolveBuyer({ iva_condition: 1 }, 1)).toThrow(/needs their CUIT/);
    expect(() => resolveBuyer({ doc_type: 'dni', doc_number: '30123456', iva_condition: 1 }, 1)).toThrow(/identified by CUIT/);
    expect(() => resolveBuyer({ iva_condition: 3 }, 1)).toThrow(/not an ARCA receiver condition/);
    expect(() => resolveBuyer({ doc_type: 'dni', doc_number: '12' }, 1)).toThrow(/DNI/);
  });

  it('a CUIL does not stand for the CUIT of a Factura A receiver (1, 6, 13, 16): refused as a DNI is, never sent as a B', () => {
    const body = '2012345678';
    const cuil = `${body}${cuitCheckDigit(body)}`;
    const refusal = (input: Parameters<typeof resolveBuyer>[0]) => {
      try {
        resolveBuyer(input, 1);
      } catch (err) {
        return err instanceof AppError ? { code: err.code, status: err.status, details: err.details } : err;
      }
      return null;
    };
    for (const condition of [1, 6, 13, 16]) {
      const asDni = refusal({ doc_type: 'dni', doc_number: '30123456', iva_condition: condition });
      expect(asDni).toMatchObject({ code: 'validation_failed', status: 422 });
      expect(refusal({ doc_type: 'cuil', doc_number: cuil, iva_condition: condition })).toEqual(asDni);
    }
    // A final consumer or an exempt buyer may still give their CUIL (class B, DocTipo 86).
    for (const condition of [4, 5]) {
      const buyer = resolveBuyer({ doc_type: 'cuil', doc_number: cuil, iva_condition: condition }, 1);
      expect(buyer).toMatchObject({ docType: 86, docNumber: cuil });
      expect(chooseLetter('responsable_inscripto', buyer)).toBe('B');
    }
  });
});

describe('amounts', () => {
  it('splits a final price into base and IVA so that the total is the sale to the cent', () => {
    const a = computeAmounts('B', [{ ivaRate: '21', subtotalCents: 12100 }]);
    expect(a).toEqual({
      total: '121.00',
      net: '100.00',
      iva: '21.00',
      exempt: '0.00',
      untaxed: '0.00',
      ivaLines: [{ id: 5, rate: '21', base: '100.00', amount: '21.00' }],
    });
  });
  it('keeps one line per rate, exempt apart, and every IVA within 0.01 of base × rate', () => {
    const lines = [
      { ivaRate: '21', subtotalCents: 99999 },
      { ivaRate: '10.5', subtotalCents: 33333 },
      { ivaRate: '21', subtotalCents: 1 },
      { ivaRate: 'exento', subtotalCents: 5000 },
      { ivaRate: '0', subtotalCents: 700 },
      { ivaRate: '27', subtotalCents: 12345 },
    ];
    const a = computeAmounts('A', lines);
    expect(a.ivaLines.map((l) => l.id)).toEqual([3, 4, 5, 6]);
    expect(a.exempt).toBe('50.00');
    const sum = cents(a.net) + cents(a.iva) + cents(a.exempt);
    expect(sum).toBe(lines.reduce((s, l) => s + l.subtotalCents, 0));
    expect(cents(a.net)).toBe(a.ivaLines.reduce((s, l) => s + cents(l.base), 0));
    for (const line of a.ivaLines) {
      const rate = IVA_IDS[line.rate]!.perMille / 1000;
      expect(Math.abs(cents(line.amount) - cents(line.base) * rate)).toBeLessThanOrEqual(1);
    }
  });
  it('every total from 1 cent to $ 1.000 at each rate stays within ARCA tolerance', () => {
    const wrong: string[] = [];
    for (const rate of ['21', '10.5', '27', '5', '2.5']) {
      for (let total = 1; total <= 100_000; total += 7) {
        const [line] = computeAmounts('B', [{ ivaRate: rate, subtotalCents: total }]).ivaLines;
        const off = Math.abs(cents(line!.amount) - (cents(line!.base) * IVA_IDS[rate]!.perMille) / 1000);
        if (cents(line!.base) + cents(line!.amount) !== total || off > 1) wrong.push(`${rate}: ${total}`);
      }
    }
    expect(wrong).toEqual([]);
  });
  it('class C has no IVA: the whole total is net', () => {
    expect(computeAmounts('C', [{ ivaRate: '21', subtotalCents: 12100 }])).toEqual({
      total: '121.00',
      net: '121.00',
      iva: '0.00',
      exempt: '0.00',
      untaxed: '0.00',
      ivaLines: [],
    });
  });
  it('rounds half to even', () => {
    expect(divideHalfEven(5, 2)).toBe(2);
    expect(divideHalfEven(7, 2)).toBe(4);
    expect(divideHalfEven(26, 4)).toBe(6);
    expect(divideHalfEven(27, 4)).toBe(7);
  });
});

describe('dates and QR', () => {
  it('CbteFch is the day in Buenos Aires', () => {
    expect(arcaDate(new Date('2026-11-24T02:30:00Z'))).toBe('20261123');
    expect(arcaDate(new Date('2026-11-24T03:30:00Z'))).toBe('20261124');
  });
  it('the RG 4892 QR carries the JSON with its keys in order', () => {
    const url = qrUrl({
      date: '2026-11-23',
      cuit: '30712345671',
      pointOfSale: 1,
      code: 6,
      number: 42,
      total: '121.00',
      docType: 99,
      docNumber: '0',
      cae: '71263951827464',
    });
    expect(url.startsWith('https://www.afip.gob.ar/fe/qr/?p=')).toBe(true);
    const json = JSON.parse(Buffer.from(url.split('?p=')[1]!, 'base64').toString('utf8'));
    expect(Object.keys(json)).toEqual([
      'ver',
      'fecha',
      'cuit',
      'ptoVta',
      'tipoCmp',
      'nroCmp',
      'importe',
      'moneda',
      'ctz',
      'tipoDocRec',
      'nroDocRec',
      'tipoCodAut',
      'codAut',
    ]);
    expect(json).toMatchObject({
      ver: 1,
      cuit: 30712345671,
      importe: 121,
      moneda: 'PES',
      ctz: 1,
      tipoCodAut: 'E',
      codAut: 71263951827464,
    });
  });
});
