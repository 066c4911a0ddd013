import { createHash, randomBytes } from 'node:crypto';
import { type Conn, type Database, readTogether } from '../../db/client.ts';
import { nextId } from '../../db/ids.ts';
import type { CompanyCtx } from '../../http/request-context.ts';
import { AppError } from '../../lib/errors.ts';
import { fromCents, moneyToNumber, toCents } from '../../lib/money.ts';
import type { Clock } from '../../lib/time.ts';
import { auditBy, recordAudit } from '../audit/audit.repo.ts';
import { customerOfSale, creditPayment } from './account-ledger.ts';
import * as repo from './accounts.repo.ts';
import type {
  AccountCustomerWire,
  AccountListWire,
  AccountPaymentWire,
  AccountSummaryWire,
  CustomerAccountWire,
  PaymentOnAccountInput,
  StatementWire,
} from './accounts.schemas.ts';
import { addDays, agingOf, localDay, runningBalance, withAge } from './statement.ts';
import { shareTexts } from './statement-share.ts';
import { dbIso } from '../../db/dates.ts';

// Cuenta corriente: the account view, payments on account, statements, the debtors' list and the
// shared statement link. The rules that change balances live in account-ledger.ts.

/** A shared statement link works this long. */
export const STATEMENT_LINK_DAYS = 7;
/** A statement without `from` covers this many days up to `to`. */
const DEFAULT_STATEMENT_DAYS = 90;

const money = (value: string | number) => toCents(value) / 100;
const iso = dbIso;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function customerWire(c: repo.AccountCustomerRow): AccountCustomerWire {
  return { id: c.id, name: c.name, phone: c.phone, email: c.email, enabled: c.enabled, account_enabled: c.account_enabled };
}

function summaryWire(c: repo.AccountCustomerRow, balance: string, oldest: Date | string | null): AccountSummaryWire {
  const limit = c.credit_limit === null ? null : money(c.credit_limit);
  const available = c.credit_limit === null ? null : Math.max(0, toCents(c.credit_limit) - toCents(balance)) / 100;
  return { balance: money(balance), credit_limit: limit, available, oldest_due_at: iso(oldest) };
}

/** The fingerprint of a payment request for its idempotency key (customer and body). */
function fingerprint(customerId: number, input: PaymentOnAccountInput): string {
  const { amount, method, session_id = null, reference = null, note = null } = input;
  return sha256(JSON.stringify([customerId, fromCents(toCents(amount)), method, session_id, reference, note]));
}

function paymentWire(p: repo.PaymentRow): AccountPaymentWire {
  const allocated = p.allocations.reduce((sum, a) => sum + toCents(a.amount), 0);
  return {
    id: p.id,
    customer_id: p.customer_id,
    amount: money(p.amount),
    method: p.method,
    reference: p.reference,
    box_session_id: p.box_session_id,
    note: p.note,
    created_by: p.created_by,
    created_at: iso(p.created_at)!,
    allocations: p.allocations.map((a) => ({ sale_id: a.sale_id, amount: money(a.amount) })),
    unallocated: (toCents(p.amount) - allocated) / 100,
  };
}

