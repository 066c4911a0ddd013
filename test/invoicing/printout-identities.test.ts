import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineTotalCents, toCents } from '../../src/lib/money.ts';
import { computeAmounts, type Letter } from '../../src/modules/invoicing/fiscal-rules.ts';
import type { InvoiceDetail } from '../../src/modules/invoicing/invoicing.service.ts';
import { type PrintLine, renderPrintout } from '../../src/modules/invoicing/printout.ts';

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

/** "$ 1.234,56" / "1,500 kg" / "3" → an exact integer in the given scale. */
function parseEs(text: string, scale: number): number {
  const clean = text.replace(/[$\s\u00a0]|kg/g, '').replace(/\./g, '');
  const [whole, fraction = ''] = clean.split(',');
  const sign = whole!.startsWith('-') ? -1 : 1;
  return sign * (Math.abs(Number(whole)) * 10 ** scale + Number((fraction + '000').slice(0, scale)));
}

const cell = (row: string, cls: string) => {
  const m = new RegExp(`<(?:td|span) class="(?:num )?${cls}">([^<]*)<`).exec(row);
  if (!m) throw new Error(`no .${cls} in ${row}`);
  return m[1]!;
};

interface Read {
  lines: { rate: string; milli: number; unit: number; amount: number }[];
  netByRate: Map<string, number>;
  total: number;
}

function read(page: string): Read {
  const body = /<table class="lines">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(page)![1]!;
  const rows = [...body.matchAll(/<tr data-rate="([^"]+)">([\s\S]*?)<\/tr>/g)];
  const lines = rows.map(([, rate, row]) => ({
    rate: rate!,
    milli: parseEs(cell(row!, 'q'), 3),
    unit: parseEs(cell(row!, 'p'), 2),
    amount: parseEs(cell(row!, 'a'), 2),
  }));
  const netByRate = new Map<string, number>();
  for (const [, rate, value] of page.matchAll(/<tr data-net-rate="([^"]+)"><th>[^<]*<\/th><td class="num">([^<]*)</g)) {
    netByRate.set(rate!, parseEs(value!, 2));
  }
  const total = parseEs(/id="invoice-total">([^<]*)</.exec(page)![1]!, 2);
  return { lines, netByRate, total };
}

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

function checkIdentities(page: string, letter: Letter, invoice: InvoiceDetail) {
  const { lines, netByRate, total } = read(page);
  for (const l of lines) {
    // quantity × unit price, to the cent (a half cent rounds away from zero, as sales do).
    expect(Math.abs(l.milli * l.unit - l.amount * 1000)).toBeLessThanOrEqual(500);
  }
  expect(total).toBe(toCents(invoice.total));
  if (letter === 'A') {
    const sums = new Map<string, number>();
    for (const l of lines) sums.set(l.rate, (sums.get(l.rate) ?? 0) + l.amount);
    for (const [rate, sum] of sums) {
      if (sum === 0 && !netByRate.has(rate)) continue;
      expect(netByRate.get(rate), `net ${rate}`).toBe(sum);
    }
    // The printed subtotals are the ones sent to ARCA.
    for (const l of invoice.iva_lines) expect(netByRate.get(l.rate)).toBe(toCents(l.base));
  } else {
    expect(lines.reduce((sum, l) => sum + l.amount, 0)).toBe(total);
  }
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
