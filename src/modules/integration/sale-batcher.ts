import type { Database } from '../../db/client.ts';
import { createBatcher } from '../../lib/batcher.ts';
import type { Logger } from '../../logger.ts';
import { createSalesFromEvents, type PreparedSale, prepareSaleFromEvent } from '../sales/create-sale.ts';
import type { EventData } from './events.schemas.ts';
import { saleInput } from './integration.handlers.ts';
import type { NewInboundEvent } from './integration.repo.ts';

export interface SaleBatchOptions {
  /** Most batch statements running at once (each holds one database connection). */
  maxInFlight: number;
}

/** Most events in one statement, and most bytes of their bodies (a batch holds at least one event). */
const MAX_BATCH = 100;
const MAX_BATCH_BYTES = 1024 * 1024;

/** Created with its event; a duplicate of a stored event; or to be applied on its own (refused, or its batch failed). */
export type BatchedSaleOutcome = 'created' | 'duplicate' | 'alone';

/**
 * The fast path of sales.created, the event integrations send most: events that arrive while
 * earlier ones are being written are stored and applied together, by one statement and one commit
 * (createSalesFromEvents), instead of one transaction each. Each event keeps its own answer; an
 * event whose sale is refused, or every event of a batch that failed as a whole, is answered
 * 'alone' and goes through the one-event transaction, which gives the exact answer.
 */
export function createSaleBatcher(db: Database, log: Logger, options: SaleBatchOptions) {
  const batcher = createBatcher<PreparedSale, BatchedSaleOutcome>({
    maxInFlight: options.maxInFlight,
    maxBatch: MAX_BATCH,
    maxWeight: MAX_BATCH_BYTES,
    weigh: (sale) => sale.row.payload?.length ?? 0,
    async run(sales) {
      try {
        const outcomes = await createSalesFromEvents(db.orm, sales);
        return outcomes.map((o) => (o.outcome === 'refused' ? 'alone' : o.outcome));
      } catch (err) {
        log.debug({ err, events: sales.length }, 'batched sales statement failed; its events are applied one by one');
        return sales.map(() => 'alone' as const);
      }
    },
  });

  return {
    /** Prepares the sale (validateEnvelope checked it), then waits for its batch. */
    submit(companyId: number, data: EventData<'sales.created'>, inbound: NewInboundEvent, now: Date) {
      return batcher.submit(prepareSaleFromEvent({ companyId, input: saleInput(data.sale), inbound, now }));
    },
  };
}

/**
 * Batches in flight for a database: PGlite runs one statement at a time. On PostgreSQL fewer,
 * larger batches did better than many small ones (npm run bench -- ingest: 2 in flight ≈ 1.3×
 * the throughput of 5 on two cores); INGEST_BATCH_CONCURRENCY sets it for bigger servers, up to
 * the pool's size.
 */
export function saleBatchOptions(
  db: Pick<Database, 'kind'>,
  config: { integration: { batchConcurrency: number }; db: { poolMax: number } },
): SaleBatchOptions {
  return { maxInFlight: db.kind === 'postgres' ? Math.min(config.integration.batchConcurrency, config.db.poolMax) : 1 };
}
