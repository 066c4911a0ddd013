import type { Database } from '../../db/client.ts';
import type { Clock } from '../../lib/time.ts';
import { createLibroIvaService } from './libro-iva.service.ts';
import { createReportsService, type DaySummarySource } from './reports.service.ts';
import { createRollup } from './rollup.ts';

export type ReportsModule = ReturnType<typeof createReportsModule>;

/**
 * Reports and the owner's home (docs/reportes.md), and the Libro IVA Digital — ventas
 * (docs/libro-iva.md). Read-only: nothing here writes. `sales` is the day summary Inicio repeats.
 */
export function createReportsModule({ db, clock, sales }: { db: Database; clock: Clock; sales: DaySummarySource }) {
  const rollup = createRollup(db);
  return { reports: createReportsService({ db, clock, sales, rollup }), libroIva: createLibroIvaService({ db }), rollup };
}
