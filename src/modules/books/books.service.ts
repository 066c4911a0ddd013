import type { Database } from '../../db/client.ts';
import { AppError } from '../../lib/errors.ts';
import { wideCents } from '../../lib/money.ts';
import type { Clock } from '../../lib/time.ts';
import * as repo from './books.repo.ts';

/** Today in Argentina (-03:00), yyyy-mm-dd: ARCA's deadlines are dates there. */
const argentinaToday = (at: Date) => new Date(at.getTime() - 3 * 3_600_000).toISOString().slice(0, 10);

/** The names of the invariants `books verify` checks, in the order it reports them. */
export const BOOKS_CHECKS = [
  'stock_ledger',
  'stock_deposits',
  'sale_totals',
  'sale_discounts',
  'sale_payments',
  'closed_shifts',
  'shift_people',
  'day_summaries',
  'invoice_totals',
  'invoice_matches_sale',
  'invoice_numbering',
  'caea_informed',
  'outbound_events',
  'customer_accounts',
  'report_rollup',
] as const;
export type BooksCheckName = (typeof BOOKS_CHECKS)[number];

/** The offending rows of one check: how many in all, and the first ones (at most DETAIL_CAP). */
export interface CheckDetail {
  violations: number;
  rows: Record<string, unknown>[];
}

export interface BooksCheck {
  name: BooksCheckName;
  ok: boolean;
  detail: CheckDetail;
}

export interface BooksReport {
  company_id: number;
  ok: boolean;
  checks: BooksCheck[];
}

/** What a day summary answers (GET /api/v1/sales/summary), the part the check reads. */
export interface DaySummary {
  date: string;
  total: number;
  pending: number;
  by_method: { method: string; amount: number }[];
  by_box: { box_id: number | null; total: number }[];
  /** Payments on account received that day, by method. */
  account_payments: { method: string; amount: number }[];
}

export interface BooksDeps {
  db: Database;
  clock: Clock;
  /** Every day's summary exactly as the API answers one day's (the same statements, grouped by day). */
  daySummaries(companyId: number): Promise<DaySummary[]>;
  /** Days of the reports' product rollup that match their sales but not their lines (reports/rollup.ts). */
  reportRollup(companyId: number): Promise<{ day: string; product_id: number }[]>;
  /** Outbound events older than this many days may have been pruned once dispatched. */
  eventRetentionDays: number;
}

export const DETAIL_CAP = 20;
const DAY_MS = 86_400_000;

/** Cents of a figure: past 2^53 cents the API answers the nearest double, and so does this. */
const cents = wideCents;

/** Equal figures: exactly, or past 2^53 cents within what a double holds of them. */
const same = (a: number, b: number) => {
  const larger = Math.max(Math.abs(a), Math.abs(b));
  return a === b || (larger >= Number.MAX_SAFE_INTEGER && Math.abs(a - b) <= larger * 2 ** -48);
};

/**
 * `books verify`: recomputes the company's books from its raw rows and reports each invariant.
 * Every check is one set-based statement, except the day summaries, which compare the summary code's
 * answer for every day (its own grouped statements, called once) with the figures recomputed here
 * from the raw rows (the point is to prove what the API answers, without trusting its SQL).
 */
