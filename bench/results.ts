// What a benchmark hands back to `npm run bench -- all`: its figures, each next to the baseline it
// was measured against in the same run, and the ratio between them (higher is better). The ratio
// is what `--compare` watches: raw figures move with the machine's load, a ratio against a baseline
// measured in the same run moves much less.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';

export interface Figure {
  /** What was measured, e.g. `barcode` (the bench's name is on the result). */
  name: string;
  value: number;
  /** `req/s`, `ms p99`, `s`, `events/s`… */
  unit: string;
  /** The same-run baseline the ratio is taken against; null when the figure has none. */
  baseline: { name: string; value: number; unit: string } | null;
  /** Figure over baseline, higher is better (a latency is inverted by the bench); null without a baseline. */
  ratio: number | null;
}

export interface BenchResult {
  bench: string;
  figures: Figure[];
  /** 1-minute load average when the bench started and when it ended. */
  load: { start: number; end: number };
  /** The BENCH_* settings it ran with (sizes, rounds): figures under other settings do not compare. */
  settings: Record<string, string>;
}

export interface RecordedBench extends BenchResult {
  commit: string;
  recordedAt: string;
}

export type Recorded = Record<string, RecordedBench>;

/** A ratio more than this much below the recorded one is a slide. */
export const TOLERANCE = 0.1;

export const RESULTS_FILE = new URL('./results.json', import.meta.url);

export const loadNow = () => loadavg()[0]!;

/** The BENCH_* variables that shape a run (not where it runs nor where it writes). */
export function benchSettings(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const skip = new Set(['BENCH_DATABASE_URL', 'BENCH_RESULT_FILE']);
  return Object.fromEntries(
    Object.entries(env)
      .filter(
        (entry): entry is [string, string] => entry[0].startsWith('BENCH_') && !skip.has(entry[0]) && entry[1] !== undefined,
      )
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

/** Benches whose recorded figures were measured with other BENCH_* settings than this run. */
export function otherSettings(results: BenchResult[], recorded: Recorded): string[] {
  return results
    .filter((r) => recorded[r.bench] && JSON.stringify(recorded[r.bench]!.settings ?? {}) !== JSON.stringify(r.settings))
    .map(
      (r) => `${r.bench} (recorded with ${JSON.stringify(recorded[r.bench]!.settings ?? {})}, now ${JSON.stringify(r.settings)})`,
    );
}

export function figure(
  name: string,
  value: number,
  unit: string,
  baseline: Figure['baseline'] = null,
  ratio: number | null = baseline ? value / baseline.value : null,
): Figure {
  return { name, value, unit, baseline, ratio };
}

/**
 * Each interleaved round's figure over the baseline measured next to it. Their median is the
 * bench's ratio: the medians of the two columns taken apart can pair a slow round of one with a
 * fast round of the other (scanner, 3 rounds: 0.52, 0.76 and 0.83 round by round printed 0.58).
 */
export function roundRatios(values: number[], baselines: number[]): number[] {
  if (values.length === 0 || values.length !== baselines.length) {
    throw new Error(`roundRatios: ${values.length} rounds against ${baselines.length} baselines`);
  }
  return values.map((value, round) => value / baselines[round]!);
}

/** A ratio over rounds for a bench's log line, with each round's own: `0.76 (median of the rounds' own: 0.52, 0.76, 0.83)`. */
export function roundsText(ratios: number[]): string {
  return `${median(ratios).toFixed(2)} (median of the rounds' own: ${ratios.map((r) => r.toFixed(2)).join(', ')})`;
}

/** The middle value; the mean of the two middle ones when there is an even number of them. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[half]! : (sorted[half - 1]! + sorted[half]!) / 2;
}

export function readRecorded(file: URL = RESULTS_FILE): Recorded {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Recorded) : {};
}

export function writeRecorded(recorded: Recorded, file: URL = RESULTS_FILE) {
  const sorted = Object.fromEntries(Object.entries(recorded).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(file, `${JSON.stringify(sorted, null, 2)}\n`);
}

export function currentCommit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim();
    return dirty ? `${head}+changes` : head;
  } catch {
    return 'unknown';
  }
}

export interface Slide {
  bench: string;
  figure: string;
  recorded: number;
  now: number;
}

/** Every figure whose ratio is more than TOLERANCE below the recorded one (figures without a ratio are not compared). */
export function slides(results: BenchResult[], recorded: Recorded, tolerance = TOLERANCE): Slide[] {
  const out: Slide[] = [];
  for (const result of results) {
    const before = recorded[result.bench];
    if (!before) continue;
    for (const f of result.figures) {
      const old = before.figures.find((g) => g.name === f.name);
      if (f.ratio === null || !old || old.ratio === null) continue;
      if (f.ratio < old.ratio * (1 - tolerance))
        out.push({ bench: result.bench, figure: f.name, recorded: old.ratio, now: f.ratio });
    }
  }
  return out;
}

/** A ratio with two significant digits when it is small: a p99 against the PK SELECT's (0.0041) does not print as 0.00. */
export const ratioText = (ratio: number) => (ratio >= 0.1 || ratio === 0 ? ratio.toFixed(2) : ratio.toPrecision(2));

const number = (value: number) => (value >= 100 ? String(Math.round(value)) : value >= 10 ? value.toFixed(1) : value.toFixed(2));

/** One table: bench, figure, baseline, ratio (and the recorded ratio when there is one), load average. */
export function table(results: BenchResult[], recorded: Recorded): string {
  const header = ['bench', 'figure', 'value', 'baseline', 'ratio', 'recorded', 'load'];
  const rows = results.flatMap((r) =>
    r.figures.map((f) => {
      const old = recorded[r.bench]?.figures.find((g) => g.name === f.name);
      return [
        r.bench,
        f.name,
        `${number(f.value)} ${f.unit}`,
        f.baseline ? `${f.baseline.name} ${number(f.baseline.value)} ${f.baseline.unit}` : '—',
        f.ratio === null ? '—' : ratioText(f.ratio),
        old?.ratio == null ? '—' : `${ratioText(old.ratio)} (load ${recorded[r.bench]!.load.start.toFixed(1)})`,
        `${r.load.start.toFixed(1)}→${r.load.end.toFixed(1)}`,
      ];
    }),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
