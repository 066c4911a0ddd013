import { Type } from 'typebox';
import type { App } from './app.types.ts';
import { keepBytes } from './input-guard.ts';

/**
 * Spreadsheet uploads (products, customers) arrive as bytes: the import decides between UTF-8 and
 * Windows-1252 itself (src/lib/spreadsheet.ts). Registered once per scope, by whichever import comes first.
 */
export function acceptSpreadsheets(app: App) {
  if (app.hasContentTypeParser('text/csv')) return;
  app.addContentTypeParser(
    // A workbook (.xlsx, .ods) is taken too, so that the import can say to save it as CSV.
    [
      'text/csv',
      'application/csv',
      'application/vnd.ms-excel',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'application/vnd.oasis.opendocument.spreadsheet',
    ],
    { parseAs: 'buffer' },
    keepBytes,
  );
}

/** The report of every spreadsheet import (products add their stock fields). */
export const importReportFields = {
  created: Type.Integer(),
  updated: Type.Integer(),
  unchanged: Type.Integer(),
  errors: Type.Array(
    Type.Object({ line: Type.Integer(), column: Type.Union([Type.String(), Type.Null()]), message: Type.String() }),
    { description: 'Rows skipped, by line of the file (the header is line 1) and column' },
  ),
  dry_run: Type.Boolean(),
  encoding: Type.Union([Type.Literal('utf-8'), Type.Literal('windows-1252'), Type.Literal('utf-16le'), Type.Literal('utf-16be')]),
  separator: Type.Union([Type.Literal(';'), Type.Literal(',')]),
  ignored_columns: Type.Array(Type.String()),
};