export function createBooksService(deps: BooksDeps) {
  const { db, clock } = deps;
  const orm = db.orm;

  function check<T extends object>(name: BooksCheckName, rows: (T & repo.Capped)[]): BooksCheck {
    const violations = rows[0]?.total_count ?? 0;
    return {
      name,
      ok: violations === 0,
      detail: { violations, rows: rows.map(({ total_count: _, ...row }) => row as Record<string, unknown>) },
    };
  }

  async function daySummaries(companyId: number): Promise<BooksCheck> {
    const figures = await repo.dayFigures(orm, companyId);
    const days = new Map<string, Map<string, number>>();
    for (const f of figures) {
      const parts = days.get(f.day) ?? new Map<string, number>();
      parts.set(f.part, Number(f.cents));
      days.set(f.day, parts);
    }
    const problems: { day: string; figure: string; expected_cents: number; found_cents: number }[] = [];
    const differ = (day: string, figure: string, expected: number, found: number) => {
      if (!same(expected, found)) problems.push({ day, figure, expected_cents: expected, found_cents: found });
    };
    const summaries = new Map((await deps.daySummaries(companyId)).map((x) => [x.date, x]));
    const none: DaySummary = { date: '', total: 0, pending: 0, by_method: [], by_box: [], account_payments: [] };
    // A day the summary has and the rows do not (or the other way round) is compared against nothing.
    for (const day of [...new Set([...days.keys(), ...summaries.keys()])].sort()) {
      const parts = days.get(day) ?? new Map<string, number>();
      const summary = summaries.get(day) ?? none;
      const byMethod = new Map(summary.by_method.map((m) => [m.method, cents(m.amount)]));
      const methodSum = [...byMethod.values()].reduce((a, b) => a + b, 0);
      // The headline is the sum of its parts: what each method took plus what is still owed.
      differ(day, 'headline', methodSum + cents(summary.pending), cents(summary.total));
      // And it is the day's sales (not cancelled) as the rows have them.
      differ(day, 'total', parts.get('sales') ?? 0, cents(summary.total));
      // Each method's card is the day's payments of that method.
      const methods = new Set([
        ...byMethod.keys(),
        ...[...parts.keys()].filter((p) => !p.includes(':') && p !== 'pending' && p !== 'sales'),
      ]);
      for (const method of [...methods].sort())
        differ(day, `method:${method}`, parts.get(method) ?? 0, byMethod.get(method) ?? 0);
      differ(day, 'pending', parts.get('pending') ?? 0, cents(summary.pending));
      // Per box only the sales made at that box; the integration's sales are their own group.
      const byBox = new Map(
        summary.by_box.map((b) => [b.box_id === null ? 'box:integration' : `box:${b.box_id}`, cents(b.total)]),
      );
      const boxes = new Set([...byBox.keys(), ...[...parts.keys()].filter((p) => p.startsWith('box:'))]);
      for (const box of [...boxes].sort()) differ(day, box, parts.get(box) ?? 0, byBox.get(box) ?? 0);
      // Payments on account: money taken that day outside any sale, by method.
      const byAccount = new Map(summary.account_payments.map((m) => [`account:${m.method}`, cents(m.amount)]));
      const accountParts = new Set([...byAccount.keys(), ...[...parts.keys()].filter((p) => p.startsWith('account:'))]);
      for (const part of [...accountParts].sort()) differ(day, part, parts.get(part) ?? 0, byAccount.get(part) ?? 0);
    }
    return {
      name: 'day_summaries',
      ok: problems.length === 0,
      detail: { violations: problems.length, rows: problems.slice(0, DETAIL_CAP) },
    };
  }

  async function reportRollup(companyId: number): Promise<BooksCheck> {
    const rows = await deps.reportRollup(companyId);
    return { name: 'report_rollup', ok: rows.length === 0, detail: { violations: rows.length, rows: rows.slice(0, DETAIL_CAP) } };
  }

  async function verify(companyId: number): Promise<BooksReport> {
    if (!(await repo.companyExists(orm, companyId))) throw new AppError('not_found', `company ${companyId} does not exist`);
    const cap = DETAIL_CAP;
    const since = new Date(clock.now().getTime() - deps.eventRetentionDays * DAY_MS);
    const checks: BooksCheck[] = [
      check('stock_ledger', await repo.stockLedgerMismatches(orm, companyId, cap)),
      check('stock_deposits', await repo.stockDepositMismatches(orm, companyId, cap)),
      check('sale_totals', await repo.saleTotalMismatches(orm, companyId, cap)),
      check('sale_discounts', await repo.saleDiscountProblems(orm, companyId, cap)),
      check('sale_payments', await repo.salePaymentMismatches(orm, companyId, cap)),
      check('closed_shifts', await repo.closedShiftMismatches(orm, companyId, cap)),
      check('shift_people', await repo.shiftPeopleProblems(orm, companyId, cap)),
      await daySummaries(companyId),
      check('invoice_totals', await repo.invoiceTotalMismatches(orm, companyId, cap)),
      check('invoice_matches_sale', await repo.invoiceSaleMismatches(orm, companyId, cap)),
      check('invoice_numbering', await repo.invoiceNumberingProblems(orm, companyId, cap)),
      check('caea_informed', await repo.caeaUninformed(orm, companyId, argentinaToday(clock.now()), cap)),
      check('outbound_events', await repo.missingOutboundEvents(orm, companyId, since, cap)),
      check('customer_accounts', await repo.customerAccountMismatches(orm, companyId, cap)),
      await reportRollup(companyId),
    ];
    return { company_id: companyId, ok: checks.every((c) => c.ok), checks };
  }

  return {
    verify,
    async verifyAll(): Promise<{ ok: boolean; companies: BooksReport[] }> {
      const companies: BooksReport[] = [];
      for (const id of await repo.listCompanyIds(orm)) companies.push(await verify(id));
      return { ok: companies.every((c) => c.ok), companies };
    },
  };
}

