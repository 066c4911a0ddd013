import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openPglite, openPostgres } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { resolveChromium } from './chromium-path.ts';
import { adminUrl, databaseUrl, dropDatabase, templateName, TEST_DB_PREFIX } from './pg-admin.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    golden: { kind: 'pglite'; dumpPath: string } | { kind: 'postgres'; serverUrl: string; template: string };
    /** The Chromium of the browser tests, resolved once here so workers never race to unpack it. */
    chromium: { path: string; source: string };
  }
}

/**
 * Migrates one golden database per run; every test file then starts from a copy of it
 * (a PGlite data-dir snapshot, or CREATE DATABASE … TEMPLATE on PostgreSQL).
 */
export default async function setup(project: TestProject) {
  project.provide('chromium', await resolveChromium());
  const serverUrl = process.env['TEST_DATABASE_URL'];
  if (serverUrl) {
    const template = templateName();
    const admin = new pg.Client({ connectionString: adminUrl(serverUrl) });
    await admin.connect();
    try {
      await dropStale(admin);
      await admin.query(`CREATE DATABASE "${template}"`);
    } finally {
      await admin.end();
    }
    const db = await openPostgres({ url: databaseUrl(serverUrl, template), poolMax: 1 });
    await migrate(db);
    await db.close();
    project.provide('golden', { kind: 'postgres', serverUrl, template });
    return async () => {
      await dropDatabase(serverUrl, template);
    };
  }

  const dir = mkdtempSync(join(tmpdir(), 'mostrador-test-'));
  const db = await openPglite({ dataDir: null });
  await migrate(db);
  const dump = await db.pglite!.dumpDataDir('none');
  await db.close();
  const dumpPath = join(dir, 'golden.tar');
  writeFileSync(dumpPath, Buffer.from(await dump.arrayBuffer()));
  project.provide('golden', { kind: 'pglite', dumpPath });
  return () => rmSync(dir, { recursive: true, force: true });
}

/** Databases left by a run that was killed: created by this suite, older than an hour. */
async function dropStale(admin: pg.Client) {
  const { rows } = await admin.query<{ datname: string }>(
    `SELECT datname FROM pg_database WHERE datname LIKE $1 AND (pg_stat_file('base/' || oid || '/PG_VERSION', true)).modification < now() - interval '1 hour'`,
    [`${TEST_DB_PREFIX}%`],
  );
  for (const { datname } of rows) {
    await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`).catch(() => {});
  }
}
