import type { Conn, Database } from '../../db/client.ts';
import type { CompanyCtx } from '../../http/request-context.ts';
import { AppError } from '../../lib/errors.ts';
import type { Clock } from '../../lib/time.ts';
import { auditBy } from '../audit/audit.repo.ts';
import { createReturn, type ReturnActor, type ReturnInput, type ReturnWire, readReturn, readReturns } from './returns.ts';
import { findSaleRow } from './sales.repo.ts';
import type { PaymentInput, SaleWire } from './sales.schemas.ts';
import { readSale } from './sales-view.ts';

// Returns and exchanges as the merchant API offers them (returns.routes.ts): the return in one
// transaction, then its credit note with ARCA (invoicing, injected), then — for an exchange — the
// new sale through the register (injected: the register owns selling).

/** The credit note a refund owes (invoicing.creditRefund): null when the sale has no invoice issued here. */
export type CreditRefund = (ctx: CompanyCtx, saleId: number, returnId: number | null) => Promise<unknown>;

/** Selling at a box (register.createSale), in the caller's transaction. */
export type Sell = (
  ctx: CompanyCtx,
  key: string,
  input: { box_id: number; items: { product_id?: number; quantity?: number; price?: number }[]; payments?: PaymentInput[] },
  options: { tx: Conn },
) => Promise<{ sale: SaleWire; replayed: boolean }>;

/** Checks an admin's email and password on the spot (auth.verifyAdminApproval): who approved, or 403 approval_refused / 429. */
export type Approver = (
  ctx: CompanyCtx,
  credentials: { email: string; password: string },
  action: { what: string; details?: Record<string, unknown> },
) => Promise<{ userId: number; email: string }>;

export interface ExchangeInput {
  box_id: number;
  return_lines: ReturnInput['lines'];
  new_items: { product_id: number; quantity: number; price?: number }[];
  /** How the returned value goes back (and pays the new sale): efectivo by default. */
  refund_method?: Extract<ReturnInput['refund'], { method: string }>['method'];
  /** What the customer pays on top when the new sale costs more than what was returned. */
  payments?: PaymentInput[];
  reason: string;
}

export type ReturnsService = ReturnType<typeof createReturnsService>;

/** Who acts, as the register records it (a person's email or the API token's name). */
function actorOf(ctx: CompanyCtx, admin?: boolean): ReturnActor {
  const isAdmin =
    ctx.actor.kind === 'user'
      ? ctx.actor.role === 'admin'
      : ctx.actor.kind === 'api-token'
        ? ctx.actor.scope === 'read-write'
        : ctx.actor.kind === 'cli';
  return { ctx, label: auditBy(ctx).actor?.email ?? 'línea de comandos', admin: admin ?? isAdmin };
}

/** A sentinel thrown to roll a preview back. */
class Preview {
  constructor(readonly value: { ret: ReturnWire; replayed: boolean }) {}
}

const cents = (pesos: number) => Math.round(pesos * 100);

