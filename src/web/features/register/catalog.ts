import { readScaleLabel, type ScaleLabelLayout } from '../../../modules/register/scale.ts';
import { scaleLabelCheckDigitMessage } from '../../../modules/scanner/scale-label.ts';
import type { CatalogProduct } from './store.ts';

export interface Product {
  id: number;
  name: string;
  priceCents: number;
  bc: string | null;
  sku: string | null;
  unit: 'unit' | 'kg';
  /** Lowercase, without accents: for the name search. */
  folded: string;
}

export const fold = (text: string) =>
  text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();

/** What a scan resolves to: a product line, a scale label line, or nothing. */
export type ScanResult =
  | { kind: 'product'; product: Product }
  | { kind: 'scale'; product: Product; label: string; weightMilli: number | null; priceCents: number | null }
  | { kind: 'unknown'; code: string; reason: string };

/** The catalogue indexed for the counter: barcode and SKU maps, and a folded-name list to search. */
export class Catalog {
  readonly products: Product[];
  private byCode = new Map<string, Product>();
  private bySku = new Map<string, Product>();

  constructor(
    rows: readonly CatalogProduct[],
    private layout: ScaleLabelLayout | null,
  ) {
    this.products = rows.map(([id, name, price, bc, sku, unit]) => ({
      id,
      name,
      priceCents: Math.round(price * 100),
      bc,
      sku,
      unit,
      folded: fold(name),
    }));
    for (const p of this.products) {
      if (p.bc) this.byCode.set(p.bc, p);
      if (p.sku) this.bySku.set(p.sku, p);
    }
  }

  get size() {
    return this.products.length;
  }

  byId(id: number) {
    return this.products.find((p) => p.id === id) ?? null;
  }

  /** A scanned or typed code: a barcode (EAN-13 also as UPC-A without its leading zero), a SKU, or a scale label. */
  scan(code: string): ScanResult {
    const exact = this.byCode.get(code) ?? (code.length === 12 ? this.byCode.get(`0${code}`) : undefined);
    if (exact) return { kind: 'product', product: exact };
    const label = readScaleLabel(code, this.layout);
    if (label) {
      const product = this.bySku.get(label.plu) ?? this.bySku.get(label.plu.replace(/^0+(?=\d)/, ''));
      if (!product)
        return { kind: 'unknown', code, reason: `Etiqueta de balanza con PLU ${label.plu}: ningún producto tiene ese código.` };
      return { kind: 'scale', product, label: code, weightMilli: label.weightGrams, priceCents: label.priceCents };
    }
    const sku = this.bySku.get(code);
    if (sku) return { kind: 'product', product: sku };
    // A scale label with a wrong check digit is named as such (the digit it should be), not "not found".
    const wrongDigit = scaleLabelCheckDigitMessage(code, this.layout);
    if (wrongDigit) return { kind: 'unknown', code, reason: wrongDigit };
    return { kind: 'unknown', code, reason: `No encontramos el código ${code}.` };
  }

  /** Products whose name has every word typed, best first (starts with the first word), at most `limit`. */
  search(text: string, limit = 8): Product[] {
    const words = fold(text).split(/\s+/).filter(Boolean);
    if (words.length === 0) return [];
    const found: Product[] = [];
    for (const p of this.products) {
      if (words.every((w) => p.folded.includes(w))) found.push(p);
    }
    const first = words[0]!;
    found.sort((a, b) => Number(b.folded.startsWith(first)) - Number(a.folded.startsWith(first)) || a.name.localeCompare(b.name));
    return found.slice(0, limit);
  }
}
