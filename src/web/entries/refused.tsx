import { Card, PageTitle } from '../ui/layout.tsx';
import { mountPage } from '../ui/page-data.ts';

interface RefusedData {
  company: string | null;
  role: 'admin' | 'cashier' | null;
  home: string;
  admin_of: { id: number; name: string }[];
}

const ROLE: Record<string, string> = { admin: 'administración', cashier: 'caja' };

function Refused({ company, role, home, admin_of: adminOf }: RefusedData) {
  return (
    <>
      <PageTitle>Esta sección no es para tu usuario</PageTitle>
      <Card>
        {company ? (
          <p>
            En <strong>{company}</strong> tu rol es {ROLE[role ?? ''] ?? 'sin rol'}: esta sección la usa solo quien administra la
            empresa.
          </p>
        ) : (
          <p>Tu usuario no pertenece a ninguna empresa todavía. Pedile acceso a quien administra Mostrador en tu negocio.</p>
        )}
        {adminOf.length > 0 ? (
          <p>
            Administrás {adminOf.map((c) => c.name).join(', ')}: elegí esa empresa arriba, en el selector de empresa, para entrar.
          </p>
        ) : null}
        <p>
          <a href={home}>Ir a tu inicio</a>
        </p>
      </Card>
    </>
  );
}

mountPage<RefusedData>((data) => <Refused {...data} />);
