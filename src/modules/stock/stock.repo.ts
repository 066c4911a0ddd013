import { randomUUID } from 'node:crypto';
import { type SQL, sql } from 'drizzle-orm';
import { type Conn, type PreparedShapes, selectRows, selectRowsIfShape, selectRowsPrepared } from '../../db/client.ts';
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

function movesStep(companyId: number, depositId: number, nowText: string, moves: BatchMove[]): SQL {
  return sql`moves AS (
    INSERT INTO movements (company_id, id, type, deposit_id, to_deposit_id, product_id, amount, reason, created_at, recorded_at)
    VALUES ${sql.join(
      moves.map(
        (m) =>
          sql`(${companyId}, ${m.id}, ${m.type}, ${depositId}, NULL::integer, ${m.productId}, ${fromMilli(
            m.amountMilli,
          )}::numeric, ${m.reason}, ${m.createdAt}::timestamptz, ${nowText}::timestamptz)`,
      ),
      sql`, `,
    )})`;
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
    steps.push(sql`levels AS (
      INSERT INTO stock_levels (company_id, deposit_id, product_id, quantity, updated_at) VALUES ${sql.join(
        changed.map(
          ([productId, delta]) =>
            sql`(${companyId}, ${depositId}, ${productId}, ${fromMilli(delta)}::numeric, ${nowText}::timestamptz)`,
        ),
        sql`, `,
      )}
      ON CONFLICT (company_id, deposit_id, product_id)
      DO UPDATE SET quantity = stock_levels.quantity + excluded.quantity, updated_at = excluded.updated_at)`);
    // updated_at stays the catalogue version (product.upserted ordering); stock events carry their own time.
    steps.push(sql`totals AS (
      UPDATE products AS p SET stock = v.stock::numeric FROM (VALUES ${sql.join(
        changed.map(([productId, , total]) => sql`(${productId}::integer, ${fromMilli(total)}::text)`),
        sql`, `,
      )}) AS v(id, stock) WHERE p.company_id = ${companyId} AND p.id = v.id)`);
  }
  steps.push(movesStep(companyId, depositId, nowText, batch.moves));
  return steps;
}

/**
 * The CTE steps of a batch of movements of one deposit that locks its products itself (see
 * bookMovementsLocking): `locked` takes the products' rows FOR UPDATE in id order (LockRows above the
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
    const deltas = sql`(VALUES ${sql.join(
      changed.map(([productId, delta]) => sql`(${productId}::integer, ${fromMilli(delta)}::numeric)`),
      sql`, `,
    )}) AS d(id, delta)`;
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
  const rows = events.map((e, n) => {
    if ('stock' in e) {
      const s = e.stock;
      return sql`(${n}::integer, ${randomUUID()}::uuid, 'product.stock_updated'::text, NULL::jsonb, ${s.productId}::integer,
        ${fromMilli(s.beforeMilli)}::numeric, ${fromMilli(s.deltaMilli)}::numeric, ${s.depositId}::integer, ${s.at}::text)`;
    }
    return sql`(${n}::integer, ${e.id ?? randomUUID()}::uuid, ${e.event}::text, ${JSON.stringify({ event: e.event, data: e.data })}::jsonb,
      NULL::integer, NULL::numeric, NULL::numeric, NULL::integer, NULL::text)`;
  });
  return sql`SELECT e.id, ${companyId}::integer, e.event,
      coalesce(e.payload, jsonb_build_object('event', 'product.stock_updated', 'data', jsonb_build_object('product', jsonb_build_object(
        'id', l.id, 'company_id', ${companyId}::integer, 'sku', l.sku,
        'previous_stock', (l.stock + e.before)::float8, 'current_stock', (l.stock + e.before + e.delta)::float8,
        'change', e.delta::float8, 'deposit_id', e.deposit_id, 'updated_at', e.at)))),
      ${causedBy}::uuid
    FROM (VALUES ${sql.join(rows, sql`, `)}) AS e(ord, id, event, payload, product_id, before, delta, deposit_id, at)
    LEFT JOIN locked l ON l.id = e.product_id
    ORDER BY e.ord`;
}

/**
 * Runs the ledger's CTE steps (ledgerSteps, or lockingLedgerSteps: `locked` first), the caller's
 * own steps (`before`: a sale, its items, …) and the events, in order, in ONE statement. Prepared
 * under a name derived from its text (every value is a parameter, so the text depends only on how
 * many items, movements and events there are): each connection parses and plans a shape once.
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
  options: { causedBy?: string | null; before?: SQL[]; shapes?: PreparedShapes } = {},
) {
  const causedBy = options.causedBy ?? null;
  const insert = events.some((e) => 'stock' in e)
    ? outboxInsert({ rows: ledgerEventRows(companyId, events, causedBy) })
    : outboxInsert({ companyId, events: events as OutboundEvent[], causedBy });
  const [first, ...rest] = steps;
  const listed = [first!, sql`outbox AS (${insert})`, ...rest, ...(options.before ?? [])];
  const statement = sql`WITH ${sql.join(listed, sql`, `)} SELECT 1`;
  // A statement whose text varies with its size (several sales at once) is kept prepared only for
  // the texts that `shapes` admits; any other, always.
  await (options.shapes ? selectRowsIfShape(tx, statement, options.shapes) : selectRowsPrepared(tx, statement));
}
