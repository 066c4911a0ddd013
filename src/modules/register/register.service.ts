import { createHash } from 'node:crypto';
import type { Conn, Database } from '../../db/client.ts';
import { nextId } from '../../db/ids.ts';
import { PAYMENT_METHODS, type PaymentMethod } from '../../db/schema/index.ts';
import type { CompanyCtx } from '../../http/request-context.ts';
import { AppError } from '../../lib/errors.ts';
import { fromCents, fromMilli, lineTotalCents, toCents, toMilli } from '../../lib/money.ts';
import type { Clock } from '../../lib/time.ts';
import { recordOutbound } from '../../outbox/outbox.repo.ts';
import { auditBy, recordAudit } from '../audit/audit.repo.ts';
import { saleToWire } from '../sales/create-sale.ts';
import { cancelSale as cancelIntegrationSale } from '../sales/sales.service.ts';
import { pluCandidates } from '../scanner/scale-label.ts';
import { applyMovements, bookMovements, runLedgerStatement } from '../stock/stock.ledger.ts';
import * as repo from './register.repo.ts';
import { readScaleLabel, registerScaleLayout } from './scale.ts';

// The cash register: box sessions, register sales with payments, pay, cancel/refund, reports.

export interface PaymentInput {
  method: PaymentMethod;
  amount: number;
  reference?: string | null;
}

export interface SaleItemInput {
  product_id?: number;
  quantity?: number;
  price?: number;
  scale_label?: string;
}

export interface RegisterSaleInput {
  box_id: number;
  items: SaleItemInput[];
  payments?: PaymentInput[];
  customer?: { id?: number; name?: string };
  /** When the register made the sale (a sale queued offline carries the browser's time). */
  sold_at?: string;
  /** The time of the catalogue the register priced the sale with (its ETag's time). */
  catalog_at?: string;
}

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());
const money = (value: string | number) => toCents(value) / 100;

/** Who acted, as the register's rows record it (a person's email or the API token's name). */
function actorLabel(ctx: CompanyCtx): string {
  return auditBy(ctx).actor?.email ?? 'línea de comandos';
}

/** Admins signed in and read-write API tokens may do what needs "an admin" at the register. */
export function actsAsAdmin(ctx: CompanyCtx): boolean {
  if (ctx.actor.kind === 'user') return ctx.actor.role === 'admin';
  if (ctx.actor.kind === 'api-token') return ctx.actor.scope === 'read-write';
  return ctx.actor.kind === 'cli';
}

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

function saleWire(row: repo.SaleListRow, items: repo.SaleItemDetailRow[], payments: repo.PaymentRow[]) {
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
  };
}

export type SaleWire = ReturnType<typeof saleWire>;

/** Payments checked against what is left to pay: amounts applied, cash tendered and change. */
export function settlePayments(
  remainingCents: number,
  payments: PaymentInput[],
  hasCustomer: boolean,
): { rows: repo.PaymentValues[]; appliedCents: number; changeCents: number } {
  let nonCash = 0;
  let cash = 0;
  payments.forEach((p, n) => {
    const cents = toCents(p.amount);
    if (cents <= 0) {
      throw new AppError('validation_failed', `payments.${n}.amount must be above zero (got ${p.amount})`, {
        details: [{ path: `/payments/${n}/amount`, message: 'must be above zero' }],
      });
    }
    if (p.method === 'cuenta_corriente' && !hasCustomer) {
      throw new AppError('validation_failed', 'a cuenta_corriente payment needs the customer (customer.id)', {
        details: [{ path: `/payments/${n}/method`, message: 'cuenta_corriente needs customer.id' }],
      });
    }
    if (p.method === 'efectivo') cash += cents;
    else nonCash += cents;
  });
  if (nonCash > remainingCents) {
    throw new AppError(
      'validation_failed',
      `payments other than cash (${fromCents(nonCash)}) exceed what is to be paid (${fromCents(remainingCents)}); only cash gives change`,
      { details: [{ path: '/payments', message: 'non-cash payments exceed the total' }] },
    );
  }
  let changeCents = Math.max(0, nonCash + cash - remainingCents);
  const totalChange = changeCents;
  // Change comes out of the cash handed, the last cash payment first.
  const rows: repo.PaymentValues[] = payments.map((p) => ({
    method: p.method,
    amount: fromCents(toCents(p.amount)),
    tendered: p.method === 'efectivo' ? fromCents(toCents(p.amount)) : null,
    change: '0.00',
    reference: p.reference ?? null,
  }));
  for (let n = rows.length - 1; n >= 0 && changeCents > 0; n--) {
    const row = rows[n]!;
    if (row.method !== 'efectivo') continue;
    const tendered = toCents(row.tendered!);
    const given = Math.min(tendered, changeCents);
    row.amount = fromCents(tendered - given);
    row.change = fromCents(given);
    changeCents -= given;
  }
  if (rows.some((r) => toCents(r.amount) === 0)) {
    throw new AppError('validation_failed', 'a cash payment is not needed: the other payments already cover the total', {
      details: [{ path: '/payments', message: 'a cash payment covers nothing' }],
    });
  }
  const applied = rows.reduce((sum, r) => sum + toCents(r.amount), 0);
  return { rows, appliedCents: applied, changeCents: totalChange };
}

