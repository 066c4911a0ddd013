import { closeSync, existsSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { type ExtractTablesWithRelations, fillPlaceholders, getTableColumns, is, Placeholder, type SQL, sql } from 'drizzle-orm';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import {
  type PgColumn,
  type PgDatabase,
  PgDialect,
  type PgQueryResultHKT,
  type PgTable,
  PgTransaction,
} from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import { dbDate } from './dates.ts';
import * as schema from './schema/index.ts';
import { installFastSqlBuild } from './sql-build.ts';
import { statementName } from './statement-name.ts';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** A connection handle for repositories: the database itself or an open transaction. */
export type Conn = Db | Tx;

/** Raw SQL on one connection inside one transaction (migrations, job-queue adapter). */
export interface RawTx {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** Several statements, no parameters. */
  exec(script: string): Promise<void>;
}

export interface Database {
  readonly kind: 'pglite' | 'postgres';
  readonly orm: Db;
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  rawTransaction<T>(fn: (tx: RawTx) => Promise<T>): Promise<T>;
  /** For the job queue: parameterised statements and parameterless scripts, `{rows}` back. */
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  close(): Promise<void>;
  /** The PGlite instance (embedded only): used to snapshot a migrated template in tests. */
  readonly pglite: PGlite | null;
  readonly pool: pg.Pool | null;
}

export class DataDirInUseError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `the embedded database in ${dataDir} is in use by process ${pid}. ` +
        'Stop that process first, or point DATABASE_URL at a PostgreSQL server to run several processes.',
    );
    this.name = 'DataDirInUseError';
  }
}

export interface PgliteOptions {
  /** Directory to persist in; null keeps the database in memory. */
  dataDir: string | null;
  /** A tarball from dumpDataDir to start from (test clones). */
  loadDataDir?: Blob;
}

const EXTENSIONS = { pg_trgm, unaccent, btree_gist };

export async function openPglite(options: PgliteOptions): Promise<Database> {
  let releaseLock = () => {};
  let dir: string | undefined;
  if (options.dataDir) {
    mkdirSync(options.dataDir, { recursive: true });
    releaseLock = lockDataDir(options.dataDir);
    dir = join(options.dataDir, 'pglite');
  }
  let client: PGlite;
  try {
    client = await PGlite.create({
      ...(dir ? { dataDir: dir } : {}),
      ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
      extensions: EXTENSIONS,
      // timestamptz as node-pg reads it: PGlite's default, `new Date(text)`, reads years 0-99 as
      // 1900-1999 or Invalid Date (src/db/dates.ts).
      parsers: { [pg.types.builtins.TIMESTAMPTZ]: (value: string) => dbDate(value) },
    });
  } catch (err) {
    releaseLock();
    throw err;
  }
  const orm = drizzlePglite(client, { schema }) as unknown as Db;
  installFastSqlBuild(dialectOf(orm));
  const query = async <T>(text: string, params?: unknown[]) => (await client.query<T>(text, params)).rows;
  return {
    kind: 'pglite',
    orm,
    pglite: client,
    pool: null,
    query,
    rawTransaction: (fn) =>
      client.transaction((tx) =>
        fn({
          query: async <T>(text: string, params?: unknown[]) => (await tx.query<T>(text, params)).rows,
          exec: async (script) => void (await tx.exec(script)),
        }),
      ),
    async executeSql(text, values) {
      if (values && values.length > 0) return { rows: (await client.query(text, values)).rows };
      const results = await client.exec(text);
      return { rows: results.at(-1)?.rows ?? [] };
    },
    async close() {
      try {
        if (!client.closed) await client.close();
      } finally {
        releaseLock();
      }
    },
  };
}

export interface PostgresOptions {
  url: string;
  poolMax: number;
  /**
   * max_parallel_workers_per_gather of every connection (DB_PARALLEL_WORKERS, 0 by default); left
   * to the server's setting when undefined. A company's queries read a day or a month of its own
   * rows: starting workers cost more than they save (docs/decisiones.md, «Consultas sin workers
   * paralelos»).
   */
  parallelWorkers?: number;
}

/**
 * The connection URL with `-c name=value` added to its startup options, after any the URL already
 * has: node-postgres lets the URL's own `options` replace a config's `options` whole, so a setting
 * passed beside a URL that carries some would be dropped without a word.
 */
