import { requestFingerprint } from '../../lib/fingerprint.ts';
import { type Conn, type Database, selectRowsPrepared } from '../../db/client.ts';
import type { CompanyCtx } from '../../http/request-context.ts';
import { AppError, unknownRecord } from '../../lib/errors.ts';
import { raisedCode, violates } from '../../db/pg-errors.ts';
import { fromCents, fromMilli, toCents } from '../../lib/money.ts';
import type { Clock } from '../../lib/time.ts';
import { auditBy, recordAudit } from '../audit/audit.repo.ts';
import { wholeSale } from '../sales/create-sale.ts';
import { methodOf, type PaymentInput, settlePayments } from '../sales/payments.ts';
import type { SaleWire } from '../sales/sales.schemas.ts';
import { findSaleRow, insertPayments, listPayments, listSaleItems, type SaleListRow } from '../sales/sales.repo.ts';
import { assertTransition } from '../sales/sale-states.ts';
import { cancelSale, markSalePaid } from '../sales/sales.service.ts';
import { applyMovements } from '../stock/stock.ledger.ts';
import { createSaleBatcher, jointStatement, type SaleRows } from './sale-batch.ts';
import { actorLabel, actsAsAdmin, assertOwnShift, money, personOf } from './actor.ts';
import { type PricedLine, priceLines, type SaleItemInput } from './pricing.ts';
import {
  applyDiscounts,
  beyondLimit,
  type DiscountedSale,
  type DiscountInput,
  discountLimitOf,
  discountPercent,
} from './discounts.ts';
import * as repo from './register.repo.ts';
import { readSale } from '../sales/sales-view.ts';
import { findRefundSession, listReturns } from '../sales/returns.repo.ts';
import { accountPart, checkSaleCustomer } from './sale-customer.ts';
import { chargeSale, releaseSale } from '../accounts/account-ledger.ts';
import { catalogTime, clientTime } from './client-time.ts';

// The cashier's flow: sell (create, maybe paid at once), take a payment, cancel or refund. The
// register keeps its own rows (which box and session, the idempotency key, the change, the
// refund's session) and the stock; every change of the sale itself goes through the sales module
// (sales.service, create-sale wholeSale), whose state machine decides what may happen.

export interface RegisterSaleInput {
  box_id: number;
  items: SaleItemInput[];
  payments?: PaymentInput[];
  customer?: { id?: number; name?: string };
  /** An admin's decision to sell on account over the customer's credit limit (audited). */
  override_credit_limit?: boolean;
  /** A discount on the whole sale, spread over its lines (issue 29). */
  discount?: DiscountInput;
  /** An admin's email and password approving discounts beyond the company's limit (never stored). */
  discount_approval?: { email: string; password: string };
  /** When the register made the sale (a sale queued offline carries the browser's time). */
  sold_at?: string;
  /** The time of the catalogue the register priced the sale with (its ETag's time). */
  catalog_at?: string;
}

/** The same key with the same body answers the sale it made; with another body, 409. Null: a new key. */
async function replayedSale(tx: Conn, companyId: number, key: string, fingerprint: string): Promise<SaleWire | null> {
  await repo.lockIdempotencyKey(tx, companyId, key);
  const seen = await repo.findSaleByKey(tx, companyId, key);
  if (!seen) return null;
  if (seen.request_sha256 !== fingerprint) {
    throw new AppError(
      'conflict',
      `idempotency key "${key}" was already used for sale ${seen.sale_id} with another request; use a new key for a new sale`,
    );
  }
  return readSale(tx, companyId, seen.sale_id);
}

const noOpenSession = (boxId: number) => new AppError('no_open_session', `box ${boxId} has no open session; open it to sell`);

/**
 * The box the sale is made at, the deposit it sells from, its open session (the seller's own), the
 * company's settings and the products the sale names: one read.
 */
