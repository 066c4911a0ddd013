import type { InvitationWire } from '../../modules/users/invitations.service.ts';
import type { MemberWire } from '../../modules/users/members.service.ts';
import { Members } from '../features/members.tsx';
import { PageTitle } from '../ui/layout.tsx';
import { mountPage } from '../ui/page-data.ts';

interface PeopleData {
  company: string | null;
  members: MemberWire[];
  invitations: InvitationWire[];
  me: number | null;
  api: string;
}

mountPage<PeopleData>(({ company, members, invitations, me, api }) => (
  <>
    <PageTitle lead="Quiénes entran a la empresa y con qué rol. Cada cambio queda en la actividad de Integraciones.">
      Personas{company ? ` · ${company}` : ''}
    </PageTitle>
    <Members api={api} initial={members} invitations={invitations} me={me} />
  </>
));
