import { MySales, type MySalesData } from '../features/register/my-sales.tsx';
import { mountPage } from '../ui/page-data.ts';

mountPage<MySalesData>((data) => <MySales {...data} />);
