import { Home, type HomeData } from '../features/reports/home.tsx';
import { mountPage } from '../ui/page-data.ts';

mountPage<{ home: HomeData }>(({ home }) => <Home initial={home} />);
