/**
 * Reads the Libro IVA Digital files back by ARCA's layout, independently of how they were written:
 * every line must have the record's length and every field its type (N digits, I an amount of 15
 * with an optional leading minus, A Latin-1 text). Amounts come back in cents.
 */

type Field = readonly [string, number, 'N' | 'A' | 'I'];

// REGINFO_CV_VENTAS_CBTE and _ALICUOTAS as the research notes give them (shared/research/arca/libro-iva-digital.md),
// written here again on purpose: the test does not read the widths the code writes with.
const CBTE: Field[] = [
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
];
const ALICUOTAS: Field[] = [
  ['tipo', 3, 'N'],
  ['punto_de_venta', 5, 'N'],
  ['numero', 20, 'N'],
  ['neto_gravado', 15, 'I'],
  ['alicuota', 4, 'N'],
  ['impuesto', 15, 'I'],
];

function parseLine(line: string, fields: readonly Field[], length: number): Record<string, string | number> {
  if (line.length !== length) throw new Error(`a line of ${line.length} characters, not ${length}: ${JSON.stringify(line)}`);
  const out: Record<string, string | number> = {};
  let at = 0;
  for (const [name, width, type] of fields) {
    const raw = line.slice(at, at + width);
    at += width;
    if (type === 'N' && !/^\d+$/.test(raw)) throw new Error(`${name} "${raw}" is not ${width} digits`);
    if (type === 'I' && !/^(\d{15}|-\d{14})$/.test(raw)) throw new Error(`${name} "${raw}" is not an amount of 15`);
    if (type === 'A' && !/^[\u0020-\u007e\u00a0-\u00ff]+$/.test(raw)) throw new Error(`${name} "${raw}" is not Latin-1 text`);
    out[name] = type === 'I' ? Number(raw) : type === 'N' && width <= 15 ? Number(raw) : raw;
  }
  if (at !== length) throw new Error(`the layout sums ${at}, not ${length}`);
  return out;
}

export function parseBookFile(bytes: Buffer, kind: 'cbte' | 'alicuotas') {
  // ISO-8859-1: one byte per character.
  const text = bytes.toString('latin1');
  if (text === '') return [];
  if (text.endsWith('\r\n')) throw new Error('no CRLF after the last record');
  return text.split('\r\n').map((line) => (kind === 'cbte' ? parseLine(line, CBTE, 266) : parseLine(line, ALICUOTAS, 62)));
}