export function withStartupSetting(url: string, name: string, value: number): string {
  const parsed = new URL(url);
  const own = parsed.searchParams.get('options');
  parsed.searchParams.set('options', [own, `-c ${name}=${value}`].filter(Boolean).join(' '));
  return parsed.toString();
}

export async function openPostgres(options: PostgresOptions): Promise<Database> {
  const pool = new pg.Pool({
    // A startup parameter: no statement more per connection.
    connectionString:
      options.parallelWorkers === undefined
        ? options.url
        : withStartupSetting(options.url, 'max_parallel_workers_per_gather', options.parallelWorkers),
    max: options.poolMax,
    application_name: 'mostrador',
  });
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on('error', () => {});
  // Nor a checked-out one: its running query already fails with the error, and the pool drops
  // the dead client when it is released; without a listener the 'error' event would be uncaught.
  pool.on('connect', (client) => client.on('error', () => {}));
  const orm = drizzleNodePg(pool, { schema }) as unknown as Db;
  installFastSqlBuild(dialectOf(orm));
  let closed = false;
  return {
    kind: 'postgres',
    orm,
    pglite: null,
    pool,
    query: async <T>(text: string, params?: unknown[]) => (await pool.query(text, params)).rows as T[],
    async rawTransaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn({
          query: async <T>(text: string, params?: unknown[]) => (await client.query(text, params)).rows as T[],
          exec: async (script) => void (await client.query(script)),
        });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    async executeSql(text, values) {
      const result = await pool.query(text, values);
      return { rows: result.rows };
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}

/**
 * PGlite is one process's database: a second process writing the same directory would corrupt it.
 * An exclusive lock file holds the owner's pid; a lock whose process is gone is taken over.
 */
function lockDataDir(dataDir: string): () => void {
  const path = join(dataDir, 'pglite.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          unlinkSync(path);
        } catch {
          // already gone
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
        throw new DataDirInUseError(dataDir, owner);
      }
      if (owner === process.pid) throw new DataDirInUseError(dataDir, owner);
      if (existsSync(path)) unlinkSync(path);
    }
  }
  throw new Error(`could not lock ${path}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Independent reads of one request: at once on the pool (each on a connection of its own), one
 * after another in a transaction, whose one connection runs one query at a time (queueing a second
 * on it while the first runs is deprecated in node-postgres 8 and refused from 9).
 */
export async function readTogether<T extends unknown[]>(
  conn: Conn,
  ...reads: { [K in keyof T]: () => Promise<T[K]> }
): Promise<T> {
  if (!is(conn, PgTransaction)) return (await Promise.all(reads.map((read) => read()))) as T;
  const results: unknown[] = [];
  for (const read of reads) results.push(await read());
  return results as T;
}

/** Rows of a raw `sql` statement; node-postgres and PGlite both answer `{rows}`. */
export async function selectRows<T>(conn: Conn, query: SQL): Promise<T[]> {
  const result = (await conn.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

const dialect = new PgDialect();
installFastSqlBuild(dialect);

/** The dialect a Drizzle database builds its statements with (and its transactions too). */
function dialectOf(orm: Db): PgDialect {
  return (orm as unknown as { dialect: PgDialect }).dialect;
}

/**
 * Rows of a raw `sql` statement run as a named prepared statement: node-postgres parses and plans
 * it once per connection instead of on every call (PGlite runs it as usual). For hot statements;
 * the name is derived from the text, so any two texts get two statements.
 */
export async function selectRowsPrepared<T>(conn: Conn, query: SQL): Promise<T[]> {
  const built = dialect.sqlToQuery(query);
  return runBuilt<T>(conn, built, statementName(built.sql));
}

/** Runs a built statement, named (prepared once per connection) or unnamed (parsed and planned each run). */
async function runBuilt<T>(conn: Conn, built: { sql: string; params: unknown[] }, name: string | undefined): Promise<T[]> {
  const result = (await conn._.session.prepareQuery(built, undefined, name, false).execute()) as { rows: T[] };
  return result.rows;
}

/** The text of a `sql` fragment that has no parameters (to splice into a fixed statement's text). */
export function sqlText(query: SQL): string {
  const built = dialect.sqlToQuery(query);
  if (built.params.length > 0) throw new Error('sqlText: the fragment has parameters');
  return built.sql;
}

/** A statement whose text never changes, named once: each run only sends its parameters. */
export interface PreparedStatement<T> {
  run(conn: Conn, params: unknown[]): Promise<T[]>;
}

export function preparedStatement<T>(text: string): PreparedStatement<T> {
  const name = statementName(text);
  return {
    run: (conn, params) => runBuilt<T>(conn, { sql: text, params }, name),
  };
}

/**
 * The text of a `sql` fragment whose every value is a `sql.placeholder`: its shape, to key the
 * statements of preparedTemplate by. A plain value would be baked into a cached statement, so it throws.
 */
export function placeholderText(query: SQL): string {
  const built = dialect.sqlToQuery(query);
  if (!built.params.every((p) => is(p, Placeholder))) throw new Error('placeholderText: a value is not a placeholder');
  return built.sql;
}

/**
 * A prepared statement built once from a `sql` template whose request values are
 * `sql.placeholder(name)`s: each run fills them from `values`, so a hot statement whose shape
 * depends on the request (which filters, how many words) is neither rebuilt nor re-parsed per call.
 */
export function preparedTemplate<T>(query: SQL): { run(conn: Conn, values: Record<string, unknown>): Promise<T[]> } {
  const built = dialect.sqlToQuery(query);
  const statement = preparedStatement<T>(built.sql);
  return { run: (conn, values) => statement.run(conn, fillPlaceholders(built.params, values)) };
}

/**
 * `column = value, …` for the fields given of a Drizzle table (a key whose value is undefined is
 * left out), each value encoded as the column encodes it: the SET list of a template UPDATE whose
 * fields depend on the request (a PATCH).
 */
export function setList<T extends PgTable>(table: T, change: Partial<T['$inferInsert']>): SQL {
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  const parts: SQL[] = [];
  for (const [key, value] of Object.entries(change)) {
    if (value === undefined) continue;
    const column = columns[key];
    if (!column) throw new Error(`setList: ${key} is not a column of the table`);
    parts.push(sql`${sql.identifier(column.name)} = ${value === null ? sql`NULL` : sql.param(value, column)}`);
  }
  if (parts.length === 0) throw new Error('setList: nothing to set');
  return sql.join(parts, sql`, `);
}

/** `column AS "key", …` of every column of a Drizzle table: raw rows come back in the table's TypeScript shape. */
export function columnList(table: PgTable, alias?: string): SQL {
  const prefix = alias ? `${alias}.` : '';
  return sql.raw(
    Object.entries(getTableColumns(table))
      .map(([key, column]) => `${prefix}"${column.name}" AS "${key}"`)
      .join(', '),
  );
}

/**
 * Rows of a statement that selects `columnList(table)`, decoded as the query builder decodes them
 * (node-postgres under Drizzle answers timestamps as text, PGlite as Date: both become Date).
 */
export async function selectTableRows<T extends PgTable>(conn: Conn, table: T, query: SQL): Promise<T['$inferSelect'][]> {
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  const rows = await selectRows<Record<string, unknown>>(conn, query);
  return rows.map((row) => {
    const decoded: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(row)) {
      const column = columns[key];
      decoded[key] = value === null || value === undefined || !column ? value : column.mapFromDriverValue(value);
    }
    return decoded as T['$inferSelect'];
  });
}

/**
 * `(column, …) VALUES (…), (…)` for rows of a Drizzle table, each value encoded as its column
 * encodes it; a column some row does not give takes the table's DEFAULT there.
 */
export function valuesList<T extends PgTable>(table: T, rows: T['$inferInsert'][]): SQL {
  const columns = getTableColumns(table) as Record<string, PgColumn>;
  const keys = [
    ...new Set(rows.flatMap((row) => Object.keys(row).filter((k) => (row as Record<string, unknown>)[k] !== undefined))),
  ];
  for (const key of keys) if (!columns[key]) throw new Error(`valuesList: ${key} is not a column of the table`);
  const names = sql.raw(keys.map((key) => `"${columns[key]!.name}"`).join(', '));
  const tuples = rows.map((row) => {
    const values = keys.map((key) => {
      const value = (row as Record<string, unknown>)[key];
      if (value === undefined) return sql`DEFAULT`;
      return value === null ? sql`NULL` : sql`${sql.param(value, columns[key]!)}`;
    });
    return sql`(${sql.join(values, sql`, `)})`;
  });
  return sql`(${names}) VALUES ${sql.join(tuples, sql`, `)}`;
}
