/**
 * The spreadsheets Argentine shops actually have: Excel's "CSV" (Windows-1252, `;`, decimal comma)
 * and UTF-8 files (with or without BOM, `,` or `;`). Shared by every import and export (products,
 * customers, the register's reports).
 */

import iconv from 'iconv-lite';
import { AppError } from './errors.ts';
import { formatDecimal, parseAmount as parseMoneyAmount, toUnits } from './money.ts';

export type SpreadsheetEncoding = 'utf-8' | 'windows-1252' | 'utf-16le' | 'utf-16be';

/** Bytes Windows-1252 leaves undefined: a file holding one is not Windows-1252. */
const UNDEFINED_1252 = new Set([0x81, 0x8d, 0x8f, 0x90, 0x9d]);

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A refused spreadsheet. `details` carry what a screen words in Spanish: `message` says which problem
 * (`not_text`, `binary_data`, `unknown_encoding`, `mixed_encoding`, `repeated_column`), `found` the
 * kind of file, the encoding read (`xlsx`, `xls`, `pdf`, `utf-8`…) or the repeated column's name, and
 * `line` the first bad line.
 */
function refuseFile(message: string, error: string, found: string, line: number | null): AppError {
  return new AppError('validation_failed', error, {
    details: [{ path: '/body', message, found, ...(line === null ? {} : { line }) }],
  });
}

function notText(found: string, kind: string, line: number | null, hint: string): AppError {
  const where = line === null ? '' : ` (line ${line})`;
  return refuseFile(
    line === null ? 'not_text' : 'binary_data',
    `the file is not a text CSV: it looks like ${found}${where}; ${hint}`,
    kind,
    line,
  );
}

/** What a non-text file is, by its first bytes (the formats people send instead of a CSV). */
function binaryKind(bytes: Uint8Array): { found: string; kind: string } | null {
  const starts = (...magic: number[]) => magic.every((b, i) => bytes[i] === b);
  if (starts(0x50, 0x4b, 0x03, 0x04)) return { found: 'an Excel workbook or another ZIP file (.xlsx)', kind: 'xlsx' };
  if (starts(0xd0, 0xcf, 0x11, 0xe0)) return { found: 'an old Excel workbook (.xls)', kind: 'xls' };
  if (starts(0x25, 0x50, 0x44, 0x46)) return { found: 'a PDF', kind: 'pdf' };
  return null;
}

/** The 1-based line of a byte offset. */
function lineAt(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (bytes[i] === 0x0a) line++;
  return line;
}

/** The first line of decoded text holding a control character no spreadsheet has (tab, LF, CR are fine), or null. */
function controlLine(text: string): number | null {
  let line = 1;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x0a) line++;
    else if ((code < 0x20 && code !== 0x09 && code !== 0x0d) || code === 0x7f) return line;
  }
  return null;
}

/**
 * The text of a spreadsheet and the encoding it was in: UTF-16 with its BOM; UTF-8 (BOM dropped)
 * when every byte is valid UTF-8; Windows-1252 (Excel's "CSV", decoded with a real table: 0x80 €,
 * 0x93 “, 0x96 –) when no line is UTF-8. A file mixing UTF-8 lines with others, a byte Windows-1252
 * leaves undefined, or a control character (a binary file) is refused naming the first bad line.
 */
export function decodeSpreadsheet(bytes: Uint8Array): { text: string; encoding: SpreadsheetEncoding } {
  const kind = binaryKind(bytes);
  if (kind) throw notText(kind.found, kind.kind, null, 'save it as CSV (Archivo → Guardar como → CSV) and send that file');
  let decoded: { text: string; encoding: SpreadsheetEncoding } | null = null;
  if (bytes[0] === 0xff && bytes[1] === 0xfe)
    decoded = { text: iconv.decode(Buffer.from(bytes.subarray(2)), 'utf-16le'), encoding: 'utf-16le' };
  else if (bytes[0] === 0xfe && bytes[1] === 0xff)
    decoded = { text: iconv.decode(Buffer.from(bytes.subarray(2)), 'utf-16be'), encoding: 'utf-16be' };
  else {
    const hasBom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
    const body = hasBom ? bytes.subarray(3) : bytes;
    try {
      decoded = { text: utf8.decode(body), encoding: 'utf-8' };
    } catch {
      decoded = { text: fromWindows1252(body, hasBom), encoding: 'windows-1252' };
    }
  }
  const bad = controlLine(decoded.text);
  if (bad !== null) {
    throw notText(
      `binary data in ${decoded.encoding}`,
      decoded.encoding,
      bad,
      'send the spreadsheet saved as CSV (UTF-8 or Windows-1252)',
    );
  }
  return decoded;
}

