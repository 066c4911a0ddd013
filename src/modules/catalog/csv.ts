/** The catalogue's spreadsheet columns (the encodings and cells are src/lib/spreadsheet.ts). */

import { normaliseHeader } from '../../lib/spreadsheet.ts';

/** Spanish and English headers → the field each column fills. */
const HEADERS: Record<string, ImportField> = {
  id: 'id',
  codigo: 'barcode',
  codigo_de_barras: 'barcode',
  codigo_barras: 'barcode',
  ean: 'barcode',
  barcode: 'barcode',
  bc: 'barcode',
  sku: 'sku',
  nombre: 'name',
  name: 'name',
  producto: 'name',
  descripcion: 'description',
  description: 'description',
  precio: 'price',
  price: 'price',
  base_price: 'price',
  costo: 'cost',
  cost: 'cost',
  iva: 'iva',
  iva_rate: 'iva',
  alicuota_iva: 'iva',
  categoria: 'category',
  category: 'category',
  rubro: 'category',
  marca: 'mark',
  mark: 'mark',
  brand: 'mark',
  activo: 'enabled',
  enabled: 'enabled',
  enable: 'enabled',
  habilitado: 'enabled',
  stock_minimo: 'min_stock',
  min_stock: 'min_stock',
  minimum_stock: 'min_stock',
  unidad: 'unit',
  unit: 'unit',
  se_vende_por: 'unit',
  stock: 'stock',
  existencia: 'stock',
  existencias: 'stock',
};

export type ImportField =
  | 'id'
  | 'unit'
  | 'barcode'
  | 'sku'
  | 'name'
  | 'description'
  | 'price'
  | 'cost'
  | 'iva'
  | 'category'
  | 'mark'
  | 'enabled'
  | 'min_stock'
  | 'stock';

/** The field of each column (null for columns this import does not know). */
export function mapHeaders(headers: string[]): (ImportField | null)[] {
  return headers.map((h) => HEADERS[normaliseHeader(h)] ?? null);
}

/** The export's header line (Spanish, the import's own names). */
export const EXPORT_HEADERS = [
  'id',
  'sku',
  'codigo',
  'nombre',
  'descripcion',
  'precio',
  'costo',
  'iva',
  'categoria',
  'marca',
  'activo',
  'stock_minimo',
  'unidad',
  'stock',
];

/** `unidad`/`u`/`unit` → unit, `kg`/`kilo`/`por kg` → kg (how the product is sold). */
export function parseUnit(raw: string): 'unit' | 'kg' | null {
  const value = normaliseHeader(raw).replace(/^por_/, '');
  if (['unidad', 'unidades', 'u', 'un', 'unit'].includes(value)) return 'unit';
  if (['kg', 'kilo', 'kilos', 'kilogramo', 'kilogramos'].includes(value)) return 'kg';
  return null;
}

/** `21`, `21%`, `10,5`, `10.5 %`, `exento` → the IVA rate as stored. */
export function parseIva(raw: string): string | null {
  const value = normaliseHeader(raw).replace('%', '').replace(',', '.').trim();
  if (value === 'exento' || value === 'ex') return 'exento';
  const number = Number(value);
  if (!Number.isFinite(number) || value === '') return null;
  const rate = String(number);
  return ['21', '10.5', '27', '5', '2.5', '0'].includes(rate) ? rate : null;
}
