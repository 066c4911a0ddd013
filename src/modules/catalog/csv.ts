/**
 * The spreadsheets Argentine shops actually have: Excel's "CSV" (Windows-1252, `;`, decimal comma)
 * and UTF-8 files (with or without BOM, `,` or `;`).
 */

import { formatDecimal, parseAmount as parseMoneyAmount, toUnits } from '../../lib/money.ts';

/** UTF-8 (BOM dropped) when the bytes are valid UTF-8, otherwise Windows-1252 (Excel's "CSV"). */
export function decodeSpreadsheet(bytes: Uint8Array): { text: string; encoding: 'utf-8' | 'windows-1252' } {
  const hasBom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const body = hasBom ? bytes.subarray(3) : bytes;
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(body), encoding: 'utf-8' };
  } catch {
    return { text: new TextDecoder('windows-1252').decode(body), encoding: 'windows-1252' };
  }
}

/** `;` or `,`: whichever appears more often outside quotes in the first line. */
export function detectSeparator(text: string): ';' | ',' {
  let semicolons = 0;
  let commas = 0;
  let quoted = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '\n' || char === '\r')) break;
    else if (!quoted && char === ';') semicolons++;
    else if (!quoted && char === ',') commas++;
  }
  return semicolons >= commas && semicolons > 0 ? ';' : ',';
}

/** RFC 4180 rows: quoted cells may hold separators, doubled quotes and line breaks. Blank lines are kept as empty rows. */
export function parseCsv(text: string, separator: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (char === '"') {
        quoted = false;
      } else {
        cell += char;
      }
    } else if (char === '"' && cell === '') {
      quoted = true;
    } else if (char === separator) {
      row.push(cell);
      cell = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else {
      cell += char;
    }
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

/**
 * An amount as people type it: `1.234,56`, `1234,56`, `1234.56`, `$ 1.234`. With both marks the
 * last one is the decimal one; a lone `.` followed by exactly three digits is a thousands mark in a
 * `;` file (Spanish Excel) and a decimal point in a `,` file. Null when it is not a number.
 */
export function parseAmount(raw: string, separator: ';' | ','): number | null {
  return parseMoneyAmount(raw, { loneDotIsDecimal: separator === ',' });
}

/** An amount the way an Argentine spreadsheet reads it back: decimal comma, no thousands mark. */
export function formatAmount(value: number, decimals: number): string {
  return formatDecimal(toUnits(value, decimals), decimals, { grouping: false });
}

/** One cell of an exported row: quoted when needed; text a spreadsheet would run as a formula is kept as text. */
export function csvCell(value: string | number | null, separator: string): string {
  let text = value === null ? '' : String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return text.includes(separator) || /["\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const normaliseHeader = (header: string) =>
  header
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .trim()
    .replace(/[\s-]+/g, '_');

/** Spanish and English headers → the field each column fills. */
const HEADERS: Record<string, ImportField> = {
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
};

export type ImportField =
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
  | 'min_stock';

/** The field of each column (null for columns this import does not know). */
export function mapHeaders(headers: string[]): (ImportField | null)[] {
  return headers.map((h) => HEADERS[normaliseHeader(h)] ?? null);
}

/** The export's header line (Spanish, the import's own names). */
export const EXPORT_HEADERS = [
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
];

export function parseBoolean(raw: string): boolean | null {
  const value = normaliseHeader(raw);
  if (['si', 's', 'true', '1', 'x', 'yes', 'y', 'activo', 'habilitado'].includes(value)) return true;
  if (['no', 'n', 'false', '0', 'inactivo', 'deshabilitado'].includes(value)) return false;
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
