import { moneyToNumber as money, toUnits, wideCents, wideToNumber } from '../../lib/money.ts';
import { paymentMethodLabel } from '../../lib/sale-labels.ts';
import { type Conn, readTogether } from '../../db/client.ts';
import * as repo from './reports.repo.ts';
import { daysBetween } from './report-range.ts';

// Each report as one table: typed columns (Spanish labels, for screens and CSV), rows, totals.

export const REPORT_NAMES = [
  'sales',
  'products',
  'categories',
  'brands',
  'cashiers',
  'payments',
  'margins',
  'stock-valuation',
  'movements',
] as const;
export type ReportName = (typeof REPORT_NAMES)[number];

export type ColumnType = 'text' | 'date' | 'integer' | 'quantity' | 'money' | 'percent';
export interface Column {
  key: string;
  label: string;
  type: ColumnType;
}
export type Cell = string | number | null;
export interface ReportTable {
  title: string;
  columns: Column[];
  rows: Record<string, Cell>[];
  totals: Record<string, Cell>;
}

const col = (key: string, label: string, type: ColumnType): Column => ({ key, label, type });
/** Σ of stored sums in cents: exact while they fit, the nearest double beyond (src/lib/money.ts wideCents). */
const sumCents = (values: string[]) => values.reduce((s, v) => s + wideCents(v), 0);
/**
 * Σ of stored decimals in 10^-scale units: exact while they fit, the nearest double beyond
 * (src/lib/money.ts wideToNumber). A stock valuation is Σ stock × price: with values near their
 * columns' limits (both accepted by the API) it passes what cents hold exactly, and toCents threw (a
 * 500 on every later request for the report); likewise 91 quantities at the most a line holds pass
 * 2^53 thousandths.
 */
const wideSum = (values: string[], scale = 2) => {
  const factor = 10 ** scale;
  const exact = values.every((v) => Math.abs(Number(v)) * factor < Number.MAX_SAFE_INTEGER);
  const units = exact ? values.reduce((s, v) => s + toUnits(v, scale), 0) : Number.POSITIVE_INFINITY;
  return Number.isSafeInteger(units) ? units / factor : values.reduce((s, v) => s + Number(v), 0);
};
/** part / whole as a percentage with one decimal; null when whole is 0. */
const percent = (part: number, whole: number) => (whole === 0 ? null : Math.round((part * 1000) / whole) / 10);
const average = (totalCents: number, count: number) => (count === 0 ? 0 : Math.round(totalCents / count) / 100);

const SALES_COLUMNS = [
  col('tickets', 'Tickets', 'integer'),
  col('total', 'Ventas', 'money'),
  col('average', 'Ticket promedio', 'money'),
];

async function salesReport(conn: Conn, companyId: number, r: repo.ReportRange): Promise<ReportTable> {
  const rows = await repo.salesByDay(conn, companyId, r);
  const byDay = new Map(rows.map((row) => [row.day, row]));
  const totalCents = sumCents(rows.map((row) => row.total));
  const tickets = rows.reduce((s, row) => s + row.tickets, 0);
  return {
    title: 'Ventas por día',
    columns: [col('day', 'Fecha', 'date'), ...SALES_COLUMNS],
    // Every day of the range, with or without sales, so a chart shows the quiet days too.
    rows: daysBetween(r.from, r.to).map((day) => {
      const row = byDay.get(day);
      return {
        day,
        tickets: row?.tickets ?? 0,
        total: row ? money(row.total) : 0,
        average: row ? average(wideCents(row.total), row.tickets) : 0,
      };
    }),
    totals: { tickets, total: totalCents / 100, average: average(totalCents, tickets) },
  };
}

const GROUP_TITLES = { product: 'Ventas por producto', category: 'Ventas por categoría', brand: 'Ventas por marca' };
const GROUP_LABELS = { product: 'Producto', category: 'Categoría', brand: 'Marca' };
const GROUP_NONE = { product: '(sin nombre)', category: 'Sin categoría', brand: 'Sin marca' };

