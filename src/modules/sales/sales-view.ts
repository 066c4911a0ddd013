import { type Conn, type Database, readTogether } from '../../db/client.ts';
import type { CompanyCtx } from '../../http/request-context.ts';
import { AppError } from '../../lib/errors.ts';
import { bigCentsToNumber, moneyToNumber as money, toBigCents, toMilli } from '../../lib/money.ts';
import { formatReceiptNumber } from '../invoicing/invoices.ts';
import { findCompanySettings } from '../companies/companies.repo.ts';
import * as repo from './sales.repo.ts';
import type { SaleWire } from './sales.schemas.ts';
import { readReturns } from './returns.ts';
import type { ReturnWire } from './returns.schemas.ts';
import { dbIso } from '../../db/dates.ts';

const iso = dbIso;

// Reading sales as the merchant API shows them (sales.schemas.ts Sale): one, a page, a day's summary.

/** A sale row with its lines and payments, in the one wire shape of a sale. */
export function saleWire(
  row: repo.SaleListRow,
  items: repo.SaleItemDetailRow[],
  payments: repo.PaymentRow[],
  returns: ReturnWire[] = [],
): SaleWire {
  const returned = new Map<number, number>();
  for (const r of returns) for (const l of r.lines) returned.set(l.item_id, (returned.get(l.item_id) ?? 0) + l.quantity * 1000);
  return {
    id: row.id,
    source: row.box_session_id === null ? ('integration' as const) : ('register' as const),
    status: row.status,
    box_id: row.box_id,
    box_name: row.box_name,
    box_session_id: row.box_session_id,
    deposit_id: row.deposit_id,
    customer_id: row.customer_id,
    customer_name: row.customer_name,
    total: money(row.total),
    // Sums in exact cents: each line's discount fits its column, but up to 500 lines of them may
    // pass 2^53 cents (a sale given away); then the nearest double, as every sum that far.
    discount: bigCentsToNumber(items.reduce((sum, i) => sum + toBigCents(i.discount) + toBigCents(i.sale_discount), 0n)),
    sale_discount: bigCentsToNumber(items.reduce((sum, i) => sum + toBigCents(i.sale_discount), 0n)),
    discount_reason: row.discount_reason,
    discount_approved_by: row.discount_approved_by,
    paid_total: money(row.paid_total),
    change: row.change === null ? 0 : money(row.change),
    payment_method: row.payment_method,
    items: items.map((i) => ({
      id: i.id,
      product_id: i.product_id,
      name: i.name,
      unit: i.unit,
      quantity: toMilli(i.quantity) / 1000,
      price: money(i.price),
      subtotal: money(i.subtotal),
      discount: money(i.discount),
      sale_discount: money(i.sale_discount),
      discount_reason: i.discount_reason,
      returned_quantity: Math.round(returned.get(i.id) ?? 0) / 1000,
    })),
    payments: payments.map((p) => ({
      id: p.id,
      method: p.method,
      amount: money(p.amount),
      tendered: p.tendered === null ? null : money(p.tendered),
      change: money(p.change),
      reference: p.reference,
      box_session_id: p.box_session_id,
      created_at: iso(p.created_at)!,
    })),
    sold_by: row.sold_by,
    refund_session_id: row.refund_session_id,
    created_at: iso(row.created_at)!,
    paid_at: iso(row.paid_at),
    cancelled_at: iso(row.cancelled_at),
    cancellation_reason: row.cancellation_reason,
    returned_total: returns.reduce((sum, r) => sum + Math.round(r.amount * 100), 0) / 100,
    returns,
  };
}

async function loadSales(conn: Conn, companyId: number, rows: repo.SaleListRow[]): Promise<SaleWire[]> {
  const ids = rows.map((r) => r.id);
  const [items, payments, returns] = await readTogether(
    conn,
    () => repo.listSaleItems(conn, companyId, ids),
    () => repo.listPayments(conn, companyId, ids),
    () => readReturns(conn, companyId, ids),
  );
  return rows.map((row) =>
    saleWire(
      row,
      items.filter((i) => i.sale_id === row.id),
      payments.filter((p) => p.sale_id === row.id),
      returns.get(row.id) ?? [],
    ),
  );
}

/** One sale as the API answers it, read in the caller's transaction; 404 when it does not exist. */
export async function readSale(conn: Conn, companyId: number, id: number): Promise<SaleWire> {
  const row = await repo.findSaleRow(conn, companyId, id);
  if (!row) throw new AppError('not_found', `sale ${id} does not exist`);
  return (await loadSales(conn, companyId, [row]))[0]!;
}

export function createSalesView({ db }: { db: Database }) {
  const orm = db.orm;
  return {
    async getSale(ctx: CompanyCtx, id: number) {
      return readSale(orm, ctx.companyId, id);
    },

    async listSales(ctx: CompanyCtx, filter: repo.SaleFilter) {
      const rows = await repo.listSaleRows(orm, ctx.companyId, { ...filter, limit: filter.limit + 1 });
      const more = rows.length > filter.limit;
      const page = more ? rows.slice(0, filter.limit) : rows;
      return { sales: await loadSales(orm, ctx.companyId, page), next_cursor: more ? String(page.at(-1)!.id) : null };
    },

    /** What the sales CSV adds to a page of sales: the company's time zone and each sale's receipts. */
    async exportExtras(ctx: CompanyCtx, saleIds: number[]) {
      const [company, receipts] = await Promise.all([
        findCompanySettings(orm, ctx.companyId),
        repo.receiptsOfSales(orm, ctx.companyId, saleIds),
      ]);
      const bySale = new Map<number, { invoice: string[]; credit_note: string[] }>();
      for (const r of receipts) {
        const entry = bySale.get(r.sale_id) ?? { invoice: [], credit_note: [] };
        entry[r.kind].push(formatReceiptNumber(r.type, r.point_of_sale, r.number));
        bySale.set(r.sale_id, entry);
      }
      return { timeZone: company.timezone, receipts: bySale };
    },

    async summary(ctx: CompanyCtx, date: string) {
      return summaryWire(date, await repo.daySummary(orm, ctx.companyId, date));
    },

    /** Every day's summary at once (the same statements as one day's), oldest first: for `books verify`. */
    async summaries(ctx: CompanyCtx) {
      const days = await repo.daySummaries(orm, ctx.companyId, null);
      return [...days].map(([date, parts]) => summaryWire(date, parts));
    },
  };
}

/** A day summary as GET /api/v1/sales/summary answers it. */
function summaryWire(date: string, { byMethod, byBox, totals, accountPayments }: repo.DayParts) {
  return {
    date,
    count: totals.count,
    total: money(totals.total),
    pending: money(totals.pending),
    cancelled: totals.cancelled,
    by_method: byMethod.map((m) => ({ method: m.method, amount: money(m.amount), count: m.count })),
    by_box: byBox.map((b) => ({
      box_id: b.box_id,
      box_name: b.box_name,
      origin: b.box_id === null ? ('integration' as const) : ('register' as const),
      count: b.count,
      total: money(b.total),
    })),
    account_payments: accountPayments.map((m) => ({ method: m.method, amount: money(m.amount), count: m.count })),
  };
}
