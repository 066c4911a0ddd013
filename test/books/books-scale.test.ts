import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany } from '../factories.ts';
import { runCliOn } from '../cli/run-cli.ts';

/** Sales of the big company; BOOKS_SCALE=100000 to measure (the time is printed). */
const SALES = Number(process.env['BOOKS_SCALE'] ?? 2000);

/**
 * A company with many consistent rows written set-based (sales with their line, payment, register
 * row, stock movement and events, shifts closed with their expected cash, ARCA invoices numbered
 * in a row): `books verify` finds it clean, with one statement per check.
 */
describe('books verify on a big company', () => {
  let t: TestApp;
  let companyId: number;
  beforeAll(async () => {
    t = await buildTestApp();
    companyId = (await makeCompany(t.container)).id;
    const q = (text: string) => t.container.db.query(text, [companyId, SALES]);
    // 50 products, 1000 units each in the default deposit (1), through IN movements.
    await q(`INSERT INTO products (company_id, id, name, base_price, stock)
      SELECT $1, g, 'Producto ' || g, 100 + g, 0 FROM generate_series(1, 50) g WHERE $2::int > 0`);
    await q(`INSERT INTO movements (company_id, id, type, deposit_id, product_id, amount, created_at, recorded_at)
      SELECT $1, g, 'IN', 1, g, 1000, now() - interval '101 days', now() - interval '101 days' FROM generate_series(1, 50) g
      WHERE $2::int > 0`);
    // One closed shift per 500 sales, spread over the last 100 days.
    await q(`INSERT INTO box_sessions (company_id, id, box_id, status, opening_cash, opened_at, opened_by, counted, closed_at, closed_by)
      SELECT $1, g, 1, 'closed', 0, now() - (100 - g * 100.0 / ceil($2 / 500.0)) * interval '1 day', 'scale', '{}'::jsonb,
        now() - (100 - g * 100.0 / ceil($2 / 500.0)) * interval '1 day' + interval '10 hours', 'scale'
      FROM generate_series(1, ceil($2 / 500.0)::int) g`);
    await q(`INSERT INTO sales (company_id, id, box_id, total, status, payment_method, paid_at, created_at, updated_at)
      SELECT $1, g, 1, 100 + (g % 50) + 1, 'paid', 'debito', b.opened_at + interval '1 hour', b.opened_at + interval '1 hour', now()
      FROM generate_series(1, $2::int) g JOIN box_sessions b ON b.company_id = $1 AND b.id = (g - 1) / 500 + 1`);
    await q(`INSERT INTO sale_items (company_id, sale_id, id, product_id, quantity, price, subtotal)
      SELECT $1, id, 1, (id % 50) + 1, 1, total, total FROM sales WHERE company_id = $1 AND $2::int > 0`);
    await q(`INSERT INTO register_sales (company_id, sale_id, box_session_id, deposit_id, idempotency_key, request_sha256, sold_by, sold_at)
      SELECT $1, id, (id - 1) / 500 + 1, 1, 'k' || id, repeat('0', 64), 'scale', created_at FROM sales WHERE company_id = $1 AND $2::int > 0`);
    await q(`INSERT INTO sale_payments (company_id, sale_id, id, method, amount, box_session_id, created_at)
      SELECT $1, id, 1, 'debito', total, (id - 1) / 500 + 1, created_at FROM sales WHERE company_id = $1 AND $2::int > 0`);
    await q(`UPDATE box_sessions b SET expected = jsonb_build_object('efectivo', '0.00', 'debito',
        (SELECT sum(amount)::text FROM sale_payments p WHERE p.company_id = $1 AND p.box_session_id = b.id)),
        sales_count = (SELECT count(*) FROM register_sales r WHERE r.company_id = $1 AND r.box_session_id = b.id),
        sales_total = (SELECT sum(s.total) FROM register_sales r JOIN sales s ON s.company_id = r.company_id AND s.id = r.sale_id
          WHERE r.company_id = $1 AND r.box_session_id = b.id)
      WHERE b.company_id = $1 AND $2::int > 0`);
    await q(`INSERT INTO movements (company_id, id, type, deposit_id, product_id, amount, reason, created_at, recorded_at)
      SELECT $1, 50 + id, 'OUT', 1, (id % 50) + 1, 1, 'venta ' || id, created_at, created_at FROM sales WHERE company_id = $1 AND $2::int > 0`);
    await q(`INSERT INTO stock_levels (company_id, deposit_id, product_id, quantity)
      SELECT $1, 1, product_id, sum(CASE WHEN type = 'OUT' THEN -amount ELSE amount END) FROM movements
      WHERE company_id = $1 AND $2::int > 0 GROUP BY product_id`);
    await q(`UPDATE products p SET stock = l.quantity FROM stock_levels l
      WHERE p.company_id = $1 AND l.company_id = $1 AND l.product_id = p.id AND $2::int > 0`);
    // One invoice B per five sales, numbered 1, 2, 3… on point of sale 1.
    await q(`INSERT INTO invoices (company_id, id, sale_id, type, point_of_sale, number, cae, cae_expiration, total, issued_at, source,
        kind, receipt_code, net, iva, exempt, iva_lines, environment, issuer_cuit)
      SELECT $1, n, s.id, 'B', 1, n, '7' || lpad(n::text, 13, '0'), s.created_at + interval '10 days', s.total, s.created_at, 'arca',
        'invoice', 6, round(s.total / 1.21, 2), s.total - round(s.total / 1.21, 2), 0,
        jsonb_build_array(jsonb_build_object('id', 5, 'rate', '21', 'base', round(s.total / 1.21, 2)::text,
          'amount', (s.total - round(s.total / 1.21, 2))::text)),
        'homologacion', '30712345671'
      FROM (SELECT id, total, created_at, row_number() OVER (ORDER BY id) AS n FROM sales
        WHERE company_id = $1 AND id % 5 = 0 AND $2::int > 0) s`);
    // The events of the last 30 days (older ones may have been pruned after delivery).
    await q(`INSERT INTO outbox_events (id, company_id, event, payload, created_at, dispatched_at)
      SELECT gen_random_uuid(), $1, e.event, jsonb_build_object('event', e.event, 'data', jsonb_build_object(e.key, jsonb_build_object('id', e.id))),
        now(), now()
      FROM (
        SELECT 'sales.created' AS event, 'sale' AS key, id FROM sales WHERE company_id = $1 AND created_at >= now() - interval '31 days'
        UNION ALL SELECT 'sales.paid', 'sale', id FROM sales WHERE company_id = $1 AND paid_at >= now() - interval '31 days'
        UNION ALL SELECT 'movement.created', 'movement', id FROM movements WHERE company_id = $1 AND recorded_at >= now() - interval '31 days'
        UNION ALL SELECT 'invoice.issued', 'invoice', id FROM invoices WHERE company_id = $1 AND issued_at >= now() - interval '31 days'
      ) e WHERE $2::int > 0`);
  }, 1_200_000);
  afterAll(() => t.close());

  it(`is clean on ${SALES} sales, and says how long it took`, async () => {
    const started = performance.now();
    const { code, out, err } = await runCliOn(t.container, ['books', 'verify', '--company', String(companyId), '--json']);
    const ms = performance.now() - started;
    expect(err).toBe('');
    const report = JSON.parse(out) as { ok: boolean; checks: { name: string; ok: boolean }[] };
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(code).toBe(0);
    console.log(`books verify: ${SALES} sales, ${report.checks.length} checks, ${Math.round(ms)} ms`);
  }, 1_200_000);
});
