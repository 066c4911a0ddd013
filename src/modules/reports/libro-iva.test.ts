import { describe, expect, it } from 'vitest';
import { parseBookFile } from '../../../test/reports/libro-iva-layout.ts';
import { type BookReceipt, bookAmount, bookFiles, bookText, bookTotals, cbteLine, latin1 } from './libro-iva.ts';

const receipt = (partial: Partial<BookReceipt> = {}): BookReceipt => ({
  date: '2026-03-10',
  code: 6,
  pointOfSale: 3,
  number: 42,
  docType: 99,
  docNumber: '0',
  name: 'CONSUMIDOR FINAL',
  totalCents: 121_000,
  untaxedCents: 0,
  exemptCents: 0,
  ivaLines: [{ id: 5, baseCents: 100_000, amountCents: 21_000 }],
  ...partial,
});

describe('Libro IVA Digital layout', () => {
  it('writes amounts as 15 digits of cents, a negative one with a leading minus', () => {
    expect(bookAmount(150_000)).toBe('000000000150000');
    expect(bookAmount(0)).toBe('000000000000000');
    expect(bookAmount(-5)).toBe('-00000000000005');
    expect(() => bookAmount(1.5)).toThrow();
  });

  it('keeps Latin-1 accents in names, drops what Latin-1 has not, and pads or cuts to 30', () => {
    expect(bookText('Peña Ñandú 🧉', 30)).toBe('Peña Ñandú'.padEnd(30));
    expect(bookText('Ş'.repeat(3), 5)).toBe('SSS  ');
    expect(bookText('x'.repeat(40), 30)).toBe('x'.repeat(30));
  });

  it('writes a receipt field by field in the record design', () => {
    const line = cbteLine(receipt({ docType: 80, docNumber: '30-71234567-1', name: 'Distribuidora Sur S.A.' }));
    const [parsed] = parseBookFile(latin1(line), 'cbte');
    expect(parsed).toMatchObject({
      fecha: 20260310,
      tipo: 6,
      punto_de_venta: 3,
      numero: '00000000000000000042',
      numero_hasta: '00000000000000000042',
      doc_tipo: 80,
      doc_numero: '00000000030712345671',
      nombre: 'Distribuidora Sur S.A.'.padEnd(30),
      total: 121_000,
      moneda: 'PES',
      tipo_de_cambio: 1_000_000,
      cantidad_alicuotas: 1,
      codigo_operacion: ' ',
      vencimiento: 0,
    });
  });

  it('gives an all-exempt A or B receipt one zero line at 0 % and the operation code E; a C receipt none', () => {
    const exempt = receipt({ exemptCents: 5000, totalCents: 5000, ivaLines: [] });
    const files = bookFiles([exempt, receipt({ code: 11, number: 7, untaxedCents: 5000, totalCents: 5000, ivaLines: [] })]);
    const cbte = parseBookFile(latin1(files.cbte), 'cbte');
    const rates = parseBookFile(latin1(files.alicuotas), 'alicuotas');
    expect(cbte.map((c) => [c['cantidad_alicuotas'], c['codigo_operacion']])).toEqual([
      [1, 'E'],
      [0, 'N'],
    ]);
    expect(rates).toEqual([
      { tipo: 6, punto_de_venta: 3, numero: '00000000000000000042', neto_gravado: 0, alicuota: 3, impuesto: 0 },
    ]);
    expect(files.cbte.endsWith('\r\n')).toBe(false);
  });

  it('adds up totals past 2^53 cents exactly before turning them into numbers', () => {
    // 91 Facturas B of the most a receipt holds ($ 999.999.999.999,99, 21 %): the exact sum is
    // $ 90.999.999.999.999,09; a running sum of doubles drifts to ...,08 on the way.
    const most = 99_999_999_999_999;
    const base = 82_644_628_099_173;
    const receipts = Array.from({ length: 91 }, (_, n) =>
      receipt({ number: n + 1, totalCents: most, ivaLines: [{ id: 5, baseCents: base, amountCents: most - base }] }),
    );
    const totals = bookTotals(receipts);
    // Each figure is the double nearest its exact decimal sum (written as text: some print otherwise).
    const net = Number('75206611570247.43');
    const iva = Number('15793388429751.66');
    expect(totals.byType).toEqual([
      {
        code: 6,
        count: 91,
        net,
        iva,
        exempt: 0,
        untaxed: 0,
        total: Number('90999999999999.09'),
      },
    ]);
    expect(totals.byRate).toEqual([{ id: 5, base: net, iva, credit_base: 0, credit_iva: 0 }]);
  });
});
