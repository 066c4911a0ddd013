import type { Config } from '../../config.ts';
import type { Database } from '../../db/client.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Cipher } from '../../lib/secrets.ts';
import type { Clock } from '../../lib/time.ts';
import type { Logger } from '../../logger.ts';
import { createArcaAccess } from './arca-access.ts';
import type { FindCustomer } from './customer-buyer.ts';
import { createFiscalService } from './fiscal.service.ts';
import { createInvoicingService } from './invoicing.service.ts';

export type InvoicingModule = ReturnType<typeof createInvoicingModule>;

/**
 * Electronic invoicing with ARCA (docs/facturacion.md): the fiscal setup, issuing and credit
 * notes, and the job that settles receipts whose answer was lost.
 */
export function createInvoicingModule({
  config,
  db,
  clock,
  cipher,
  logger,
  jobs,
  findCustomer,
}: {
  config: Config;
  db: Database;
  clock: Clock;
  cipher: Cipher;
  logger: Logger;
  jobs: JobQueue;
  /** The customers a receipt can be issued to (the customers module). */
  findCustomer: FindCustomer;
}) {
  const arca = createArcaAccess({ config: config.arca, db, logger, dataDir: config.db.dataDir });
  const fiscal = createFiscalService({ db, clock, cipher, arca });
  const invoicing = createInvoicingService({ db, clock, logger, fiscal, arca, findCustomer });
  jobs.define({
    name: 'invoices-settle-pending',
    schedule: '* * * * *',
    handler: async () => {
      const settled = await invoicing.settleStale();
      if (settled > 0) logger.info({ settled }, 'pending receipts settled with ARCA');
      const credited = await invoicing.settleCreditNotes();
      if (credited > 0) logger.info({ credited }, 'credit notes of refunds issued');
    },
  });
  return { arca, fiscal, invoicing, close: () => arca.close() };
}
