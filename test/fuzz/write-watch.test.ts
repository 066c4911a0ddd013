import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../setup/db.ts';
import { tableCounter, writeWatch } from './fuzz.ts';

/** The fuzz's cheap "nothing written" check must see every committed write, and no rolled-back one. */
describe('writeWatch', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase();
    await database.db.query('CREATE TABLE public.watch_probe (x int)');
  });
  afterAll(() => database.dispose());

  it('sees a committed insert and agrees with a full count', async () => {
    const watch = await writeWatch(database.db);
    const before = await watch();
    expect(await watch()).toEqual(before);
    await database.db.query('INSERT INTO public.watch_probe VALUES (1)');
    const after = await watch();
    expect(after['watch_probe']).toBe((before['watch_probe'] ?? 0) + 1);
    expect(after).toEqual(await (await tableCounter(database.db))());
  });

  it('a rolled-back write leaves the counts as they were', async () => {
    const watch = await writeWatch(database.db);
    const before = await watch();
    await database.db
      .rawTransaction(async (tx) => {
        await tx.query('INSERT INTO public.watch_probe VALUES (2)');
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(await watch()).toEqual(before);
  });
});
