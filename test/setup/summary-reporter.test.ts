import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { count } from './summary-reporter.ts';

const run = promisify(execFile);

describe('the closing line of a test run', () => {
  it('counts a suite whose beforeAll threw as failed, in a real vitest run', async () => {
    const config = fileURLToPath(new URL('./fixtures/vitest.fixture.config.ts', import.meta.url));
    const vitest = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url));
    const result = await run(process.execPath, [vitest, 'run', '--config', config], { env: { ...process.env, CI: 'true' } }).then(
      (ok) => ({ code: 0, stdout: ok.stdout }),
      (err: { code: number; stdout: string }) => ({ code: err.code, stdout: err.stdout }),
    );
    expect(result.code).not.toBe(0);
    expect(result.stdout).toMatch(/^tests: 1 passed, 1 failed, 2 skipped$/m);
  }, 60_000);

  it('counts a file that failed to load, and never a failure twice', () => {
    const totals = { passed: 0, failed: 0, skipped: 0 };
    count(
      [
        { type: 'suite', result: { state: 'fail' }, tasks: [] },
        {
          type: 'suite',
          result: { state: 'fail' },
          tasks: [
            { type: 'test', result: { state: 'fail' } },
            { type: 'test', result: { state: 'pass' } },
          ],
        },
      ],
      totals,
    );
    expect(totals).toEqual({ passed: 1, failed: 2, skipped: 0 });
  });
});
