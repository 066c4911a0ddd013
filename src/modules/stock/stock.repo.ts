import { and, eq, type SQL, sql } from 'drizzle-orm';
import { type Conn, selectRows, selectRowsPrepared } from '../../db/client.ts';
import { deposits, type MovementType, movements, products, stockLevels } from '../../db/schema/index.ts';
import { fromMilli } from '../../lib/money.ts';
import { type OutboundEvent, outboxInsert } from '../../outbox/outbox.repo.ts';

// The stock ledger's SQL (stock.ledger.ts decides what is booked; this file only reads and writes).

/** True when the company has that deposit. */
export async function depositExists(conn: Conn, companyId: number, depositId: number): Promise<boolean> {
  const [row] = await conn
    .select({ id: deposits.id })
    .from(deposits)
    .where(and(eq(deposits.companyId, companyId), eq(deposits.id, depositId)));
  return row !== undefined;
}

/** The company's default deposit id, or null when it has none. */
export async function findDefaultDeposit(conn: Conn, companyId: number): Promise<number | null> {
  const [row] = await conn
    .select({ id: deposits.id })
    .from(deposits)
    .where(and(eq(deposits.companyId, companyId), eq(deposits.isDefault, true)));
  return row?.id ?? null;
}

/** One product's stock and sku, its row locked FOR UPDATE to the end of the transaction; null when absent. */
export async function lockProductRow(
  tx: Conn,
  companyId: number,
  productId: number,
): Promise<{ stock: string; sku: string | null } | null> {
  const [row] = await tx
    .select({ stock: products.stock, sku: products.sku })
    .from(products)
    .where(and(eq(products.companyId, companyId), eq(products.id, productId)))
    .for('update');
  return row ?? null;
}

/** Products' stock and sku locked FOR UPDATE in id order (the order every writer of stock uses). */
export function lockProductRows(tx: Conn, companyId: number, sortedIds: number[]) {
  return selectRows<{ id: number; stock: string; sku: string | null }>(
    tx,
    sql`SELECT id, stock, sku FROM products WHERE company_id = ${companyId} AND id IN (${sql.join(
      sortedIds.map((id) => sql`${id}`),
      sql`, `,
    )}) ORDER BY id FOR UPDATE`,
  );
}

/** What one deposit holds of a product (null when it never held any). */
export async function findLevel(conn: Conn, companyId: number, depositId: number, productId: number): Promise<string | null> {
  const [level] = await conn
    .select({ quantity: stockLevels.quantity })
    .from(stockLevels)
    .where(and(eq(stockLevels.companyId, companyId), eq(stockLevels.depositId, depositId), eq(stockLevels.productId, productId)));
  return level?.quantity ?? null;
}

/** Per-deposit quantities of a product, in deposit order. */
export function findLevels(conn: Conn, companyId: number, productId: number) {
  return conn
    .select({ depositId: stockLevels.depositId, quantity: stockLevels.quantity })
    .from(stockLevels)
    .where(and(eq(stockLevels.companyId, companyId), eq(stockLevels.productId, productId)))
    .orderBy(stockLevels.depositId);
}

/** Adds `deltaMilli` to what a deposit holds of a product (the row is created at the first movement). */
export async function addToLevel(
  tx: Conn,
  level: { companyId: number; depositId: number; productId: number; deltaMilli: number; now: Date },
) {
  const { companyId, depositId, productId, deltaMilli, now } = level;
  await tx
    .insert(stockLevels)
    .values({ companyId, depositId, productId, quantity: fromMilli(deltaMilli), updatedAt: now })
    .onConflictDoUpdate({
      target: [stockLevels.companyId, stockLevels.depositId, stockLevels.productId],
      set: { quantity: sql`${stockLevels.quantity} + ${fromMilli(deltaMilli)}`, updatedAt: now },
    });
}

/** Sets a product's total stock; updated_at stays the catalogue version (stock events carry their own time). */
export async function setProductTotal(tx: Conn, companyId: number, productId: number, stockMilli: number) {
  await tx
    .update(products)
    .set({ stock: fromMilli(stockMilli) })
    .where(and(eq(products.companyId, companyId), eq(products.id, productId)));
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
  const { amountMilli, ...rest } = row;
  await tx.insert(movements).values({ ...rest, amount: fromMilli(amountMilli) });
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
  moves: { id: number; type: MovementType; productId: number; amountMilli: number; reason: string | null; createdAt: string }[];
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
  steps.push(sql`moves AS (
    INSERT INTO movements (company_id, id, type, deposit_id, to_deposit_id, product_id, amount, reason, created_at, recorded_at)
    VALUES ${sql.join(
      batch.moves.map(
        (m) =>
          sql`(${companyId}, ${m.id}, ${m.type}, ${depositId}, NULL::integer, ${m.productId}, ${fromMilli(
            m.amountMilli,
          )}::numeric, ${m.reason}, ${m.createdAt}::timestamptz, ${nowText}::timestamptz)`,
      ),
      sql`, `,
    )})`);
  return steps;
}

/**
 * Runs CTE steps (the ledger's and the caller's) and records the events, in order, in ONE statement.
 * Prepared under a name derived from its text (every value is a parameter, so the text depends only
 * on how many items, movements and events there are): each connection parses and plans a shape once.
 */
export async function runLedgerStatement(
  tx: Conn,
  companyId: number,
  steps: SQL[],
  events: OutboundEvent[],
  causedBy: string | null = null,
) {
  await selectRowsPrepared(tx, sql`WITH ${sql.join(steps, sql`, `)} ${outboxInsert({ companyId, events, causedBy })}`);
}
