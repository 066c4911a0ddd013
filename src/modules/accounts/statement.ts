import { formatPesos, toCents } from '../../lib/money.ts';
import { paymentMethodLabel } from '../../lib/sale-labels.ts';
import type { MovementRow, OpenSaleRow } from './accounts.repo.ts';
import type { StatementWire } from './accounts.schemas.ts';

// The statement's arithmetic, pure: local days, the running balance, the aging buckets.

const DAY_MS = 86_400_000;
const DAY_FORMATS = new Map<string, Intl.DateTimeFormat>();

/** The local day (yyyy-mm-dd) of an instant in a time zone. */
export function localDay(at: Date | string, timeZone: string): string {
  let format = DAY_FORMATS.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    DAY_FORMATS.set(timeZone, format);
  }
  return format.format(new Date(at));
}

/** Whole days from one local day to another (yyyy-mm-dd). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

/** A local day moved by a number of days. */
export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** The days since each open sale (local days), for the account's open sales and the aging. */
export function withAge<T extends OpenSaleRow>(sales: T[], today: string, timeZone: string) {
  return sales.map((s) => ({ ...s, days: Math.max(0, daysBetween(localDay(s.created_at, timeZone), today)) }));
}

/** What is owed today by age: 0–30, 31–60, 61–90 and over 90 days since the sale. */
export function agingOf(open: { open: string; days: number }[]): StatementWire['aging'] {
  const buckets = [0, 0, 0, 0];
  for (const sale of open) {
    const index = sale.days <= 30 ? 0 : sale.days <= 60 ? 1 : sale.days <= 90 ? 2 : 3;
    buckets[index]! += toCents(sale.open);
  }
  const [a, b, c, d] = buckets as [number, number, number, number];
  return { days_0_30: a / 100, days_31_60: b / 100, days_61_90: c / 100, days_over_90: d / 100, total: (a + b + c + d) / 100 };
}

/**
 * The line a person reads for a movement. A sale paid only partly on account says so: its invoice
 * (or credit note) is for the whole sale, while the amount beside it is the part on account.
 */
function describe(m: MovementRow): string {
  const part =
    m.sale_total !== null && toCents(m.sale_total) !== Math.abs(toCents(m.amount))
      ? ` · total ${formatPesos(m.sale_total)}, a cuenta ${formatPesos(Math.abs(toCents(m.amount)) / 100)}`
      : '';
  if (m.kind === 'sale') return `Venta N.º ${m.sale_id}${m.receipt ? ` · Factura ${m.receipt}` : ''}${part}`;
  if (m.kind === 'credit_note') {
    return `${m.receipt ? `Nota de crédito ${m.receipt} (venta N.º ${m.sale_id})` : `Anulación de la venta N.º ${m.sale_id}`}${part}`;
  }
  // A return given as store credit is no payment: nothing was paid, the customer has it in favour.
  if (m.returned_sale_id !== null && m.returned_sale_id !== undefined) {
    return `Saldo a favor por devolución de la venta N.º ${m.returned_sale_id}${m.note ? ` · ${m.note}` : ''}`;
  }
  return `Pago${m.method ? ` · ${paymentMethodLabel(m.method)}` : ''}${m.note ? ` · ${m.note}` : ''}`;
}

/** Opening balance (movements before `start`), the period's movements with running balance, closing balance. */
export function runningBalance(rows: MovementRow[], start: Date) {
  let opening = 0;
  let balance = 0;
  const movements: StatementWire['movements'] = [];
  for (const m of rows) {
    const cents = toCents(m.amount);
    balance += cents;
    if (new Date(m.at).getTime() < start.getTime()) {
      opening = balance;
      continue;
    }
    movements.push({
      kind: m.kind,
      date: new Date(m.at).toISOString(),
      description: describe(m),
      sale_id: m.sale_id,
      payment_id: m.payment_id,
      receipt: m.receipt,
      method: m.method,
      amount: cents / 100,
      balance: balance / 100,
    });
  }
  return { opening_balance: opening / 100, movements, closing_balance: balance / 100 };
}
