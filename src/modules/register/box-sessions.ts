import type { Conn, Database } from '../../db/client.ts';
import { nextId } from '../../db/ids.ts';
import { PAYMENT_METHODS, type PaymentMethod } from '../../db/schema/index.ts';
import type { CompanyCtx } from '../../http/request-context.ts';
import { AppError } from '../../lib/errors.ts';
import { fromCents, toCents } from '../../lib/money.ts';
import type { Clock } from '../../lib/time.ts';
import { auditBy, recordAudit } from '../audit/audit.repo.ts';
import { actorLabel, iso, money } from './actor.ts';
import type { Bound } from '../sales/sales.repo.ts';
import * as repo from './register.repo.ts';

// Box sessions: open, cash in/out, close, and their reports (what was taken, given back and moved).

export function sessionToWire(row: repo.SessionRow) {
  return {
    id: row.id,
    box_id: row.box_id,
    box_name: row.box_name,
    status: row.status,
    opening_cash: money(row.opening_cash),
    opened_at: iso(row.opened_at)!,
    opened_by: row.opened_by,
    closed_at: iso(row.closed_at),
    closed_by: row.closed_by,
    note: row.note,
  };
}

type MethodAmounts = Partial<Record<PaymentMethod, number>>;

function centsMap(entries: { method: PaymentMethod; amount: string }[]): Map<PaymentMethod, number> {
  return new Map(entries.map((e) => [e.method, toCents(e.amount)]));
}

/** The close report's arithmetic: expected per method from what the session took, gave back and moved. */
export function expectedCents(openingCash: string, totals: repo.SessionTotals): Map<PaymentMethod, number> {
  const taken = centsMap(totals.payments);
  const refunded = centsMap(totals.refunds);
  const expected = new Map<PaymentMethod, number>();
  for (const method of PAYMENT_METHODS) {
    let cents = (taken.get(method) ?? 0) - (refunded.get(method) ?? 0);
    if (method === 'efectivo') cents += toCents(openingCash) + toCents(totals.cash_in) - toCents(totals.cash_out);
    if (cents !== 0 || method === 'efectivo') expected.set(method, cents);
  }
  return expected;
}

const toAmounts = (map: Map<PaymentMethod, number>): MethodAmounts =>
  Object.fromEntries([...map].map(([m, cents]) => [m, cents / 100]));

/** A session with what it took, gave back and moved, what was expected, counted and the difference. */
async function buildSessionReport(conn: Conn, companyId: number, session: repo.SessionRow) {
  const totals = await repo.sessionTotals(conn, companyId, session.id);
  const moves = await repo.listCashMoves(conn, companyId, session.id);
  const expected =
    session.expected !== null
      ? new Map(Object.entries(session.expected).map(([m, v]) => [m as PaymentMethod, toCents(v)]))
      : expectedCents(session.opening_cash, totals);
  const counted = session.counted
    ? new Map(Object.entries(session.counted).map(([m, v]) => [m as PaymentMethod, toCents(v)]))
    : null;
  // A closed shift's sales figure is the one fixed at its close; later cancellations are a note apart.
  const sales =
    session.status === 'closed' && session.sales_count !== null && session.sales_total !== null
      ? { count: Number(session.sales_count), total: session.sales_total }
      : totals.sales;
  const later =
    session.status === 'closed' && session.closed_at !== null
      ? await repo.laterCancellations(conn, companyId, session.id, session.closed_at)
      : [];
  const difference = new Map<PaymentMethod, number>();
  if (counted) {
    for (const method of new Set([...expected.keys(), ...counted.keys()])) {
      difference.set(method, (counted.get(method) ?? 0) - (expected.get(method) ?? 0));
    }
  }
  return {
    session: sessionToWire(session),
    sales: { count: sales.count, total: money(sales.total) },
    payments: totals.payments.map((p) => ({ method: p.method, amount: money(p.amount), count: p.count })),
    refunds: totals.refunds.map((p) => ({ method: p.method, amount: money(p.amount), count: p.count })),
    cash_in: money(totals.cash_in),
    cash_out: money(totals.cash_out),
    cash_moves: moves.map((m) => ({
      id: m.id,
      kind: m.kind,
      amount: money(m.amount),
      reason: m.reason,
      created_by: m.created_by,
      created_at: iso(m.created_at)!,
    })),
    expected: toAmounts(expected),
    counted: counted ? toAmounts(counted) : null,
    difference: counted ? toAmounts(difference) : null,
    /** "Devoluciones posteriores": sales of this shift cancelled after its close; none of the figures above moves. */
    later_refunds: later.map((x) => ({
      sale_id: x.sale_id,
      total: money(x.total),
      refunded: money(x.refunded),
      cancelled_at: iso(x.cancelled_at)!,
      refund_session_id: x.refund_session_id,
    })),
  };
}

export type BoxSessions = ReturnType<typeof createBoxSessions>;

