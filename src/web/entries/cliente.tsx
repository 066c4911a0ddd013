import { CustomerPage, type CustomerPageData } from '../features/customers/customer-page.tsx';
import { mountPage } from '../ui/page-data.ts';

// The account panel (cuenta corriente) mounts here: <CustomerPage data={data} accountPanel={(c) => …} />.
mountPage<CustomerPageData>((data) => <CustomerPage data={data} />);