export function createAccountsService({ db, clock, publicBaseUrl }: { db: Database; clock: Clock; publicBaseUrl: string }) {
  const orm = db.orm;

  async function accountOf(conn: Conn, companyId: number, customer: repo.AccountCustomerRow) {
    const { timezone } = await repo.companyTimeZone(conn, companyId);
    const [balance, open] = await readTogether(
      conn,
      () => repo.findBalance(conn, companyId, customer.id),
      () => repo.listOpenSales(conn, companyId, customer.id),
    );
    const aged = withAge(open, localDay(clock.now(), timezone), timezone);
    return { balance, aged, summary: summaryWire(customer, balance, open[0]?.created_at ?? null) };
  }

  async function statementOf(
    conn: Conn,
    companyId: number,
    customer: repo.AccountCustomerRow,
    range: { from?: string; to?: string },
  ) {
    const company = await repo.companyTimeZone(conn, companyId);
    const now = clock.now();
    const to = range.to ?? localDay(now, company.timezone);
    const from = range.from ?? addDays(to, -DEFAULT_STATEMENT_DAYS);
    if (from > to) {
      throw new AppError('validation_failed', `from (${from}) is after to (${to})`, {
        details: [{ path: '/from', message: 'must not be after to' }],
      });
    }
    const [start, rows] = await readTogether(
      conn,
      () => repo.dayStart(conn, companyId, from),
      () => repo.listMovements(conn, companyId, customer.id, to),
    );
    const { aged, summary } = await accountOf(conn, companyId, customer);
    const statement: StatementWire = {
      customer: customerWire(customer),
      company: { name: company.name },
      from,
      to,
      ...runningBalance(rows, start),
      account: summary,
      aging: agingOf(aged),
      generated_at: now.toISOString(),
    };
    return statement;
  }

  return {
    /**
     * The `account` object GET /api/v1/customers/:id answers next to `customer` (the shape agreed
     * with the customers module): for that route to call once both are merged.
     */
    async accountSummary(companyId: number, customerId: number): Promise<AccountSummaryWire> {
      const customer = await customerOfSale(orm, companyId, customerId, '/id');
      return (await accountOf(orm, companyId, customer)).summary;
    },

    async getAccount(ctx: CompanyCtx, customerId: number): Promise<CustomerAccountWire> {
      const customer = await customerOfSale(orm, ctx.companyId, customerId, '/id');
      const { aged, summary } = await accountOf(orm, ctx.companyId, customer);
      return {
        customer: customerWire(customer),
        account: summary,
        open_sales: aged.map((s) => ({
          sale_id: s.sale_id,
          created_at: iso(s.created_at)!,
          total: money(s.total),
          on_account: money(s.on_account),
          paid: money(s.allocated),
          open: money(s.open),
          days: s.days,
        })),
      };
    },

    /**
     * A payment on account: its money row (counted in the box session when given, like any payment),
     * allocated to the oldest open sales; what is left is saldo a favor. The same idempotency key with
     * the same request answers the same payment; with another request, 409.
     */
    async recordPayment(ctx: CompanyCtx, customerId: number, key: string, input: PaymentOnAccountInput) {
      const companyId = ctx.companyId;
      const sha = fingerprint(customerId, input);
      return orm.transaction(async (tx) => {
        await repo.lockPaymentKey(tx, companyId, key);
        const seen = await repo.findPaymentByKey(tx, companyId, key);
        if (seen && seen.request_sha256 !== sha) {
          throw new AppError('conflict', `idempotency key "${key}" was already used for payment ${seen.id} with another request`);
        }
        const customer = await customerOfSale(tx, companyId, customerId, '/id');
        if (seen) return { ...(await readPayment(tx, companyId, customer, seen.id)), replayed: true };
        if (input.session_id !== undefined && !(await repo.findOpenSession(tx, companyId, input.session_id))) {
          throw new AppError('no_open_session', `box session ${input.session_id} is not open in this company`, {
            details: [{ path: '/session_id', message: 'not an open session' }],
          });
        }
        const id = await nextId(tx, 'account_payments', companyId);
        await creditPayment(tx, {
          companyId,
          id,
          customerId,
          method: input.method,
          amount: fromCents(toCents(input.amount)),
          sessionId: input.session_id ?? null,
          reference: input.reference?.trim() || null,
          note: input.note?.trim() || null,
          createdBy: auditBy(ctx).actor?.email ?? 'línea de comandos',
          key,
          sha256: sha,
          now: clock.now(),
        });
        return { ...(await readPayment(tx, companyId, customer, id)), replayed: false };
      });
    },

    async statement(ctx: CompanyCtx, customerId: number, range: { from?: string; to?: string }) {
      const customer = await customerOfSale(orm, ctx.companyId, customerId, '/id');
      return statementOf(orm, ctx.companyId, customer, range);
    },

    async listAccounts(ctx: CompanyCtx, limit: number): Promise<AccountListWire> {
      const [rows, owed] = await Promise.all([repo.listDebtors(orm, ctx.companyId, limit), repo.totalOwed(orm, ctx.companyId)]);
      return {
        accounts: rows.map((r) => ({
          customer: customerWire(r),
          balance: money(r.balance),
          credit_limit: r.credit_limit === null ? null : money(r.credit_limit),
          oldest_due_at: iso(r.oldest_at),
          open_sales: r.open_sales,
        })),
        // Each balance fits its column, but their sum may pass 2^53 cents (91 accounts at the most one
        // holds): toCents threw there. Past it, the nearest double, as every sum that far.
        total_owed: moneyToNumber(owed.total),
        count: owed.count,
      };
    },

    /**
     * A link to a read-only statement for the customer: an unguessable token (256 bits) of which only
     * the SHA-256 is kept, expiring after STATEMENT_LINK_DAYS; with the WhatsApp and e-mail drafts.
     */
    async shareStatement(ctx: CompanyCtx, customerId: number) {
      const customer = await customerOfSale(orm, ctx.companyId, customerId, '/id');
      const token = randomBytes(32).toString('base64url');
      const now = clock.now();
      const expiresAt = new Date(now.getTime() + STATEMENT_LINK_DAYS * 86_400_000);
      const [{ name: companyName }, balance] = await Promise.all([
        repo.companyTimeZone(orm, ctx.companyId),
        repo.findBalance(orm, ctx.companyId, customerId),
      ]);
      await orm.transaction(async (tx) => {
        await repo.insertStatementLink(tx, {
          tokenSha256: sha256(token),
          companyId: ctx.companyId,
          customerId,
          expiresAt,
          createdBy: auditBy(ctx).actor?.email ?? 'línea de comandos',
          now,
        });
        // Who let a statement out of the shop, and until when (never the token).
        await recordAudit(tx, {
          action: 'account.statement_shared',
          ...auditBy(ctx),
          details: { customer_id: customerId, expires_at: expiresAt.toISOString() },
        });
      });
      const url = `${publicBaseUrl.replace(/\/$/, '')}/estado-de-cuenta/${token}`;
      return { url, expires_at: expiresAt.toISOString(), ...shareTexts({ customer, companyName, balance, url }) };
    },

    /**
     * The statement behind a shared link, or null (unknown or expired token: the caller answers 404
     * and learns nothing else). The token is looked up by its SHA-256, never compared as text.
     */
    async sharedStatement(token: string): Promise<StatementWire | null> {
      if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
      const link = await repo.findStatementLink(orm, sha256(token), clock.now());
      if (!link) return null;
      const customer = await repo.findCustomer(orm, link.company_id, link.customer_id);
      if (!customer) return null;
      return statementOf(orm, link.company_id, customer, {});
    },
  };

  async function readPayment(tx: Conn, companyId: number, customer: repo.AccountCustomerRow, id: number) {
    const row = await repo.findPayment(tx, companyId, id);
    if (!row) throw new Error(`payment ${id} vanished`);
    const { summary } = await accountOf(tx, companyId, customer);
    return { payment: paymentWire(row), account: summary };
  }
}

export type AccountsService = ReturnType<typeof createAccountsService>;