export function createReturnsService(deps: {
  db: Database;
  clock: Clock;
  creditRefund: CreditRefund;
  sell: Sell;
  approver: Approver;
}) {
  const { orm } = deps.db;

  /**
   * The credit note right after the refund, in the same request. ARCA unreachable (or slow): the
   * refund stands and the credit note stays pending, settled by the job (invoicing.settleCreditNotes).
   */
  async function credit(ctx: CompanyCtx, saleId: number, returnId: number | null) {
    try {
      await deps.creditRefund(ctx, saleId, returnId);
    } catch (err) {
      // The refund is made and answered as made: its credit note says where it stands (pending, or
      // rejected by ARCA: POST …/returns/:returnId/credit-note tries again). Anything else is a bug.
      if (err instanceof AppError) return;
      throw err;
    }
  }

  return {
    /**
     * POST /api/v1/sales/:id/returns. Money back by a cashier needs an admin on the spot
     * (`approval`): the return is checked first in a rolled-back preview, so the admin is asked only
     * for a return that would be made; a retry of one already made answers it without asking.
     */
    async returnLines(ctx: CompanyCtx, saleId: number, key: string, input: ReturnInput) {
      let actor = actorOf(ctx);
      if (!actor.admin && input.refund !== 'store_credit') {
        const preview = await previewReturn({ ...actor, admin: true }, saleId, key, input);
        if (!preview.replayed) {
          if (!input.approval) {
            throw new AppError(
              'refund_needs_approval',
              `giving money back for sale ${saleId} needs an admin: send an admin's email and password (approval)`,
              { details: [{ path: '/approval', message: 'an admin must approve the refund' }] },
            );
          }
          const approved = await deps.approver(ctx, input.approval, {
            what: 'refund',
            details: { sale_id: saleId, amount: preview.ret.amount, method: input.refund.method },
          });
          actor = { ...actor, admin: true, approvedBy: approved.email };
        }
      }
      const now = deps.clock.now();
      const { ret, replayed } = await orm.transaction((tx) => createReturn(tx, actor, saleId, key, input, { now }));
      if (ret.credit_note && ret.credit_note.status !== 'issued') await credit(ctx, saleId, ret.id);
      return { ret: await readReturn(orm, ctx.companyId, saleId, ret.id), replayed };
    },

    async listReturns(ctx: CompanyCtx, saleId: number) {
      if (!(await findSaleRow(orm, ctx.companyId, saleId))) throw new AppError('not_found', `sale ${saleId} does not exist`);
      return (await readReturns(orm, ctx.companyId, [saleId])).get(saleId) ?? [];
    },

    /** POST /api/v1/sales/:id/returns/:returnId/credit-note: the return's credit note again (after a rejection); errors are answered. */
    async retryCreditNote(ctx: CompanyCtx, saleId: number, returnId: number) {
      const ret = await readReturn(orm, ctx.companyId, saleId, returnId);
      if (ret.credit_note === null) {
        throw new AppError('invalid_state', `sale ${saleId} has no invoice issued here: its returns need no credit note`);
      }
      if (ret.credit_note.status !== 'issued') await deps.creditRefund(ctx, saleId, returnId);
      return readReturn(orm, ctx.companyId, saleId, returnId);
    },

    /** After a whole sale was cancelled (the register's cancel): its invoice's credit note, the same way. */
    creditCancelled: (ctx: CompanyCtx, saleId: number) => credit(ctx, saleId, null),

    /**
     * POST /api/v1/sales/:id/exchanges: lines returned and a new sale in one request. The returned
     * value goes back in `refund_method` and pays the new sale in the same method; the customer pays
     * the difference (payments) or gets it back. All in one transaction; the credit note after it.
     */
    async exchange(ctx: CompanyCtx, saleId: number, key: string, input: ExchangeInput) {
      const method = input.refund_method ?? 'efectivo';
      if (input.new_items.length === 0) {
        throw new AppError('validation_failed', 'an exchange sells at least one new line', {
          details: [{ path: '/new_items', message: 'must not be empty' }],
        });
      }
      const returnInput: ReturnInput = { lines: input.return_lines, refund: { method }, reason: input.reason };
      // Money changes hands only for the difference: a cashier may exchange (an admin may refund).
      const actor = actorOf(ctx, true);
      // One transaction: the return is checked, the new sale made (its own key, `<key>:sale`, paid
      // by the value returned in that method and the customer's payments) and the return recorded
      // naming it. A concurrent return of the same lines waits for it (the sale's row is locked)
      // and then finds them returned; nothing is left half done.
      const {
        ret,
        replayed,
        saleId: newSaleId,
      } = await orm.transaction(async (tx) => {
        const sold = { id: null as number | null };
        const result = await createReturn(tx, actor, saleId, key, returnInput, {
          now: deps.clock.now(),
          exchangeSale: async (returnedCents) => {
            const made = await deps.sell(
              ctx,
              `${key}:sale`,
              {
                box_id: input.box_id,
                items: input.new_items,
                payments: [...(returnedCents > 0 ? [{ method, amount: returnedCents / 100 }] : []), ...(input.payments ?? [])],
              },
              { tx },
            );
            sold.id = made.sale.id;
            return made.sale.id;
          },
        });
        return { ...result, saleId: result.replayed ? result.ret.exchange_sale_id : sold.id };
      });
      if (newSaleId === null) throw new AppError('conflict', `idempotency key "${key}" was used for a return, not an exchange`);
      if (!replayed && ret.credit_note && ret.credit_note.status !== 'issued') await credit(ctx, saleId, ret.id);
      return {
        exchange: await exchangeWire(ctx, saleId, ret.id, await readSale(orm, ctx.companyId, newSaleId)),
        replayed,
      };
    },
  };

  /** The return checked with every rule and rolled back: what it would be (or the one this key already made). */
  async function previewReturn(actor: ReturnActor, saleId: number, key: string, input: ReturnInput) {
    return orm
      .transaction(async (tx) => {
        const result = await createReturn(tx, actor, saleId, key, input, { now: deps.clock.now() });
        if (result.replayed) return result;
        throw new Preview(result);
      })
      .catch((err: unknown) => {
        if (err instanceof Preview) return err.value;
        throw err;
      });
  }

  async function exchangeWire(ctx: CompanyCtx, saleId: number, returnId: number, sale: SaleWire) {
    const ret = await readReturn(orm, ctx.companyId, saleId, returnId);
    return {
      return: ret,
      sale,
      /** Positive: what the customer paid on top; negative: what was given back. */
      difference: (cents(sale.total) - cents(ret.amount)) / 100,
    };
  }
}
