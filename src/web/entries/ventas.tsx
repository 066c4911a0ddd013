import { Sales } from '../features/register/sales.tsx';
import { mountPage } from '../ui/page-data.ts';

mountPage<{ boxes: { id: number; name: string }[]; company: { name: string } }>(({ boxes }) => <Sales boxes={boxes} />);
