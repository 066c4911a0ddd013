import { Closes } from '../features/register/closes.tsx';
import { mountPage } from '../ui/page-data.ts';

mountPage<{ boxes: { id: number; name: string }[]; company: { name: string } }>(({ boxes, company }) => (
  <Closes boxes={boxes} company={company} />
));
