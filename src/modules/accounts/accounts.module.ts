import type { Database } from '../../db/client.ts';
import type { Clock } from '../../lib/time.ts';
import { type AccountsService, createAccountsService } from './accounts.service.ts';

// Cuenta corriente (issue 28): sales on account are charged by the register's sale path through
// account-ledger.ts; this module serves the accounts, payments on account, statements and links.

export interface AccountsModule {
  accounts: AccountsService;
}

export function createAccountsModule(deps: { db: Database; clock: Clock; publicBaseUrl: string }): AccountsModule {
  return { accounts: createAccountsService(deps) };
}
