import { afterEach, describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../src/db/migrate.ts';
import { isPostgresRun, openEmpty } from '../setup/db.ts';

describe('migrations', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const fn of cleanups.splice(0)) await fn();
  });

  it('applies every file once, even when several processes migrate at the same time', async () => {
    const empty = await openEmpty();
    cleanups.push(empty.dispose);
    const migrators = await Promise.all(Array.from({ length: isPostgresRun() ? 5 : 2 }, () => empty.open()));
    const results = await Promise.all(migrators.map((db) => migrate(db)));
    const files = readMigrations().map((f) => f.name);
    expect(results.flat().sort()).toEqual(files.sort());
    const rows = await migrators[0]!.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
    expect(rows.map((r) => r.name)).toEqual(files);
    expect(await migrate(migrators[0]!)).toEqual([]);
  });

  it('installs pg_trgm and unaccent with an immutable accent-insensitive search function', async () => {
    const empty = await openEmpty();
    cleanups.push(empty.dispose);
    const db = await empty.open();
    await migrate(db);
    const [row] = await db.query<{ s: string; sim: number }>(
      "SELECT search_text('Azúcar ÑANDÚ') AS s, similarity(search_text('Galletitas Criollitas'), 'galletitas criolitas') AS sim",
    );
    expect(row!.s).toBe('azucar nandu');
    expect(row!.sim).toBeGreaterThan(0.5);
  });

  it('refuses a migration file changed after it was applied', async () => {
    const empty = await openEmpty();
    cleanups.push(empty.dispose);
    const db = await empty.open();
    const files = readMigrations();
    await migrate(db, files);
    const tampered = files.map((f, i) => (i === 0 ? { ...f, checksum: 'f'.repeat(64) } : f));
    await expect(migrate(db, tampered)).rejects.toThrow('was changed after it was applied');
  });
});
