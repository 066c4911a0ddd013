import { Writable } from 'node:stream';
import { buildApp } from '../src/app.ts';
import type { App } from '../src/http/app.types.ts';
import { type Config, loadConfig } from '../src/config.ts';
import { type Container, type ContainerOverrides, createContainer } from '../src/container.ts';
import { createLogger } from '../src/logger.ts';
import { openTestDatabase, type TestDatabase } from './setup/db.ts';
import { checkResponses } from './setup/response-check.ts';

export const TEST_SECRET_KEY = 'test-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz';

/** A validated Config for tests; `env` entries override the defaults. */
export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ SECRET_KEY: TEST_SECRET_KEY, LOG_LEVEL: 'silent', DATA_DIR: '.tmp/test-data', DEMO_SEED: 'false', ...env });
}

/** Collects every log line written, to check that no secret reaches the logs. */
export function captureLogs() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      callback();
    },
  });
  return { lines, logger: createLogger('trace', stream) };
}

export interface TestApp {
  app: App;
  container: Container;
  database: TestDatabase;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  overrides?: Omit<ContainerOverrides, 'db'>;
}

/** The whole application on its own fresh database; call close() in afterAll. */
export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = await openTestDatabase();
  const env = { ...(database.url ? { DATABASE_URL: database.url } : {}), ...options.env };
  const container = await createContainer(testConfig(env), { ...options.overrides, db: database.db });
  const app = await buildApp(container);
  // Every answer is held against the OpenAPI documents (issue 26's response-schema replay).
  checkResponses(app);
  await app.ready();
  return {
    app,
    container,
    database,
    async close() {
      await app.close();
      await container.close();
      await database.dispose();
    },
  };
}