/** Sales per product over the range (the rollup when nothing narrows it: reports.service). */
export type ProductLines = () => Promise<repo.GroupRow[]>;

async function groupReport(
  conn: Conn,
  companyId: number,
  r: repo.ReportRange,
  by: 'product' | 'category' | 'brand',
  products: ProductLines,
) {
  const rows = by === 'product' ? await products() : await repo.linesBy(conn, companyId, r, by);
  const totalCents = sumCents(rows.map((row) => row.total));
  const table: ReportTable = {
    title: GROUP_TITLES[by],
    columns: [
      ...(by === 'brand' ? [] : [col('id', 'Código', 'integer')]),
      col('name', GROUP_LABELS[by], 'text'),
      col('quantity', 'Cantidad', 'quantity'),
      col('tickets', 'Tickets', 'integer'),
      col('total', 'Ventas', 'money'),
      col('share', '% de las ventas', 'percent'),
    ],
    rows: rows.map((row) => ({
      ...(by === 'brand' ? {} : { id: row.key === null ? null : Number(row.key) }),
      name: row.name ?? GROUP_NONE[by],
      quantity: wideToNumber(row.quantity, 3),
      tickets: row.tickets,
      total: money(row.total),
      share: percent(wideCents(row.total), totalCents),
    })),
    // No quantity total: units and kilos do not add up.
    totals: { total: totalCents / 100 },
  };
  return table;
}

async function marginsReport(products: ProductLines): Promise<ReportTable> {
  const rows = await products();
  let sales = 0;
  let costed = 0;
  let cost = 0;
  let without = 0;
  const table = rows.map((row) => {
    const totalCents = wideCents(row.total);
    const withoutCents = wideCents(row.without_cost);
    const costCents = row.cost === null ? null : wideCents(row.cost);
    sales += totalCents;
    without += withoutCents;
    if (costCents !== null) {
      cost += costCents;
      costed += totalCents - withoutCents;
    }
    const marginCents = costCents === null ? null : totalCents - withoutCents - costCents;
    return {
      id: Number(row.key),
      name: row.name,
      quantity: wideToNumber(row.quantity, 3),
      total: money(row.total),
      cost: costCents === null ? null : costCents / 100,
      margin: marginCents === null ? null : marginCents / 100,
      margin_pct: marginCents === null ? null : percent(marginCents, totalCents - withoutCents),
      without_cost: money(row.without_cost),
    };
  });
  return {
    title: 'Margen bruto por producto',
    columns: [
      col('id', 'Código', 'integer'),
      col('name', 'Producto', 'text'),
      col('quantity', 'Cantidad', 'quantity'),
      col('total', 'Ventas', 'money'),
      col('cost', 'Costo', 'money'),
      col('margin', 'Margen', 'money'),
      col('margin_pct', 'Margen %', 'percent'),
      col('without_cost', 'Ventas sin costo', 'money'),
    ],
    rows: table,
    totals: {
      total: sales / 100,
      cost: cost / 100,
      margin: (costed - cost) / 100,
      margin_pct: percent(costed - cost, costed),
      without_cost: without / 100,
    },
  };
}

async function cashiersReport(conn: Conn, companyId: number, r: repo.ReportRange): Promise<ReportTable> {
  const rows = await repo.salesByCashier(conn, companyId, r);
  const totalCents = sumCents(rows.map((row) => row.total));
  const tickets = rows.reduce((s, row) => s + row.tickets, 0);
  return {
    title: 'Ventas por cajero',
    columns: [col('cashier', 'Vendió', 'text'), ...SALES_COLUMNS],
    rows: rows.map((row) => ({
      cashier: row.sold_by ?? 'Integración (tienda online u otro sistema)',
      tickets: row.tickets,
      total: money(row.total),
      average: average(wideCents(row.total), row.tickets),
    })),
    totals: { tickets, total: totalCents / 100, average: average(totalCents, tickets) },
  };
}

