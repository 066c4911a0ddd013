// npm run bench -- pipeline
// The request pipeline's own cost: a no-op GET registered in the application like any public route
// (inside the public surface, so every global hook, the surface's guard, the request context, the
// metrics and the drain header run) against the same no-op on a bare Fastify instance, both in this
// process, on 127.0.0.1, in interleaved rounds. The ratio is app req/s over bare req/s.
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { buildApp } from '../src/app.ts';
import { registerSurface } from '../src/http/surfaces.ts';
import { positiveInt, runCleanups, scratchContainer } from './common.ts';
import { type LoadResult, runLoad } from './load.ts';
import { type Figure, figure, loadNow, median, roundRatios, roundsText } from './results.ts';

const REQUESTS = positiveInt('BENCH_REQUESTS', 20_000);
const CONCURRENCY = positiveInt('BENCH_CONCURRENCY', 8);
const ROUNDS = positiveInt('BENCH_ROUNDS', 5);
const PATH = '/bench/noop?q=abc';

const log = (line: string) => process.stdout.write(`${line}\n`);

export default async function main(): Promise<Figure[]> {
  const { container, cleanups } = await scratchContainer('mostrador_bench_pipeline', 4);
  try {
    const app = await buildApp(container);
    await registerSurface(app, 'public', {}, (scope) => {
      scope.get('/bench/noop', { schema: { hide: true } }, async () => ({ ok: true }));
    });
    cleanups.unshift(() => app.close());
    await app.listen({ host: '127.0.0.1', port: 0 });
    const bare = Fastify({ logger: false });
    bare.get('/bench/noop', async () => ({ ok: true }));
    cleanups.unshift(() => bare.close());
    await bare.listen({ host: '127.0.0.1', port: 0 });

    const ports = { app: (app.server.address() as AddressInfo).port, bare: (bare.server.address() as AddressInfo).port };
    const load = (port: number, total = REQUESTS) =>
      runLoad({
        port,
        paths: [PATH],
        total,
        concurrency: CONCURRENCY,
        maxSeconds: 120,
        isOk: (s, b) => s === 200 && b === '{"ok":true}',
      });
    const describe = (label: string, r: LoadResult) =>
      log(
        `  ${label.padEnd(10)} ${Math.round(r.perSecond)} req/s, p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms${r.errors ? `, ${r.errors} ERRORS` : ''}`,
      );

    log(`pipeline benchmark: ${ROUNDS} interleaved rounds of ${REQUESTS} GET ${PATH}, concurrency ${CONCURRENCY}; medians`);
    await load(ports.bare, 2000);
    await load(ports.app, 2000);
    const rounds = { bare: [] as LoadResult[], app: [] as LoadResult[] };
    for (let round = 1; round <= ROUNDS; round++) {
      log(`round ${round} (load average ${loadNow().toFixed(2)})`);
      // Alternate which goes first: a neighbour's burst of CPU does not always land on the same one.
      const order = round % 2 === 1 ? (['bare', 'app'] as const) : (['app', 'bare'] as const);
      for (const which of order) {
        rounds[which].push(await load(ports[which]));
        describe(which, rounds[which].at(-1)!);
      }
    }
    const errors = [...rounds.bare, ...rounds.app].reduce((sum, r) => sum + r.errors, 0);
    if (errors > 0) throw new Error(`${errors} answers were not {"ok":true}: ${JSON.stringify(rounds.app[0]?.unexpected[0])}`);
    const rates = { bare: rounds.bare.map((r) => r.perSecond), app: rounds.app.map((r) => r.perSecond) };
    const [bareRate, appRate] = [median(rates.bare), median(rates.app)];
    const byRound = roundRatios(rates.app, rates.bare);
    log(
      `pipeline: app no-op ${Math.round(appRate)} req/s p99 ${median(rounds.app.map((r) => r.p99Ms)).toFixed(2)} ms; ` +
        `bare fastify ${Math.round(bareRate)} req/s; ratio ${roundsText(byRound)}`,
    );
    return [figure('no-op route', appRate, 'req/s', { name: 'bare fastify', value: bareRate, unit: 'req/s' }, median(byRound))];
  } finally {
    await runCleanups(cleanups);
  }
}
