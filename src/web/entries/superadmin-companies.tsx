import { useState } from 'preact/hooks';
import { formatCuit } from '../../lib/cuit.ts';
import { formatCount, formatDateTime } from '../../lib/format.ts';
import type { CompanySummaryWire } from '../../modules/superadmin/superadmin.service.ts';
import { api, errorText } from '../ui/api.ts';
import { BusyButton, Field } from '../ui/form.tsx';
import { Card, PageTitle, Pager, TableWrap } from '../ui/layout.tsx';
import { Notice, useNotice } from '../ui/notice.tsx';
import { Secret } from '../ui/secret.tsx';
import { mountPage } from '../ui/page-data.ts';

interface CompaniesData {
  companies: CompanySummaryWire[];
  total: number;
  q: string;
  limit: number;
  offset: number;
}

interface Created {
  company: CompanySummaryWire;
  integration_key: string;
  scanner_token: string;
}

function pageUrl(q: string, offset: number) {
  const query = new URLSearchParams();
  if (q) query.set('q', q);
  if (offset > 0) query.set('offset', String(offset));
  const text = query.toString();
  return `/superadmin/companies${text ? `?${text}` : ''}`;
}

function Companies(data: CompaniesData) {
  const [companies, setCompanies] = useState(data.companies);
  const [total, setTotal] = useState(data.total);
  const [created, setCreated] = useState<Created | null>(null);
  const [busy, setBusy] = useState(false);
  const [notice, say] = useNotice();

  const create = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const values = new FormData(form);
    const cuit = String(values.get('cuit') ?? '').trim();
    setBusy(true);
    try {
      const answer = await api<Created>('POST', '/api/superadmin/companies', {
        body: { name: String(values.get('name') ?? ''), ...(cuit ? { cuit } : {}) },
        messages: {
          conflict: 'Ya existe una empresa con ese CUIT.',
          validation_failed: (body) =>
            (body.details ?? []).some((d) => d.path.includes('cuit'))
              ? 'El CUIT no es válido: revisá los 11 dígitos (el último es el verificador).'
              : 'El nombre tiene que tener entre 1 y 200 caracteres.',
        },
      });
      setCreated(answer);
      // The new company is the newest: it goes first, as a reload would show it.
      if (data.offset === 0 && !data.q) setCompanies((list) => [answer.company, ...list].slice(0, data.limit));
      setTotal((n) => n + 1);
      say('ok', `Se creó ${answer.company.name} (n.º ${answer.company.id}).`);
      form.reset();
    } catch (err) {
      say('error', errorText(err));
    } finally {
      setBusy(false);
    }
  };

  const to = Math.min(data.offset + companies.length, total);
  return (
    <>
      <PageTitle lead="Las empresas que usan Mostrador. Abrí una para ver sus datos, sus personas y rotar sus claves.">
        Empresas
      </PageTitle>
      <Card>
        <form method="get" action="/superadmin/companies" class="row">
          <input name="q" type="search" value={data.q} placeholder="Buscá por nombre o CUIT" aria-label="Buscar empresas" />
          <button type="submit" class="secondary">
            Buscar
          </button>
        </form>
        <TableWrap id="companies">
          <thead>
            <tr>
              <th>Nombre</th>
              <th>CUIT</th>
              <th>Alta</th>
              <th class="num">Personas</th>
              <th class="num">Productos</th>
              <th class="num" title="Eventos que sus sistemas mandaron a /api/integration/in">
                Eventos recibidos
              </th>
              <th
                class="num"
                title="Ventas, pagos, productos y stock registrados como eventos para webhooks (se generan aunque no haya webhooks)"
              >
                Eventos generados
              </th>
              <th class="num">Webhooks</th>
            </tr>
          </thead>
          <tbody>
            {companies.length === 0 ? (
              <tr>
                <td colSpan={8} class="muted">
                  No hay empresas que coincidan.
                </td>
              </tr>
            ) : null}
            {companies.map((c) => (
              <tr key={c.id} data-company-id={c.id}>
                <td>
                  <a href={`/superadmin/companies/${c.id}`}>{c.name}</a>
                </td>
                <td>{c.cuit ? formatCuit(c.cuit) : '—'}</td>
                <td>{formatDateTime(c.created_at)}</td>
                <td class="num">{formatCount(c.members_count)}</td>
                <td class="num">{formatCount(c.products_count)}</td>
                <td class="num">{formatCount(c.inbound_events_count)}</td>
                <td class="num">{formatCount(c.outbound_events_count)}</td>
                <td class="num">{formatCount(c.webhooks_count)}</td>
              </tr>
            ))}
          </tbody>
        </TableWrap>
        <Pager
          from={data.offset + 1}
          to={to}
          total={total}
          onPrevious={data.offset > 0 ? () => location.assign(pageUrl(data.q, Math.max(0, data.offset - data.limit))) : null}
          onNext={to < total ? () => location.assign(pageUrl(data.q, data.offset + data.limit)) : null}
        />
      </Card>
      <Card title="Nueva empresa">
        <Notice notice={notice} id="create-message" />
        <form id="create-form" onSubmit={create}>
          <Field id="name" label="Nombre">
            <input id="name" name="name" required maxLength={200} />
          </Field>
          <Field id="cuit" label="CUIT (opcional)">
            <input id="cuit" name="cuit" placeholder="30-12345678-1" inputMode="numeric" />
          </Field>
          <BusyButton type="submit" busy={busy}>
            Crear empresa
          </BusyButton>
        </form>
        {created ? (
          <div id="create-result">
            <p class="notice">
              Guardá estos datos ahora: el token del escáner no se vuelve a mostrar (se puede rotar). La clave de integración la
              ve después quien administre la empresa, en Integraciones.
            </p>
            <p>Clave de integración:</p>
            <Secret id="new-key" value={created.integration_key} />
            <p>Token del escáner:</p>
            <Secret id="new-token" value={created.scanner_token} />
            <p>
              <a href={`/superadmin/companies/${created.company.id}`} id="new-company-link">
                Abrir {created.company.name} y agregar a sus personas
              </a>
            </p>
          </div>
        ) : null}
      </Card>
    </>
  );
}

mountPage<CompaniesData>((data) => <Companies {...data} />);
