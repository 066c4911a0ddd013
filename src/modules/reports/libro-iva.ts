/**
 * The Libro IVA Digital (RG 4597) sales import files, as pure functions: VENTAS_CBTE (one
 * 266-character line per receipt) and VENTAS_ALICUOTAS (one 62-character line per receipt and
 * rate), in ARCA's record design (REGINFO_CV_VENTAS_CBTE / _ALICUOTAS). Layout, sources and the
 * points not confirmed: docs/libro-iva.md and shared research libro-iva-digital.md.
 */

import { bigCentsToNumber } from '../../lib/money.ts';

/** One receipt as the book writes it: amounts in integer cents, pesos. */
export interface BookReceipt {
  /** yyyy-mm-dd */
  date: string;
  /** ARCA CbteTipo: 1 FA A, 3 NC A, 6 FA B, 8 NC B, 11 FA C, 13 NC C. */
  code: number;
  pointOfSale: number;
  number: number;
  /** 80 CUIT, 86 CUIL, 96 DNI, 99 unidentified. */
  docType: number;
  docNumber: string;
  name: string;
  totalCents: number;
  untaxedCents: number;
  exemptCents: number;
  /** AlicIva Id (3 0 %, 4 10,5 %, 5 21 %, 6 27 %, 8 5 %, 9 2,5 %), base and tax. */
  ivaLines: { id: number; baseCents: number; amountCents: number }[];
}

/** Field widths of VENTAS_CBTE in order (sum 266), named as docs/libro-iva.md names them. */
export const CBTE_FIELDS = [
  ['fecha', 8, 'N'],
  ['tipo', 3, 'N'],
  ['punto_de_venta', 5, 'N'],
  ['numero', 20, 'N'],
  ['numero_hasta', 20, 'N'],
  ['doc_tipo', 2, 'N'],
  ['doc_numero', 20, 'N'],
  ['nombre', 30, 'A'],
  ['total', 15, 'I'],
  ['no_gravado', 15, 'I'],
  ['percepcion_no_categorizados', 15, 'I'],
  ['exento', 15, 'I'],
  ['percepciones_nacionales', 15, 'I'],
  ['percepciones_iibb', 15, 'I'],
  ['percepciones_municipales', 15, 'I'],
  ['impuestos_internos', 15, 'I'],
  ['moneda', 3, 'A'],
  ['tipo_de_cambio', 10, 'N'],
  ['cantidad_alicuotas', 1, 'N'],
  ['codigo_operacion', 1, 'A'],
  ['otros_tributos', 15, 'I'],
  ['vencimiento', 8, 'N'],
] as const;

/** Field widths of VENTAS_ALICUOTAS in order (sum 62). */
export const ALICUOTA_FIELDS = [
  ['tipo', 3, 'N'],
  ['punto_de_venta', 5, 'N'],
  ['numero', 20, 'N'],
  ['neto_gravado', 15, 'I'],
  ['alicuota', 4, 'N'],
  ['impuesto', 15, 'I'],
] as const;

export const CBTE_LENGTH = 266;
export const ALICUOTA_LENGTH = 62;

const digits = (value: number | string, width: number) => {
  const text = typeof value === 'number' ? String(value) : value.replace(/\D/g, '');
  if (text.length > width) throw new RangeError(`${value} does not fit in ${width} digits`);
  return text.padStart(width, '0');
};

/** An amount in cents: 13 integers and 2 decimals, zero-filled; a negative one carries `-` first. */
export function bookAmount(cents: number): string {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`not a whole number of cents: ${cents}`);
  return cents < 0 ? `-${digits(-cents, 14)}` : digits(cents, 15);
}

/** Text for a Latin-1 file: accents kept where Latin-1 has them, anything else dropped, blank-padded. */
const PLAIN = /^[\x20-\x7e]*$/;

export function bookText(value: string, width: number): string {
  if (PLAIN.test(value)) return value.trim().slice(0, width).padEnd(width, ' ');
  let out = '';
  for (const ch of value.normalize('NFC')) {
    // A letter outside Latin-1 keeps its base letter (Ş → S); anything else outside it is dropped.
    const kept = ch.charCodeAt(0) <= 0xff ? ch : ch.normalize('NFD')[0]!;
    const code = kept.charCodeAt(0);
    if (code > 0xff) continue;
    out += code < 0x20 || (code >= 0x7f && code < 0xa0) ? ' ' : kept;
  }
  return out.trim().slice(0, width).padEnd(width, ' ');
}

const isClassC = (code: number) => code === 11 || code === 12 || code === 13;

/**
 * The receipt's rate lines as written: its IVA lines, or for a class A/B receipt without any (all
 * exempt) one zero line at 0 % (`0003`), since those classes need at least one; class C has none.
 */
export function writtenRates(r: BookReceipt): BookReceipt['ivaLines'] {
  if (r.ivaLines.length > 0 || isClassC(r.code)) return r.ivaLines;
  return [{ id: 3, baseCents: 0, amountCents: 0 }];
}

/** Código de operación: `E` when there is an exempt part, `N` when only a non-taxed one, else blank. */
export function operationCode(r: BookReceipt): string {
  if (r.exemptCents !== 0) return 'E';
  if (r.untaxedCents !== 0 && r.ivaLines.length === 0) return 'N';
  return ' ';
}

