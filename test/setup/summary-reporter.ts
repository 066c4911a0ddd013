import type { Reporter } from 'vitest/reporters';

type Task = { type: string; mode?: string; result?: { state?: string }; tasks?: Task[] };

function count(tasks: readonly Task[], totals: { passed: number; failed: number; skipped: number }) {
  for (const task of tasks) {
    if (task.type === 'test') {
      const state = task.result?.state;
      if (state === 'pass') totals.passed++;
      else if (state === 'fail') totals.failed++;
      else totals.skipped++;
    } else {
      if (task.type === 'suite' && task.result?.state === 'fail' && !task.tasks?.length) totals.failed++;
      count(task.tasks ?? [], totals);
    }
  }
  return totals;
}

/**
 * Ends the run with one plain line, "tests: N passed, N failed, N skipped", after vitest's own summary,
 * so any CI log reader sees how many tests ran. Runs after the default reporter (listed after it).
 */
export default class SummaryReporter implements Reporter {
  onFinished(files: readonly Task[] = [], errors: readonly unknown[] = []) {
    const totals = count(files, { passed: 0, failed: 0, skipped: 0 });
    totals.failed += errors.length;
    process.stdout.write(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
  }
}