export function createBoxSessions({ db, clock }: { db: Database; clock: Clock }) {
  const orm = db.orm;
  return {
    async openSession(ctx: CompanyCtx, input: { box_id: number; opening_cash: number }) {
      const opening = toCents(input.opening_cash);
      if (opening < 0) throw new AppError('validation_failed', 'opening_cash must not be negative');
      return orm.transaction(async (tx) => {
        const box = await repo.findBox(tx, ctx.companyId, input.box_id, true);
        if (!box) throw new AppError('invalid_reference', `box ${input.box_id} does not exist`);
        const open = await repo.findOpenSession(tx, ctx.companyId, box.id);
        if (open) throw new AppError('conflict', `box ${box.id} already has an open session (${open.id}); close it first`);
        const id = await nextId(tx, 'box_sessions', ctx.companyId);
        const now = clock.now();
        await repo.insertSession(tx, {
          companyId: ctx.companyId,
          id,
          boxId: box.id,
          openingCash: fromCents(opening),
          openedBy: actorLabel(ctx),
          now,
        });
        await recordAudit(tx, {
          action: 'box_session.opened',
          ...auditBy(ctx),
          details: { session_id: id, box_id: box.id, opening_cash: opening / 100 },
        });
        return sessionToWire((await repo.findSession(tx, ctx.companyId, id))!);
      });
    },

    async sessionReport(ctx: CompanyCtx, id: number) {
      const session = await repo.findSession(orm, ctx.companyId, id);
      if (!session) throw new AppError('not_found', `box session ${id} does not exist`);
      return buildSessionReport(orm, ctx.companyId, session);
    },

    async listSessions(ctx: CompanyCtx, filter: { boxId?: number; from?: Bound; to?: Bound; limit: number }) {
      const rows = await repo.listSessions(orm, ctx.companyId, filter);
      const reports = [];
      for (const row of rows) reports.push(await buildSessionReport(orm, ctx.companyId, row));
      return reports;
    },

    async closeSession(ctx: CompanyCtx, id: number, input: { counted: Record<string, number>; note?: string }) {
      return orm.transaction(async (tx) => {
        const session = await repo.findSession(tx, ctx.companyId, id, true);
        if (!session) throw new AppError('not_found', `box session ${id} does not exist`);
        if (session.status !== 'open') throw new AppError('invalid_state', `box session ${id} is already closed`);
        const counted: Record<string, string> = {};
        for (const [method, amount] of Object.entries(input.counted)) {
          if (!PAYMENT_METHODS.includes(method as PaymentMethod)) {
            throw new AppError('validation_failed', `counted.${method} is not a payment method (${PAYMENT_METHODS.join(', ')})`);
          }
          const cents = toCents(amount);
          if (cents < 0) throw new AppError('validation_failed', `counted.${method} must not be negative`);
          counted[method] = fromCents(cents);
        }
        const totals = await repo.sessionTotals(tx, ctx.companyId, id);
        const expected = Object.fromEntries(
          [...expectedCents(session.opening_cash, totals)].map(([m, cents]) => [m, fromCents(cents)]),
        );
        const now = clock.now();
        await repo.closeSessionRow(tx, {
          companyId: ctx.companyId,
          id,
          counted,
          expected,
          closedBy: actorLabel(ctx),
          note: input.note?.trim() || null,
          sales: totals.sales,
          now,
        });
        const report = await buildSessionReport(tx, ctx.companyId, (await repo.findSession(tx, ctx.companyId, id))!);
        await recordAudit(tx, {
          action: 'box_session.closed',
          ...auditBy(ctx),
          details: {
            session_id: id,
            box_id: session.box_id,
            expected: report.expected,
            counted: report.counted,
            difference: report.difference,
          },
        });
        return report;
      });
    },

    async moveCash(ctx: CompanyCtx, id: number, input: { kind: 'in' | 'out'; amount: number; reason: string }) {
      return orm.transaction(async (tx) => {
        const session = await repo.findSession(tx, ctx.companyId, id, true);
        if (!session) throw new AppError('not_found', `box session ${id} does not exist`);
        if (session.status !== 'open') throw new AppError('invalid_state', `box session ${id} is closed`);
        const cents = toCents(input.amount);
        if (cents <= 0) throw new AppError('validation_failed', 'amount must be above zero');
        const moveId = await repo.insertCashMove(tx, {
          companyId: ctx.companyId,
          sessionId: id,
          kind: input.kind,
          amount: fromCents(cents),
          reason: input.reason.trim(),
          createdBy: actorLabel(ctx),
          now: clock.now(),
        });
        await recordAudit(tx, {
          action: 'box_session.cash_moved',
          ...auditBy(ctx),
          details: { session_id: id, move_id: moveId, kind: input.kind, amount: cents / 100, reason: input.reason.trim() },
        });
        return buildSessionReport(tx, ctx.companyId, session);
      });
    },

    /**
     * A register sale: the items priced (the product's price unless an admin — or the company's
     * setting — allows another), payments settled with change, stock out of the box's deposit
     * through the ledger, events and rows in one transaction. The idempotency key makes a repeat
     * harmless: the same key with the same body answers the same sale; with another body, 409.
     */
  };
}
