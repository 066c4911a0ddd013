import { Register, type RegisterState, type RegisterUser } from '../features/register/register.tsx';
import { mountPage } from '../ui/page-data.ts';

mountPage<{ state: RegisterState; user: RegisterUser }>(({ state, user }) => <Register initial={state} user={user} />);