export function cbteLine(r: BookReceipt): string {
  const rates = writtenRates(r);
  if (rates.length > 9) throw new RangeError(`receipt ${r.number} has ${rates.length} rates; the field holds one digit`);
  const anonymous = r.docType === 99;
  const line = [
    r.date.replaceAll('-', ''),
    digits(r.code, 3),
    digits(r.pointOfSale, 5),
    digits(r.number, 20),
    digits(r.number, 20),
    digits(r.docType, 2),
    digits(anonymous ? 0 : r.docNumber, 20),
    bookText(r.name, 30),
    bookAmount(r.totalCents),
    bookAmount(r.untaxedCents),
    bookAmount(0),
    bookAmount(r.exemptCents),
    bookAmount(0),
    bookAmount(0),
    bookAmount(0),
    bookAmount(0),
    'PES',
    '0001000000',
    String(rates.length),
    operationCode(r),
    bookAmount(0),
    '00000000',
  ].join('');
  if (line.length !== CBTE_LENGTH) throw new Error(`VENTAS_CBTE line of ${line.length} characters`);
  return line;
}

export function alicuotaLines(r: BookReceipt): string[] {
  return writtenRates(r).map((l) => {
    const line = [
      digits(r.code, 3),
      digits(r.pointOfSale, 5),
      digits(r.number, 20),
      bookAmount(l.baseCents),
      digits(l.id, 4),
      bookAmount(l.amountCents),
    ].join('');
    if (line.length !== ALICUOTA_LENGTH) throw new Error(`VENTAS_ALICUOTAS line of ${line.length} characters`);
    return line;
  });
}

/**
 * One of the files (both come from the same receipts and the same writtenRates, so field 19 always
 * matches the rate lines), CRLF between records and none after the last.
 */
export function bookFile(receipts: BookReceipt[], which: 'cbte' | 'alicuotas'): string {
  return (which === 'cbte' ? receipts.map(cbteLine) : receipts.flatMap(alicuotaLines)).join('\r\n');
}

/** Both files. */
export function bookFiles(receipts: BookReceipt[]): { cbte: string; alicuotas: string } {
  return { cbte: bookFile(receipts, 'cbte'), alicuotas: bookFile(receipts, 'alicuotas') };
}

/** A file as ARCA's importer reads it: ISO-8859-1 bytes. */
export function latin1(text: string): Buffer {
  return Buffer.from(text, 'latin1');
}

export const RECEIPT_NAMES: Record<number, string> = {
  1: 'Factura A',
  3: 'Nota de crédito A',
  6: 'Factura B',
  8: 'Nota de crédito B',
  11: 'Factura C',
  13: 'Nota de crédito C',
};

export const RATE_NAMES: Record<number, string> = { 3: '0 %', 4: '10,5 %', 5: '21 %', 6: '27 %', 8: '5 %', 9: '2,5 %' };

/**
 * Totals per receipt type and per rate, each the sum of the receipts, in pesos. Added up in exact
 * cents (bigint) and only then turned into a number: every receipt fits its column, but 91 at the
 * most already pass 2^53 cents, where a running sum of doubles drifts with each addition; this way
 * each total is the number nearest the exact sum, like every other sum (src/lib/money.ts).
 */
export function bookTotals(receipts: BookReceipt[]) {
  const byType = new Map<number, { count: number; total: bigint; net: bigint; iva: bigint; exempt: bigint; untaxed: bigint }>();
  const byRate = new Map<number, { base: bigint; iva: bigint; credit_base: bigint; credit_iva: bigint }>();
  for (const r of receipts) {
    const t = byType.get(r.code) ?? { count: 0, total: 0n, net: 0n, iva: 0n, exempt: 0n, untaxed: 0n };
    t.count += 1;
    t.total += BigInt(r.totalCents);
    t.exempt += BigInt(r.exemptCents);
    t.untaxed += BigInt(r.untaxedCents);
    for (const l of r.ivaLines) {
      const base = BigInt(l.baseCents);
      const amount = BigInt(l.amountCents);
      t.net += base;
      t.iva += amount;
      const rate = byRate.get(l.id) ?? { base: 0n, iva: 0n, credit_base: 0n, credit_iva: 0n };
      if (isCreditNote(r.code)) {
        rate.credit_base += base;
        rate.credit_iva += amount;
      } else {
        rate.base += base;
        rate.iva += amount;
      }
      byRate.set(l.id, rate);
    }
    byType.set(r.code, t);
  }
  const pesos = bigCentsToNumber;
  return {
    byType: [...byType]
      .sort((a, b) => a[0] - b[0])
      .map(([code, t]) => ({
        code,
        count: t.count,
        net: pesos(t.net),
        iva: pesos(t.iva),
        exempt: pesos(t.exempt),
        untaxed: pesos(t.untaxed),
        total: pesos(t.total),
      })),
    byRate: [...byRate]
      .sort((a, b) => a[0] - b[0])
      .map(([id, t]) => ({
        id,
        base: pesos(t.base),
        iva: pesos(t.iva),
        credit_base: pesos(t.credit_base),
        credit_iva: pesos(t.credit_iva),
      })),
  };
}

export const isCreditNote = (code: number) => code === 3 || code === 8 || code === 13;
