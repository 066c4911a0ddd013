import type { Database } from '../../db/client.ts';
import type { Clock } from '../../lib/time.ts';
import { createCustomerImport } from './customers-csv.ts';
import { createCustomerService } from './customers.service.ts';

export type CustomersModule = ReturnType<typeof createCustomersModule>;

/** The merchant CRM (docs/clientes.md): customers and their spreadsheets. */
export function createCustomersModule({ db, clock }: { db: Database; clock: Clock }) {
  return { customers: createCustomerService({ db, clock }), imports: createCustomerImport({ db, clock }) };
}