/** Windows-1252 text, unless a line is valid multi-byte UTF-8 (a mixed file) or uses an undefined byte. */
function fromWindows1252(body: Uint8Array, hasBom: boolean): string {
  let start = 0;
  let firstInvalidUtf8: number | null = null;
  let sawUtf8 = hasBom;
  for (let i = 0; i <= body.length; i++) {
    if (i < body.length && body[i] !== 0x0a) continue;
    const line = body.subarray(start, i);
    if (line.some((b) => b >= 0x80)) {
      let valid = true;
      try {
        utf8.decode(line);
      } catch {
        valid = false;
      }
      if (valid) sawUtf8 = true;
      else firstInvalidUtf8 ??= start;
      const undefinedByte = line.findIndex((b) => UNDEFINED_1252.has(b));
      if (!valid && undefinedByte >= 0 && !sawUtf8) {
        throw new AppError(
          'validation_failed',
          `line ${lineAt(body, start + undefinedByte)} is neither UTF-8 nor Windows-1252 (byte 0x${line[undefinedByte]!.toString(16)}); save the file as CSV UTF-8`,
          {
            details: [
              { path: '/body', message: 'unknown_encoding', found: 'unknown', line: lineAt(body, start + undefinedByte) },
            ],
          },
        );
      }
    }
    if (sawUtf8 && firstInvalidUtf8 !== null) {
      const line = lineAt(body, firstInvalidUtf8);
      throw new AppError(
        'validation_failed',
        `the file mixes encodings: it is UTF-8 but line ${line} is not (Windows-1252?); save the whole file as CSV UTF-8`,
        { details: [{ path: '/body', message: 'mixed_encoding', found: 'utf-8', line }] },
      );
    }
    start = i + 1;
  }
  return iconv.decode(Buffer.from(body), 'windows-1252');
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

/**
 * Text a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR first) is exported behind an
 * apostrophe. So that the import can undo exactly that, text that already has apostrophes before such a
 * character gets one more: the import drops one apostrophe from `'…=` and nothing else.
 */
const GUARDED = /^'*[=+\-@\t\r]/;
const EXPORT_GUARDED = /^''*[=+\-@\t\r]/;

/** A cell as the export wrote it, its formula guard removed. */
export function unguardCell(text: string): string {
  return EXPORT_GUARDED.test(text) ? text.slice(1) : text;
}

/** One cell of an exported row: quoted when needed; text a spreadsheet would run as a formula is kept as text. */
export function csvCell(value: string | number | null, separator: string): string {
  let text = value === null ? '' : String(value);
  if (typeof value === 'string' && GUARDED.test(text)) text = `'${text}`;
  return text.includes(separator) || /["\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A header or a word cell as a key: no accents, lower case, spaces and dashes as `_`. */
export const normaliseHeader = (header: string) =>
  header
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .trim()
    .replace(/[\s-]+/g, '_');

/** `si`/`no` as people write them in a spreadsheet; null when it is neither. */
export function parseBoolean(raw: string): boolean | null {
  const value = normaliseHeader(raw);
  if (['si', 's', 'true', '1', 'x', 'yes', 'y', 'activo', 'habilitado'].includes(value)) return true;
  if (['no', 'n', 'false', '0', 'inactivo', 'deshabilitado'].includes(value)) return false;
  return null;
}

/** One problem of an imported row, in the owner's words (the report lists them all). */
export interface ImportError {
  line: number;
  column: string | null;
  message: string;
}

/** The report every spreadsheet import answers with (products add their stock fields). */
export interface ImportReport {
  created: number;
  updated: number;
  unchanged: number;
  errors: ImportError[];
  dry_run: boolean;
  encoding: SpreadsheetEncoding;
  separator: ';' | ',';
  ignored_columns: string[];
}

/** The most rows one import takes. */
export const MAX_IMPORT_ROWS = 50_000;

/**
 * A spreadsheet read for an import: decoded, split into rows, the first row as the header mapped to
 * fields by `mapHeaders`. Refused (422) when the header is empty or names none of `required`, and
 * (413) above MAX_IMPORT_ROWS rows. Blank rows are dropped; each row keeps its 1-based line.
 */
export function readSpreadsheet<Field extends string>(
  bytes: Uint8Array,
  mapHeaders: (headers: string[]) => (Field | null)[],
  columns: { required: Field[]; example: string },
) {
  const { text, encoding } = decodeSpreadsheet(bytes);
  const separator = detectSeparator(text);
  const rows = parseCsv(text, separator);
  const header = rows[0];
  if (!header || header.every((h) => h.trim() === '')) {
    throw new AppError('validation_failed', `the file is empty: the first line must name the columns (${columns.example})`);
  }
  const fields = mapHeaders(header);
  // Two columns for one field (precio and precio, or precio and price): which one holds the value
  // is a guess, so the file is refused rather than read with either.
  const firstOf = new Map<Field, number>();
  fields.forEach((field, i) => {
    if (field === null) return;
    const first = firstOf.get(field);
    if (first === undefined) {
      firstOf.set(field, i);
      return;
    }
    const name = header[i]!.trim();
    throw refuseFile(
      'repeated_column',
      `columns ${first + 1} ("${header[first]!.trim()}") and ${i + 1} ("${name}") are the same field (${field}): keep one of them`,
      name,
      1,
    );
  });
  if (!columns.required.some((field) => fields.includes(field))) {
    throw new AppError(
      'validation_failed',
      `no known column: the first line must name the columns, e.g. ${columns.example} (see /docs/api-comercio)`,
    );
  }
  if (rows.length - 1 > MAX_IMPORT_ROWS) {
    throw new AppError('payload_too_large', `at most ${MAX_IMPORT_ROWS} rows per import (got ${rows.length - 1})`);
  }
  const lines: { line: number; cells: string[] }[] = [];
  for (let index = 1; index < rows.length; index++) {
    const cells = rows[index]!;
    if (!cells.every((c) => c.trim() === '')) lines.push({ line: index + 1, cells });
  }
  const report: ImportReport = {
    created: 0,
    updated: 0,
    unchanged: 0,
    errors: [],
    dry_run: false,
    encoding,
    separator,
    ignored_columns: header
      .filter((_, i) => fields[i] === null)
      .map((h) => h.trim())
      .filter(Boolean),
  };
  return { header, fields, separator, lines, report };
}

/** An export a spreadsheet opens and the import reads back: `;`, UTF-8 with BOM, CRLF, formula-guarded cells. */
export function writeSpreadsheet(headers: readonly string[], rows: (string | number | null)[][]): string {
  const lines = rows.map((row) => row.map((v) => csvCell(v, ';')).join(';'));
  return `\uFEFF${[headers.join(';'), ...lines].join('\r\n')}\r\n`;
}
