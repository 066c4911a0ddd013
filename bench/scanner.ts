// npm run bench -- scanner
// 100 companies × 10,000 products on PostgreSQL (BENCH_DATABASE_URL, a scratch database created
// and dropped here). Barcode and name lookups through GET /api/public/scanner, against a baseline
// route doing one primary-key SELECT through the same pool, in the same run, on 127.0.0.1.
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createContainer } from '../src/container.ts';
import { migrate } from '../src/db/migrate.ts';
import { type LoadResult, runLoad } from './load.ts';
import { type Figure, figure, median, roundRatios, roundsText } from './results.ts';
import { loadProducts, misspell } from './scanner-data.ts';

const SERVER_URL = process.env['BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const COMPANIES = Number(process.env['BENCH_COMPANIES'] ?? 100);
const PRODUCTS = Number(process.env['BENCH_PRODUCTS'] ?? 10_000);
const REQUESTS = Number(process.env['BENCH_REQUESTS'] ?? 20_000);
const NAME_REQUESTS = Number(process.env['BENCH_NAME_REQUESTS'] ?? 6000);
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 8);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const SAMPLE = 3000;

const log = (line: string) => process.stdout.write(`${line}\n`);
const urlFor = (database: string) => Object.assign(new URL(SERVER_URL), { pathname: `/${database}` }).toString();

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: urlFor('postgres') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function withScratchDatabase(fn: (url: string) => Promise<void>) {
  const name = `mostrador_bench_scanner_${process.pid}`;
  const drop = () => admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  // Ctrl-C does not run finally blocks: drop the scratch database on the way out anyway.
  const interrupted = () => void drop().finally(() => process.exit(130));
  process.once('SIGINT', interrupted);
  await admin((c) => c.query(`CREATE DATABASE "${name}"`));
  try {
    await fn(urlFor(name));
  } finally {
    process.off('SIGINT', interrupted);
    await drop();
  }
}

function describe(label: string, result: LoadResult) {
  const errors = result.errors > 0 ? `, ${result.errors} ERRORS` : '';
  log(
    `  ${label.padEnd(22)} ${result.requests} requests in ${result.seconds.toFixed(1)} s: ${Math.round(result.perSecond)} req/s, ` +
      `p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms${errors}`,
  );
}

