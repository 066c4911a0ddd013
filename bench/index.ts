// `npm run bench -- <name> [args]` runs bench/<name>.ts: its default export (called with the args)
// or its exported run(). Benchmarks only talk to 127.0.0.1, are bounded, and print a ratio
// against a baseline measured in the same run. `npm run bench -- all` runs them all (bench/all.ts).
// A bench returns its figures (bench/results.ts); with BENCH_RESULT_FILE set they are written there.
import { existsSync, writeFileSync } from 'node:fs';
import { type BenchResult, benchSettings, type Figure, loadNow } from './results.ts';

/** Names that read better on the command line than the file they run. */
const ALIASES: Record<string, string> = { delivery: 'webhooks-delivery' };
const NOT_BENCHES = ['index', 'load', 'common', 'scanner-data', 'results'];

const [given, ...args] = process.argv.slice(2);
const name = given ? (ALIASES[given] ?? given) : '';
const script = new URL(`./${name}.ts`, import.meta.url);
if (!/^[a-z][a-z0-9-]*$/.test(name) || NOT_BENCHES.includes(name) || !existsSync(script)) {
  process.stderr.write(
    `usage: npm run bench -- <all|pipeline|scanner|ingest|pos|catalog|delivery|reports>   (got ${JSON.stringify(given ?? '')})\n`,
  );
  process.exit(2);
}
type Run = (args: string[]) => Promise<unknown>;
const module = (await import(script.href)) as { default?: Run; run?: Run };
const run = module.default ?? module.run;
if (typeof run !== 'function') throw new Error(`bench/${name}.ts exports no default function or run()`);
const start = loadNow();
const figures = (await run(args)) as Figure[] | undefined;
const file = process.env['BENCH_RESULT_FILE'];
if (file && Array.isArray(figures)) {
  const result: BenchResult = { bench: given!, figures, load: { start, end: loadNow() }, settings: benchSettings() };
  writeFileSync(file, JSON.stringify(result));
}
