import type { Database } from '../../db/client.ts';
import type { CompanyCtx } from '../../http/request-context.ts';
import { AppError } from '../../lib/errors.ts';
import { moneyToNumber as money, quantityToNumber as qty, wideToNumber } from '../../lib/money.ts';
import type { Clock } from '../../lib/time.ts';
import { findCompanySettings } from '../companies/companies.repo.ts';
import { buildReport, type ReportName } from './report-tables.ts';
import { addDays, localToday, reportDays } from './report-range.ts';
import * as repo from './reports.repo.ts';
import type { Rollup } from './rollup.ts';
import { dbDate } from '../../db/dates.ts';

/** The day summary of GET /api/v1/sales/summary, which Inicio shows as it is (the same numbers). */
export interface DaySummarySource {
  summary(
    ctx: CompanyCtx,
    date: string,
  ): Promise<{
    date: string;
    count: number;
    total: number;
    pending: number;
    cancelled: number;
    by_method: { method: string; amount: number; count: number }[];
  }>;
}

export interface ReportQuery {
  from?: string | undefined;
  to?: string | undefined;
  deposit_id?: number | undefined;
  box_id?: number | undefined;
}

export type ReportsService = ReturnType<typeof createReportsService>;

/** Reports over a range of the company's local days, and Inicio (the admin's home). */
export function createReportsService({
  db,
  clock,
  sales,
  rollup,
}: {
  db: Database;
  clock: Clock;
  sales: DaySummarySource;
  rollup: Rollup;
}) {
  const orm = db.orm;

  /** Sales per product: from the daily rollup unless a deposit or box narrows the sales. */
  const productLines = (companyId: number, r: repo.ReportRange, limit?: number) =>
    r.depositId === undefined && r.boxId === undefined
      ? rollup.products(companyId, r, limit)
      : repo.linesBy(orm, companyId, r, 'product', limit);

  /** The range and scope of a query; another company's deposit or box is a 404, like everywhere. */
  async function rangeOf(companyId: number, q: ReportQuery): Promise<repo.ReportRange & { today: string }> {
    const { timezone } = await findCompanySettings(orm, companyId);
    const today = localToday(clock.now(), timezone);
    const { from, to } = reportDays(q, today);
    if (q.deposit_id !== undefined && !(await repo.depositExists(orm, companyId, q.deposit_id))) {
      throw new AppError('not_found', `deposit ${q.deposit_id} does not exist`);
    }
    if (q.box_id !== undefined && !(await repo.boxExists(orm, companyId, q.box_id))) {
      throw new AppError('not_found', `box ${q.box_id} does not exist`);
    }
    return { from, to, timeZone: timezone, depositId: q.deposit_id, boxId: q.box_id, today };
  }

  async function report(ctx: CompanyCtx, name: ReportName, q: ReportQuery) {
    const range = await rangeOf(ctx.companyId, q);
    const table = await buildReport(orm, ctx.companyId, name, range, () => productLines(ctx.companyId, range));
    return {
      report: name,
      from: range.from,
      to: range.to,
      time_zone: range.timeZone,
      deposit_id: range.depositId ?? null,
      box_id: range.boxId ?? null,
      ...table,
    };
  }

  async function home(ctx: CompanyCtx) {
    const companyId = ctx.companyId;
    const { timezone: timeZone } = await findCompanySettings(orm, companyId);
    const today = localToday(clock.now(), timeZone);
    const lastWeek = addDays(today, -7);
    const todayRange = { from: today, to: today, timeZone };
    const monthRange = { from: `${today.slice(0, 8)}01`, to: today, timeZone };
    // The month's refresh brings today's rollup up to date too: today's top reads after it.
    const tops = productLines(companyId, monthRange, 10).then(
      async (month): Promise<[repo.GroupRow[], repo.GroupRow[]]> => [await productLines(companyId, todayRange, 10), month],
    );
    const [day, before, month, hours, [topToday, topMonth], low, receipts, shifts] = await Promise.all([
      sales.summary(ctx, today),
      sales.summary(ctx, lastWeek),
      repo.salesTotals(orm, companyId, monthRange),
      repo.salesByHour(orm, companyId, todayRange),
      tops,
      repo.productsBelowMinimum(orm, companyId, 10),
      repo.unsettledReceipts(orm, companyId, 10),
      repo.openShifts(orm, companyId),
    ]);
    const top = (rows: repo.GroupRow[]) =>
      rows.map((r) => ({
        product_id: Number(r.key),
        name: r.name ?? '',
        quantity: wideToNumber(r.quantity, 3),
        total: money(r.total),
      }));
    return {
      today: { date: today, tickets: day.count, total: day.total, pending: day.pending, cancelled: day.cancelled },
      same_day_last_week: { date: lastWeek, tickets: before.count, total: before.total },
      month: { from: monthRange.from, to: today, tickets: month.tickets, total: money(month.total) },
      by_hour: Array.from({ length: 24 }, (_, hour) => {
        const row = hours.find((h) => h.hour === hour);
        return { hour, tickets: row?.tickets ?? 0, total: row ? money(row.total) : 0 };
      }),
      by_method: day.by_method,
      top_today: top(topToday),
      top_month: top(topMonth),
      below_minimum: {
        count: low[0]?.count ?? 0,
        products: low.map((p) => ({ id: p.id, name: p.name, unit: p.unit, stock: qty(p.stock), min_stock: qty(p.min_stock) })),
      },
      receipts: {
        count: receipts[0]?.count ?? 0,
        items: receipts.map((r) => ({
          attempt_id: r.attempt_id,
          sale_id: r.sale_id,
          kind: r.kind as 'invoice' | 'credit_note',
          letter: r.letter,
          status: r.status,
          created_at: dbDate(r.created_at).toISOString(),
          reason: r.errors[0]?.message ?? null,
        })),
      },
      open_shifts: shifts.map((s) => ({
        id: s.id,
        box_id: s.box_id,
        box_name: s.box_name,
        opened_at: new Date(s.opened_at).toISOString(),
        opened_by: s.opened_by,
        tickets: s.tickets,
        total: money(s.total),
      })),
    };
  }

  /** The deposits and boxes a report can be narrowed to, and today in the company's zone. */
  async function scopes(companyId: number) {
    const [{ timezone }, lists] = await Promise.all([findCompanySettings(orm, companyId), repo.listScopes(orm, companyId)]);
    return { ...lists, today: localToday(clock.now(), timezone) };
  }

  return { report, home, rangeOf, scopes };
}