async function paymentsReport(conn: Conn, companyId: number, r: repo.ReportRange): Promise<ReportTable> {
  const [rows, pending] = await readTogether(
    conn,
    () => repo.paymentsByMethod(conn, companyId, r),
    () => repo.pendingTotal(conn, companyId, r),
  );
  const paid = sumCents(rows.map((row) => row.amount));
  return {
    title: 'Cobros por medio de pago',
    columns: [
      col('method', 'Medio', 'text'),
      col('tickets', 'Ventas', 'integer'),
      col('amount', 'Cobrado', 'money'),
      col('share', '% de lo cobrado', 'percent'),
    ],
    rows: rows.map((row) => ({
      method: paymentMethodLabel(row.method),
      tickets: row.tickets,
      amount: money(row.amount),
      share: percent(wideCents(row.amount), paid),
    })),
    totals: { amount: paid / 100, pending: money(pending) },
  };
}

async function stockReport(conn: Conn, companyId: number, r: repo.ReportRange): Promise<ReportTable> {
  const rows = await repo.stockValuation(conn, companyId, r.depositId);
  return {
    title: 'Valorización del stock',
    columns: [
      col('deposit_id', 'Depósito N.º', 'integer'),
      col('deposit', 'Depósito', 'text'),
      col('products', 'Productos con stock', 'integer'),
      col('units', 'Unidades', 'quantity'),
      col('at_cost', 'Valor al costo', 'money'),
      col('at_price', 'Valor a precio de venta', 'money'),
      col('without_cost', 'Productos sin costo', 'integer'),
      col('negative', 'Con stock negativo', 'integer'),
    ],
    rows: rows.map((row) => ({
      deposit_id: row.deposit_id,
      deposit: row.deposit_name,
      products: row.products,
      units: wideToNumber(row.units, 3),
      at_cost: wideToNumber(row.at_cost, 2),
      at_price: wideToNumber(row.at_price, 2),
      without_cost: row.without_cost,
      negative: row.negative,
    })),
    totals: {
      at_cost: wideSum(rows.map((row) => row.at_cost)),
      at_price: wideSum(rows.map((row) => row.at_price)),
      without_cost: rows.reduce((s, row) => s + row.without_cost, 0),
    },
  };
}

async function movementsReport(conn: Conn, companyId: number, r: repo.ReportRange): Promise<ReportTable> {
  const rows = await repo.movementsByProduct(conn, companyId, r);
  return {
    title: 'Movimientos de stock por producto',
    columns: [
      col('id', 'Código', 'integer'),
      col('name', 'Producto', 'text'),
      col('moves', 'Movimientos', 'integer'),
      col('entered', 'Entradas', 'quantity'),
      col('left', 'Salidas', 'quantity'),
      col('adjusted', 'Ajustes', 'quantity'),
      col('sent', 'Transferido (sale)', 'quantity'),
      col('received', 'Transferido (entra)', 'quantity'),
    ],
    rows: rows.map((row) => ({
      id: row.product_id,
      name: row.name,
      moves: row.moves,
      entered: wideToNumber(row.entered, 3),
      left: wideToNumber(row.left, 3),
      adjusted: wideToNumber(row.adjusted, 3),
      sent: wideToNumber(row.sent, 3),
      received: wideToNumber(row.received, 3),
    })),
    totals: { moves: rows.reduce((s, row) => s + row.moves, 0) },
  };
}

/** The table of one report over a range (stock valuation is today's, whatever the range). */
export function buildReport(
  conn: Conn,
  companyId: number,
  name: ReportName,
  r: repo.ReportRange,
  products: ProductLines,
): Promise<ReportTable> {
  switch (name) {
    case 'sales':
      return salesReport(conn, companyId, r);
    case 'products':
      return groupReport(conn, companyId, r, 'product', products);
    case 'categories':
      return groupReport(conn, companyId, r, 'category', products);
    case 'brands':
      return groupReport(conn, companyId, r, 'brand', products);
    case 'cashiers':
      return cashiersReport(conn, companyId, r);
    case 'payments':
      return paymentsReport(conn, companyId, r);
    case 'margins':
      return marginsReport(products);
    case 'stock-valuation':
      return stockReport(conn, companyId, r);
    case 'movements':
      return movementsReport(conn, companyId, r);
  }
}
