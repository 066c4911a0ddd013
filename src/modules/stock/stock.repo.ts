import { randomUUID } from 'node:crypto';
import { type SQL, sql } from 'drizzle-orm';
import { type Conn, selectRows, selectRowsPrepared } from '../../db/client.ts';
import type { MovementType } from '../../db/schema/index.ts';
import { fromMilli } from '../../lib/money.ts';
import { type OutboundEvent, outboxInsert } from '../../outbox/outbox.repo.ts';

// The stock ledger's SQL (stock.ledger.ts decides what is booked; this file only reads and writes).

/** True when the company has that deposit. */
export async function depositExists(conn: Conn, companyId: number, depositId: number): Promise<boolean> {
  const rows = await selectRows(conn, sql`SELECT 1 FROM deposits WHERE company_id = ${companyId} AND id = ${depositId}`);
  return rows.length > 0;
}

/** The company's default deposit id, or null when it has none. */
export async function findDefaultDeposit(conn: Conn, companyId: number): Promise<number | null> {
  const [row] = await selectRows<{ id: number }>(
    conn,
    sql`SELECT id FROM deposits WHERE company_id = ${companyId} AND is_default ORDER BY id LIMIT 1`,
  );
  return row ? Number(row.id) : null;
}

/** One product's stock and sku, its row locked FOR UPDATE to the end of the transaction; null when absent. */
export async function lockProductRow(
  tx: Conn,
  companyId: number,
  productId: number,
): Promise<{ stock: string; sku: string | null } | null> {
  const [row] = await selectRows<{ stock: string; sku: string | null }>(
    tx,
    sql`SELECT stock::text AS stock, sku FROM products WHERE company_id = ${companyId} AND id = ${productId} FOR UPDATE`,
  );
  return row ?? null;
}

/** Products' stock and sku locked FOR UPDATE in id order (the order every writer of stock uses). */
export function lockProductRows(tx: Conn, companyId: number, sortedIds: number[]) {
  return selectRows<{ id: number; stock: string; sku: string | null }>(
    tx,
    sql`SELECT id, stock::text AS stock, sku FROM products WHERE company_id = ${companyId} AND id IN (${sql.join(
      sortedIds.map((id) => sql`${id}`),
      sql`, `,
    )}) ORDER BY id FOR UPDATE`,
  );
}

/** What one deposit holds of a product (null when it never held any). */
export async function findLevel(conn: Conn, companyId: number, depositId: number, productId: number): Promise<string | null> {
  const [level] = await selectRows<{ quantity: string }>(
    conn,
    sql`SELECT quantity::text AS quantity FROM stock_levels
      WHERE company_id = ${companyId} AND deposit_id = ${depositId} AND product_id = ${productId}`,
  );
  return level?.quantity ?? null;
}

/** Per-deposit quantities of a product, in deposit order. */
export function findLevels(conn: Conn, companyId: number, productId: number) {
  return selectRows<{ depositId: number; quantity: string }>(
    conn,
    sql`SELECT deposit_id AS "depositId", quantity::text AS quantity FROM stock_levels
      WHERE company_id = ${companyId} AND product_id = ${productId} ORDER BY deposit_id`,
  );
}

/** Adds `deltaMilli` to what a deposit holds of a product (the row is created at the first movement). */
export async function addToLevel(
  tx: Conn,
  level: { companyId: number; depositId: number; productId: number; deltaMilli: number; now: Date },
) {
  const { companyId, depositId, productId, deltaMilli, now } = level;
  const delta = fromMilli(deltaMilli);
  await tx.execute(
    sql`INSERT INTO stock_levels AS l (company_id, deposit_id, product_id, quantity, updated_at)
      VALUES (${companyId}, ${depositId}, ${productId}, ${delta}::numeric, ${now}::timestamptz)
      ON CONFLICT (company_id, deposit_id, product_id)
      DO UPDATE SET quantity = l.quantity + ${delta}::numeric, updated_at = excluded.updated_at`,
  );
}

/** Sets a product's total stock; updated_at stays the catalogue version (stock events carry their own time). */
export async function setProductTotal(tx: Conn, companyId: number, productId: number, stockMilli: number) {
  await tx.execute(
    sql`UPDATE products SET stock = ${fromMilli(stockMilli)}::numeric WHERE company_id = ${companyId} AND id = ${productId}`,
  );
}

export interface MovementRow {
  companyId: number;
  id: number;
  type: MovementType;
  depositId: number;
  toDepositId: number | null;
  productId: number;
  amountMilli: number;
  reason: string | null;
  createdAt: Date;
  recordedAt: Date;
}

export async function insertMovement(tx: Conn, row: MovementRow) {
  await tx.execute(
    sql`INSERT INTO movements (company_id, id, type, deposit_id, to_deposit_id, product_id, amount, reason, created_at, recorded_at)
      VALUES (${row.companyId}, ${row.id}, ${row.type}, ${row.depositId}, ${row.toDepositId}, ${row.productId},
        ${fromMilli(row.amountMilli)}::numeric, ${row.reason}, ${row.createdAt}::timestamptz, ${row.recordedAt}::timestamptz)`,
  );
}