async function sellingPointOf(
  tx: Conn,
  ctx: CompanyCtx,
  boxId: number,
  productIds: number[],
  read: (companyId: number, boxId: number, productIds: number[]) => Promise<repo.SellingPointRead>,
) {
  const companyId = ctx.companyId;
  const point = await read(companyId, boxId, productIds);
  if (!point) {
    if (!(await repo.findBox(tx, companyId, boxId))) {
      throw unknownRecord('box_id', 'box', boxId);
    }
    throw noOpenSession(boxId);
  }
  assertOwnShift(ctx, {
    id: point.session_id,
    box_id: point.box_id,
    user_id: point.session_user_id === null ? null : Number(point.session_user_id),
    user_name: point.session_user_name,
  });
  if (point.sells_from === null) throw new AppError('invalid_state', 'the company has no default deposit to sell from');
  return {
    box: { id: point.box_id, name: point.box_name, sellsFrom: point.sells_from },
    sessionId: point.session_id,
    settings: point.settings,
    products: point.products,
  };
}

/** An audit row for the lines sold at another price than the product's. */
async function auditPriceChanges(tx: Conn, ctx: CompanyCtx, saleId: number, lines: PricedLine[]) {
  const overridden = lines.filter((l) => l.overridden);
  if (overridden.length === 0) return;
  await recordAudit(tx, {
    action: 'sale.price_changed',
    ...auditBy(ctx),
    details: {
      sale_id: saleId,
      items: overridden.map((l) => ({ product_id: l.productId, list_price: l.listCents / 100, price: l.priceCents / 100 })),
    },
  });
}

/**
 * Checks an admin's email and password for an approval at the register (the auth module's
 * verifyAdminApproval): answers who approved, or throws approval_refused / rate_limited.
 */
export type AdminApprover = (
  ctx: CompanyCtx,
  credentials: { email: string; password: string },
  action: { what: string; details?: Record<string, unknown> },
) => Promise<{ userId: number; email: string }>;

/** An audit row for a sale's discounts: who approved those beyond the limit, the lines, the sale's. */
async function auditDiscounts(
  tx: Conn,
  ctx: CompanyCtx,
  saleId: number,
  lines: PricedLine[],
  discounted: DiscountedSale,
  limit: number,
  approvedBy: string | null,
) {
  if (discounted.discountCents === 0) return;
  await recordAudit(tx, {
    action: approvedBy === null ? 'sale.discounted' : 'sale.discount_approved',
    ...auditBy(ctx),
    details: {
      sale_id: saleId,
      gross: discounted.grossCents / 100,
      discount: discounted.discountCents / 100,
      percent: discountPercent(discounted),
      limit_percent: limit,
      approved_by: approvedBy,
      items: discounted.lines.flatMap((l, n) =>
        l.discountCents > 0
          ? [
              {
                product_id: lines[n]!.productId,
                gross: lines[n]!.subtotalCents / 100,
                discount: l.discountCents / 100,
                reason: l.reason,
              },
            ]
          : [],
      ),
      ...(discounted.saleDiscountCents > 0 && {
        sale_discount: { amount: discounted.saleDiscountCents / 100, reason: discounted.saleReason },
      }),
    },
  });
}

/**
 * What the idempotency key's fingerprint covers: the request without the approval (its password is
 * never hashed into a stored value, and a retry without it is the same sale).
 */
function fingerprintOf(input: RegisterSaleInput): string {
  const { discount_approval: _approval, ...rest } = input;
  return requestFingerprint(rest);
}

