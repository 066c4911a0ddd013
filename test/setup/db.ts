import { readFileSync } from 'node:fs';
import { inject } from 'vitest';
import { type Database, openPglite, openPostgres } from '../../src/db/client.ts';
import { cloneDatabase, cloneName, databaseUrl, dropDatabase, withAdmin } from './pg-admin.ts';

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

/** A new PostgreSQL database with nothing in it, not even the schema (PostgreSQL runs only). */
export async function createEmptyDatabase(): Promise<{ url: string; dispose(): Promise<void> }> {
  const golden = inject('golden');
  if (golden.kind !== 'postgres') throw new Error('createEmptyDatabase needs a PostgreSQL run');
  const name = cloneName();
  await withAdmin(golden.serverUrl, (admin) => admin.query(`CREATE DATABASE "${name}"`));
  return { url: databaseUrl(golden.serverUrl, name), dispose: () => dropDatabase(golden.serverUrl, name) };
}

/**
 * An empty database (no migrations applied) on the backend of this run: PGlite in memory, or a new
 * PostgreSQL database that `open` connects to as often as asked (several migrators at once).
 */
export async function openEmpty(): Promise<{ open: () => Promise<Database>; dispose: () => Promise<void> }> {
  const serverUrl = process.env['TEST_DATABASE_URL'];
  if (!serverUrl) {
    const db = await openPglite({ dataDir: null });
    return { open: async () => db, dispose: () => db.close() };
  }
  const name = await cloneDatabase(serverUrl, 'template0');
  const opened: Database[] = [];
  return {
    open: async () => {
      const db = await openPostgres({ url: databaseUrl(serverUrl, name), poolMax: 2 });
      opened.push(db);
      return db;
    },
    dispose: async () => {
      for (const db of opened) await db.close();
      await dropDatabase(serverUrl, name);
    },
  };
}
