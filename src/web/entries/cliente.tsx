import { AccountPanel } from '../features/accounts/account-panel.tsx';
import { CustomerPage, type CustomerPageData } from '../features/customers/customer-page.tsx';
import { mountPage } from '../ui/page-data.ts';

// The customer's account (cuenta corriente) shows on the Cliente page when the shop sells to them on account.
mountPage<CustomerPageData>((data) => (
  <CustomerPage data={data} accountPanel={(c) => (c.account_enabled ? <AccountPanel customerId={c.id} /> : null)} />
));
