/**
 * Reports on a year of sales (issue 30): one company with BENCH_REPORT_LINES sale lines (default
 * 1,000,000, three per sale) spread over the last 365 days, a third of its sales invoiced (Factura B
 * with CAE, production), plus 100 other companies with a month of smaller sales each, all seeded
 * with INSERT … SELECT generate_series on a scratch PostgreSQL database. Then, through the
 * services the routes call, it times the day summary, Inicio, sales by product for a month and the
 * Libro IVA Digital files for a month, printing `reports: <name> p99 <ms> ms`. Targets: Inicio ≤ 150
 * ms, a month's report ≤ 500 ms, the IVA book ≤ 2 s. The ratio `--compare` watches is each one's
 * median against the median of a primary key lookup of one sale through the same pool: with 40
 * rounds a p99 is the slowest round, and one hiccup moved a p99-over-p99 ratio by a third. Creates
 * and drops its own database on BENCH_DATABASE_URL.
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { cliCtx } from '../src/http/request-context.ts';
import { positiveInt, runCleanups, SERVER_SHOWN, scratchContainer } from './common.ts';
import { type Figure, figure, median } from './results.ts';

const LINES = positiveInt('BENCH_REPORT_LINES', 1_000_000);
const OTHERS = positiveInt('BENCH_REPORT_OTHERS', 100);
const ROUNDS = positiveInt('BENCH_REPORT_ROUNDS', 40);
const BOOK_ROUNDS = positiveInt('BENCH_REPORT_BOOK_ROUNDS', 5);
const PRODUCTS = 2000;
const TZ = 'America/Argentina/Buenos_Aires';

type Query = (text: string, params?: unknown[]) => Promise<unknown>;

/** The big company's catalogue, a year of sales with three lines each, payments and invoices. */
export async function seedMain(q: Query, c: number, sales: number) {
  await q(`INSERT INTO categories (company_id, id, name) SELECT $1, g, 'Rubro ' || g FROM generate_series(1, 20) g`, [c]);
  await q(
    `INSERT INTO products (company_id, id, name, base_price, cost, category_id, mark, min_stock, stock, iva_rate)
     SELECT $1, g, 'Producto ' || g, 100 + g % 900, CASE WHEN g % 5 = 0 THEN NULL ELSE 60 + g % 500 END, 1 + g % 20,
       'Marca ' || g % 30, CASE WHEN g % 10 = 0 THEN 200 END, g % 300, CASE WHEN g % 7 = 0 THEN '10.5' ELSE '21' END
     FROM generate_series(1, ${PRODUCTS}) g`,
    [c],
  );
  await q(
    `INSERT INTO stock_levels (company_id, deposit_id, product_id, quantity) SELECT $1, 1, id, stock FROM products WHERE company_id = $1`,
    [c],
  );
  // Line k of sale g: product 1 + (7g + 13k) mod N, quantity 1 + (g + k) mod 3, at the product's price.
  const product = `(1 + (g * 7 + k * 13) % ${PRODUCTS})`;
  const price = `(100 + ${product} % 900)`;
  const quantity = '(1 + (g + k) % 3)';
  const at = `now() - interval '365 days' + g * (365 * 86400.0 / ${sales}) * interval '1 second'`;
  await q(
    `INSERT INTO sales (company_id, id, box_id, total, status, payment_method, created_at, updated_at, paid_at)
     SELECT $1, g, 1, (SELECT sum(${quantity} * ${price}) FROM generate_series(0, 2) k),
       CASE WHEN g % 50 = 0 THEN 'cancelled' WHEN g % 10 = 0 THEN 'pending' ELSE 'paid' END, 'efectivo', ${at}, ${at},
       CASE WHEN g % 10 <> 0 THEN ${at} END
     FROM generate_series(1, ${sales}) g`,
    [c],
  );
  await q(
    `INSERT INTO sale_items (company_id, sale_id, id, product_id, quantity, price, subtotal)
     SELECT $1, g, k + 1, ${product}, ${quantity}, ${price}, ${quantity} * ${price}
     FROM generate_series(1, ${sales}) g CROSS JOIN generate_series(0, 2) k`,
    [c],
  );
  await q(
    `INSERT INTO sale_payments (company_id, sale_id, id, method, amount, created_at)
     SELECT company_id, id, 1, (ARRAY['efectivo', 'debito', 'credito', 'qr', 'transferencia'])[1 + id % 5], total, created_at
     FROM sales WHERE company_id = $1 AND status = 'paid'`,
    [c],
  );
  await q(
    `INSERT INTO company_fiscal (company_id, iva_condition, environment) VALUES ($1, 'responsable_inscripto', 'produccion')`,
    [c],
  );
  await q(
    `INSERT INTO invoices (company_id, id, sale_id, type, point_of_sale, number, cae, cae_expiration, total, issued_at, source, kind,
       receipt_code, issue_date, doc_type, doc_number, receiver_iva_condition, net, iva, exempt, iva_lines, environment, issuer_cuit)
     SELECT company_id, n, id, 'B', 1, n, '7' || lpad(n::text, 13, '0'), created_at + interval '10 days', total, created_at, 'arca',
       'invoice', 6, (created_at AT TIME ZONE '${TZ}')::date, 99, '0', 5, net, total - net, 0,
       jsonb_build_array(jsonb_build_object('id', 5, 'rate', '21', 'base', net::text, 'amount', (total - net)::text)),
       'produccion', '30712345671'
     FROM (SELECT s.*, row_number() OVER (ORDER BY id) AS n, round(total / 1.21, 2) AS net FROM sales s
           WHERE company_id = $1 AND id % 3 = 0 AND status <> 'cancelled') AS x`,
    [c],
  );
}

