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
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 30_000,
    hookTimeout: 90_000,
    teardownTimeout: 30_000,
    reporters: ['default', './test/setup/summary-reporter.ts'],
  },
});
