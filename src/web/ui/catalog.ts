import { gs1CheckDigit } from '../../lib/barcode.ts';
import { formatDecimal, parseAmount, toCents, toMilli } from '../../lib/money.ts';
import type { Messages } from './api.ts';

/** IVA rates as the API names them, in the order a shop picks them. */
export const IVA_RATES = ['21', '10.5', '27', '5', '2.5', '0', 'exento'] as const;

export const ivaLabel = (rate: string) => (rate === 'exento' ? 'Exento' : `${rate.replace('.', ',')} %`);

/** Money shown the Argentine way in an input ("1234,50"). */
export const moneyText = (value: number | null) => (value === null ? '' : formatDecimal(toCents(value), 2, { grouping: false }));

/** A number shown the Argentine way in an input ("1234,5"). */
export const decimalText = (value: number | null) =>
  value === null ? '' : formatDecimal(toMilli(value), 3, { minDecimals: 0, grouping: false });

/** Answers of the product endpoints worded for a shop owner. */
export const PRODUCT_MESSAGES: Messages = {
  conflict: 'Ese código (de barras o interno) ya lo usa otro producto.',
};

/** A price or quantity typed the Argentine way: 1.234,56 or 1234.56. */
export function parsePrice(text: string): number | null {
  // The shared parser: "1.100" is eleven hundred pesos, "1234.5" has a decimal point.
  const value = parseAmount(text);
  return value !== null && value >= 0 ? value : null;
}

export interface BarcodeCheck {
  ok: boolean;
  /** What to tell the person typing (empty for an empty field). */
  message: string;
}

/**
 * The barcode check the server does (EAN-13, UPC-A, EAN-8 with their GS1 check digit), as the
 * person types: what is wrong, or what will be stored.
 */
export function checkBarcode(raw: string): BarcodeCheck {
  const code = raw.trim();
  if (code === '') return { ok: true, message: '' };
  if (!/^\d+$/.test(code)) return { ok: false, message: 'Solo números: el código de barras no lleva letras ni espacios.' };
  if (![8, 12, 13].includes(code.length)) {
    return {
      ok: false,
      message: `Tiene ${code.length} dígitos: un EAN-13 tiene 13, un UPC-A 12 y un EAN-8 8.`,
    };
  }
  const expected = gs1CheckDigit(code.slice(0, -1));
  if (expected !== Number(code.at(-1))) {
    return {
      ok: false,
      message: `El dígito verificador no coincide: el último debería ser ${expected}. Revisá que esté bien escrito.`,
    };
  }
  if (code.length === 12) return { ok: true, message: `UPC-A válido: se guarda como EAN-13 0${code}.` };
  return { ok: true, message: code.length === 13 ? 'EAN-13 válido.' : 'EAN-8 válido.' };
}
