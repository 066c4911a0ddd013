import { expect } from 'vitest';
import { toCents } from '../../src/lib/money.ts';
import type { Letter } from '../../src/modules/invoicing/fiscal-rules.ts';

// Reading a printed invoice (the HTML of /facturas/:id, A4 or ticket) back as a calculator would,
// and checking its identities: every line is quantity × unit price = amount to the cent, and the
// lines add up to the printed subtotal of each rate (class A) or the total (B, C).

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

export interface Read {
  lines: { rate: string; milli: number; unit: number; amount: number }[];
  netByRate: Map<string, number>;
  total: number;
}

export function read(page: string): Read {
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

/** The invoice's own figures the printout must show: its total and, for class A, the bases sent to ARCA. */
export interface InvoiceFigures {
  total: number;
  iva_lines: { rate: string; base: number }[];
}

export function checkIdentities(page: string, letter: Letter, invoice: InvoiceFigures) {
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