/** The other companies: 100 products and 1,000 two-line sales each over the last 30 days. */
export async function seedOthers(q: Query, ids: number[]) {
  await q(
    `INSERT INTO products (company_id, id, name, base_price, cost)
     SELECT c, g, 'Artículo ' || g, 50 + g, 30 + g FROM unnest($1::int[]) c CROSS JOIN generate_series(1, 100) g`,
    [ids],
  );
  await q(
    `INSERT INTO sales (company_id, id, box_id, total, status, created_at, updated_at)
     SELECT c, g, 1, (50 + 1 + g % 100) + (50 + 1 + (g + 1) % 100), 'pending', now() - g * interval '43 minutes', now()
     FROM unnest($1::int[]) c CROSS JOIN generate_series(1, 1000) g`,
    [ids],
  );
  await q(
    `INSERT INTO sale_items (company_id, sale_id, id, product_id, quantity, price, subtotal)
     SELECT c, g, k + 1, 1 + (g + k) % 100, 1, 50 + 1 + (g + k) % 100, 50 + 1 + (g + k) % 100
     FROM unnest($1::int[]) c CROSS JOIN generate_series(1, 1000) g CROSS JOIN generate_series(0, 1) k`,
    [ids],
  );
}

async function timed(rounds: number, fn: () => Promise<unknown>): Promise<number[]> {
  await fn(); // warm: plans and caches
  const times: number[] = [];
  for (let n = 0; n < rounds; n++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b);
}

const p99 = (sorted: number[]) => sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!;
const round1 = (ms: number) => Math.round(ms * 10) / 10;

export default async function run(): Promise<Figure[]> {
  const { container, cleanups } = await scratchContainer('bench_reports', 4);
  try {
    const q: Query = (text, params) => container.db.query(text, params);
    const main = (await container.companies.createCompany({ name: 'Almacén grande', cuit: null })).company.id;
    const others: number[] = [];
    for (let n = 0; n < OTHERS; n++)
      others.push((await container.companies.createCompany({ name: `Otro ${n}`, cuit: null })).company.id);
    const sales = Math.ceil(LINES / 3);
    const seedStart = performance.now();
    await seedMain(q, main, sales);
    await seedOthers(q, others);
    await q('ANALYZE');
    const seedSeconds = (performance.now() - seedStart) / 1000;
    const [lines] = (await q('SELECT count(*)::int AS n FROM sale_items WHERE company_id = $1', [main])) as { n: number }[];
    process.stdout.write(
      `reports: seeded ${lines!.n} sale lines (${sales} sales) over a year for one company and ${OTHERS} others on ${SERVER_SHOWN} in ${seedSeconds.toFixed(0)} s\n`,
    );

    const ctx = cliCtx(main);
    const { reports, libroIva } = container.reports;
    const today = new Date().toLocaleDateString('en-CA', { timeZone: TZ });
    // Last full month: a month of sales and of receipts.
    const first = new Date(`${today.slice(0, 8)}01T12:00:00Z`);
    first.setUTCMonth(first.getUTCMonth() - 1);
    const from = first.toISOString().slice(0, 10);
    const last = new Date(`${today.slice(0, 8)}01T12:00:00Z`);
    last.setUTCDate(0);
    const to = last.toISOString().slice(0, 10);
    const period = from.slice(0, 7).replace('-', '');

    const baseline = await timed(ROUNDS, () => q('SELECT * FROM sales WHERE company_id = $1 AND id = $2', [main, 4242]));
    const measured: [string, number[], number][] = [
      ['day summary', await timed(ROUNDS, () => container.register.summary(ctx, today)), 150],
      ['inicio', await timed(ROUNDS, () => reports.home(ctx)), 150],
      ['products month', await timed(ROUNDS, () => reports.report(ctx, 'products', { from, to })), 500],
      ['sales month', await timed(ROUNDS, () => reports.report(ctx, 'sales', { from, to })), 500],
      [
        'libro iva month',
        await timed(BOOK_ROUNDS, async () => {
          await libroIva.file(ctx, period, 'cbte');
          await libroIva.file(ctx, period, 'alicuotas');
        }),
        2000,
      ],
    ];
    const base = { name: 'pk select median', value: median(baseline), unit: 'ms' };
    const figures: Figure[] = [];
    for (const [name, times, target] of measured) {
      const value = round1(p99(times));
      const typical = median(times);
      process.stdout.write(
        `reports: ${name} p99 ${value} ms (median ${round1(typical)} ms, ${times.length} rounds, target ≤ ${target} ms${value <= target ? '' : ', MISSED'})\n`,
      );
      figures.push(figure(`${name} p99`, value, 'ms'), figure(`${name} median`, typical, 'ms', base, base.value / typical));
    }
    process.stdout.write(
      `reports: baseline pk select median ${base.value.toFixed(2)} ms, p99 ${round1(p99(baseline))} ms; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}\n`,
    );
    return figures;
  } finally {
    await runCleanups(cleanups);
  }
}
