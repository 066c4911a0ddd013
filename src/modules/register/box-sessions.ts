import type { Conn, Database } from '../../db/client.ts';
import { nextId } from '../../db/ids.ts';
import { PAYMENT_METHODS, type PaymentMethod } from '../../db/schema/index.ts';
import type { CompanyCtx } from '../../http/request-context.ts';
import { AppError, unknownRecord } from '../../lib/errors.ts';
import { bigCentsToNumber, fromBigCents, fromCents, toBigCents, toCents } from '../../lib/money.ts';
import type { Clock } from '../../lib/time.ts';
import { auditBy, recordAudit } from '../audit/audit.repo.ts';
import { actorLabel, actsAsAdmin, assertOwnShift, isCashier, iso, money, personOf } from './actor.ts';
import type { Bound } from '../sales/sales.repo.ts';
import * as repo from './register.repo.ts';
import { clientTime } from './client-time.ts';

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
    // The company's number for the person, never the account's users.id (one numbering for all companies).
    user_id: row.user_no === null ? null : Number(row.user_no),
    user_name: row.user_name,
    handed_over_to: row.handed_over_to === null ? null : Number(row.handed_over_to),
    client_id: row.client_id,
  };
}

/** A cashier sees only their own shifts; admins, tokens and the command line see all. */
function visibleTo(ctx: CompanyCtx, session: repo.SessionRow): boolean {
  return !isCashier(ctx) || (session.user_id !== null && Number(session.user_id) === personOf(ctx));
}

/** Who may close a shift: its person, an admin (or read-write token, the command line), or anyone when it has no person. */
function assertMayClose(ctx: CompanyCtx, session: repo.SessionRow) {
  if (actsAsAdmin(ctx) || session.user_id === null || Number(session.user_id) === personOf(ctx)) return;
  assertOwnShift(ctx, { id: session.id, box_id: session.box_id, user_id: Number(session.user_id), user_name: session.user_name });
}

function checkedCounted(input: Record<string, number>): Record<string, string> {
  const counted: Record<string, string> = {};
  for (const [method, amount] of Object.entries(input)) {
    if (!PAYMENT_METHODS.includes(method as PaymentMethod)) {
      throw new AppError('validation_failed', `counted.${method} is not a payment method (${PAYMENT_METHODS.join(', ')})`);
    }
    const cents = toCents(amount);
    // Cash in a drawer is never below 0. Another method's count is its statement (the card batch,
    // the account's transfers), which is negative when the shift refunded more than it took.
    if (cents < 0 && method === 'efectivo') {
      throw new AppError('validation_failed', 'counted.efectivo must not be negative', {
        details: [{ path: '/counted/efectivo', message: 'must not be negative' }],
      });
    }
    counted[method] = fromCents(cents);
  }
  return counted;
}

type MethodAmounts = Partial<Record<PaymentMethod, number>>;

// A shift's sums are exact cents in bigint: each amount fits its column, but a drawer of many of
// them may pass 2^53 cents, where a double no longer holds every cent (docs/decisiones.md).
function centsMap(entries: { method: PaymentMethod; amount: string }[]): Map<PaymentMethod, bigint> {
  return new Map(entries.map((e) => [e.method, toBigCents(e.amount)]));
}

/** The close report's arithmetic: expected per method from what the session took, gave back and moved. */
export function expectedCents(openingCash: string, totals: repo.SessionTotals): Map<PaymentMethod, bigint> {
  const taken = centsMap(totals.payments);
  const refunded = centsMap(totals.refunds);
  const expected = new Map<PaymentMethod, bigint>();
  for (const method of PAYMENT_METHODS) {
    let cents = (taken.get(method) ?? 0n) - (refunded.get(method) ?? 0n);
    if (method === 'efectivo') cents += toBigCents(openingCash) + toBigCents(totals.cash_in) - toBigCents(totals.cash_out);
    if (cents !== 0n || method === 'efectivo') expected.set(method, cents);
  }
  return expected;
}

const toAmounts = (map: Map<PaymentMethod, bigint>): MethodAmounts =>
  Object.fromEntries([...map].map(([m, cents]) => [m, bigCentsToNumber(cents)]));