async function prepare(url: string) {
  const config = loadConfig({
    DATABASE_URL: url,
    SECRET_KEY: 'bench-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz',
    LOG_LEVEL: 'silent',
    DEMO_SEED: 'false',
    SCANNER_RATE_LIMIT_PER_MINUTE: '0',
    EXCHANGE_RATE_FIXED: '1000',
  });
  const container = await createContainer(config);
  await migrate(container.db);
  const tokens = new Map<number, string>();
  for (let i = 1; i <= COMPANIES; i++) {
    const created = await container.companies.createCompany({ name: `Comercio ${i}` });
    tokens.set(created.company.id, created.scannerToken);
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const started = Date.now();
    await loadProducts(client, PRODUCTS);
    log(`loaded ${COMPANIES} companies × ${PRODUCTS} products in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await client.end();
  }
  return { container, tokens };
}

function medianOf(results: LoadResult[]): { perSecond: number; p99Ms: number } {
  return { perSecond: median(results.map((r) => r.perSecond)), p99Ms: median(results.map((r) => r.p99Ms)) };
}

export default async function main(): Promise<Figure[]> {
  let figures: Figure[] = [];
  log(
    `scanner benchmark: ${COMPANIES} companies × ${PRODUCTS} products, ${ROUNDS} rounds of ${REQUESTS} requests ` +
      `(${NAME_REQUESTS} for names) per phase, ` +
      `concurrency ${CONCURRENCY}; figures below are medians of the rounds, ratios the medians of each round's own`,
  );
  await withScratchDatabase(async (url) => {
    const { container, tokens } = await prepare(url);
    const app = await buildApp(container);
    const pool = container.db.pool!;
    // The baseline: one primary-key SELECT, prepared, through the pool the scanner uses.
    // The bench's own route: no guard, so it is the public surface's (the app refuses unassigned routes).
    app.get('/bench/pk', { schema: { hide: true }, config: { surfaces: ['public'] } }, async (request) => {
      const { c, i } = request.query as { c: string; i: string };
      const { rows } = await pool.query({
        name: 'bench_pk',
        text: 'SELECT id, name, base_price FROM products WHERE company_id = $1 AND id = $2',
        values: [Number(c), Number(i)],
      });
      return rows[0] ?? null;
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { port } = app.server.address() as AddressInfo;
      const sample = (
        await container.db.query<{ company_id: number; id: number; bc: string; name: string }>(
          'SELECT company_id, id, bc, name FROM products WHERE enable ORDER BY random() LIMIT $1',
          [SAMPLE],
        )
      ).map((row, index) => ({ ...row, token: encodeURIComponent(tokens.get(row.company_id)!), index }));
      const paths = {
        pk: sample.map((p) => `/bench/pk?c=${p.company_id}&i=${p.id}`),
        barcode: sample.map((p) => `/api/public/scanner?token=${p.token}&query=${p.bc}`),
        name: sample.map((p) => `/api/public/scanner?token=${p.token}&query=${encodeURIComponent(misspell(p.name, p.index))}`),
      };
      const barcodeOk = (status: number, body: string) => status === 200 && body.includes('"matchType":"barcode"');
      const nameOk = (status: number, body: string) => status === 200 && body.includes('"matchType":"name"');
      const load = (list: string[], isOk?: (status: number, body: string) => boolean, total = REQUESTS) =>
        runLoad({ port, paths: list, total, concurrency: CONCURRENCY, maxSeconds: 120, ...(isOk ? { isOk } : {}) });

      for (const list of Object.values(paths)) await load(list, undefined, Math.min(1000, REQUESTS));
      // Interleaved rounds, median of each figure: a neighbour's burst of CPU skews one round, not the result.
      const rounds: Record<'baseline' | 'barcode' | 'name', LoadResult[]> = { baseline: [], barcode: [], name: [] };
      for (let round = 1; round <= ROUNDS; round++) {
        log(`round ${round} (load average ${loadavg()[0]!.toFixed(2)})`);
        rounds.baseline.push(await load(paths.pk));
        describe('baseline pk select', rounds.baseline.at(-1)!);
        rounds.barcode.push(await load(paths.barcode, barcodeOk));
        describe('scanner by barcode', rounds.barcode.at(-1)!);
        rounds.name.push(await load(paths.name, nameOk, NAME_REQUESTS));
        describe('scanner by name', rounds.name.at(-1)!);
      }
      const [baseline, barcode, name] = [medianOf(rounds.baseline), medianOf(rounds.barcode), medianOf(rounds.name)];
      const rates = (results: LoadResult[]) => results.map((r) => r.perSecond);
      const barcodeRounds = roundRatios(rates(rounds.barcode), rates(rounds.baseline));
      const nameRounds = roundRatios(rates(rounds.name), rates(rounds.barcode));
      const errors = Object.values(rounds)
        .flat()
        .reduce((sum, r) => sum + r.errors, 0);
      if (errors > 0) {
        log(`WARNING: ${errors} answers were not the expected match; the first ones:`);
        const seen = new Set<string>();
        for (const u of Object.values(rounds)
          .flat()
          .flatMap((r) => r.unexpected)) {
          const shown = `  ${u.status} ${u.path.replace(/token=[^&]*/, 'token=…')} → ${u.body}`;
          if (!seen.has(shown) && seen.size < 20) log(shown);
          seen.add(shown);
        }
      }
      log(
        `scanner: barcode ${Math.round(barcode.perSecond)} req/s p99 ${barcode.p99Ms.toFixed(1)} ms, ` +
          `name ${Math.round(name.perSecond)} req/s p99 ${name.p99Ms.toFixed(1)} ms; ` +
          `baseline pk select: ${Math.round(baseline.perSecond)} req/s; ratio barcode ${roundsText(barcodeRounds)}, ` +
          `ratio name ${roundsText(nameRounds)} (name req/s over barcode req/s)`,
      );
      figures = [
        figure(
          'barcode',
          barcode.perSecond,
          'req/s',
          { name: 'pk select', value: baseline.perSecond, unit: 'req/s' },
          median(barcodeRounds),
        ),
        figure('name', name.perSecond, 'req/s', { name: 'barcode', value: barcode.perSecond, unit: 'req/s' }, median(nameRounds)),
        figure('name p99', name.p99Ms, 'ms'),
        figure('unexpected answers', errors, ''),
      ];
    } finally {
      await app.close();
      await container.close();
    }
  });
  return figures;
}
