import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../setup/db.ts';

const SRC = join(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

describe('where sale data and events are written', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(() => database.dispose());

  it('one writer inserts outbound events: only src/outbox/outbox.repo.ts names the INSERT', () => {
    const writers = sourceFiles(SRC).filter((path) => {
      const text = readFileSync(path, 'utf8');
      return /insert\s+into\s+outbox_events/i.test(text) || /\.insert\(\s*outboxEvents\s*\)/.test(text);
    });
    expect(writers.map((path) => relative(SRC, path))).toEqual(['outbox/outbox.repo.ts']);
  });

  it('a payment is a row of its own: the table takes one with no sale (a payment on account, later)', async () => {
    const [company] = await database.db.query<{ id: number }>(`INSERT INTO companies (name) VALUES ('Cuenta') RETURNING id`);
    await database.db.query(
      `INSERT INTO sale_payments (company_id, sale_id, id, method, amount) VALUES ($1, NULL, 1, 'transferencia', 1500)`,
      [company!.id],
    );
    const rows = await database.db.query<{ sale_id: number | null; amount: string }>(
      'SELECT sale_id, amount::text AS amount FROM sale_payments WHERE company_id = $1',
      [company!.id],
    );
    expect(rows).toEqual([{ sale_id: null, amount: '1500.00' }]);
  });
});
