import type { SQL } from 'drizzle-orm';
import { type Conn, selectRowsPrepared } from '../../db/client.ts';
import { createBatcher, perGroup } from '../../lib/batcher.ts';
import { type SaleInsertValues, saleInsertSteps } from '../sales/sales.repo.ts';
import type { SaleEvent } from '../sales/sales.schemas.ts';
import { type BatchInput, bookGroupsLocking, ledgerStatement } from '../stock/stock.ledger.ts';
import * as repo from './register.repo.ts';

/** A register sale's rows and events, its numbers taken and its checks passed (jointStatement writes them). */
export interface SaleRows {
  companyId: number;
  /** The deposit the sale's stock leaves from. */
  depositId: number;
  now: Date;
  firstMovementId: number;
  movements: BatchInput[];
  /** The sale's own rows (sale, items, payments) and the register's row. */
  sale: SaleInsertValues;
  register: repo.RegisterRowValues;
  /** sales.created, and sales.paid when it is paid: the stock events go between them. */
  created: SaleEvent;
  paid: SaleEvent[];
}

/**
 * A plain register sale ready to be written: nothing to audit and nothing on account (those run
 * in a transaction of their own, never batched).
 */
export interface ReadySale extends SaleRows {
  /** Writes this sale in its own statement (the exact error when it is refused). */
  alone(): Promise<void>;
}

type Outcome = { written: true } | { written: false; error: unknown };

/** Most sales in one statement. */
const MAX_BATCH = 32;

/**
 * The register's group commit. With few sales at a time each is its own statement, at once; when
 * `maxInFlight` statements are already running, the sales that arrive meanwhile wait and the next
 * free slot writes those of one company and deposit together in ONE statement and one commit:
 * their rows, one lock of their products (in id order) and every event, the stock figures in the
 * order the sales came. Eight registers selling the same products then share a lock and a WAL
 * flush instead of taking turns. Nothing waits on a timer. A statement that fails writes nothing
 * and its sales are written one by one, each with its own answer (a closed shift, a repeated key).
 */
export function createSaleBatcher(orm: Conn, options: { maxInFlight: number }) {
  // The reads and the numbers of the sales that arrive together are one statement each too.
  const points = createBatcher<{ companyId: number; boxId: number; productIds: number[] }, repo.SellingPointRead>({
    maxInFlight: options.maxInFlight,
    maxBatch: MAX_BATCH,
    run: perGroup(
      (request) => request.companyId,
      (requests) => repo.findSellingPoints(orm, requests[0]!.companyId, requests),
    ),
  });
  const numbers = createBatcher<{ companyId: number; key: string; movements: number }, repo.SaleNumbers | null>({
    maxInFlight: options.maxInFlight,
    maxBatch: MAX_BATCH,
    run: perGroup(
      (request) => request.companyId,
      (requests) => repo.takeRegisterSaleIds(orm, requests[0]!.companyId, requests),
    ),
  });
  const batcher = createBatcher<ReadySale, Outcome>({
    maxInFlight: options.maxInFlight,
    maxBatch: MAX_BATCH,
    run: perGroup(
      (sale) => `${sale.companyId}:${sale.depositId}`,
      async (sales) => {
        if (sales.length > 1) {
          const written = await writeTogether(orm, sales).then(
            () => true,
            () => false,
          );
          if (written) return sales.map((): Outcome => ({ written: true }));
        }
        const outcomes: Outcome[] = [];
        for (const sale of sales) {
          outcomes.push(
            await sale.alone().then(
              (): Outcome => ({ written: true }),
              (error: unknown): Outcome => ({ written: false, error }),
            ),
          );
        }
        return outcomes;
      },
    ),
  });
  return {
    /** repo.findSellingPoints of one sale, read with the others waiting. */
    sellingPoint(companyId: number, boxId: number, productIds: number[]) {
      return points.submit({ companyId, boxId, productIds });
    },
    /** repo.takeRegisterSaleIds of one sale, taken with the others waiting (on the pool). */
    numbers(companyId: number, key: string, movements: number) {
      return numbers.submit({ companyId, key, movements });
    },
    /** Writes the sale, with others or alone; throws what writing it alone threw. */
    async write(sale: ReadySale): Promise<void> {
      const outcome = await batcher.submit(sale);
      if (!outcome.written) throw outcome.error;
    },
  };
}

/** Sales of one company and deposit in one statement: each its steps, one ledger, every event in order. */
async function writeTogether(orm: Conn, sales: ReadySale[]): Promise<void> {
  await selectRowsPrepared(orm, jointStatement(sales));
}

/**
 * The statement that writes register sales of one company and deposit: one alone, or several
 * together. Every row comes in a parameter, so its text is the same for one sale or thirty, of any
 * number of lines: each connection plans it once. The sale, its items, its payments, the register's
 * row, the stock movements and every event (sales.created, the movements', sales.paid) of each.
 */
export function jointStatement(sales: SaleRows[]): SQL {
  const companyId = sales[0]!.companyId;
  const now = new Date(Math.max(...sales.map((s) => s.now.getTime())));
  const ledger = bookGroupsLocking(
    companyId,
    sales.map((s) => ({ firstId: s.firstMovementId, inputs: s.movements, now: s.now })),
    now,
  );
  const events = sales.flatMap((s, k) => [s.created, ...ledger.events[k]!, ...s.paid]);
  return ledgerStatement(companyId, ledger.steps, events, {
    before: [
      ...saleInsertSteps(
        companyId,
        sales.map((s) => s.sale),
      ),
      repo.registerRowsStep(
        companyId,
        sales.map((s) => s.register),
      ),
    ],
  });
}
