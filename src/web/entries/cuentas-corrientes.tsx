import { AccountsList } from '../features/accounts/accounts-list.tsx';
import type { AccountListWire } from '../features/accounts/types.ts';
import { mountPage } from '../ui/page-data.ts';

mountPage<{ list: AccountListWire }>(({ list }) => <AccountsList list={list} />);
