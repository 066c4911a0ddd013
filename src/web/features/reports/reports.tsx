import { useEffect, useMemo, useState } from 'preact/hooks';
import { formatDate } from '../../../lib/format.ts';
import { formatDecimal, formatPesos, formatQuantity, toUnits } from '../../../lib/money.ts';
import { api, errorText } from '../../ui/api.ts';
import { Card, PageTitle, TableWrap } from '../../ui/layout.tsx';
import { BarList, ColumnChart, type Point } from './charts.tsx';

type Cell = string | number | null;
interface Column {
  key: string;
  label: string;
  type: 'text' | 'date' | 'integer' | 'quantity' | 'money' | 'percent';
}
/** GET /api/v1/reports/{name} (src/modules/reports/reports.schemas.ts Report). */
export interface ReportData {
  report: string;
  title: string;
  from: string;
  to: string;
  columns: Column[];
  rows: Record<string, Cell>[];
  totals: Record<string, Cell>;
}

export const REPORTS: { name: string; label: string; chart?: { label: string; value: string } }[] = [
  { name: 'sales', label: 'Ventas por día', chart: { label: 'day', value: 'total' } },
  { name: 'products', label: 'Productos', chart: { label: 'name', value: 'total' } },
  { name: 'categories', label: 'Categorías', chart: { label: 'name', value: 'total' } },
  { name: 'brands', label: 'Marcas', chart: { label: 'name', value: 'total' } },
  { name: 'cashiers', label: 'Cajeros', chart: { label: 'cashier', value: 'total' } },
  { name: 'payments', label: 'Medios de pago', chart: { label: 'method', value: 'amount' } },
  { name: 'margins', label: 'Margen bruto' },
  { name: 'stock-valuation', label: 'Valorización del stock', chart: { label: 'deposit', value: 'at_cost' } },
  { name: 'movements', label: 'Movimientos de stock' },
];

/** A cell for a reader: money as $ 1.234,56, quantities and percentages with a decimal comma, dd/mm/aaaa. */
export function cellText(value: Cell, type: Column['type']): string {
  if (value === null) return '—';
  if (typeof value === 'string') return type === 'date' ? formatDate(value) : value;
  if (type === 'money') return formatPesos(value);
  if (type === 'quantity') return formatQuantity(value);
  if (type === 'percent') return `${formatDecimal(toUnits(value, 1), 1)} %`;
  return formatDecimal(value, 0);
}

const isNumeric = (type: Column['type']) => type !== 'text' && type !== 'date';

function compare(a: Cell, b: Cell): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b), 'es');
}

export interface Filters {
  report: string;
  from: string;
  to: string;
  deposit: string;
  box: string;
}

export function reportQuery(f: Filters): string {
  const q = new URLSearchParams({ from: f.from, to: f.to });
  if (f.deposit) q.set('deposit_id', f.deposit);
  if (f.box) q.set('box_id', f.box);
  return q.toString();
}

