import type { SQL } from 'drizzle-orm';
import { type Conn, selectRowsPrepared } from '../../db/client.ts';
import { type Batcher, createBatcher, createGate, type Gate, perGroup } from '../../lib/batcher.ts';
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

/** One company's statement slots and its three queues (createSaleBatcher). */
interface Lane {
  gate: Gate;
  points: Batcher<{ boxId: number; productIds: number[] }, repo.SellingPointRead>;
  numbers: Batcher<{ key: string; movements: number }, repo.SaleNumbers | null>;
  writes: Batcher<ReadySale, Outcome>;
}

/** Most sales in one statement. */
const MAX_BATCH = 32;

/**
 * The register's group commit, per company. With few sales at a time each is its own statement,
 * at once; when the company's slots are busy, the sales that arrive meanwhile wait and the next
 * free slot takes them together: their reads in one statement, their numbers in one, and their
 * rows in ONE statement and one commit per deposit: one lock of their products (in id order) and
 * every event, the stock figures in the order the sales came. Eight registers selling the same
 * products then share a lock and a WAL flush instead of taking turns. Nothing waits on a timer. A
 * statement that fails writes nothing and its sales are written one by one, each with its own
 * answer (a closed shift, a repeated key).
 *
 * Each company has `maxInFlight` statement slots (2 on PostgreSQL) shared by the three steps, of
 * which the writes take at most one: a freed slot goes to the write first, then the numbers, then
 * the reads, so sales already started finish first, and the sales behind a write go in one batch.
 * One company's sales waiting on a lock (an import holding its products) never hold up another's.
 * Against three steps of two slots each shared by every company (npm run bench -- pos, alternately
 * 3 × 2): 1,195–1,386 sales/s instead of 774–1,030, PostgreSQL CPU per sale 0.57–0.63 ms instead
 * of 0.89–1.19, 1.4 statements a sale instead of 2.1 (docs/decisiones.md).
 */
export function createSaleBatcher(orm: Conn, options: { maxInFlight: number }) {
  const lanes = new Map<number, Lane>();

  /** The company's slots and queues, made on its first sale and dropped when nothing waits or runs. */
  function laneOf(companyId: number): Lane {
    const existing = lanes.get(companyId);
    if (existing) return existing;
    const gate = createGate(options.maxInFlight, () => {
      if (lanes.get(companyId) === lane) lanes.delete(companyId);
    });
    const lane: Lane = {
      gate,
      // The reads and the numbers of the sales that arrive together are one statement each too.
      points: createBatcher({
        maxInFlight: options.maxInFlight,
        maxBatch: MAX_BATCH,
        gate,
        run: (requests) => repo.findSellingPoints(orm, companyId, requests),
      }),
      numbers: createBatcher({
        maxInFlight: options.maxInFlight,
        maxBatch: MAX_BATCH,
        gate,
        run: (requests) => repo.takeRegisterSaleIds(orm, companyId, requests),
      }),
      writes: createBatcher({ maxInFlight: 1, maxBatch: MAX_BATCH, gate, run: perGroup((sale) => sale.depositId, writeSales) }),
    };
    lanes.set(companyId, lane);
    return lane;
  }

  async function writeSales(sales: ReadySale[]): Promise<Outcome[]> {
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
  }

  return {
    /** repo.findSellingPoints of one sale, read with the others waiting. */
    sellingPoint(companyId: number, boxId: number, productIds: number[]) {
      return laneOf(companyId).points.submit({ boxId, productIds });
    },
    /** repo.takeRegisterSaleIds of one sale, taken with the others waiting (on the pool). */
    numbers(companyId: number, key: string, movements: number) {
      return laneOf(companyId).numbers.submit({ key, movements });
    },
    /** Writes the sale, with others or alone; throws what writing it alone threw. */
    async write(sale: ReadySale): Promise<void> {
      const outcome = await laneOf(sale.companyId).writes.submit(sale);
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
