import type { Config } from '../../config.ts';
import type { Database } from '../../db/client.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Cipher } from '../../lib/secrets.ts';
import type { Clock } from '../../lib/time.ts';
import type { Logger } from '../../logger.ts';
import { createArcaAccess } from './arca-access.ts';
import { createCaeaService } from './caea.service.ts';
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
  const caea = createCaeaService({ db, clock, logger, fiscal, arca });
  const invoicing = createInvoicingService({ db, clock, logger, fiscal, arca, findCustomer, caea });
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
  // CAEA: the fortnight's code ahead (retried every run until there is one), the receipts issued
  // under it informed, and "sin movimiento" for a CAEA point of sale that issued nothing.
  jobs.define({
    name: 'caea-obtain',
    schedule: '7,37 * * * *',
    handler: async () => {
      const r = await caea.obtainAll();
      if (r.got > 0 || r.missing > 0) logger.info(r, 'CAEA requests');
    },
  });
  jobs.define({
    name: 'caea-inform',
    schedule: '*/5 * * * *',
    handler: async () => {
      const r = await caea.informAll();
      const quiet = await caea.informNoMovement();
      if (r.informed > 0 || r.failed > 0 || quiet > 0) logger.info({ ...r, noMovement: quiet }, 'CAEA informing');
    },
  });
  return { arca, fiscal, invoicing, caea, close: () => arca.close() };
}
