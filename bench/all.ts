// npm run bench -- all [--compare] [--accept] [--only scanner,pipeline]
// Runs every benchmark, each in its own process (one bench's memory and sockets do not weigh on the
// next), one after another, and prints one table: figure, same-run baseline, ratio, the ratio
// recorded in bench/results.json and the load average. --compare exits 1 when a ratio is more than
// 10 % below the recorded one; --accept records this run's figures (with the load and the commit).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type BenchResult,
  currentCommit,
  otherSettings,
  ratioText,
  readRecorded,
  slides,
  TOLERANCE,
  table,
  writeRecorded,
} from './results.ts';

/** Every bench, cheapest first. */
export const BENCHES = ['pipeline', 'scanner', 'ingest', 'pos', 'catalog', 'delivery', 'reports'] as const;

function runOne(name: string, file: string): Promise<BenchResult | null> {
  const index = fileURLToPath(new URL('./index.ts', import.meta.url));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', index, name], {
      stdio: 'inherit',
      env: { ...process.env, BENCH_RESULT_FILE: file },
    });
    child.on('exit', (code) => {
      if (code !== 0) return resolve(null);
      try {
        resolve(JSON.parse(readFileSync(file, 'utf8')) as BenchResult);
      } catch {
        resolve(null);
      }
    });
  });
}

export default async function main(args: string[]) {
  const compare = args.includes('--compare');
  const accept = args.includes('--accept');
  const onlyAt = args.indexOf('--only');
  const only = onlyAt >= 0 ? (args[onlyAt + 1] ?? '').split(',').filter(Boolean) : [...BENCHES];
  const unknown = only.filter((name) => !(BENCHES as readonly string[]).includes(name));
  if (unknown.length > 0 || only.length === 0) {
    process.stderr.write(`usage: npm run bench -- all [--compare] [--accept] [--only ${BENCHES.join(',')}]\n`);
    process.exit(2);
  }
  const dir = mkdtempSync(join(tmpdir(), 'mostrador-bench-'));
  const results: BenchResult[] = [];
  const failed: string[] = [];
  try {
    for (const name of only) {
      process.stdout.write(`\n== ${name}\n`);
      const result = await runOne(name, join(dir, `${name}.json`));
      if (result) results.push(result);
      else failed.push(name);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const recorded = readRecorded();
  process.stdout.write(`\n${table(results, recorded)}\n`);
  if (failed.length > 0) process.stdout.write(`FAILED: ${failed.join(', ')} (see the output above)\n`);
  let code = failed.length > 0 ? 1 : 0;
  if (compare) {
    const found = slides(results, recorded);
    for (const s of found) {
      process.stdout.write(
        `SLIDE: ${s.bench} ${s.figure} ratio ${ratioText(s.now)}, recorded ${ratioText(s.recorded)} ` +
          `(${Math.round((1 - s.now / s.recorded) * 100)} % worse; tolerance ${TOLERANCE * 100} %)\n`,
      );
    }
    for (const line of otherSettings(results, recorded)) process.stdout.write(`WARNING: other settings: ${line}\n`);
    const missing = results.filter((r) => !recorded[r.bench]).map((r) => r.bench);
    if (missing.length > 0) process.stdout.write(`no recorded figures for: ${missing.join(', ')}\n`);
    if (found.length > 0) code = 1;
    else process.stdout.write(`compare: no ratio more than ${TOLERANCE * 100} % below bench/results.json\n`);
  }
  if (accept && failed.length === 0) {
    const commit = currentCommit();
    const recordedAt = new Date().toISOString();
    for (const r of results) recorded[r.bench] = { ...r, commit, recordedAt };
    writeRecorded(recorded);
    process.stdout.write(`recorded ${results.map((r) => r.bench).join(', ')} in bench/results.json (commit ${commit})\n`);
  }
  process.exitCode = code;
}
