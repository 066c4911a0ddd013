import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/modules/demo/demo.service.ts';
import { BOOKS_CHECKS } from '../../src/modules/books/books.service.ts';
import { runCliOn } from '../cli/run-cli.ts';
import {
  type BooksApp,
  checkOf,
  closeBox,
  failing,
  makeShop,
  openBox,
  type Shop,
  sell,
  startBooksApp,
  verifyBooks,
} from './books-shop.ts';

/** `books verify`: clean after the real flows, and each check catches its own corrupted row. */
describe('books verify (CLI)', () => {
  let b: BooksApp;
  let s: Shop;
  /** Ids the corruptions aim at, from the flows below. */
  const ids = {} as { paidSale: number; splitSale: number; invoices: number[]; creditNote: number; session: number };

  beforeAll(async () => {
    b = await startBooksApp();
    s = await makeShop(b);
    const { call } = b;
    const { p21, p105, exempt, kg } = s.products;
    ids.session = await openBox(b, s);
    // Split payment with change: 2 × 3917.36 + 1.25 kg × 9000 = 19084.72; card 10000, cash 10000 → change 915.28.
    const split = await sell(
      b,
      s,
      [
        { product_id: p21, quantity: 2 },
        { product_id: kg, quantity: 1.25 },
      ],
      [
        { method: 'debito', amount: 10_000 },
        { method: 'efectivo', amount: 10_000 },
      ],
    );
    expect(split.status).toBe('paid');
    ids.splitSale = split.id;
    // A sale invoiced (B, final consumer), then cancelled with its credit note.
    const returned = await sell(b, s, [{ product_id: p105, quantity: 3 }], [{ method: 'transferencia', amount: 3316.5 }]);
    const paid = await sell(b, s, [{ product_id: exempt, quantity: 1 }], [{ method: 'qr', amount: 5000 }]);
    ids.paidSale = paid.id;
    ids.invoices = [];
    for (const saleId of [returned.id, paid.id, split.id]) {
      const res = await call('POST', `/api/v1/sales/${saleId}/invoice`, s.asCashier, {});
      expect(res.statusCode, res.body).toBe(201);
      ids.invoices.push(res.json().invoice.id);
    }
    const cancel = await call('POST', `/api/v1/sales/${returned.id}/cancel`, s.asAdmin, { reason: 'devolución' });
    expect(cancel.statusCode, cancel.body).toBe(200);
    // The cancel issued the credit note (issue 29); asking for it answers that one.
    const nc = await call('POST', `/api/v1/invoices/${ids.invoices[0]}/credit-note`, s.asAdmin);
    expect(nc.statusCode, nc.body).toBe(200);
    ids.creditNote = nc.json().invoice.id;
    // Stock movements: out, transfer, adjustment.
    for (const body of [
      { type: 'OUT', deposit_id: s.deposits.main, product_id: p21, amount: 3 },
      { type: 'TRANSFER', deposit_id: s.deposits.main, to_deposit_id: s.deposits.back, product_id: kg, amount: 10.5 },
      { type: 'ADJUSTMENT', deposit_id: s.deposits.back, product_id: kg, amount: 0.25 },
    ]) {
      const res = await call('POST', '/api/v1/movements', s.asAdmin, body);
      expect(res.statusCode, res.body).toBe(201);
    }
    await closeBox(b, s, ids.session);
  }, 300_000);
  afterAll(() => b.close());

  it('is clean after register sales with split payments and change, invoices, a credit note, movements and a close', async () => {
    const { code, report } = await verifyBooks(b, s.companyId);
    expect(failing(report)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(code).toBe(0);
    expect(report.checks.map((c) => c.name)).toEqual([...BOOKS_CHECKS]);
    expect(report.checks.every((c) => c.detail.violations === 0 && c.detail.rows.length === 0)).toBe(true);
    // The operator's reading: one line per check, in Spanish.
    const text = await runCliOn(b.t.container, ['books', 'verify', '--company', String(s.companyId)]);
    expect(text.code).toBe(0);
    const lines = text.out.trim().split('\n');
    expect(lines[0]).toMatch(/los números cierran/);
    expect(lines.slice(1)).toHaveLength(BOOKS_CHECKS.length);
    expect(lines.slice(1).every((l) => l.trim().startsWith('OK'))).toBe(true);
  });

  const db = () => b.t.container.db;
  const c = () => s.companyId;

  /**
   * Applies a corruption (statement pairs: apply, undo; every statement binds all of `params`, hence
   * the odd `$n::int > 0`), verifies, undoes it, and answers the report seen while corrupted.
   */
  async function corrupted(steps: [apply: string, undo: string][], params: unknown[]) {
    for (const [apply] of steps) await db().query(apply, params);
    try {
      const { code, report } = await verifyBooks(b, c());
      expect(code).toBe(1);
      expect(report.ok).toBe(false);
      return report;
    } finally {
      for (const [, undo] of steps.reverse()) await db().query(undo, params);
    }
  }

  it('stock_ledger: a deposit whose stock is not its movements (the product total moved with it)', async () => {
    const p = s.products.p105;
    const report = await corrupted(
      [
        [
          'UPDATE stock_levels SET quantity = quantity + 1 WHERE company_id = $1 AND product_id = $2 AND deposit_id = $3',
          'UPDATE stock_levels SET quantity = quantity - 1 WHERE company_id = $1 AND product_id = $2 AND deposit_id = $3',
        ],
        [
          'UPDATE products SET stock = stock + 1 WHERE company_id = $1 AND id = $2 AND $3::int > 0',
          'UPDATE products SET stock = stock - 1 WHERE company_id = $1 AND id = $2 AND $3::int > 0',
        ],
      ],
      [c(), p, s.deposits.main],
    );
    expect(failing(report)).toEqual(['stock_ledger']);
    expect(checkOf(report, 'stock_ledger').detail).toEqual({
      violations: 1,
      rows: [{ deposit_id: s.deposits.main, product_id: p, expected: '500.000', found: '501.000' }],
    });
  });

  it('stock_deposits: a product whose stock is not the sum of its deposits', async () => {
    const p = s.products.kg;
    const report = await corrupted(
      [
        [
          'UPDATE products SET stock = stock - 2 WHERE company_id = $1 AND id = $2',
          'UPDATE products SET stock = stock + 2 WHERE company_id = $1 AND id = $2',
        ],
      ],
      [c(), p],
    );
    expect(failing(report)).toEqual(['stock_deposits']);
    // 500 in, 1.25 kg sold, 10.5 moved to the back deposit, where an adjustment counted 0.25.
    expect(checkOf(report, 'stock_deposits').detail).toEqual({
      violations: 1,
      rows: [{ product_id: p, expected: '488.500', found: '486.500' }],
    });
  });

  it('sale_totals: a sale whose lines do not add up to its total', async () => {
    const report = await corrupted(
      [
        [
          'UPDATE sale_items SET subtotal = subtotal + 0.01 WHERE company_id = $1 AND sale_id = $2 AND id = 1',
          'UPDATE sale_items SET subtotal = subtotal - 0.01 WHERE company_id = $1 AND sale_id = $2 AND id = 1',
        ],
      ],
      [c(), ids.splitSale],
    );
    expect(failing(report)).toEqual(['sale_totals']);
    expect(checkOf(report, 'sale_totals').detail).toEqual({
      violations: 1,
      rows: [{ sale_id: ids.splitSale, expected_cents: 1_908_473, found_cents: 1_908_472 }],
    });
  });

  it('sale_payments: cash whose change does not net to what it paid', async () => {
    const report = await corrupted(
      [
        [
          "UPDATE sale_payments SET change = change + 1 WHERE company_id = $1 AND sale_id = $2 AND method = 'efectivo'",
          "UPDATE sale_payments SET change = change - 1 WHERE company_id = $1 AND sale_id = $2 AND method = 'efectivo'",
        ],
      ],
      [c(), ids.splitSale],
    );
    expect(failing(report)).toEqual(['sale_payments']);
    const detail = checkOf(report, 'sale_payments').detail;
    // Tendered 10000 − change 916.28 = 9083.72, but the row says 9084.72; and the sale's change (915.28) is no longer its rows'.
    expect(detail.violations).toBe(2);
    expect(detail.rows).toEqual([
      { sale_id: ids.splitSale, problem: 'cash_change', payment_id: 2, expected_cents: 908_372, found_cents: 908_472 },
      { sale_id: ids.splitSale, problem: 'register_change', payment_id: null, expected_cents: 91_628, found_cents: 91_528 },
    ]);
  });

  it('sale_payments: a paid sale whose payments are not its total (the day summary disagrees too)', async () => {
    const report = await corrupted(
      [
        [
          'UPDATE sale_payments SET amount = amount - 1 WHERE company_id = $1 AND sale_id = $2',
          'UPDATE sale_payments SET amount = amount + 1 WHERE company_id = $1 AND sale_id = $2',
        ],
      ],
      [c(), ids.paidSale],
    );
    expect(failing(report)).toEqual(['sale_payments', 'closed_shifts', 'day_summaries']);
    expect(checkOf(report, 'sale_payments').detail.rows).toEqual([
      { sale_id: ids.paidSale, problem: 'paid_total', payment_id: null, expected_cents: 500_000, found_cents: 499_900 },
    ]);
  });

  it("closed_shifts: a closed shift whose stored report is not its rows'", async () => {
    const report = await corrupted(
      [
        [
          `UPDATE box_sessions SET expected = jsonb_set(expected, '{qr}', to_jsonb((expected->>'qr')::numeric + 10)) WHERE company_id = $1 AND id = $2`,
          `UPDATE box_sessions SET expected = jsonb_set(expected, '{qr}', to_jsonb((expected->>'qr')::numeric - 10)) WHERE company_id = $1 AND id = $2`,
        ],
      ],
      [c(), ids.session],
    );
    expect(failing(report)).toEqual(['closed_shifts']);
    expect(checkOf(report, 'closed_shifts').detail).toEqual({
      violations: 1,
      rows: [{ session_id: ids.session, figure: 'expected:qr', expected: 500_000, found: 501_000 }],
    });
  });

  it('sale_payments: a sale whose payments cover its total left pending', async () => {
    const report = await corrupted(
      [
        [
          "UPDATE sales SET status = 'pending' WHERE company_id = $1 AND id = $2",
          "UPDATE sales SET status = 'paid' WHERE company_id = $1 AND id = $2",
        ],
      ],
      [c(), ids.paidSale],
    );
    // The day summary counts what a pending sale still owes beyond its payments (cuenta corriente,
    // issue 28): its headline adds up; the sale's own check catches it.
    expect(failing(report)).toEqual(['sale_payments']);
    const rows = checkOf(report, 'sale_payments').detail.rows as { problem: string; sale_id: number }[];
    expect(rows.map((r) => [r.problem, r.sale_id])).toEqual([['pending_covered', ids.paidSale]]);
  });

  it('invoice_totals: an invoice whose IVA does not add up', async () => {
    const invoice = ids.invoices[2]!;
    const report = await corrupted(
      [
        [
          'UPDATE invoices SET iva = iva + 0.01 WHERE company_id = $1 AND id = $2',
          'UPDATE invoices SET iva = iva - 0.01 WHERE company_id = $1 AND id = $2',
        ],
      ],
      [c(), invoice],
    );
    expect(failing(report)).toEqual(['invoice_totals']);
    const detail = checkOf(report, 'invoice_totals').detail;
    expect(detail.rows.map((r) => [r['invoice_id'], r['problem']])).toEqual([
      [invoice, 'iva_lines'],
      [invoice, 'parts'],
    ]);
    const parts = detail.rows.find((r) => r['problem'] === 'parts')!;
    expect(parts).toMatchObject({ expected_cents: 1_908_472, found_cents: 1_908_473 });
  });

  it('invoice_matches_sale: an invoice filed under a sale of another amount', async () => {
    const invoice = ids.invoices[1]!;
    const report = await corrupted(
      [
        [
          'UPDATE invoices SET sale_id = $3 WHERE company_id = $1 AND id = $2 AND $4::int > 0',
          'UPDATE invoices SET sale_id = $4 WHERE company_id = $1 AND id = $2 AND $3::int > 0',
        ],
      ],
      [c(), invoice, ids.splitSale, ids.paidSale],
    );
    expect(failing(report)).toEqual(['invoice_matches_sale']);
    expect(checkOf(report, 'invoice_matches_sale').detail).toEqual({
      violations: 1,
      rows: [{ invoice_id: invoice, sale_id: ids.splitSale, problem: 'sale', expected_cents: 1_908_472, found_cents: 500_000 }],
    });
  });

  it('invoice_numbering: a number skipped in a series', async () => {
    const [numbers] = await db().query<{ number: string; type: string }>(
      'SELECT number::text, type FROM invoices WHERE company_id = $1 AND id = $2',
      [c(), ids.invoices[2]],
    );
    const report = await corrupted(
      [
        [
          'UPDATE invoices SET number = number + 3 WHERE company_id = $1 AND id = $2',
          'UPDATE invoices SET number = number - 3 WHERE company_id = $1 AND id = $2',
        ],
      ],
      [c(), ids.invoices[2]],
    );
    expect(failing(report)).toEqual(['invoice_numbering']);
    const n = Number(numbers!.number);
    expect(checkOf(report, 'invoice_numbering').detail.rows).toEqual([
      { series: expect.stringContaining(`${numbers!.type} 0001`), number: n + 3, problem: 'gap', expected: n, found: n + 3 },
    ]);
  });

  it('outbound_events: a movement whose movement.created event is missing', async () => {
    const [movement] = await db().query<{ id: number }>("SELECT id FROM movements WHERE company_id = $1 AND type = 'TRANSFER'", [
      c(),
    ]);
    const [event] = await db().query<{ id: string; payload: unknown; created_at: string; tx_id: string }>(
      `SELECT id::text, payload, created_at::text, tx_id::text FROM outbox_events
        WHERE company_id = $1 AND event = 'movement.created' AND payload->'data'->'movement'->>'id' = $2::text`,
      [c(), movement!.id],
    );
    await db().query('DELETE FROM outbox_events WHERE id = $1::uuid', [event!.id]);
    try {
      const { code, report } = await verifyBooks(b, c());
      expect(code).toBe(1);
      expect(failing(report)).toEqual(['outbound_events']);
      expect(checkOf(report, 'outbound_events').detail).toEqual({
        violations: 1,
        rows: [{ event: 'movement.created', row_id: movement!.id }],
      });
    } finally {
      await db().query(
        `INSERT INTO outbox_events (id, company_id, event, payload, created_at, tx_id, dispatched_at)
          VALUES ($1::uuid, $2, 'movement.created', $3::jsonb, $4::timestamptz, $5::bigint, now())`,
        [event!.id, c(), JSON.stringify(event!.payload), event!.created_at, event!.tx_id],
      );
    }
    expect((await verifyBooks(b, c())).report.ok).toBe(true);
  });

  it('answers usage errors with exit 2, an unknown company with exit 1, and --all one report per company', async () => {
    const cli = (...argv: string[]) => runCliOn(b.t.container, argv);
    expect((await cli('books', 'verify')).code).toBe(2);
    expect((await cli('books', 'verify', '--company', '1', '--all')).code).toBe(2);
    const missing = await cli('books', 'verify', '--company', '999999');
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/company 999999 does not exist/);
    const all = await cli('books', 'verify', '--all', '--json');
    const json = JSON.parse(all.out) as { ok: boolean; companies: { company_id: number; ok: boolean }[] };
    expect(json.companies.find((x) => x.company_id === s.companyId)).toMatchObject({ ok: true });
    expect(json.ok).toBe(json.companies.every((x) => x.ok));
    expect(all.code).toBe(json.ok ? 0 : 1);
  });

  it('the demo company is clean: its integration sales paid have their payment rows, in their own group', async () => {
    const demo = await seedDemo(b.t.container);
    const { code, report } = await verifyBooks(b, demo.companyId);
    expect(failing(report), JSON.stringify(report.checks.filter((x) => !x.ok))).toEqual([]);
    expect(code).toBe(0);
    const paid = await db().query<{ id: number; total: string; payments: string; method: string | null }>(
      `SELECT s.id, s.total::text, coalesce(sum(p.amount), 0)::text AS payments, min(p.method) AS method
        FROM sales s LEFT JOIN sale_payments p ON p.company_id = s.company_id AND p.sale_id = s.id
        WHERE s.company_id = $1 AND s.status = 'paid'
          AND NOT EXISTS (SELECT 1 FROM register_sales r WHERE r.company_id = s.company_id AND r.sale_id = s.id)
        GROUP BY s.id, s.total ORDER BY s.id`,
      [demo.companyId],
    );
    expect(paid.length).toBeGreaterThan(0);
    for (const x of paid) {
      expect(Number(x.payments)).toBe(Number(x.total));
      expect(x.method).not.toBeNull();
    }
  });
}, 600_000);
