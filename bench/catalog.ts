/**
 * The back office under load, on PostgreSQL: a 10,000-row spreadsheet import through
 * POST /api/v1/products/import, then the product list (a `q` search, 50 per page) at 100,000
 * products, against a baseline Fastify route doing one primary-key SELECT through the same kind of
 * pool at the same concurrency. Creates and drops its own scratch database on BENCH_DATABASE_URL.
 */
import { Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { cliCtx } from '../src/http/request-context.ts';
import { ean13 } from '../src/lib/barcode.ts';
import {
  BASELINE_WARMUP,
  call,
  cpuOf,
  cpuPerRequestLine,
  positiveInt,
  runCleanups,
  SERVER_SHOWN,
  scratchContainer,
} from './common.ts';
import { runLoad } from './load.ts';
import { type Figure, figure } from './results.ts';

const IMPORT_ROWS = positiveInt('BENCH_IMPORT_ROWS', 10_000);
const PRODUCTS = positiveInt('BENCH_PRODUCTS', 100_000);
const REQUESTS = positiveInt('BENCH_REQUESTS', 1_500);
// Both sides are timed warm: with 100 lists and 200 SELECTs of warm-up the SELECT ran at half its
// warm speed (3,630–4,208 against 8,176–8,875 req/s on 28/11), see BASELINE_WARMUP.
const WARMUP = positiveInt('BENCH_WARMUP', 2_000);
const CONCURRENCY = positiveInt('BENCH_CONCURRENCY', 8);
const POOL_MAX = positiveInt('BENCH_POOL', 10);

const TYPES = [
  'Yerba mate',
  'Azúcar',
  'Aceite',
  'Fideos',
  'Arroz',
  'Galletitas',
  'Leche',
  'Café',
  'Harina',
  'Detergente',
  'Jabón',
  'Gaseosa',
];
const BRANDS = [
  'Playadito',
  'Ledesma',
  'Cocinero',
  'Matarazzo',
  'Gallo',
  'Terrabusi',
  'La Serenísima',
  'La Virginia',
  'Blancaflor',
  'Magistral',
];
const SIZES = ['500 g', '1 kg', '1,5 l', '2 l', '250 g', 'x 3'];
const nameOf = (n: number) =>
  `${TYPES[n % TYPES.length]} ${BRANDS[Math.floor(n / 7) % BRANDS.length]} ${SIZES[n % SIZES.length]} ${n}`;

/** The import file as Excel writes it in Argentina: `;`, decimal comma, Spanish headers. */
function spreadsheet(rows: number): Buffer {
  const lines = ['sku;codigo;nombre;precio;costo;iva;categoria;marca;activo;stock_minimo'];
  for (let n = 1; n <= rows; n++) {
    const code = ean13(`779${String(n).padStart(9, '0')}`);
    lines.push(
      `SKU-${n};${code};${nameOf(n)};${(1000 + (n % 5000)).toLocaleString('es-AR')},50;${500 + (n % 900)};${n % 10 === 0 ? '10,5' : '21'};${TYPES[n % TYPES.length]};${BRANDS[n % BRANDS.length]};si;${n % 20}`,
    );
  }
  return Buffer.from(`${lines.join('\r\n')}\r\n`, 'utf8');
}

/** `count` GETs of `paths` (round robin) at CONCURRENCY, every answer a 200. */
async function load(port: number, paths: string[], headers: Record<string, string>, count: number) {
  const result = await runLoad({ port, paths, headers, total: count, concurrency: CONCURRENCY, maxSeconds: 600 });
  if (result.errors > 0 || result.requests < count) throw new Error(`${paths[0]}: ${result.errors} failed of ${result.requests}`);
  return { perSecond: result.perSecond, p50: result.p50Ms, p99: result.p99Ms, byPath: result.byPath };
}

export async function run(): Promise<Figure[]> {
  const { url, container, cleanups } = await scratchContainer('mostrador_bench_catalog', POOL_MAX);
  try {
    const { company } = await container.companies.createCompany({ name: 'Almacén de prueba' });
    const { secret } = await container.apiTokens.create(cliCtx(company.id), { name: 'bench', scope: 'read-write' });
    const app = await buildApp(container);
    cleanups.unshift(() => app.close());
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as AddressInfo).port;
    const auth = { authorization: `Bearer ${secret}` };

    // 1. The spreadsheet import.
    const file = spreadsheet(IMPORT_ROWS);
    const agent = new Agent({ keepAlive: true });
    const t0 = performance.now();
    const imported = await call(
      agent,
      port,
      'POST',
      '/api/v1/products/import',
      {
        ...auth,
        'content-type': 'text/csv',
        'content-length': String(file.length),
      },
      file,
    );
    const importSeconds = (performance.now() - t0) / 1000;
    const result = JSON.parse(imported.body);
    if (imported.status !== 200 || result.created !== IMPORT_ROWS || result.errors.length > 0) {
      throw new Error(`import: ${imported.status} ${imported.body.slice(0, 300)}`);
    }
    agent.destroy();

    // 2. The rest of the catalogue up to PRODUCTS, written directly (the list is what is measured).
    await container.db.query(
      `INSERT INTO products (company_id, id, sku, name, base_price, stock, mark)
       SELECT $1, n, 'GEN-' || n, ($2::text[])[1 + n % 12] || ' ' || ($3::text[])[1 + (n / 7) % 10] || ' ' || n, 1000 + n % 5000, n % 50, ($3::text[])[1 + n % 10]
       FROM generate_series($4::int, $5::int) AS n`,
      [company.id, TYPES, BRANDS, IMPORT_ROWS + 1, PRODUCTS],
    );
    await container.db.query('ANALYZE products');

    // 3. The list (q searches, 50 per page) against a primary-key SELECT baseline.
    const pool = new pg.Pool({ connectionString: url, max: POOL_MAX, application_name: 'bench-baseline' });
    // As the application's pool: an idle connection ended by the scratch database's DROP … WITH
    // (FORCE) is not fatal (it crashed the bench once, after its figures were printed).
    pool.on('error', () => {});
    cleanups.unshift(() => pool.end());
    const baseline = Fastify({ logger: false });
    baseline.get('/baseline/:id', async (req) => {
      const { rows } = await pool.query('SELECT * FROM products WHERE company_id = $1 AND id = $2', [
        company.id,
        Number((req.params as { id: string }).id),
      ]);
      return { product: rows[0] };
    });
    await baseline.listen({ host: '127.0.0.1', port: 0 });
    cleanups.unshift(() => baseline.close());
    const basePort = (baseline.server.address() as AddressInfo).port;

    const queries = [
      'yerba',
      'azucar ledesma',
      'aceite',
      'cafe',
      'SKU-12',
      '7790000001',
      'galletitas terrabusi',
      'leche',
      'harina 1 kg',
      'jabon',
    ];
    const listPaths = queries.map((q) => `/api/v1/products?q=${encodeURIComponent(q)}&limit=50`);
    const basePaths = Array.from({ length: 100 }, (_, n) => `/baseline/${1 + ((n * 997) % PRODUCTS)}`);
    await load(port, listPaths, auth, WARMUP);
    await load(basePort, basePaths, {}, BASELINE_WARMUP);
    const baseCpu = await cpuOf(url, () => load(basePort, basePaths, {}, REQUESTS));
    const listCpu = await cpuOf(url, () => load(port, listPaths, auth, REQUESTS));
    const base = baseCpu.result;
    const list = listCpu.result;
    process.stdout.write(
      cpuPerRequestLine(
        { name: 'list', cpu: { node: listCpu.nodeMs, postgres: listCpu.postgresMs['mostrador'] ?? 0 }, requests: REQUESTS },
        {
          name: 'baseline pk select',
          cpu: { node: baseCpu.nodeMs, postgres: baseCpu.postgresMs['bench-baseline'] ?? 0 },
          requests: REQUESTS,
        },
      ),
    );
    process.stdout.write(
      `import ${IMPORT_ROWS} rows (created ${result.created}); list: ${REQUESTS} requests at ${CONCURRENCY} concurrent, ` +
        `${Math.round(list.perSecond)} req/s, p50 ${list.p50.toFixed(1)} ms; PostgreSQL ${SERVER_SHOWN}\n`,
    );
    // Which searches make the tail: each query's own median and p99 under the same load.
    const queryOf = (path: string) => decodeURIComponent(new URL(path, 'http://x').searchParams.get('q') ?? path);
    process.stdout.write(
      `list by query, p50 / p99 ms: ${list.byPath.map((q) => `"${queryOf(q.path)}" ${q.p50Ms.toFixed(1)} / ${q.p99Ms.toFixed(1)}`).join(', ')}\n`,
    );
    process.stdout.write(
      `catalog: import ${IMPORT_ROWS} rows in ${importSeconds.toFixed(1)} s; list p99 ${list.p99.toFixed(1)} ms at ${PRODUCTS} products; ` +
        `baseline pk select: ${Math.round(base.perSecond)} req/s\n`,
    );
    return [
      figure('import', importSeconds, `s (${IMPORT_ROWS} rows)`),
      figure('list', list.perSecond, 'req/s', { name: 'pk select', value: base.perSecond, unit: 'req/s' }),
      figure('list p99', list.p99, 'ms'),
    ];
  } finally {
    await runCleanups(cleanups);
  }
}
