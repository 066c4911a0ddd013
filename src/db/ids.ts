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
] as const;
export type IdTable = (typeof ID_TABLES)[number];

/**
 * The next free id of a company's records in `table` (ids are the company's own numbers).
 * An advisory lock per (table, company) held to the end of the transaction serialises creators,
 * so two transactions never pick the same number; ids given by senders are simply taken as given.
 */
export async function nextId(tx: Conn, table: IdTable, companyId: number): Promise<number> {
  if (!ID_TABLES.includes(table)) throw new Error(`no id sequence for ${table}`);
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`ids:${table}`}), ${companyId})`);
  const [row] = await selectRows<{ next: number }>(
    tx,
    sql`SELECT coalesce(max(id), 0)::int + 1 AS next FROM ${sql.identifier(table)} WHERE company_id = ${companyId}`,
  );
  return Number(row!.next);
}

/**
 * The id for a new record: the sender's own number when given (refused when that company already
 * used it, naming the record), otherwise the next free one.
 */
export async function assignId(
  tx: Conn,
  table: IdTable,
  companyId: number,
  given: number | undefined,
  label: string,
): Promise<number> {
  if (given === undefined) return nextId(tx, table, companyId);
  const taken = await selectRows(
    tx,
    sql`SELECT 1 FROM ${sql.identifier(table)} WHERE company_id = ${companyId} AND id = ${given}`,
  );
  if (taken.length > 0) throw new AppError('invalid_state', `${label} ${given} already exists`);
  return given;
}

/** Takes nextId's locks of several tables, in the order given, in one statement. */
export async function lockIds(tx: Conn, tables: IdTable[], companyId: number): Promise<void> {
  for (const table of tables) if (!ID_TABLES.includes(table)) throw new Error(`no id sequence for ${table}`);
  await tx.execute(
    sql`SELECT ${sql.join(
      tables.map((t) => sql`pg_advisory_xact_lock(hashtext(${`ids:${t}`}), ${companyId})`),
      sql`, `,
    )}`,
  );
}

/**
 * The next free ids of several tables whose locks this transaction holds (lockIds), read in one
 * statement after the locks were granted (a later statement: it sees every earlier commit).
 */
export async function readNextIds(tx: Conn, tables: IdTable[], companyId: number): Promise<number[]> {
  for (const table of tables) if (!ID_TABLES.includes(table)) throw new Error(`no id sequence for ${table}`);
  const [row] = await selectRows<Record<string, number>>(
    tx,
    sql`SELECT ${sql.join(
      tables.map(
        (t, n) =>
          sql`(SELECT coalesce(max(id), 0)::int + 1 FROM ${sql.identifier(t)} WHERE company_id = ${companyId}) AS ${sql.identifier(`n${n}`)}`,
      ),
      sql`, `,
    )}`,
  );
  return tables.map((_, n) => Number(row![`n${n}`]));
}