/** A batch's movement rows (the `moves` step of both ledger statements). */
export type BatchMove = {
  id: number;
  type: MovementType;
  productId: number;
  amountMilli: number;
  reason: string | null;
  createdAt: string;
};

// The ledger's steps take their rows from one parameter each (JSON, or arrays), never from a list
// of VALUES: their text is the same for one movement or a hundred, so each connection plans each
// statement once (the register's sales written together vary only in their parameters).
function movesStep(companyId: number, depositId: number, nowText: string, moves: BatchMove[]): SQL {
  const rows = JSON.stringify(
    moves.map((m) => ({
      id: m.id,
      type: m.type,
      product_id: m.productId,
      amount: fromMilli(m.amountMilli),
      reason: m.reason,
      created_at: m.createdAt,
    })),
  );
  return sql`moves AS (
    INSERT INTO movements (company_id, id, type, deposit_id, to_deposit_id, product_id, amount, reason, created_at, recorded_at)
    SELECT ${companyId}::integer, m.id, m.type, ${depositId}::integer, NULL::integer, m.product_id, m.amount, m.reason,
      m.created_at, ${nowText}::timestamptz
    FROM jsonb_to_recordset(${rows}::jsonb)
      AS m(id integer, type text, product_id integer, amount numeric, reason text, created_at timestamptz))`;
}

/**
 * The CTE steps of a batch of movements of one deposit (see bookMovements): the deposit's levels,
 * the products' new totals (`totals`, only products whose stock changed) and the movement rows.
 */
export function ledgerSteps(batch: {
  companyId: number;
  depositId: number;
  now: Date;
  /** [productId, change in thousandths, new total in thousandths] of each product whose stock changed. */
  changed: [number, number, number][];
  moves: BatchMove[];
}): SQL[] {
  const { companyId, depositId, changed } = batch;
  const nowText = batch.now.toISOString();
  const steps: SQL[] = [];
  if (changed.length > 0) {
    const ids = sql.param(changed.map(([productId]) => productId));
    steps.push(sql`levels AS (
      INSERT INTO stock_levels (company_id, deposit_id, product_id, quantity, updated_at)
      SELECT ${companyId}::integer, ${depositId}::integer, d.id, d.delta, ${nowText}::timestamptz
      FROM unnest(${ids}::int[], ${sql.param(changed.map(([, delta]) => fromMilli(delta)))}::numeric[]) AS d(id, delta)
      ON CONFLICT (company_id, deposit_id, product_id)
      DO UPDATE SET quantity = stock_levels.quantity + excluded.quantity, updated_at = excluded.updated_at)`);
    // updated_at stays the catalogue version (product.upserted ordering); stock events carry their own time.
    steps.push(sql`totals AS (
      UPDATE products AS p SET stock = v.stock
      FROM unnest(${ids}::int[], ${sql.param(changed.map(([, , total]) => fromMilli(total)))}::numeric[]) AS v(id, stock)
      WHERE p.company_id = ${companyId} AND p.id = v.id)`);
  }
  steps.push(movesStep(companyId, depositId, nowText, batch.moves));
  return steps;
}

/**
 * The CTE steps of a batch of movements of one deposit that locks its products itself (see
 * bookGroupsLocking): `locked` takes the products' rows FOR UPDATE in id order (LockRows above the
 * sort), and every other step reads or writes a product's rows only through a row of `locked`, so
 * no lock of the statement is taken out of that order and two such statements never deadlock. The
 * stock a movement starts from is the locked row's (the newest committed version after a wait).
 */
export function lockingLedgerSteps(batch: {
  companyId: number;
  depositId: number;
  now: Date;
  /** Every product of the batch, sorted by id. */
  productIds: number[];
  /** [productId, change in thousandths] of each product whose stock changes, sorted by id. */
  changed: [number, number][];
  moves: BatchMove[];
}): SQL[] {
  const { companyId, depositId, changed } = batch;
  const nowText = batch.now.toISOString();
  const steps: SQL[] = [
    sql`locked AS MATERIALIZED (
      SELECT id, stock, sku FROM products
      WHERE company_id = ${companyId} AND id = ANY(${sql.param(batch.productIds)}::int[]) ORDER BY id FOR UPDATE)`,
  ];
  if (changed.length > 0) {
    const deltas = sql`unnest(${sql.param(changed.map(([productId]) => productId))}::int[],
      ${sql.param(changed.map(([, delta]) => fromMilli(delta)))}::numeric[]) AS d(id, delta)`;
    steps.push(sql`levels AS (
      INSERT INTO stock_levels (company_id, deposit_id, product_id, quantity, updated_at)
      SELECT ${companyId}, ${depositId}, d.id, d.delta, ${nowText}::timestamptz FROM ${deltas} JOIN locked l ON l.id = d.id ORDER BY d.id
      ON CONFLICT (company_id, deposit_id, product_id)
      DO UPDATE SET quantity = stock_levels.quantity + excluded.quantity, updated_at = excluded.updated_at)`);
    // updated_at stays the catalogue version (product.upserted ordering); stock events carry their own time.
    steps.push(sql`totals AS (
      UPDATE products AS p SET stock = l.stock + d.delta FROM ${deltas} JOIN locked l ON l.id = d.id
      WHERE p.company_id = ${companyId} AND p.id = d.id)`);
  }
  steps.push(movesStep(companyId, depositId, nowText, batch.moves));
  return steps;
}