/** The table of a report, sortable by any column (click its header), with its totals line. */
export function ReportTable({ data }: { data: ReportData }) {
  const [sort, setSort] = useState<{ key: string; down: boolean } | null>(null);
  const rows = useMemo(() => {
    if (!sort) return data.rows;
    const sorted = [...data.rows].sort((a, b) => compare(a[sort.key] ?? null, b[sort.key] ?? null));
    return sort.down ? sorted.reverse() : sorted;
  }, [data, sort]);
  const hasTotals = data.rows.length > 0 && data.columns.some((c) => c.key in data.totals);
  return (
    <TableWrap id="report-table">
      <thead>
        <tr>
          {data.columns.map((c) => {
            const current = sort?.key === c.key;
            return (
              <th
                key={c.key}
                class={isNumeric(c.type) ? 'num' : ''}
                aria-sort={current ? (sort.down ? 'descending' : 'ascending') : 'none'}
              >
                <button
                  type="button"
                  class="link sort"
                  onClick={() => setSort({ key: c.key, down: current ? !sort.down : isNumeric(c.type) })}
                >
                  {c.label}
                  <span aria-hidden="true">{current ? (sort.down ? ' ▼' : ' ▲') : ''}</span>
                </button>
              </th>
            );
          })}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, n) => (
          <tr key={n}>
            {data.columns.map((c) => (
              <td key={c.key} class={isNumeric(c.type) ? 'num' : ''}>
                {cellText(row[c.key] ?? null, c.type)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
      {hasTotals ? (
        <tfoot>
          <tr>
            {data.columns.map((c, n) => (
              <th key={c.key} class={isNumeric(c.type) ? 'num' : ''} scope={n === 0 ? 'row' : undefined}>
                {n === 0 ? 'Total' : c.key in data.totals ? cellText(data.totals[c.key] ?? null, c.type) : ''}
              </th>
            ))}
          </tr>
        </tfoot>
      ) : null}
    </TableWrap>
  );
}

function ReportChart({ data }: { data: ReportData }) {
  const spec = REPORTS.find((r) => r.name === data.report)?.chart;
  if (!spec || data.rows.length === 0) return null;
  const label = data.columns.find((c) => c.key === spec.label)!;
  const value = data.columns.find((c) => c.key === spec.value)!;
  const points: Point[] = data.rows.map((row) => ({
    label: cellText(row[spec.label] ?? null, label.type),
    value: Number(row[spec.value] ?? 0),
    text: cellText(row[spec.value] ?? null, value.type),
  }));
  if (data.report === 'sales') {
    const every = Math.max(1, Math.ceil(points.length / 8));
    const short = points.map((p) => ({ ...p, label: p.label.slice(0, 5) }));
    return <ColumnChart title={data.title} head={[label.label, value.label]} points={short} labelEvery={every} />;
  }
  const top = [...points].sort((a, b) => b.value - a.value).slice(0, 10);
  return <BarList title={`${data.title}: los 10 primeros`} head={[label.label, value.label]} points={top} />;
}

/** One report with its filters' result: chart, table, and the extras some reports carry. */
export function ReportView({ filters }: { filters: Filters }) {
  const [data, setData] = useState<ReportData | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setError(null);
    const abort = new AbortController();
    api<ReportData>('GET', `/api/v1/reports/${filters.report}?${reportQuery(filters)}`, { signal: abort.signal }).then(
      setData,
      (err) => (err as Error).name !== 'AbortError' && setError(errorText(err)),
    );
    return () => abort.abort();
  }, [filters]);
  if (error) {
    return (
      <p class="notice notice-error" role="alert">
        {error}
      </p>
    );
  }
  if (!data) return <p class="muted">Cargando…</p>;
  const stock = data.report === 'stock-valuation';
  return (
    <Card title={data.title} id="report">
      <p class="muted">
        {stock ? 'Stock de hoy.' : `Del ${formatDate(data.from)} al ${formatDate(data.to)}.`}
        {data.report === 'payments' && Number(data.totals['pending']) > 0
          ? ` Sin cobrar: ${formatPesos(Number(data.totals['pending']))}.`
          : ''}
        {data.report === 'margins' && Number(data.totals['without_cost']) > 0
          ? ` ${formatPesos(Number(data.totals['without_cost']))} de ventas son de productos sin costo cargado: no entran en el margen.`
          : ''}
      </p>
      {data.rows.length === 0 ? (
        <p class="muted">No hay datos en este período.</p>
      ) : (
        <>
          <ReportChart data={data} />
          <ReportTable data={data} />
        </>
      )}
    </Card>
  );
}

export function ReportsTitle() {
  return (
    <PageTitle lead="Ventas, productos, márgenes y stock por período, en el horario de tu empresa. Ordená cualquier columna, descargá el CSV para Excel o imprimilo.">
      Reportes
    </PageTitle>
  );
}
