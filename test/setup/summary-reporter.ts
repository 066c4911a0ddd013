import type { Reporter } from 'vitest/reporters';

type Task = { type: string; mode?: string; result?: { state?: string }; tasks?: Task[] };
export interface Totals {
  passed: number;
  failed: number;
  skipped: number;
}

/**
 * Adds up the tests of `tasks`; returns how many failures it found inside. A file or suite that
 * failed without any failed test inside (a throwing beforeAll, an import error) is one failure:
 * its tests never ran, and a run must never read "0 failed" then.
 */
export function count(tasks: readonly Task[], totals: Totals): number {
  let failures = 0;
  for (const task of tasks) {
    if (task.type === 'test') {
      const state = task.result?.state;
      if (state === 'pass') totals.passed++;
      else if (state === 'fail') {
        totals.failed++;
        failures++;
      } else totals.skipped++;
      continue;
    }
    const inside = count(task.tasks ?? [], totals);
    failures += inside;
    if (task.result?.state === 'fail' && inside === 0) {
      totals.failed++;
      failures++;
    }
  }
  return failures;
}

/**
 * Ends the run with one plain line, "tests: N passed, N failed, N skipped", after vitest's own summary,
 * so any CI log reader sees how many tests ran. Runs after the default reporter (listed after it).
 */
export default class SummaryReporter implements Reporter {
  onFinished(files: readonly Task[] = [], errors: readonly unknown[] = []) {
    const totals = { passed: 0, failed: 0, skipped: 0 };
    count(files, totals);
    totals.failed += errors.length;
    process.stdout.write(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
  }
}