/**
 * A product.stock_updated event whose stock figures the statement reads from its `locked` rows
 * (lockingLedgerSteps): the stock before is the locked stock plus `beforeMilli` (earlier movements
 * of the same product in the batch).
 */
export interface LockedStockEvent {
  stock: { productId: number; beforeMilli: number; deltaMilli: number; depositId: number; at: string };
}
export type LedgerEvent = OutboundEvent | LockedStockEvent;

/** The event rows of a locking ledger statement, in order, for the outbox writer. */
function ledgerEventRows(companyId: number, events: LedgerEvent[], causedBy: string | null): SQL {
  const rows = JSON.stringify(
    events.map((e, n) => {
      if ('stock' in e) {
        const s = e.stock;
        return {
          ord: n,
          id: randomUUID(),
          event: 'product.stock_updated',
          product_id: s.productId,
          before: fromMilli(s.beforeMilli),
          delta: fromMilli(s.deltaMilli),
          deposit_id: s.depositId,
          at: s.at,
        };
      }
      return { ord: n, id: e.id ?? randomUUID(), event: e.event, payload: { event: e.event, data: e.data } };
    }),
  );
  return sql`SELECT e.id, ${companyId}::integer, e.event,
      coalesce(e.payload, jsonb_build_object('event', 'product.stock_updated', 'data', jsonb_build_object('product', jsonb_build_object(
        'id', l.id, 'company_id', ${companyId}::integer, 'sku', l.sku,
        'previous_stock', (l.stock + e.before)::float8, 'current_stock', (l.stock + e.before + e.delta)::float8,
        'change', e.delta::float8, 'deposit_id', e.deposit_id, 'updated_at', e.at)))),
      ${causedBy}::uuid
    FROM jsonb_to_recordset(${rows}::jsonb)
      AS e(ord integer, id uuid, event text, payload jsonb, product_id integer, before numeric, delta numeric, deposit_id integer, at text)
    LEFT JOIN locked l ON l.id = e.product_id
    ORDER BY e.ord`;
}

/**
 * Runs the ledger's CTE steps (ledgerSteps, or lockingLedgerSteps: `locked` first), the caller's
 * own steps (`before`: a sale, its items, …) and the events, in order, in ONE statement. Prepared
 * under a name derived from its text: every row comes in a parameter (JSON or arrays), so the text
 * is the same for one movement or many, one sale or thirty, and each connection plans it once.
 *
 * The main query reads none of the steps (`SELECT 1`), so PostgreSQL runs every data-modifying step
 * after it, the last listed first (and `locked` when a step first reads it). The steps are listed
 * `locked`, events, stock, caller's: the caller's rows and the movements are written first, and the
 * products' rows are locked by the stock step, for the rest of the statement and its commit only.
 * On hot products (every register selling the same ones) the lock is the queue: the shorter it is
 * held, the shorter the queue (issue 33). The order changes when the lock is taken, never what is
 * written: every step sees the same snapshot and reads products only through `locked`.
 */
export async function runLedgerStatement(
  tx: Conn,
  companyId: number,
  steps: SQL[],
  events: LedgerEvent[],
  options: LedgerStatementOptions = {},
) {
  await selectRowsPrepared(tx, ledgerStatement(companyId, steps, events, options));
}

export interface LedgerStatementOptions {
  causedBy?: string | null;
  before?: SQL[];
}

/** The statement runLedgerStatement runs. */
export function ledgerStatement(
  companyId: number,
  steps: SQL[],
  events: LedgerEvent[],
  options: LedgerStatementOptions = {},
): SQL {
  const causedBy = options.causedBy ?? null;
  const insert = events.some((e) => 'stock' in e)
    ? outboxInsert({ rows: ledgerEventRows(companyId, events, causedBy) })
    : outboxInsert({ companyId, events: events as OutboundEvent[], causedBy });
  const [first, ...rest] = steps;
  const listed = [first!, sql`outbox AS (${insert})`, ...rest, ...(options.before ?? [])];
  return sql`WITH ${sql.join(listed, sql`, `)} SELECT 1`;
}
