import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineTotalCents, toCents } from '../../src/lib/money.ts';
import { computeAmounts, type Letter } from '../../src/modules/invoicing/fiscal-rules.ts';
import type { InvoiceDetail } from '../../src/modules/invoicing/invoicing.service.ts';
import { type PrintLine, renderPrintout } from '../../src/modules/invoicing/printout.ts';
import { checkIdentities } from './printout-reader.ts';

// The printout as a calculator checks it: read back from the rendered HTML, every line is
// quantity × unit price = amount to the cent, and the lines add up to the printed subtotal of each
// rate (class A) or the total (B, C). The invoice's amounts come from computeAmounts, the function
// whose figures go to ARCA, so the printout cannot move them.

const issuer = {
  companyName: 'Almacén Prueba',
  legalName: null,
  cuit: '20111111112',
  address: null,
  grossIncome: null,
  activityStart: null,
  ivaCondition: 'responsable_inscripto' as const,
};

const RATES = ['21', '21', '10.5', '27', '0', 'exento'] as const;

const lineArb = fc.record({
  weighed: fc.boolean(),
  units: fc.integer({ min: 1, max: 40 }),
  grams: fc.integer({ min: 1, max: 9_999 }),
  priceCents: fc.integer({ min: 1, max: 5_000_000 }),
  rate: fc.constantFrom(...RATES),
});

interface RawLine {
  weighed: boolean;
  units: number;
  grams: number;
  priceCents: number;
  rate: string;
}

function cart(raw: RawLine[]): PrintLine[] {
  return raw.map((l, i) => {
    const quantity = l.weighed ? (l.grams / 1000).toFixed(3) : String(l.units);
    const price = (l.priceCents / 100).toFixed(2);
    return {
      name: `Producto ${i + 1}`,
      quantity,
      unit: l.weighed ? 'kg' : 'unidad',
      price,
      subtotal: (lineTotalCents(price, quantity) / 100).toFixed(2),
      iva_rate: l.rate,
    };
  });
}

function invoiceOf(letter: Letter, kind: 'invoice' | 'credit_note', lines: PrintLine[]): InvoiceDetail {
  const amounts = computeAmounts(
    letter,
    lines.map((l) => ({ ivaRate: l.iva_rate, subtotalCents: toCents(l.subtotal) })),
  );
  return {
    id: 1,
    kind,
    type: `${kind === 'invoice' ? 'factura' : 'nota_credito'}_${letter}`,
    receipt: `${letter} 0001-00000001`,
    receipt_code: 1,
    issue_date: '2026-11-25',
    issued_at: '2026-11-25T12:00:00.000Z',
    environment: 'homologacion',
    issuer_cuit: issuer.cuit,
    buyer: null,
    total: Number(amounts.total),
    net: Number(amounts.net),
    iva: Number(amounts.iva),
    exempt: Number(amounts.exempt),
    iva_lines: amounts.ivaLines.map((l) => ({ id: l.id, rate: l.rate, base: Number(l.base), amount: Number(l.amount) })),
    cae: '12345678901234',
    cae_expiration: '2026-12-05',
    qr_url: null,
  } as unknown as InvoiceDetail;
}

describe('invoice printouts a calculator can check', () => {
  it('the line from the report: 2 × $ 4.740,00 at 21 % prints 2 × $ 3.917,36 = $ 7.834,72 or is split', async () => {
    const lines = cart([
      { weighed: false, units: 2, grams: 1, priceCents: 474_000, rate: '21' },
      { weighed: false, units: 1, grams: 1, priceCents: 456_400, rate: '21' },
    ]);
    const invoice = invoiceOf('A', 'invoice', lines);
    const page = await renderPrintout({
      invoice,
      lines,
      issuer,
      associated: null,
      format: 'a4',
      assets: { script: '', styles: '' },
    });
    checkIdentities(page, 'A', invoice);
    expect(page).not.toContain('7.834,71');
  });

  it('holds for random carts, classes A, B and C, invoices and credit notes, A4 and ticket', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(lineArb, { minLength: 1, maxLength: 12 }),
        fc.constantFrom<Letter>('A', 'B', 'C'),
        fc.constantFrom<'invoice' | 'credit_note'>('invoice', 'credit_note'),
        fc.constantFrom<'a4' | 'ticket'>('a4', 'ticket'),
        async (raw, letter, kind, format) => {
          const lines = cart(raw);
          const invoice = invoiceOf(letter, kind, lines);
          const page = await renderPrintout({
            invoice,
            lines,
            issuer,
            associated: null,
            format,
            assets: { script: '', styles: '' },
          });
          checkIdentities(page, letter, invoice);
          runs++;
        },
      ),
      { numRuns: 400 },
    );
    expect(runs).toBeGreaterThanOrEqual(400);
  });
});
