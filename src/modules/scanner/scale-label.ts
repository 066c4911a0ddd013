import { gs1CheckDigit } from '../../lib/barcode.ts';

/**
 * How a company's scales print EAN-13 labels for weighed or priced goods (GS1 restricted
 * circulation numbers, prefixes 20–29). Stored in `companies.settings.scaleLabel`.
 *
 * A label is: 2-digit prefix + PLU (pluDigits) + value (10 − pluDigits digits) + EAN-13 check digit.
 * The value is a price (decimals 2 → cents) or a weight in kg (decimals 3 → grams).
 */
export interface ScaleLabelLayout {
  prefixes: string[];
  pluDigits: number;
  value: 'price' | 'weight';
  decimals: number;
}

/**
 * Argentine scales (Systel, Kretz and most of the local market) print the price in whole pesos in
 * the 5 value digits: up to $ 99.999, which fits any weighed item; 5 digits in cents stop at
 * $ 999,99, which no longer pays for 100 g of cheese. See docs/decisiones.md.
 */
export const DEFAULT_SCALE_LABEL_LAYOUT: ScaleLabelLayout = Object.freeze({
  prefixes: Object.freeze(['20', '21', '22', '23', '24', '25', '26', '27', '28', '29']) as string[],
  pluDigits: 5,
  value: 'price',
  decimals: 0,
});

export interface ScaleLabel {
  code: string;
  /** As printed, with its leading zeros. */
  plu: string;
  value: 'price' | 'weight';
  /** Price labels: the embedded price in cents. */
  priceCents: number | null;
  /** Weight labels: the embedded weight in grams (thousandths of a kg). */
  weightGrams: number | null;
}

export type LayoutParse = { layout: ScaleLabelLayout | null; problem: string | null };

/**
 * Reads the stored setting: absent → the default layout; `false` → scale labels are off;
 * an object → its fields over the default. A malformed object falls back to the default and
 * reports the problem (the caller logs it), so a bad setting never breaks the scanner.
 */
export function parseScaleLabelLayout(setting: unknown): LayoutParse {
  if (setting === undefined || setting === null) return { layout: DEFAULT_SCALE_LABEL_LAYOUT, problem: null };
  if (setting === false) return { layout: null, problem: null };
  if (typeof setting !== 'object' || Array.isArray(setting)) {
    return { layout: DEFAULT_SCALE_LABEL_LAYOUT, problem: 'scaleLabel must be an object or false' };
  }
  const raw = setting as Record<string, unknown>;
  const layout: ScaleLabelLayout = {
    prefixes: (raw['prefixes'] as string[] | undefined) ?? DEFAULT_SCALE_LABEL_LAYOUT.prefixes,
    pluDigits: (raw['pluDigits'] as number | undefined) ?? DEFAULT_SCALE_LABEL_LAYOUT.pluDigits,
    value: (raw['value'] as 'price' | 'weight' | undefined) ?? DEFAULT_SCALE_LABEL_LAYOUT.value,
    decimals: (raw['decimals'] as number | undefined) ?? (raw['value'] === 'weight' ? 3 : DEFAULT_SCALE_LABEL_LAYOUT.decimals),
  };
  const problem = scaleLabelLayoutProblem(layout);
  return problem ? { layout: DEFAULT_SCALE_LABEL_LAYOUT, problem } : { layout, problem: null };
}

/** Why a layout cannot be used (in English, for logs and API errors), or null. */
export function scaleLabelLayoutProblem(layout: ScaleLabelLayout): string | null {
  const { prefixes, pluDigits, value, decimals } = layout;
  if (!Array.isArray(prefixes) || prefixes.length === 0 || !prefixes.every((p) => typeof p === 'string' && /^2\d$/.test(p))) {
    return 'scaleLabel.prefixes must be a non-empty list of two-digit prefixes from "20" to "29"';
  }
  if (!Number.isInteger(pluDigits) || pluDigits < 4 || pluDigits > 6) return 'scaleLabel.pluDigits must be 4, 5 or 6';
  if (value !== 'price' && value !== 'weight') return 'scaleLabel.value must be "price" or "weight"';
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 3) return 'scaleLabel.decimals must be 0 to 3';
  return null;
}

/** Decodes a scanned code with the layout; null when it is not a valid scale label of that layout. */
export function decodeScaleLabel(code: string, layout: ScaleLabelLayout): ScaleLabel | null {
  if (!/^\d{13}$/.test(code) || !layout.prefixes.includes(code.slice(0, 2))) return null;
  if (gs1CheckDigit(code.slice(0, 12)) !== Number(code[12])) return null;
  const plu = code.slice(2, 2 + layout.pluDigits);
  const raw = Number(code.slice(2 + layout.pluDigits, 12));
  if (layout.value === 'price') {
    return { code, plu, value: 'price', priceCents: scaleUnits(raw, layout.decimals, 2), weightGrams: null };
  }
  return { code, plu, value: 'weight', priceCents: null, weightGrams: scaleUnits(raw, layout.decimals, 3) };
}

/** `raw` has `from` decimals; the result has `to` (e.g. whole pesos → cents). */
function scaleUnits(raw: number, from: number, to: number): number {
  return from <= to ? raw * 10 ** (to - from) : Math.round(raw / 10 ** (from - to));
}

/** The PLU as the catalogue may hold it in `sku`: as printed, and without its leading zeros. */
export function pluCandidates(plu: string): string[] {
  const bare = plu.replace(/^0+(?=\d)/, '');
  return bare === plu ? [plu] : [plu, bare];
}

/**
 * What to tell the person when a code has the shape of a scale label of this layout (13 digits, one
 * of its prefixes) but its last digit is not the EAN-13 check digit: the digit it should be, so a
 * mistyped or misread label is named as such instead of "No encontramos el código …". Null otherwise.
 */
export function scaleLabelCheckDigitMessage(code: string, layout: ScaleLabelLayout | null): string | null {
  if (!layout || !/^\d{13}$/.test(code) || !layout.prefixes.includes(code.slice(0, 2))) return null;
  const expected = gs1CheckDigit(code.slice(0, 12));
  if (expected === Number(code[12])) return null;
  return `La etiqueta de balanza ${code} está mal leída o mal escrita: el dígito verificador debería ser ${expected}.`;
}