function methodOf(payments: { method: string }[]): string | null {
  const methods = [...new Set(payments.map((p) => p.method))];
  if (methods.length === 0) return null;
  return methods.length === 1 ? methods[0]! : 'mixto';
}

/** The request's fingerprint for the idempotency key: its canonical JSON (keys sorted). */
export function requestFingerprint(body: unknown): string {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.keys(value as object)
          .sort()
          .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
      );
    }
    return value;
  };
  return createHash('sha256')
    .update(JSON.stringify(canonical(body)))
    .digest('hex');
}

const MAX_SOLD_AT_AGE_MS = 7 * 24 * 3600 * 1000;

export type RegisterService = ReturnType<typeof createRegisterService>;

export function createRegisterService({ db, clock }: { db: Database; clock: Clock }) {
  const orm = db.orm;

  async function loadSales(conn: Conn, companyId: number, rows: repo.SaleListRow[]): Promise<SaleWire[]> {
    const ids = rows.map((r) => r.id);
    const [items, payments] = await Promise.all([
      repo.listSaleItems(conn, companyId, ids),
      repo.listPayments(conn, companyId, ids),
    ]);
    return rows.map((row) =>
      saleWire(
        row,
        items.filter((i) => i.sale_id === row.id),
        payments.filter((p) => p.sale_id === row.id),
      ),
    );
  }

  async function getSaleIn(conn: Conn, companyId: number, id: number): Promise<SaleWire> {
    const row = await repo.findSaleRow(conn, companyId, id);
    if (!row) throw new AppError('not_found', `sale ${id} does not exist`);
    return (await loadSales(conn, companyId, [row]))[0]!;
  }

  async function sessionReport(conn: Conn, companyId: number, session: repo.SessionRow) {
    const totals = await repo.sessionTotals(conn, companyId, session.id);
    const moves = await repo.listCashMoves(conn, companyId, session.id);
    const expected =
      session.expected !== null
        ? new Map(Object.entries(session.expected).map(([m, v]) => [m as PaymentMethod, toCents(v)]))
        : expectedCents(session.opening_cash, totals);
    const counted = session.counted
      ? new Map(Object.entries(session.counted).map(([m, v]) => [m as PaymentMethod, toCents(v)]))
      : null;
    const difference = new Map<PaymentMethod, number>();
    if (counted) {
      for (const method of new Set([...expected.keys(), ...counted.keys()])) {
        difference.set(method, (counted.get(method) ?? 0) - (expected.get(method) ?? 0));
      }
    }
    return {
      session: sessionToWire(session),
      sales: { count: totals.sales.count, total: money(totals.sales.total) },
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
    };
  }

  return {
    async registerState(ctx: CompanyCtx) {
      const [company, boxes] = await Promise.all([
        repo.findCompanySettings(orm, ctx.companyId),
        repo.listBoxes(orm, ctx.companyId),
      ]);
      return {
        company: { name: company.name, cuit: company.cuit },
        boxes: boxes.map((b) => ({ id: b.id, name: b.name, deposit_id: b.sells_from, open_session_id: b.open_session_id })),
        scale_label: registerScaleLayout(company.settings['scaleLabel']),
        can_change_prices: actsAsAdmin(ctx) || company.settings['registerPriceOverride'] === true,
      };
    },

    async catalogStamp(companyId: number) {
      const [stamp, company] = await Promise.all([repo.catalogStamp(orm, companyId), repo.findCompanySettings(orm, companyId)]);
      const layout = JSON.stringify(company.settings['scaleLabel'] ?? null);
      const hash = createHash('sha256').update(`${stamp.count}|${stamp.latest}|${layout}`).digest('base64url').slice(0, 22);
      return { etag: `"${hash}"`, at: stamp.latest ? new Date(stamp.latest).toISOString() : null };
    },

    async catalog(companyId: number) {
      const rows = await repo.catalogRows(orm, companyId);
      return rows.map((r) => [r.id, r.name, money(r.price), r.bc, r.sku, r.unit] as const);
    },

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
      return sessionReport(orm, ctx.companyId, session);
    },

    async listSessions(ctx: CompanyCtx, filter: { boxId?: number; from?: repo.Bound; to?: repo.Bound; limit: number }) {
      const rows = await repo.listSessions(orm, ctx.companyId, filter);
      const reports = [];
      for (const row of rows) reports.push(await sessionReport(orm, ctx.companyId, row));
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
          now,
        });
        const report = await sessionReport(tx, ctx.companyId, (await repo.findSession(tx, ctx.companyId, id))!);
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
        return sessionReport(tx, ctx.companyId, session);
      });
    },

    /**
     * A register sale: the items priced (the product's price unless an admin — or the company's
     * setting — allows another), payments settled with change, stock out of the box's deposit
     * through the ledger, events and rows in one transaction. The idempotency key makes a repeat
     * harmless: the same key with the same body answers the same sale; with another body, 409.
     */
    async createSale(ctx: CompanyCtx, key: string, input: RegisterSaleInput): Promise<{ sale: SaleWire; replayed: boolean }> {
      const fingerprint = requestFingerprint(input);
      const companyId = ctx.companyId;
      return orm.transaction(async (tx) => {
        await repo.lockIdempotencyKey(tx, companyId, key);
        const seen = await repo.findSaleByKey(tx, companyId, key);
        if (seen) {
          if (seen.request_sha256 !== fingerprint) {
            throw new AppError(
              'conflict',
              `idempotency key "${key}" was already used for sale ${seen.sale_id} with another request; use a new key for a new sale`,
            );
          }
          return { sale: await getSaleIn(tx, companyId, seen.sale_id), replayed: true };
        }
        if (input.items.length === 0) {
          throw new AppError('validation_failed', 'a sale needs at least one item', {
            details: [{ path: '/items', message: 'must not be empty' }],
          });
        }
        const point = await repo.findSellingPoint(tx, companyId, input.box_id);
        if (!point) {
          if (!(await repo.findBox(tx, companyId, input.box_id))) {
            throw new AppError('invalid_reference', `box ${input.box_id} does not exist`);
          }
          throw new AppError('no_open_session', `box ${input.box_id} has no open session; open it to sell`);
        }
        if (point.sells_from === null) throw new AppError('invalid_state', 'the company has no default deposit to sell from');
        const box = { id: point.box_id, name: point.box_name, sells_from: point.sells_from };
        const session = { id: point.session_id };
        const company = { settings: point.settings };
        const now = clock.now();
        const soldAt = soldAtOf(input.sold_at, now);
        const catalogAt = input.catalog_at ? new Date(input.catalog_at) : null;

        const lines = await priceLines(tx, ctx, input.items, company, catalogAt);
        const totalCents = lines.reduce((sum, l) => sum + l.subtotalCents, 0);
        const settled = settlePayments(totalCents, input.payments ?? [], input.customer?.id !== undefined);
        const paid = settled.appliedCents >= totalCents;

        // Locks: the sales ids (register sales queue here, one after another), then in the ledger's
        // order the products and the movement ids; then both ids are read. One round trip (every
        // one made while holding the sales ids is one the other registers wait for).
        const {
          locked,
          saleId: id,
          firstMovementId,
        } = await repo.lockRegisterSale(
          tx,
          companyId,
          lines.map((l) => l.productId),
        );
        const paymentMethod = methodOf(settled.rows);
        const items = lines.map((l, n) => ({
          id: n + 1,
          productId: l.productId,
          quantity: fromMilli(l.quantityMilli),
          price: fromCents(l.priceCents),
          subtotal: fromCents(l.subtotalCents),
        }));
        // The contract's transitions: created (pending), then paid; the stock moves in between.
        const created = saleToWire(
          {
            companyId,
            id,
            customerId: input.customer?.id ?? null,
            boxId: box.id,
            total: fromCents(totalCents),
            status: 'pending',
            paymentMethod,
            paymentId: null,
            paidAt: null,
            cancelledAt: null,
            cancellationReason: null,
            createdAt: soldAt,
            updatedAt: now,
          },
          items.map((i) => ({ companyId, saleId: id, ...i })),
        );
        // The sale, its items, the register's row, its payments, the stock movements and every event: one statement.
        const saleSteps = repo.registerSaleSteps({
          companyId,
          id,
          customerId: input.customer?.id ?? null,
          boxId: box.id,
          total: fromCents(totalCents),
          status: paid ? 'paid' : 'pending',
          paymentMethod,
          paidAt: paid ? now : null,
          createdAt: soldAt,
          now,
          items,
          sessionId: session.id,
          depositId: box.sells_from,
          key,
          sha256: fingerprint,
          customerName: input.customer?.name?.trim() || null,
          soldBy: actorLabel(ctx),
          change: fromCents(settled.changeCents),
          payments: settled.rows,
        });
        const booked = bookMovements(
          companyId,
          locked,
          firstMovementId,
          items.map((item) => ({
            type: 'OUT' as const,
            depositId: box.sells_from!,
            productId: item.productId,
            amount: item.quantity,
            reason: `venta ${id}`,
          })),
          { now },
        );
        await runLedgerStatement(
          tx,
          companyId,
          [...saleSteps, ...booked.steps],
          [
            { event: 'sales.created', data: { sale: created } },
            ...booked.events,
            ...(paid ? [paidEvent(companyId, id, fromCents(totalCents), paymentMethod, now)] : []),
          ],
        );
        const overridden = lines.filter((l) => l.overridden);
        if (overridden.length > 0) {
          await recordAudit(tx, {
            action: 'sale.price_changed',
            ...auditBy(ctx),
            details: {
              sale_id: id,
              items: overridden.map((l) => ({
                product_id: l.productId,
                list_price: l.listCents / 100,
                price: l.priceCents / 100,
              })),
            },
          });
        }
        const sale: SaleWire = {
          id,
          source: 'register',
          status: paid ? 'paid' : 'pending',
          box_id: box.id,
          box_name: box.name,
          box_session_id: session.id,
          deposit_id: box.sells_from,
          customer_id: input.customer?.id ?? null,
          customer_name: input.customer?.name?.trim() || null,
          total: totalCents / 100,
          paid_total: settled.appliedCents / 100,
          change: settled.changeCents / 100,
          payment_method: paymentMethod,
          items: lines.map((l, n) => ({
            id: n + 1,
            product_id: l.productId,
            name: l.name,
            unit: l.unit,
            quantity: l.quantityMilli / 1000,
            price: l.priceCents / 100,
            subtotal: l.subtotalCents / 100,
          })),
          payments: settled.rows.map((p, n) => ({
            id: n + 1,
            method: p.method,
            amount: money(p.amount),
            tendered: p.tendered === null ? null : money(p.tendered),
            change: money(p.change),
            reference: p.reference,
            box_session_id: session.id,
            created_at: now.toISOString(),
          })),
          sold_by: actorLabel(ctx),
          refund_session_id: null,
          created_at: soldAt.toISOString(),
          paid_at: paid ? now.toISOString() : null,
          cancelled_at: null,
          cancellation_reason: null,
        };
        return { sale, replayed: false };
      });
    },

    /** Pays what a pending register sale still owes (cash may exceed it: change). */
    async paySale(ctx: CompanyCtx, id: number, input: { payments: PaymentInput[] }) {
      const companyId = ctx.companyId;
      return orm.transaction(async (tx) => {
        const sale = await repo.findSaleRow(tx, companyId, id, true);
        if (!sale) throw new AppError('not_found', `sale ${id} does not exist`);
        if (sale.box_session_id === null) {
          throw new AppError('invalid_state', `sale ${id} came from an integration; its sender reports its payment (sales.paid)`);
        }
        if (sale.status !== 'pending') throw new AppError('invalid_state', `sale ${id} is ${sale.status}; it cannot be paid`);
        if (input.payments.length === 0) throw new AppError('validation_failed', 'payments must not be empty');
        const session = await repo.findOpenSession(tx, companyId, sale.box_id!, 'share');
        if (!session)
          throw new AppError('no_open_session', `box ${sale.box_id} has no open session; open it to take the payment`);
        const remaining = toCents(sale.total) - toCents(sale.paid_total);
        const settled = settlePayments(remaining, input.payments, sale.customer_id !== null);
        if (settled.appliedCents < remaining) {
          throw new AppError(
            'validation_failed',
            `payments (${fromCents(settled.appliedCents)}) do not cover what is owed (${fromCents(remaining)})`,
            { details: [{ path: '/payments', message: 'must cover what is owed' }] },
          );
        }
        const existing = await repo.listPayments(tx, companyId, [id]);
        const now = clock.now();
        await repo.insertPayments(tx, {
          companyId,
          saleId: id,
          firstId: existing.length + 1,
          sessionId: session.id,
          now,
          payments: settled.rows,
        });
        if (settled.changeCents > 0) await repo.addRegisterChange(tx, companyId, id, fromCents(settled.changeCents));
        const method = methodOf([...existing, ...settled.rows]);
        await repo.markPaid(tx, companyId, id, method ?? 'mixto', now);
        await emitPaid(tx, companyId, id, sale.total, method, now);
        return getSaleIn(tx, companyId, id);
      });
    },

    /**
     * Cancels a sale. A register sale puts its stock back into the deposit it left; one that took
     * money (paid, or partly paid) is a refund: an admin's (or a read-write token's) decision, booked
     * in the open session of the sale's box. Integration sales keep today's rule (pending only, no
     * stock moved). The same reason again is a no-op.
     */
    async cancelSale(ctx: CompanyCtx, id: number, input: { reason: string }) {
      const companyId = ctx.companyId;
      const reason = input.reason.trim();
      if (reason.length === 0) throw new AppError('validation_failed', 'reason must not be empty');
      return orm.transaction(async (tx) => {
        const sale = await repo.findSaleRow(tx, companyId, id, true);
        if (!sale) throw new AppError('not_found', `sale ${id} does not exist`);
        const now = clock.now();
        if (sale.box_session_id === null) {
          const result = await cancelIntegrationSale(tx, companyId, { id, reason }, { now });
          if (result.changed) {
            await recordAudit(tx, {
              action: 'sale.cancelled',
              ...auditBy(ctx),
              details: { sale_id: id, reason, source: 'integration' },
            });
          }
          return { sale: await getSaleIn(tx, companyId, id), changed: result.changed };
        }
        if (sale.status === 'cancelled') {
          if (sale.cancellation_reason === reason) return { sale: await getSaleIn(tx, companyId, id), changed: false };
          throw new AppError('invalid_state', `sale ${id} is already cancelled`);
        }
        const payments = await repo.listPayments(tx, companyId, [id]);
        const refund = payments.length > 0;
        let refundSession: repo.SessionRow | null = null;
        if (refund) {
          if (!actsAsAdmin(ctx)) {
            throw new AppError(
              'forbidden',
              `sale ${id} was ${sale.status === 'paid' ? 'paid' : 'partly paid'}: cancelling it refunds the money and needs a company admin`,
            );
          }
          refundSession = await repo.findOpenSession(tx, companyId, sale.box_id!, 'share');
          if (!refundSession) {
            throw new AppError('no_open_session', `box ${sale.box_id} has no open session; open it to give the refund`);
          }
          await repo.setRefundSession(tx, companyId, id, refundSession.id);
        }
        await repo.markCancelled(tx, companyId, id, reason, now);
        await recordOutbound(tx, {
          companyId,
          event: 'sales.cancelled',
          data: {
            sale: {
              id,
              company_id: companyId,
              status: 'cancelled',
              cancelled_at: now.toISOString(),
              cancellation_reason: reason,
            },
          },
        });
        const items = await repo.listSaleItems(tx, companyId, [id]);
        await applyMovements(
          tx,
          companyId,
          items.map((item) => ({
            type: 'IN' as const,
            depositId: sale.deposit_id!,
            productId: item.product_id,
            amount: item.quantity,
            reason: `anulación venta ${id}`,
          })),
          { now },
        );
        await recordAudit(tx, {
          action: refund ? 'sale.refunded' : 'sale.cancelled',
          ...auditBy(ctx),
          details: {
            sale_id: id,
            reason,
            ...(refund && {
              refund_session_id: refundSession!.id,
              refunded: payments.map((p) => ({ method: p.method, amount: money(p.amount) })),
            }),
          },
        });
        return { sale: await getSaleIn(tx, companyId, id), changed: true };
      });
    },

    async getSale(ctx: CompanyCtx, id: number) {
      return getSaleIn(orm, ctx.companyId, id);
    },

    async listSales(ctx: CompanyCtx, filter: repo.SaleFilter) {
      const rows = await repo.listSaleRows(orm, ctx.companyId, { ...filter, limit: filter.limit + 1 });
      const more = rows.length > filter.limit;
      const page = more ? rows.slice(0, filter.limit) : rows;
      return { sales: await loadSales(orm, ctx.companyId, page), next_cursor: more ? String(page.at(-1)!.id) : null };
    },

    async summary(ctx: CompanyCtx, date: string) {
      const { byMethod, byBox, totals } = await repo.daySummary(orm, ctx.companyId, date);
      return {
        date,
        count: totals.count,
        total: money(totals.total),
        pending: money(totals.pending),
        cancelled: totals.cancelled,
        by_method: byMethod.map((m) => ({ method: m.method, amount: money(m.amount), count: m.count })),
        by_box: byBox.map((b) => ({ box_id: b.box_id, box_name: b.box_name, count: b.count, total: money(b.total) })),
      };
    },
  };

  async function emitPaid(tx: Conn, companyId: number, id: number, total: string, method: string | null, now: Date) {
    await recordOutbound(tx, { companyId, ...paidEvent(companyId, id, total, method, now) });
  }

  /** The lines as sold: product, quantity (a scale label's weight or price), price and whether it was changed. */
  async function priceLines(
    tx: Conn,
    ctx: CompanyCtx,
    items: SaleItemInput[],
    company: { settings: Record<string, unknown> },
    catalogAt: Date | null,
  ) {
    const layout = registerScaleLayout(company.settings['scaleLabel']);
    const byId = new Map(
      (
        await repo.findProductsForSale(tx, ctx.companyId, [
          ...new Set(items.flatMap((i) => (i.product_id ? [i.product_id] : []))),
        ])
      ).map((p) => [p.id, p]),
    );
    const mayChange = actsAsAdmin(ctx) || company.settings['registerPriceOverride'] === true;
    const lines = [];
    for (const [n, item] of items.entries()) {
      const path = `/items/${n}`;
      let product: repo.ProductForSale | null = null;
      let quantityMilli: number | null = item.quantity === undefined ? null : toMilli(item.quantity);
      let labelCents: number | null = null;
      if (item.scale_label !== undefined) {
        const label = readScaleLabel(item.scale_label, layout);
        if (!label) {
          throw new AppError(
            'validation_failed',
            `items.${n}.scale_label "${item.scale_label}" is not a scale label of this company`,
            {
              details: [{ path: `${path}/scale_label`, message: 'not a scale label' }],
            },
          );
        }
        product = await repo.findProductByPlu(tx, ctx.companyId, pluCandidates(label.plu));
        if (!product) {
          throw new AppError('unknown_scale_plu', `items.${n}: no product has the scale PLU ${label.plu} (as its SKU)`);
        }
        if (item.product_id !== undefined && item.product_id !== product.id) {
          throw new AppError('validation_failed', `items.${n}: the scale label is product ${product.id}, not ${item.product_id}`);
        }
        if (label.weightGrams !== null) quantityMilli = label.weightGrams;
        else labelCents = label.priceCents;
      } else {
        if (item.product_id === undefined) {
          throw new AppError('validation_failed', `items.${n} needs product_id (or scale_label)`, {
            details: [{ path: `${path}/product_id`, message: 'required' }],
          });
        }
        product = byId.get(item.product_id) ?? null;
        if (!product) throw new AppError('invalid_reference', `items.${n}: product ${item.product_id} does not exist`);
      }
      const listCents = toCents(product.base_price);
      let priceCents = item.price === undefined ? listCents : toCents(item.price);
      if (priceCents < 0) throw new AppError('validation_failed', `items.${n}.price must not be negative`);
      const overridden = priceCents !== listCents;
      if (overridden && !mayChange) {
        // A register that priced the sale with an older catalogue charged the price then shown (offline sales).
        const changedSince = catalogAt !== null && new Date(product.updated_at).getTime() > catalogAt.getTime();
        if (!changedSince) {
          throw new AppError(
            'price_needs_admin',
            `items.${n}: a price other than the product's (${fromCents(listCents)}) needs a company admin`,
          );
        }
      }
      let subtotalCents: number;
      if (labelCents !== null) {
        // A price label: the line costs what the scale printed; the quantity follows from the price per unit.
        subtotalCents = labelCents;
        if (priceCents > 0) quantityMilli = Math.max(1, Math.round((labelCents * 1000) / priceCents));
        else {
          quantityMilli = 1000;
          priceCents = labelCents;
        }
      } else {
        if (quantityMilli === null) {
          throw new AppError('validation_failed', `items.${n}.quantity is required`, {
            details: [{ path: `${path}/quantity`, message: 'required' }],
          });
        }
        if (quantityMilli <= 0) {
          throw new AppError('validation_failed', `items.${n}.quantity must be above zero (got ${item.quantity})`, {
            details: [{ path: `${path}/quantity`, message: 'must be above zero' }],
          });
        }
        subtotalCents = lineTotalCents(fromCents(priceCents), fromMilli(quantityMilli));
      }
      lines.push({
        productId: product.id,
        name: product.name,
        unit: product.unit,
        quantityMilli: quantityMilli!,
        priceCents,
        subtotalCents,
        listCents,
        overridden,
      });
    }
    return lines;
  }
}

/** sales.paid as the contract carries it (and markSalePaid writes it). */
function paidEvent(companyId: number, id: number, total: string, method: string | null, now: Date) {
  return {
    event: 'sales.paid',
    data: {
      sale: {
        id,
        company_id: companyId,
        total: money(total),
        status: 'paid',
        paid_at: now.toISOString(),
        payment_method: method,
        payment_id: null,
      },
    },
  };
}

function soldAtOf(value: string | undefined, now: Date): Date {
  if (value === undefined) return now;
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw new AppError('validation_failed', 'sold_at must be a date-time');
  // A register whose clock runs ahead still sells: the sale is dated now.
  if (at.getTime() > now.getTime()) return now;
  if (at.getTime() < now.getTime() - MAX_SOLD_AT_AGE_MS)
    throw new AppError('validation_failed', 'sold_at is more than 7 days ago');
  return at;
}
