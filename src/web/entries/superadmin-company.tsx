import { useState } from 'preact/hooks';
import { formatCuit } from '../../lib/cuit.ts';
import { formatCount, formatDateTime } from '../../lib/format.ts';
import type { AuditEntryWire } from '../../modules/audit/audit.repo.ts';
import type { CompanyDetailWire } from '../../modules/superadmin/superadmin.service.ts';
import type { InvitationWire } from '../../modules/users/invitations.service.ts';
import type { MemberWire } from '../../modules/users/members.service.ts';
import { Activity } from '../features/activity.tsx';
import { Members } from '../features/members.tsx';
import { api, errorText } from '../ui/api.ts';
import { useConfirm } from '../ui/dialog.tsx';
import { BusyButton } from '../ui/form.tsx';
import { Card, PageTitle } from '../ui/layout.tsx';
import { Notice, useNotice } from '../ui/notice.tsx';
import { Secret } from '../ui/secret.tsx';
import { mountPage } from '../ui/page-data.ts';

interface CompanyData {
  company: CompanyDetailWire;
  members: MemberWire[];
  invitations: InvitationWire[];
  audit: AuditEntryWire[];
}

function Stat({ label, value }: { label: string; value: number }) {
  return (
    <div class="stat">
      <strong>{formatCount(value)}</strong>
      <span class="muted">{label}</span>
    </div>
  );
}

function Company({ company, members, invitations, audit }: CompanyData) {
  const [keys, setKeys] = useState<{ integration_key?: string; scanner_token?: string } | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const [notice, say] = useNotice();
  const { ask, dialog } = useConfirm();
  const base = `/api/superadmin/companies/${company.id}`;

  const rotate = async (which: 'integration' | 'scanner') => {
    const what = which === 'integration' ? 'la clave de integración' : 'el token del escáner';
    if (!(await ask(`${company.name}: ${what} actual deja de funcionar en el acto.`, { confirmLabel: 'Rotar', danger: true })))
      return;
    setBusy(which);
    try {
      setKeys(await api('POST', `${base}/keys/rotate`, { body: { [which]: true } }));
      say('ok', `Listo: ${what} nueva ya está vigente. Pasásela a la empresa.`);
      setVersion((v) => v + 1);
    } catch (err) {
      say('error', errorText(err));
    } finally {
      setBusy(null);
    }
  };

  const [claims, setClaims] = useState(company.cuit_claims);
  const [cuit, setCuit] = useState(company.cuit);
  const resolve = async (claimed: string, action: 'move' | 'dismiss') => {
    const question =
      action === 'move'
        ? `${company.name} pasa a tener el CUIT ${formatCuit(claimed)}; la empresa que lo tiene hoy lo pierde.`
        : `Se descarta el pedido del CUIT ${formatCuit(claimed)}; ${company.name} sigue sin él.`;
    if (!(await ask(question, { confirmLabel: action === 'move' ? 'Pasar el CUIT' : 'Descartar', danger: action === 'move' })))
      return;
    setBusy(`claim-${claimed}`);
    try {
      const next = await api<{ company: CompanyDetailWire }>('POST', `${base}/cuit-claims/${claimed}`, { body: { action } });
      setClaims(next.company.cuit_claims);
      setCuit(next.company.cuit);
      say('ok', action === 'move' ? `Listo: el CUIT ${formatCuit(claimed)} ahora es de ${company.name}.` : 'Pedido descartado.');
      setVersion((v) => v + 1);
    } catch (err) {
      say('error', errorText(err));
    } finally {
      setBusy(null);
    }
  };

  return (
    <>
      <p>
        <a href="/superadmin/companies">← Empresas</a>
      </p>
      <PageTitle>{company.name}</PageTitle>
      <Card title="Datos">
        <dl class="facts">
          <dt>Número</dt>
          <dd>{company.id}</dd>
          <dt>CUIT</dt>
          <dd>{cuit ? formatCuit(cuit) : 'Sin CUIT'}</dd>
          <dt>Zona horaria</dt>
          <dd>{company.timezone}</dd>
          <dt>Alta</dt>
          <dd>{formatDateTime(company.created_at)}</dd>
        </dl>
      </Card>
      {claims.length > 0 ? (
        <Card title="CUIT en conflicto">
          <p class="muted">
            La empresa quiso cargar un CUIT que ya tiene otra. A ella solo le dijimos que no se puede usar y que escriba a
            soporte.
          </p>
          <ul class="claims" id="cuit-claims">
            {claims.map((c) => (
              <li key={c.cuit}>
                <p>
                  <strong>{formatCuit(c.cuit)}</strong>, pedido el {formatDateTime(c.claimed_at)}.{' '}
                  {c.holder ? (
                    <>
                      Hoy lo tiene <a href={`/superadmin/companies/${c.holder.id}`}>{c.holder.name}</a> (#{c.holder.id}).
                    </>
                  ) : (
                    'Hoy no lo tiene ninguna empresa.'
                  )}
                </p>
                <div class="row">
                  <BusyButton busy={busy === `claim-${c.cuit}`} class="danger" onClick={() => void resolve(c.cuit, 'move')}>
                    Pasarle el CUIT
                  </BusyButton>
                  <BusyButton busy={busy === `claim-${c.cuit}`} onClick={() => void resolve(c.cuit, 'dismiss')}>
                    Descartar el pedido
                  </BusyButton>
                </div>
              </li>
            ))}
          </ul>
        </Card>
      ) : null}
      <Card title="Qué tiene">
        <div class="stats">
          <Stat label="Personas con acceso" value={company.members_count} />
          <Stat label="Productos" value={company.products_count} />
          <Stat label="Ventas" value={company.sales_count} />
          <Stat label="Depósitos" value={company.deposits_count} />
          <Stat label="Cajas" value={company.boxes_count} />
          <Stat label="Eventos recibidos" value={company.inbound_events_count} />
          <Stat label="Eventos generados" value={company.outbound_events_count} />
          <Stat label="Webhooks" value={company.webhooks_count} />
        </div>
        <p class="hint muted">
          Eventos generados: cada venta, pago, producto o cambio de stock queda registrado como evento; se envía solo a los
          webhooks que la empresa tenga.
        </p>
      </Card>
      <Card title="Claves">
        <Notice notice={notice} id="keys-message" />
        <p class="muted">Rotar una clave corta en el acto las integraciones o los escáneres que usan la anterior.</p>
        <div class="row">
          <BusyButton
            class="danger"
            busy={busy === 'integration'}
            id="rotate-integration"
            onClick={() => void rotate('integration')}
          >
            Rotar clave de integración
          </BusyButton>
          <BusyButton class="danger" busy={busy === 'scanner'} id="rotate-scanner" onClick={() => void rotate('scanner')}>
            Rotar token del escáner
          </BusyButton>
        </div>
        {keys?.integration_key ? (
          <>
            <p>Clave de integración nueva:</p>
            <Secret id="rotated-key" value={keys.integration_key} />
          </>
        ) : null}
        {keys?.scanner_token ? (
          <>
            <p>Token del escáner nuevo (no se vuelve a mostrar):</p>
            <Secret id="rotated-token" value={keys.scanner_token} />
          </>
        ) : null}
      </Card>
      <Members api={`${base}/members`} initial={members} invitations={invitations} me={null} />
      <Activity url={`${base}/audit?limit=20`} initial={audit} version={version} />
      {dialog}
    </>
  );
}

mountPage<CompanyData>((data) => <Company {...data} />);
