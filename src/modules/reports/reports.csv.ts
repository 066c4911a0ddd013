import { formatDate } from '../../lib/format.ts';
import { formatDecimal, formatWide, toUnits } from '../../lib/money.ts';
import { csvCell } from '../../lib/spreadsheet.ts';
import type { Cell, Column, ReportTable } from './report-tables.ts';

/** A cell the way a spreadsheet in Argentina reads it: decimal comma, no thousands mark, dd/mm/aaaa. */
function csvValue(value: Cell, type: Column['type']): string | number | null {
  if (value === null || typeof value === 'string') return type === 'date' && value ? formatDate(value) : value;
  switch (type) {
    case 'money':
      return formatWide(value, 2, { grouping: false });
    case 'quantity':
      return formatWide(value, 3, { grouping: false, minDecimals: 0 });
    case 'percent':
      return formatDecimal(toUnits(value, 1), 1, { grouping: false });
    default:
      return value;
  }
}

/**
 * A report as CSV for Excel in Spanish: `;`-separated, decimal comma, the screen's Spanish headers,
 * UTF-8 with BOM, CRLF, and a last "Total" line with the totals of the columns that add up (then
 * "Sin cobrar" in the payments report).
 */
export function reportCsv(table: Pick<ReportTable, 'columns' | 'rows' | 'totals'>): string {
  const line = (cells: (string | number | null)[]) => cells.map((c) => csvCell(c, ';')).join(';');
  const head = line(table.columns.map((c) => c.label));
  const rows = table.rows.map((row) => line(table.columns.map((c) => csvValue(row[c.key] ?? null, c.type))));
  const hasTotals = table.columns.some((c) => c.key in table.totals);
  const totals = table.columns.map((c, n) =>
    n === 0 ? 'Total' : c.key in table.totals ? csvValue(table.totals[c.key] ?? null, c.type) : null,
  );
  const lines = [head, ...rows, ...(hasTotals && table.rows.length > 0 ? [line(totals)] : [])];
  // The payments report: what was sold and not collected yet, under the money column, so that
  // collected + not collected is what was sold (the screen says it under the title).
  const pending = table.totals['pending'];
  const moneyColumn = table.columns.findIndex((c) => c.type === 'money');
  if (typeof pending === 'number' && pending !== 0 && moneyColumn > 0) {
    lines.push(
      line(table.columns.map((c, n) => (n === 0 ? 'Sin cobrar' : n === moneyColumn ? csvValue(pending, c.type) : null))),
    );
  }
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}
