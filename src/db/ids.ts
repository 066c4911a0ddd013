import { sql } from 'drizzle-orm';
import { AppError } from '../lib/errors.ts';
import { type Conn, selectRows } from './client.ts';

const ID_TABLES = [
  'categories',
  'products',
  'deposits',
  'movements',
  'customers',
  'boxes',
  'sales',
  'invoices',
  'box_sessions',
  'invoice_attempts',
  'account_payments',
  'caea_blocks',
] as const;
export type IdTable = (typeof ID_TABLES)[number];

/** The largest id a sender may give (PostgreSQL integer); the company's own numbers stay far below. */
export const MAX_RECORD_ID = 2_147_483_647;

function assertIdTable(table: string): asserts table is IdTable {
  if (!ID_TABLES.includes(table as IdTable)) throw new Error(`no id counter for ${table}`);
}

/**
 * The company's next own number for a record of `table` (the first of `count` consecutive ones),
 * from the company's counter row (migration 0035): one short UPDATE … RETURNING, never a scan of
 * max(id). Numbers a sender already used are skipped, so ids given by integrations never move the
 * company's own numbering. The counter row stays locked to the end of the transaction: two
 * transactions never get the same number and a rollback leaves no hole.
 */
export async function nextId(tx: Conn, table: IdTable, companyId: number, count = 1): Promise<number> {
  assertIdTable(table);
  const [row] = await selectRows<{ first: number }>(tx, sql`SELECT take_company_ids(${companyId}, ${table}, ${count}) AS first`);
  return Number(row!.first);
}

/**
 * A block of up to `max` consecutive numbers taken at once (an import that does not know yet how
 * many records it creates): `take()` hands them out in order, `finish()` gives the unused end back
 * to the counter (it is still this transaction's, so nobody took a number after the block).
 */
export async function idBlock(tx: Conn, table: IdTable, companyId: number, max: number) {
  const first = max > 0 ? await nextId(tx, table, companyId, max) : 0;
  let next = first;
  return {
    take(): number {
      if (next >= first + max) throw new Error(`id block of ${table} exhausted`);
      return next++;
    },
    async finish(): Promise<void> {
      if (max === 0 || next === first + max) return;
      await tx.execute(sql`SELECT return_company_ids(${companyId}, ${table}, ${next}, ${first + max - 1})`);
    },
  };
}

/**
 * The id for a new record: the sender's own number when given (refused when that company already
 * used it, naming the record), otherwise the company's next own number.
 */
export async function assignId(
  tx: Conn,
  table: IdTable,
  companyId: number,
  given: number | undefined,
  label: string,
): Promise<number> {
  if (given === undefined) return nextId(tx, table, companyId);
  assertIdTable(table);
  await assertIdFree(tx, table, companyId, given, label);
  return given;
}

/** Refuses a sender's id that the company already used for a record of `table`, naming it. */
export async function assertIdFree(tx: Conn, table: IdTable, companyId: number, id: number, label: string) {
  const taken = await selectRows(tx, sql`SELECT 1 FROM ${sql.identifier(table)} WHERE company_id = ${companyId} AND id = ${id}`);
  if (taken.length > 0) throw idTakenError(label, id);
}

/** The 422 for a sender's id that collides with one the company already used. */
export function idTakenError(label: string, id: number): AppError {
  return new AppError('invalid_state', `${label} ${id} already exists`, {
    details: [{ path: 'id', message: `${label} ${id} already exists in this company` }],
  });
}
