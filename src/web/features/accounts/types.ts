// The cuenta corriente's wire shapes, as the browser reads them (the server's TypeBox schemas).
export type {
  AccountListWire,
  AccountPaymentWire,
  AccountSummaryWire,
  CustomerAccountWire,
  StatementShareWire,
} from '../../../modules/accounts/accounts.schemas.ts';
