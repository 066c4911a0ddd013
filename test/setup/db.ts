import { readFileSync } from 'node:fs';
import { inject } from 'vitest';
import { type Database, openPglite, openPostgres } from '../../src/db/client.ts';
import { cloneDatabase, databaseUrl, dropDatabase } from './pg-admin.ts';

export interface TestDatabase {
  db: Database;
  /** postgres:// URL of this clone (PostgreSQL runs only), for tests that start other processes. */
  url: string | null;
  /** Closes the connection and drops the clone. */
  dispose(): Promise<void>;
}

/** A fresh database holding the migrated schema and nothing else. */
export async function openTestDatabase(options: { poolMax?: number } = {}): Promise<TestDatabase> {
  const golden = inject('golden');
  if (golden.kind === 'pglite') {
    const db = await openPglite({ dataDir: null, loadDataDir: new Blob([readFileSync(golden.dumpPath)]) });
    return { db, url: null, dispose: () => db.close() };
  }
  const name = await cloneDatabase(golden.serverUrl, golden.template);
  const url = databaseUrl(golden.serverUrl, name);
  const db = await openPostgres({ url, poolMax: options.poolMax ?? 10 });
  return {
    db,
    url,
    async dispose() {
      await db.close();
      await dropDatabase(golden.serverUrl, name);
    },
  };
}

export function isPostgresRun(): boolean {
  return inject('golden').kind === 'postgres';
}
