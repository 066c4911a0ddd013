import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/setup/global.ts'],
    setupFiles: [
      'test/setup/response-check.setup.ts',
      'test/setup/sql-build.setup.ts',
      'test/setup/one-query-per-connection.setup.ts',
    ],
    pool: 'forks',
    // Each fork keeps its modules from one test file to the next (the app, its compiled schemas, the
    // bundled page assets are loaded once per fork, not once per file): each suite takes a quarter
    // less time (docs/decisiones.md). Every file still builds its own app and database; setup files
    // run again before each file.
    isolate: false,
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 30_000,
    hookTimeout: 90_000,
    teardownTimeout: 30_000,
    reporters: ['default', './test/setup/summary-reporter.ts'],
  },
});
