import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from './client.ts';

export const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
// Any constant shared by every process of the service; pg_advisory_xact_lock serialises migrators.
const MIGRATION_LOCK_KEY = 727_001;

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export function readMigrations(dir = MIGRATIONS_DIR): MigrationFile[] {
  return readdirSync(dir)
    .filter((name) => /^\d{4}_[a-z0-9_]+\.sql$/.test(name))
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/**
 * Applies every pending migration in one transaction under an advisory lock, so several processes
 * starting at once apply each file exactly once and nobody sees a half-migrated schema.
 * A changed checksum of an applied file is refused: migrations are append-only.
 */
export async function migrate(database: Database, files = readMigrations()): Promise<string[]> {
  return database.rawTransaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY,
      checksum char(64) NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const applied = new Map(
      (await tx.query<{ name: string; checksum: string }>('SELECT name, checksum FROM schema_migrations')).map((row) => [
        row.name,
        row.checksum,
      ]),
    );
    const done: string[] = [];
    for (const file of files) {
      const known = applied.get(file.name);
      if (known !== undefined) {
        if (known !== file.checksum) {
          throw new Error(`migration ${file.name} was changed after it was applied; add a new migration instead`);
        }
        continue;
      }
      await tx.exec(file.sql);
      await tx.query('INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)', [file.name, file.checksum]);
      done.push(file.name);
    }
    return done;
  });
}