/** A session with what it took, gave back and moved, what was expected, counted and the difference. */
async function buildSessionReport(conn: Conn, companyId: number, session: repo.SessionRow) {
  const totals = await repo.sessionTotals(conn, companyId, session.id);
  const moves = await repo.listCashMoves(conn, companyId, session.id);
  const expected =
    session.expected !== null
      ? new Map(Object.entries(session.expected).map(([m, v]) => [m as PaymentMethod, toBigCents(v)]))
      : expectedCents(session.opening_cash, totals);
  const counted = session.counted
    ? new Map(Object.entries(session.counted).map(([m, v]) => [m as PaymentMethod, toBigCents(v)]))
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
  const difference = new Map<PaymentMethod, bigint>();
  if (counted) {
    for (const method of new Set([...expected.keys(), ...counted.keys()])) {
      difference.set(method, (counted.get(method) ?? 0n) - (expected.get(method) ?? 0n));
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
      kind: x.kind,
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

  /** Opens the caller's shift at a box (inside the caller's transaction). */
  async function openIn(
    tx: Conn,
    ctx: CompanyCtx,
    input: { box_id: number; opening_cash: number; client_id?: string | undefined; opened_at?: string | undefined },
    now: Date,
  ) {
    const opening = toCents(input.opening_cash);
    if (opening < 0) throw new AppError('validation_failed', 'opening_cash must not be negative');
    const box = await repo.findBox(tx, ctx.companyId, input.box_id, true);
    if (!box) {
      throw unknownRecord('box_id', 'box', input.box_id);
    }
    const open = await repo.findOpenSession(tx, ctx.companyId, box.id);
    if (open) {
      const mine = open.user_id !== null && Number(open.user_id) === personOf(ctx);
      if (open.user_id !== null && !mine) {
        assertOwnShift(ctx, { id: open.id, box_id: box.id, user_id: Number(open.user_id), user_name: open.user_name });
      }
      throw new AppError('conflict', `box ${box.id} already has an open session (${open.id}); close it first`);
    }
    const id = await nextId(tx, 'box_sessions', ctx.companyId);
    await repo.insertSession(tx, {
      companyId: ctx.companyId,
      id,
      boxId: box.id,
      openingCash: fromCents(opening),
      openedBy: actorLabel(ctx),
      userId: personOf(ctx),
      clientId: input.client_id ?? null,
      now: clientTime(input.opened_at, now, 'opened_at'),
    });
    await recordAudit(tx, {
      action: 'box_session.opened',
      ...auditBy(ctx),
      details: {
        session_id: id,
        box_id: box.id,
        opening_cash: opening / 100,
        ...(input.client_id !== undefined && { client_id: input.client_id }),
      },
    });
    return id;
  }

  /** Closes a shift with its count (inside the caller's transaction); answers its report. */
  async function closeIn(
    tx: Conn,
    ctx: CompanyCtx,
    session: repo.SessionRow,
    input: {
      counted: Record<string, number>;
      note?: string | undefined;
      client_id?: string | undefined;
      closed_at?: string | undefined;
    },
    now: Date,
    handoverTo: number | null,
  ) {
    const id = session.id;
    const counted = checkedCounted(input.counted);
    const totals = await repo.sessionTotals(tx, ctx.companyId, id);
    const expected = Object.fromEntries(
      [...expectedCents(session.opening_cash, totals)].map(([m, cents]) => [m, fromBigCents(cents)]),
    );
    const closedAt = clientTime(input.closed_at, now, 'closed_at');
    await repo.closeSessionRow(tx, {
      companyId: ctx.companyId,
      id,
      counted,
      expected,
      closedBy: actorLabel(ctx),
      closedByUserId: personOf(ctx),
      closeClientId: input.client_id ?? null,
      note: input.note?.trim() || null,
      sales: totals.sales,
      now: closedAt < new Date(session.opened_at) ? new Date(session.opened_at) : closedAt,
    });
    if (handoverTo !== null) await repo.setHandedOver(tx, ctx.companyId, id, handoverTo);
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
        ...(handoverTo !== null && { handed_over_to: handoverTo }),
      },
    });
    return report;
  }

  return {
    /**
     * Opens the caller's own shift with their count. With a client id (a shift opened without
     * connection) the same id again answers the shift it opened (replayed: true) and changes nothing.
     */
    async openSession(
      ctx: CompanyCtx,
      input: { box_id: number; opening_cash: number; client_id?: string | undefined; opened_at?: string | undefined },
    ) {
      return orm.transaction(async (tx) => {
        if (input.client_id !== undefined) {
          await repo.lockSessionClientId(tx, ctx.companyId, input.client_id);
          const seen = await repo.findSessionByClientId(tx, ctx.companyId, input.client_id);
          if (seen) {
            if (seen.box_id !== input.box_id || toCents(seen.opening_cash) !== toCents(input.opening_cash)) {
              throw new AppError('conflict', `client_id ${input.client_id} already opened shift ${seen.id} with other data`);
            }
            return { ...sessionToWire(seen), replayed: true };
          }
        }
        const id = await openIn(tx, ctx, input, clock.now());
        return { ...sessionToWire((await repo.findSession(tx, ctx.companyId, id))!), replayed: false };
      });
    },

    async sessionReport(ctx: CompanyCtx, id: number) {
      const session = await repo.findSession(orm, ctx.companyId, id);
      if (!session || !visibleTo(ctx, session)) throw new AppError('not_found', `box session ${id} does not exist`);
      return buildSessionReport(orm, ctx.companyId, session);
    },

    /** A shift by the register's own id (one opened without connection). */
    async sessionByClientId(ctx: CompanyCtx, clientId: string) {
      const session = await repo.findSessionByClientId(orm, ctx.companyId, clientId);
      if (!session || !visibleTo(ctx, session)) throw new AppError('not_found', `no box session with client_id ${clientId}`);
      return buildSessionReport(orm, ctx.companyId, session);
    },

    /**
     * Shifts with their reports: a cashier's own only; admins all (or one person's with memberNo, the
     * company's number for them: another cashier's number, or one never given, finds none).
     */
    async listSessions(ctx: CompanyCtx, filter: { boxId?: number; memberNo?: number; from?: Bound; to?: Bound; limit: number }) {
      const own = isCashier(ctx) ? { userId: personOf(ctx)! } : {};
      const rows = await repo.listSessions(orm, ctx.companyId, { ...filter, ...own });
      const reports = [];
      for (const row of rows) reports.push(await buildSessionReport(orm, ctx.companyId, row));
      return reports;
    },

    /**
     * Closes a shift with what was counted. Its person, an admin or a token may close it. With a
     * client id, closing again with the same id answers the same report (a replay from a register
     * that closed without connection).
     */
    async closeSession(
      ctx: CompanyCtx,
      id: number,
      input: {
        counted: Record<string, number>;
        note?: string | undefined;
        client_id?: string | undefined;
        closed_at?: string | undefined;
      },
    ) {
      return orm.transaction(async (tx) => {
        const session = await repo.findSession(tx, ctx.companyId, id, true);
        if (!session || !visibleTo(ctx, session)) throw new AppError('not_found', `box session ${id} does not exist`);
        if (session.status !== 'open') {
          if (input.client_id !== undefined && session.close_client_id === input.client_id) {
            return buildSessionReport(tx, ctx.companyId, session);
          }
          throw new AppError('invalid_state', `box session ${id} is already closed`);
        }
        assertMayClose(ctx, session);
        return closeIn(tx, ctx, session, input, clock.now(), null);
      });
    },

    /**
     * A handover: the box's open shift (another person's, or the caller's own) closes with the
     * outgoing count and the caller's shift opens with their own count, in one transaction.
     * Any member may take over a box; the close is recorded as theirs (closed_by) and audited.
     */
    async handover(
      ctx: CompanyCtx,
      id: number,
      input: { counted: Record<string, number>; note?: string | undefined; opening_cash: number; client_id?: string | undefined },
    ) {
      return orm.transaction(async (tx) => {
        const session = await repo.findSession(tx, ctx.companyId, id, true);
        if (!session) throw new AppError('not_found', `box session ${id} does not exist`);
        if (personOf(ctx) === null) throw new AppError('forbidden', 'a handover is between people: sign in to take over a box');
        if (input.client_id !== undefined) {
          await repo.lockSessionClientId(tx, ctx.companyId, input.client_id);
          const seen = await repo.findSessionByClientId(tx, ctx.companyId, input.client_id);
          if (seen) {
            // The same handover sent again (a lost answer): the same two shifts, nothing new.
            if (
              session.handed_over_to !== null &&
              Number(session.handed_over_to) === Number(seen.id) &&
              seen.user_id !== null &&
              Number(seen.user_id) === personOf(ctx)
            ) {
              return { closed: await buildSessionReport(tx, ctx.companyId, session), session: sessionToWire(seen) };
            }
            throw new AppError('conflict', `client_id ${input.client_id} already opened another shift`);
          }
        }
        if (session.status !== 'open') throw new AppError('invalid_state', `box session ${id} is already closed`);
        const now = clock.now();
        const nextIdValue = await nextId(tx, 'box_sessions', ctx.companyId);
        const closed = await closeIn(tx, ctx, session, input, now, nextIdValue);
        // nextId numbered the new shift already: openIn takes the following number unless we pass it on.
        const opened = await openWithId(tx, ctx, nextIdValue, {
          box_id: session.box_id,
          opening_cash: input.opening_cash,
          client_id: input.client_id,
          now,
          handoverFrom: id,
        });
        return { closed, session: sessionToWire(opened) };
      });
    },

    async moveCash(ctx: CompanyCtx, id: number, input: { kind: 'in' | 'out'; amount: number; reason: string }) {
      return orm.transaction(async (tx) => {
        const session = await repo.findSession(tx, ctx.companyId, id, true);
        if (!session || !visibleTo(ctx, session)) throw new AppError('not_found', `box session ${id} does not exist`);
        if (session.status !== 'open') throw new AppError('invalid_state', `box session ${id} is closed`);
        assertOwnShift(ctx, {
          id,
          box_id: session.box_id,
          user_id: session.user_id === null ? null : Number(session.user_id),
          user_name: session.user_name,
        });
        const cents = toCents(input.amount);
        if (cents <= 0) throw new AppError('validation_failed', 'amount must be above zero');
        if (input.kind === 'out') {
          // A withdrawal takes out cash the drawer holds: never more than the shift expects in it
          // (a typo of three zeros left the close expecting minus a fortune). Cash that came in
          // unrecorded is recorded first as an «Ingreso». The session row is locked: two
          // withdrawals at once are checked one after the other.
          const inDrawer =
            expectedCents(session.opening_cash, await repo.sessionTotals(tx, ctx.companyId, id)).get('efectivo') ?? 0n;
          if (BigInt(cents) > inDrawer) {
            const expected = fromBigCents(inDrawer < 0n ? 0n : inDrawer);
            throw new AppError(
              'validation_failed',
              `a withdrawal of ${fromCents(cents)} is more than the ${expected} in cash the drawer of box session ${id} is expected to hold`,
              { details: [{ path: '/amount', message: 'more_than_cash', expected }] },
            );
          }
        }
        const moveId = await repo.insertCashMove(tx, {
          companyId: ctx.companyId,
          sessionId: id,
          kind: input.kind,
          amount: fromCents(cents),
          reason: input.reason.trim(),
          createdBy: actorLabel(ctx),
          createdByUserId: personOf(ctx),
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
  };

  /** The incoming shift of a handover, under the number taken before the outgoing one closed. */
  async function openWithId(
    tx: Conn,
    ctx: CompanyCtx,
    id: number,
    v: { box_id: number; opening_cash: number; client_id: string | undefined; now: Date; handoverFrom: number },
  ) {
    const opening = toCents(v.opening_cash);
    await repo.insertSession(tx, {
      companyId: ctx.companyId,
      id,
      boxId: v.box_id,
      openingCash: fromCents(opening),
      openedBy: actorLabel(ctx),
      userId: personOf(ctx),
      clientId: v.client_id ?? null,
      now: v.now,
    });
    await recordAudit(tx, {
      action: 'box_session.opened',
      ...auditBy(ctx),
      details: { session_id: id, box_id: v.box_id, opening_cash: opening / 100, handover_from: v.handoverFrom },
    });
    return (await repo.findSession(tx, ctx.companyId, id))!;
  }
}