export type BooksService = ReturnType<typeof createBooksService>;

const CHECK_LABELS: Record<BooksCheckName, string> = {
  stock_ledger: 'movimientos de stock = stock de cada depósito',
  stock_deposits: 'depósitos = stock de cada producto',
  sale_totals: 'total de cada venta = suma de sus líneas',
  sale_discounts: 'descuentos de cada venta con su motivo; ninguno en las ventas de la integración',
  sale_payments: 'pagos de cada venta cobrada (efectivo neto de vuelto) = su total',
  closed_shifts: 'cada cierre de caja = recálculo desde sus movimientos',
  shift_people: 'cada venta y movimiento de caja de una persona, en su propio turno; cada relevo, en la misma caja',
  day_summaries: 'resumen de cada día = suma de sus pagos',
  invoice_totals: 'cada factura: neto + IVA + exento = total',
  invoice_matches_sale: 'cada factura = su venta (nota de crédito = lo devuelto)',
  invoice_numbering: 'numeración por punto de venta y tipo, sin saltos ni repetidos (CAE y CAEA sin mezclarse)',
  caea_informed: 'todo lo emitido con CAEA, informado a ARCA antes de su fecha tope',
  outbound_events: 'cada cambio tiene su evento saliente',
  customer_accounts: 'saldo de cada cuenta corriente = ventas a cuenta − anulaciones − pagos; imputaciones coherentes',
  report_rollup: 'acumulado diario de los reportes = líneas de venta de cada día',
};

const SHOWN_ROWS = 5;

function describeRow(row: Record<string, unknown>): string {
  return Object.entries(row)
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
}

/** The operator's reading: one line per check, in Spanish. */
export function formatBooksReport(report: BooksReport, companyName?: string): string {
  const lines = [
    `Empresa #${report.company_id}${companyName ? ` ${companyName}` : ''}: ${report.ok ? 'los números cierran' : 'HAY DIFERENCIAS'}`,
  ];
  for (const c of report.checks) {
    if (c.ok) {
      lines.push(`  OK     ${c.name} · ${CHECK_LABELS[c.name]}`);
      continue;
    }
    const shown = c.detail.rows.slice(0, SHOWN_ROWS).map(describeRow).join('; ');
    const more = c.detail.violations > SHOWN_ROWS ? ` (y ${c.detail.violations - SHOWN_ROWS} más)` : '';
    lines.push(
      `  FALLA  ${c.name} · ${CHECK_LABELS[c.name]} · ${c.detail.violations} ${c.detail.violations === 1 ? 'diferencia' : 'diferencias'} (importes en centavos): ${shown}${more}`,
    );
  }
  return lines.join('\n');
}
