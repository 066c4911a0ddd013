import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saleCreated } from '../integration-helpers.ts';
import {
  type BooksApp,
  checkOf,
  closeBox,
  failing,
  makeShop,
  openBox,
  type Payment,
  type Shop,
  sell,
  sendIntegration,
  startBooksApp,
  verifyBooks,
} from './books-shop.ts';

/** Runs of the property; BOOKS_RUNS=200 for a long run. */
const RUNS = Number(process.env['BOOKS_RUNS'] ?? 3);

type ProductKey = 'p21' | 'p105' | 'exempt' | 'kg';
const productKey = fc.constantFrom<ProductKey>('p21', 'p105', 'exempt', 'kg');
const card = fc.constantFrom('debito', 'credito', 'qr', 'transferencia');

const item = fc.record({ product: productKey, units: fc.integer({ min: 1, max: 3 }), grams: fc.integer({ min: 5, max: 2500 }) });

const action = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('sell' as const),
      items: fc.array(item, { minLength: 1, maxLength: 3 }),
      pay: fc.constantFrom('exact', 'cash_change', 'split', 'pending'),
      card,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('pay' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('invoice' as const), pick: fc.nat(), letterA: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('credit_note' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('integration' as const),
      product: productKey,
      outcome: fc.constantFrom('pending', 'paid', 'cancelled'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('movement' as const),
      type: fc.constantFrom('IN', 'OUT', 'TRANSFER'),
      product: productKey,
      amount: fc.integer({ min: 1, max: 40 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('close' as const) }) },
);

type Action = typeof action extends fc.Arbitrary<infer A> ? A : never;

interface SaleModel {
  id: number;
  cents: number;
  status: 'pending' | 'paid' | 'cancelled';
  sessionId: number;
  invoiceId: number | null;
}

interface Model {
  session: number;
  /** Each closed session with the report its close answered (the printed close). */
  closed: Map<number, { report: unknown }>;
  sales: SaleModel[];
  /** Integration sales the sender reported paid (cents). */
  integrationPaid: { id: number; cents: number }[];
  /** Sales of a closed shift cancelled after its close, by session. */
  cancelledAfterClose: Map<number, { count: number; cents: number }>;
  nextIntegrationId: number;
}

const PRICES: Record<ProductKey, number> = { p21: 3917.36, p105: 1105.5, exempt: 5000, kg: 9000 };
const cents = (pesos: number) => Math.round(pesos * 100);

/** Random days of activity, then `books verify` and the API's own sums. */
describe('books verify over random days of activity (fast-check)', () => {
  let b: BooksApp;
  beforeAll(async () => {
    b = await startBooksApp();
  }, 120_000);
  afterAll(() => b.close());

  async function run(s: Shop, mono: boolean, actions: Action[]) {
    const { call } = b;
    const m: Model = {
      session: await openBox(b, s),
      closed: new Map(),
      sales: [],
      integrationPaid: [],
      cancelledAfterClose: new Map(),
      nextIntegrationId: 70_000,
    };
    const pick = <T>(list: T[], n: number) => (list.length ? list[n % list.length]! : undefined);
    const pay = async (sale: SaleModel, payments: Payment[]) => {
      const res = await call('POST', `/api/v1/sales/${sale.id}/pay`, s.asCashier, { payments });
      expect(res.statusCode, res.body).toBe(200);
      sale.status = 'paid';
    };
    const cancel = async (sale: SaleModel) => {
      const res = await call('POST', `/api/v1/sales/${sale.id}/cancel`, s.asAdmin, { reason: 'devolución' });
      expect(res.statusCode, res.body).toBe(200);
      sale.status = 'cancelled';
      if (m.closed.has(sale.sessionId)) {
        const hit = m.cancelledAfterClose.get(sale.sessionId) ?? { count: 0, cents: 0 };
        m.cancelledAfterClose.set(sale.sessionId, { count: hit.count + 1, cents: hit.cents + sale.cents });
      }
    };
    for (const a of actions) {
      switch (a.kind) {
        case 'sell': {
          const items = a.items.map((i) => ({
            product_id: s.products[i.product],
            quantity: i.product === 'kg' ? i.grams / 1000 : i.units,
          }));
          const estimate = items.reduce((sum, i, n) => sum + PRICES[a.items[n]!.product] * i.quantity, 0);
          // Cash over the total at the counter: change.
          const inline =
            a.pay === 'cash_change' ? [{ method: 'efectivo', amount: Math.ceil(estimate / 1000) * 1000 + 1000 }] : [];
          const created = await sell(b, s, items, inline);
          const sale: SaleModel = {
            id: created.id,
            cents: cents(created.total),
            status: created.status as 'paid',
            sessionId: m.session,
            invoiceId: null,
          };
          m.sales.push(sale);
          const total = sale.cents;
          if (a.pay === 'exact') await pay(sale, [{ method: a.card, amount: total / 100 }]);
          if (a.pay === 'split') {
            const part = Math.floor(total / 2);
            await pay(sale, [
              { method: a.card, amount: part / 100 },
              { method: 'efectivo', amount: (total - part + 500) / 100 },
            ]);
          }
          break;
        }
        case 'pay': {
          const sale = pick(
            m.sales.filter((x) => x.status === 'pending'),
            a.pick,
          );
          if (sale) await pay(sale, [{ method: 'efectivo', amount: Math.ceil(sale.cents / 100) + 100 }]);
          break;
        }
        case 'cancel': {
          const sale = pick(
            m.sales.filter((x) => x.status !== 'cancelled' && x.invoiceId === null),
            a.pick,
          );
          if (sale) await cancel(sale);
          break;
        }
        case 'invoice': {
          const sale = pick(
            m.sales.filter((x) => x.status === 'paid' && x.invoiceId === null),
            a.pick,
          );
          if (!sale) break;
          const buyer =
            !mono && a.letterA
              ? { buyer: { doc_type: 'cuit', doc_number: '30-50001091-2', iva_condition: 1, name: 'Distribuidora Sur S.A.' } }
              : {};
          const res = await call('POST', `/api/v1/sales/${sale.id}/invoice`, s.asCashier, buyer);
          expect(res.statusCode, res.body).toBe(201);
          expect(res.json().invoice.type).toBe(mono ? 'C' : a.letterA ? 'A' : 'B');
          sale.invoiceId = res.json().invoice.id;
          break;
        }
        case 'credit_note': {
          const sale = pick(
            m.sales.filter((x) => x.status !== 'cancelled' && x.invoiceId !== null),
            a.pick,
          );
          if (!sale) break;
          await cancel(sale);
          const res = await call('POST', `/api/v1/invoices/${sale.invoiceId}/credit-note`, s.asAdmin);
          expect(res.statusCode, res.body).toBe(201);
          break;
        }
        case 'integration': {
          // The sender picks the id; register sales take the next free ones after it, so leave room.
          const id = m.nextIntegrationId;
          m.nextIntegrationId += 1000;
          await sendIntegration(b, s, saleCreated(id, s.products[a.product]));
          if (a.outcome === 'paid') {
            await sendIntegration(b, s, {
              event: 'sales.paid',
              data: { sale: { id, payment_method: 'qr', payment_id: `MP-${id}` } },
            });
            m.integrationPaid.push({ id, cents: 30_000 });
          }
          if (a.outcome === 'cancelled') {
            await sendIntegration(b, s, { event: 'sales.cancelled', data: { sale: { id, cancellation_reason: 'sin stock' } } });
          }
          break;
        }
        case 'movement': {
          const body = {
            type: a.type,
            deposit_id: s.deposits.main,
            product_id: s.products[a.product],
            amount: a.product === 'kg' ? a.amount / 4 : a.amount,
            ...(a.type === 'TRANSFER' && { to_deposit_id: s.deposits.back }),
          };
          const res = await call('POST', '/api/v1/movements', s.asAdmin, body);
          expect(res.statusCode, res.body).toBe(201);
          break;
        }
        case 'close': {
          m.closed.set(m.session, { report: await closeBox(b, s, m.session) });
          m.session = await openBox(b, s, 500);
          break;
        }
      }
    }
    m.closed.set(m.session, { report: await closeBox(b, s, m.session) });
    return m;
  }

  /**
   * The API's own reports add up: each close per method and exactly as it was answered at its close
   * (later cancellations only in later_refunds), each day's boxes and methods.
   */
  async function expectReportsAddUp(s: Shop, m: Model) {
    for (const [sid, atClose] of m.closed) {
      const { later_refunds: later, ...report } = (await b.call('GET', `/api/v1/box-sessions/${sid}`, s.asAdmin)).json();
      const { later_refunds: _, ...closed } = atClose.report as Record<string, unknown>;
      expect(report, `session ${sid} as closed`).toEqual(closed);
      const hit = m.cancelledAfterClose.get(sid);
      expect(later.length, `session ${sid} later refunds`).toBe(hit?.count ?? 0);
      expect(later.reduce((sum: number, x: { total: number }) => sum + cents(x.total), 0)).toBe(hit?.cents ?? 0);
      const taken = new Map<string, number>(
        report.payments.map((p: { method: string; amount: number }) => [p.method, cents(p.amount)]),
      );
      const refunded = new Map<string, number>(
        report.refunds.map((p: { method: string; amount: number }) => [p.method, cents(p.amount)]),
      );
      for (const [method, amount] of Object.entries(report.expected as Record<string, number>)) {
        const cash =
          method === 'efectivo' ? cents(report.session.opening_cash) + cents(report.cash_in) - cents(report.cash_out) : 0;
        expect(cents(amount), `session ${sid} ${method}`).toBe((taken.get(method) ?? 0) - (refunded.get(method) ?? 0) + cash);
      }
    }
    // The run's day in the company's time zone (the summary's day).
    const date = new Date().toLocaleDateString('en-CA', { timeZone: 'America/Argentina/Buenos_Aires' });
    const summary = (await b.call('GET', `/api/v1/sales/summary?date=${date}`, s.asAdmin)).json();
    const boxes = summary.by_box.reduce((sum: number, x: { total: number }) => sum + cents(x.total), 0);
    expect(boxes).toBe(cents(summary.total));
    const methods = summary.by_method.reduce((sum: number, x: { amount: number }) => sum + cents(x.amount), 0);
    expect(methods + cents(summary.pending)).toBe(cents(summary.total));
    // The integration's paid sales count under the method their sender named (qr here), in their own group.
    const integration = summary.by_box.filter((x: { origin: string }) => x.origin === 'integration');
    expect(integration.every((x: { box_id: number | null }) => x.box_id === null)).toBe(true);
    for (const paid of m.integrationPaid) {
      const sale = (await b.call('GET', `/api/v1/sales/${paid.id}`, s.asAdmin)).json().sale;
      expect(
        sale.payments.map((p: { method: string; amount: number; reference: string }) => [p.method, cents(p.amount), p.reference]),
      ).toEqual([['qr', paid.cents, `MP-${paid.id}`]]);
    }
  }

  it(
    'after any day of register sales, payments with change, weighed items, integration sales, cancels before and after a close, invoices A/B/C, credit notes and movements, books verify is clean and every summary and close adds up',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.boolean(), fc.array(action, { minLength: 4, maxLength: 14 }), async (mono, actions) => {
          const s = await makeShop(b, mono ? 'monotributo' : 'responsable_inscripto');
          const m = await run(s, mono, actions);
          const { code, report } = await verifyBooks(b, s.companyId);
          expect(failing(report), JSON.stringify(report.checks.filter((c) => !c.ok))).toEqual([]);
          expect(code).toBe(0);
          await expectReportsAddUp(s, m);
        }),
        { numRuns: RUNS, endOnFailure: true },
      );
    },
    Math.max(300_000, RUNS * 60_000),
  );

  it('proves a deliberately corrupted row fails the check (a day whose sale lost a line)', async () => {
    const s = await makeShop(b);
    const session = await openBox(b, s);
    const sale = await sell(b, s, [{ product_id: s.products.p21, quantity: 2 }], [{ method: 'efectivo', amount: 10_000 }]);
    await closeBox(b, s, session);
    expect((await verifyBooks(b, s.companyId)).report.ok).toBe(true);
    await b.t.container.db.query('DELETE FROM sale_items WHERE company_id = $1 AND sale_id = $2', [s.companyId, sale.id]);
    const { code, report } = await verifyBooks(b, s.companyId);
    expect(code).toBe(1);
    expect(failing(report)).toEqual(['sale_totals']);
    expect(checkOf(report, 'sale_totals').detail.rows).toEqual([{ sale_id: sale.id, expected_cents: 0, found_cents: 783_472 }]);
  }, 120_000);
});