export function createCashier({ db, clock, approver }: { db: Database; clock: Clock; approver?: AdminApprover }) {
  const orm = db.orm;
  // PGlite runs one statement at a time; on PostgreSQL each company's sales have two statements in
  // flight, at most one of them a write (sale-batch.ts; npm run bench -- pos).
  const batcher = createSaleBatcher(orm, { maxInFlight: db.kind === 'postgres' ? 2 : 1 });
  return {
    /**
     * A register sale: the items priced (the product's price unless an admin — or the company's
     * setting — allows another), payments settled with change, stock out of the box's deposit
     * through the ledger, events and rows in one transaction. The idempotency key makes a repeat
     * harmless: the same key with the same body answers the same sale; with another body, 409.
     */
    async createSale(
      ctx: CompanyCtx,
      key: string,
      input: RegisterSaleInput,
      options: { tx?: Conn } = {},
    ): Promise<{ sale: SaleWire; replayed: boolean }> {
      // Inside the caller's transaction (an exchange: the return and its new sale, all or nothing)
      // or in its own; in the caller's, the sale's numbers are taken there too (rolled back with it).
      const conn: Conn = options.tx ?? orm;
      const inTransaction = <T>(fn: (tx: Conn) => Promise<T>): Promise<T> => (options.tx ? fn(options.tx) : orm.transaction(fn));
      const fingerprint = fingerprintOf(input);
      const companyId = ctx.companyId;
      // The sale this key already made (the same body), or null; another body with the key is 409.
      const replay = async (): Promise<{ sale: SaleWire; replayed: true } | null> => {
        const seen = await inTransaction((tx) => replayedSale(tx, companyId, key, fingerprint));
        return seen && { sale: seen, replayed: true };
      };
      if (input.items.length === 0) {
        throw new AppError('validation_failed', 'a sale needs at least one item', {
          details: [{ path: '/items', message: 'must not be empty' }],
        });
      }
      // Everything a sale can be refused for is checked BEFORE its numbers are taken, so a refused
      // sale leaves no hole in the company's N.º (issue 25): the box's open session, the products
      // and their prices, the payments. A retry of a sale already made answers that sale even when
      // the check would now refuse it (its box closed since, a product disabled since).
      const now = clock.now();
      let checked: {
        point: Awaited<ReturnType<typeof sellingPointOf>>;
        soldAt: Date;
        lines: PricedLine[];
        totalCents: number;
        settled: ReturnType<typeof settlePayments>;
        customerName: string | null;
        accountCents: number;
        discounted: DiscountedSale;
        limit: number;
        approvedBy: string | null;
      };
      try {
        const soldAt = clientTime(input.sold_at, now, 'sold_at');
        const point = await sellingPointOf(
          conn,
          ctx,
          input.box_id,
          input.items.flatMap((i) => (i.product_id === undefined ? [] : [i.product_id])),
          options.tx
            ? async (company, box, products) =>
                (await repo.findSellingPoints(conn, company, [{ boxId: box, productIds: products }]))[0]!
            : batcher.sellingPoint,
        );
        const { settings, products } = point;
        const lines = await priceLines(conn, ctx, input.items, { settings, products }, catalogTime(input.catalog_at, now));
        const discounted = applyDiscounts(
          lines,
          input.items.map((i) => i.discount),
          input.discount,
        );
        const totalCents = discounted.totalCents;
        const limit = discountLimitOf(settings);
        const settled = settlePayments(totalCents, input.payments ?? [], input.customer?.id !== undefined);
        const sold = await checkSaleCustomer(conn, ctx, input, settled, totalCents, actsAsAdmin(ctx));
        let approvedBy: string | null = null;
        if (!actsAsAdmin(ctx) && beyondLimit(lines, discounted, limit)) {
          // Beyond the owner's limit a cashier needs an admin on the spot; the replay of a sale
          // already made answers it without asking again (the catch below).
          if (!input.discount_approval || !approver) {
            throw new AppError(
              'discount_needs_approval',
              `a discount of ${discountPercent(discounted)} % (or a line's) is beyond the company's limit of ${limit} %; an admin must approve it (discount_approval)`,
            );
          }
          approvedBy = (
            await approver(ctx, input.discount_approval, {
              what: 'discount',
              details: { box_id: input.box_id, discount: discounted.discountCents / 100, percent: discountPercent(discounted) },
            })
          ).email;
        }
        checked = { point, soldAt, lines, totalCents, settled, ...sold, discounted, limit, approvedBy };
      } catch (err) {
        const seen = await replay();
        if (seen) return seen;
        throw err;
      }
      // Then the numbers, in their own short statement on the pool (not in the transaction): the
      // counter rows are held for that statement only, so registers do not queue on them for a
      // whole sale (docs/decisiones.md).
      const numbers = options.tx
        ? (await repo.takeRegisterSaleIds(conn, companyId, [{ key, movements: input.items.length }], { inTransaction: true }))[0]!
        : await batcher.numbers(companyId, key, input.items.length);
      if (!numbers) {
        // The key made a sale already: answer it (or 409 when it was another request).
        const seen = await replay();
        if (seen) return seen;
        throw new AppError('conflict', `idempotency key "${key}" is being used by another request; retry it`);
      }
      const { point, soldAt, lines, totalCents, settled, accountCents, discounted } = checked;
      const { box, sessionId } = point;
      const { saleId: id, firstMovementId } = numbers;
      const items = lines.map((l, n) => {
        const d = discounted.lines[n]!;
        return {
          id: n + 1,
          productId: l.productId,
          quantity: fromMilli(l.quantityMilli),
          price: fromCents(l.priceCents),
          subtotal: fromCents(d.netCents),
          discount: fromCents(d.discountCents),
          saleDiscount: fromCents(d.saleDiscountCents),
          discountReason: d.reason,
        };
      });
      const wholeInput = {
        companyId,
        id,
        customerId: input.customer?.id ?? null,
        boxId: box.id,
        sessionId,
        items,
        totalCents,
        payments: settled.rows,
        // A sale on account stays pending until payments on account cover its account part.
        paid: settled.appliedCents >= totalCents && accountCents === 0,
        soldAt,
        now,
      };
      const whole = wholeSale(wholeInput);
      const customerName = checked.customerName;
      const soldBy = actorLabel(ctx);
      // The register's row also guards the statement: it holds the session open (or the statement
      // fails with no_open_session) and its key's unique index refuses a second sale with the key.
      const registerInput: repo.RegisterRowValues = {
        saleId: id,
        sessionId,
        depositId: box.sellsFrom,
        key,
        sha256: fingerprint,
        customerName,
        soldBy,
        soldByUserId: personOf(ctx),
        soldAt,
        change: fromCents(settled.changeCents),
        discountReason: discounted.saleReason,
        discountApprovedBy: checked.approvedBy,
      };
      const movements = items.map((item) => ({
        type: 'OUT' as const,
        depositId: box.sellsFrom,
        productId: item.productId,
        amount: item.quantity,
        reason: `venta ${id}`,
      }));
      const [created, ...paidEvents] = whole.events;
      const rows: SaleRows = {
        companyId,
        depositId: box.sellsFrom,
        now,
        firstMovementId,
        movements,
        sale: whole.values,
        register: registerInput,
        created: created!,
        paid: paidEvents,
      };
      const audited = lines.some((l) => l.overridden) || discounted.discountCents > 0;
      const write = async (tx: Conn): Promise<{ sale: SaleWire; replayed: boolean }> => {
        if (options.tx) {
          // Inside an exchange the key is held for its transaction (a failed statement would end it).
          const seen = await replayedSale(tx, companyId, key, fingerprint);
          if (seen) return { sale: seen, replayed: true };
        }
        // The sale, its items, its payments, the register's row, the stock movements and every
        // event: one statement, the same one that writes sales together (sale-batch.ts). The
        // products' rows are locked by that statement itself, in id order (the ledger's order),
        // after the sale's own rows are written, and held only for the rest of it and the commit.
        await selectRowsPrepared(tx, jointStatement([rows]));
        await auditPriceChanges(tx, ctx, id, lines);
        await auditDiscounts(tx, ctx, id, lines, discounted, checked.limit, checked.approvedBy);
        // A sale on account is charged to the customer's account in the same transaction (the
        // account row is its lock); it answers as stored.
        if (accountCents > 0) {
          await chargeSale(tx, {
            ctx,
            customerId: input.customer!.id!,
            saleId: id,
            amountCents: accountCents,
            override: { requested: input.override_credit_limit === true, byAdmin: actsAsAdmin(ctx) },
            now,
          });
          return { sale: await readSale(tx, companyId, id), replayed: false };
        }
        return { sale: registerSaleWire(), replayed: false };
      };
      const registerSaleWire = (): SaleWire => ({
        id,
        source: 'register',
        status: whole.sale.status,
        box_id: box.id,
        box_name: box.name,
        box_session_id: sessionId,
        deposit_id: box.sellsFrom,
        customer_id: whole.sale.customerId,
        customer_name: customerName,
        total: totalCents / 100,
        paid_total: settled.appliedCents / 100,
        change: settled.changeCents / 100,
        payment_method: whole.sale.paymentMethod,
        items: lines.map((l, n) => ({
          id: n + 1,
          product_id: l.productId,
          name: l.name,
          unit: l.unit,
          quantity: l.quantityMilli / 1000,
          price: l.priceCents / 100,
          subtotal: discounted.lines[n]!.netCents / 100,
          discount: discounted.lines[n]!.discountCents / 100,
          sale_discount: discounted.lines[n]!.saleDiscountCents / 100,
          discount_reason: discounted.lines[n]!.reason,
          returned_quantity: 0,
        })),
        discount: discounted.discountCents / 100,
        sale_discount: discounted.saleDiscountCents / 100,
        discount_reason: discounted.saleReason,
        discount_approved_by: checked.approvedBy,
        payments: settled.rows.map((p, n) => ({
          id: n + 1,
          method: p.method,
          amount: money(p.amount),
          tendered: p.tendered === null ? null : money(p.tendered),
          change: money(p.change),
          reference: p.reference,
          box_session_id: sessionId,
          created_at: now.toISOString(),
        })),
        sold_by: soldBy,
        refund_session_id: null,
        created_at: soldAt.toISOString(),
        paid_at: whole.sale.paidAt?.toISOString() ?? null,
        cancelled_at: null,
        cancellation_reason: null,
        returned_total: 0,
        returns: [],
      });
      try {
        // A plain sale is its one statement, committed on its own: no BEGIN, no COMMIT round trip.
        // With audit rows or a charge on account it runs in a transaction with them.
        if (options.tx) return await write(options.tx);
        if (audited || accountCents > 0) return await orm.transaction(write);
        // A plain sale goes through the group commit: alone when the database is free, with the
        // sales that arrived meanwhile when it is busy (sale-batch.ts).
        await batcher.write({
          ...rows,
          alone: async () => {
            await write(orm);
          },
        });
        return { sale: registerSaleWire(), replayed: false };
      } catch (err) {
        if (raisedCode(err) === 'no_open_session') throw noOpenSession(input.box_id);
        if (!options.tx && violates(err, 'register_sales_key')) {
          // Another request with the same key made its sale first: answer that one.
          const seen = await replay();
          if (seen) return seen;
        }
        throw err;
      }
    },

    /** Pays what a pending register sale still owes (cash may exceed it: change). */
    async paySale(ctx: CompanyCtx, id: number, input: { payments: PaymentInput[] }) {
      const companyId = ctx.companyId;
      return orm.transaction(async (tx) => {
        const sale = await findSaleRow(tx, companyId, id, true);
        if (!sale) throw new AppError('not_found', `sale ${id} does not exist`);
        if (sale.box_session_id === null) {
          throw new AppError('invalid_state', `sale ${id} came from an integration; its sender reports its payment (sales.paid)`);
        }
        assertTransition(sale, 'pay');
        if (accountPart(await listPayments(tx, companyId, [id])) > 0) {
          throw new AppError(
            'invalid_state',
            `sale ${id} is on the customer's account; record a payment on account (POST /api/v1/customers/${sale.customer_id}/payments)`,
          );
        }
        if (input.payments.length === 0) throw new AppError('validation_failed', 'payments must not be empty');
        const session = await repo.findOpenSession(tx, companyId, sale.box_id!, 'share');
        if (!session)
          throw new AppError('no_open_session', `box ${sale.box_id} has no open session; open it to take the payment`);
        assertOwnShift(ctx, {
          id: session.id,
          box_id: session.box_id,
          user_id: session.user_id === null ? null : Number(session.user_id),
          user_name: session.user_name,
        });
        const remaining = toCents(sale.total) - toCents(sale.paid_total);
        const settled = settlePayments(remaining, input.payments, sale.customer_id !== null);
        if (settled.appliedCents < remaining) {
          throw new AppError(
            'validation_failed',
            `payments (${fromCents(settled.appliedCents)}) do not cover what is owed (${fromCents(remaining)})`,
            { details: [{ path: '/payments', message: 'must cover what is owed' }] },
          );
        }
        const existing = await listPayments(tx, companyId, [id]);
        const now = clock.now();
        await insertPayments(tx, {
          companyId,
          saleId: id,
          firstId: existing.length + 1,
          sessionId: session.id,
          now,
          payments: settled.rows,
        });
        if (settled.changeCents > 0) await repo.addRegisterChange(tx, companyId, id, fromCents(settled.changeCents));
        const method = methodOf([...existing, ...settled.rows]) ?? 'mixto';
        await markSalePaid(tx, companyId, { id, paidAt: now, paymentMethod: method }, { now });
        return readSale(tx, companyId, id);
      });
    },

    /**
     * Cancels a sale. A register sale puts its stock back into the deposit it left; one that took
     * money (paid, or partly paid) is a refund: an admin's (or a read-write token's) decision, booked
     * in the open session of the sale's box. Integration sales keep today's rule (pending only, no
     * stock moved). The same reason again is a no-op. The sale's status changes in the sales module
     * (cancel for a pending sale, refund for a paid one).
     */
    async cancelSale(ctx: CompanyCtx, id: number, input: { reason: string; approval?: { email: string; password: string } }) {
      const companyId = ctx.companyId;
      const reason = input.reason.trim();
      if (reason.length === 0) throw new AppError('validation_failed', 'reason must not be empty');
      // A cashier cancelling a sale that took money gives it back: an admin approves on the spot.
      const approvedBy = actsAsAdmin(ctx) ? null : await refundApproval(ctx, id, input.approval);
      return orm.transaction(async (tx) => {
        const sale = await findSaleRow(tx, companyId, id, true);
        if (!sale) throw new AppError('not_found', `sale ${id} does not exist`);
        const now = clock.now();
        if (sale.box_session_id === null) {
          const result = await cancelSale(tx, companyId, { id, reason }, { now });
          if (result.changed) {
            await recordAudit(tx, {
              action: 'sale.cancelled',
              ...auditBy(ctx),
              details: { sale_id: id, reason, source: 'integration' },
            });
          }
          return { sale: await readSale(tx, companyId, id), changed: result.changed };
        }
        if (sale.status === 'cancelled') {
          if (sale.cancellation_reason === reason) return { sale: await readSale(tx, companyId, id), changed: false };
          throw new AppError('invalid_state', `sale ${id} is already cancelled`);
        }
        if ((await listReturns(tx, companyId, [id])).length > 0) {
          throw new AppError('invalid_state', `sale ${id} has returns: return its remaining lines instead of cancelling it`, {
            details: [{ path: 'sale.returns', message: 'return the remaining lines (POST /api/v1/sales/:id/returns)' }],
          });
        }
        // The account part is no money to give back: it leaves the customer's balance instead.
        const payments = (await listPayments(tx, companyId, [id])).filter((p) => p.method !== 'cuenta_corriente');
        const refundSessionId = payments.length > 0 ? await bookRefund(tx, ctx, sale, approvedBy) : null;
        await releaseSale(tx, companyId, id, now);
        await cancelSale(tx, companyId, { id, reason, action: sale.status === 'paid' ? 'refund' : 'cancel' }, { now });
        const items = await listSaleItems(tx, companyId, [id]);
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
          action: refundSessionId === null ? 'sale.cancelled' : 'sale.refunded',
          ...auditBy(ctx),
          details: {
            sale_id: id,
            reason,
            ...(refundSessionId !== null && {
              refund_session_id: refundSessionId,
              refunded: payments.map((p) => ({ method: p.method, amount: money(p.amount) })),
            }),
          },
        });
        if (refundSessionId !== null && approvedBy !== null) {
          await recordAudit(tx, {
            action: 'sale.refund_approved',
            ...auditBy(ctx),
            details: {
              sale_id: id,
              cancelled: true,
              amount: payments.reduce((sum, p) => sum + toCents(p.amount), 0) / 100,
              approved_by: approvedBy,
            },
          });
        }
        return { sale: await readSale(tx, companyId, id), changed: true };
      });
    },
  };

  /**
   * Whether cancelling the sale gives money back (a register sale, not cancelled, paid or partly
   * paid other than on account, without returns); if so the admin who approves it (403
   * refund_needs_approval without an approval, approval_refused with a wrong one). Null: nothing
   * to approve (the transaction checks again and refuses what does not hold).
   */
  async function refundApproval(
    ctx: CompanyCtx,
    id: number,
    approval: { email: string; password: string } | undefined,
  ): Promise<string | null> {
    const sale = await findSaleRow(orm, ctx.companyId, id);
    if (!sale || sale.box_session_id === null || sale.status === 'cancelled') return null;
    if ((await listReturns(orm, ctx.companyId, [id])).length > 0) return null;
    const payments = (await listPayments(orm, ctx.companyId, [id])).filter((p) => p.method !== 'cuenta_corriente');
    if (payments.length === 0) return null;
    if (!approval || !approver) {
      throw new AppError(
        'refund_needs_approval',
        `sale ${id} took money: cancelling it gives it back and needs an admin's approval (approval)`,
        { details: [{ path: '/approval', message: 'an admin must approve the refund' }] },
      );
    }
    const approved = await approver(ctx, approval, {
      what: 'refund',
      details: { sale_id: id, cancel: true, amount: payments.reduce((sum, p) => sum + toCents(p.amount), 0) / 100 },
    });
    return approved.email;
  }
}

/**
 * A sale that took money gives it back: an admin's (or read-write token's) decision, booked in the
 * open shift of the person cancelling (the latest they opened), else in the open shift of the
 * sale's box: the sale's own shift may have closed long ago. Answers that session.
 */
async function bookRefund(tx: Conn, ctx: CompanyCtx, sale: SaleListRow, approvedBy: string | null): Promise<number> {
  if (!actsAsAdmin(ctx) && approvedBy === null) {
    throw new AppError(
      'forbidden',
      `sale ${sale.id} was ${sale.status === 'paid' ? 'paid' : 'partly paid'}: cancelling it refunds the money and needs a company admin`,
    );
  }
  const sessionId = await findRefundSession(tx, ctx.companyId, { openedBy: actorLabel(ctx), boxId: sale.box_id });
  if (sessionId === null) {
    throw new AppError('no_refund_session', 'the refund needs an open shift: open one (at any box) and retry', {
      details: [{ path: '/reason', message: 'no open shift to give the money back from' }],
    });
  }
  await repo.setRefundSession(tx, ctx.companyId, sale.id, sessionId);
  return sessionId;
}
