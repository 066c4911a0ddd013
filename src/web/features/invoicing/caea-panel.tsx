import { useEffect, useState } from 'preact/hooks';
import { formatDate } from '../../../lib/format.ts';
import { formatArs } from '../../../lib/money.ts';
import { api, errorText } from '../../ui/api.ts';
import { BusyButton, Field } from '../../ui/form.tsx';
import { Card } from '../../ui/layout.tsx';
import { Notice, useNotice } from '../../ui/notice.tsx';

interface Fortnight {
  period: number;
  fortnight: number;
  caea: string | null;
  valid_from: string | null;
  valid_to: string | null;
  inform_by: string | null;
  request_from: string;
}

interface CaeaStatus {
  enabled: boolean;
  point_of_sale: number | null;
  register_point_of_sale: number | null;
  in_contingency: boolean;
  current: Fortnight;
  next: Fortnight;
  alerts: string[];
  duplicates: { sale_id: number; cae_invoice_id: number; caea_invoice_id: number }[];
  to_inform: {
    invoice_id: number;
    receipt: string;
    issue_date: string | null;
    total: number;
    caea: string;
    inform_by: string | null;
    status: string | null;
    tries: number;
    last_error: string | null;
    stale: boolean;
  }[];
}

const ALERTS: Record<string, string> = {
  missing_current:
    'No hay CAEA para esta quincena: si ARCA no responde, las facturas quedan pendientes. Revisá que el punto de venta CAEA exista en ARCA y pedilo.',
  missing_next: 'Todavía no hay CAEA para la próxima quincena (Mostrador lo sigue pidiendo).',
  inform_overdue: 'Hay comprobantes emitidos con CAEA sin informar y con la fecha tope vencida.',
  inform_rejected: 'ARCA rechazó informar algún comprobante emitido con CAEA: mirá el detalle abajo.',
  inform_stale:
    'Hay comprobantes CAEA emitidos con otro CUIT o en otro ambiente (homologación o producción) que el actual: Mostrador no los informa con esta configuración.',
  contingency_duplicate:
    'ARCA terminó autorizando con CAE una venta que ya tenía su comprobante con CAEA: quedaron dos comprobantes válidos. Anulá uno con una nota de crédito.',
};

const MONTHS = [
  'enero',
  'febrero',
  'marzo',
  'abril',
  'mayo',
  'junio',
  'julio',
  'agosto',
  'septiembre',
  'octubre',
  'noviembre',
  'diciembre',
];
const label = (f: Fortnight) =>
  `${f.fortnight === 1 ? '1.ª' : '2.ª'} quincena de ${MONTHS[(f.period % 100) - 1]} ${Math.floor(f.period / 100)}`;

function FortnightRow({ name, f }: { name: string; f: Fortnight }) {
  return (
    <tr>
      <th scope="row">{name}</th>
      <td>{label(f)}</td>
      <td data-label="CAEA">{f.caea ? <code>{f.caea}</code> : <span class="error">sin CAEA</span>}</td>
      <td data-label="Vigencia">
        {f.valid_from && f.valid_to
          ? `${formatDate(f.valid_from)} al ${formatDate(f.valid_to)}`
          : `se pide desde el ${formatDate(f.request_from)}`}
      </td>
      <td data-label="Informar hasta">{f.inform_by ? formatDate(f.inform_by) : '—'}</td>
    </tr>
  );
}

/**
 * "Contingencia CAEA" on the fiscal screen: turn it on with its point of sale, see this and the
 * next fortnight's CAEA (alerting when one is missing), and the receipts still to inform ARCA.
 */
export function CaeaPanel({ canSave }: { canSave: boolean }) {
  const [status, setStatus] = useState<CaeaStatus | null>(null);
  const [enabled, setEnabled] = useState(false);
  const [point, setPoint] = useState('');
  const [registerPoint, setRegisterPoint] = useState('');
  const [busy, setBusy] = useState<string | null>(null);
  const [notice, show] = useNotice();

  const load = async () => {
    const s = await api<CaeaStatus>('GET', '/api/v1/fiscal/caea');
    setStatus(s);
    setEnabled(s.enabled);
    setPoint(s.point_of_sale ? String(s.point_of_sale) : '');
    setRegisterPoint(s.register_point_of_sale ? String(s.register_point_of_sale) : '');
  };
  useEffect(() => {
    void load().catch((err) => show('error', errorText(err)));
  }, []);

  async function run(name: string, action: () => Promise<void>) {
    setBusy(name);
    try {
      await action();
    } catch (err) {
      show('error', errorText(err));
    } finally {
      setBusy(null);
    }
  }

  const save = () =>
    run('caea-save', async () => {
      await api('PUT', '/api/v1/fiscal', {
        body: {
          caea_enabled: enabled,
          caea_point_of_sale: point.trim() ? Number(point) : null,
          caea_register_point_of_sale: registerPoint.trim() ? Number(registerPoint) : null,
        },
      });
      await load();
      show('ok', enabled ? 'Contingencia CAEA activada.' : 'Contingencia CAEA desactivada.');
    });
  const request = () =>
    run('caea-request', async () => {
      setStatus(await api<CaeaStatus>('POST', '/api/v1/fiscal/caea/request'));
    });
  const inform = () =>
    run('caea-inform', async () => {
      const r = await api<{ informed: number; failed: number; status: CaeaStatus }>('POST', '/api/v1/fiscal/caea/inform');
      setStatus(r.status);
      show(r.failed ? 'error' : 'ok', `Informados: ${r.informed}. Sin informar: ${r.failed}.`);
    });

  return (
    <Card title="Contingencia CAEA (cuando ARCA no responde)" id="caea">
      <p class="muted">
        Con el CAEA, que se pide por adelantado para cada quincena, Mostrador emite las facturas aunque ARCA o internet no
        respondan (también en la caja sin conexión) y las informa después. ARCA exige un punto de venta propio, de tipo CAEA.
      </p>
      <Notice notice={notice} />
      {status?.alerts.map((a) => (
        <p class="error" key={a} data-alert={a}>
          {ALERTS[a] ?? a}
        </p>
      ))}
      {status?.duplicates.length ? (
        <ul id="caea-duplicates">
          {status.duplicates.map((d) => (
            <li key={d.sale_id}>
              Venta {d.sale_id}: <a href={`/facturas/${d.cae_invoice_id}`}>comprobante con CAE</a> y{' '}
              <a href={`/facturas/${d.caea_invoice_id}`}>comprobante con CAEA</a>
            </li>
          ))}
        </ul>
      ) : null}
      {status?.in_contingency ? (
        <p class="warn" id="caea-contingency">
          ARCA no respondió hace instantes: las facturas se están emitiendo con CAEA.
        </p>
      ) : null}
      <div class="grid-form">
        <Field id="caea-enabled" label="Usar CAEA cuando no haya CAE">
          <input id="caea-enabled" type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
        </Field>
        <Field
          id="caea-point"
          label="Punto de venta CAEA"
          hint="El número del punto de venta de tipo CAEA en ARCA (distinto de los de CAE)."
        >
          <input id="caea-point" inputMode="numeric" value={point} onInput={(e) => setPoint(e.currentTarget.value)} />
        </Field>
        <Field
          id="caea-register-point"
          label="Punto de venta CAEA de las cajas (recomendado)"
          hint="Otro punto de venta de tipo CAEA, para los números que cada caja guarda por si se queda sin conexión. Así esos números nunca frenan lo que el servidor informa a ARCA. Vacío: las cajas usan el de arriba."
        >
          <input
            id="caea-register-point"
            inputMode="numeric"
            value={registerPoint}
            onInput={(e) => setRegisterPoint(e.currentTarget.value)}
          />
        </Field>
      </div>
      <p class="row">
        {canSave ? (
          <BusyButton id="caea-save" busy={busy === 'caea-save'} onClick={save}>
            Guardar
          </BusyButton>
        ) : null}
        <BusyButton
          id="caea-request"
          class="secondary"
          busy={busy === 'caea-request'}
          onClick={request}
          disabled={!status?.enabled}
        >
          Pedir CAEA ahora
        </BusyButton>
        <BusyButton
          id="caea-inform"
          class="secondary"
          busy={busy === 'caea-inform'}
          onClick={inform}
          disabled={!status?.to_inform.length}
        >
          Informar ahora
        </BusyButton>
      </p>
      {status ? (
        <div class="table-wrap stack">
          <table id="caea-fortnights">
            <thead>
              <tr>
                <th />
                <th>Quincena</th>
                <th>CAEA</th>
                <th>Vigencia</th>
                <th>Informar hasta</th>
              </tr>
            </thead>
            <tbody>
              <FortnightRow name="Actual" f={status.current} />
              <FortnightRow name="Próxima" f={status.next} />
            </tbody>
          </table>
        </div>
      ) : null}
      <h3>Pendientes de informar a ARCA</h3>
      {status && status.to_inform.length === 0 ? (
        <p class="muted" id="caea-none">
          No hay comprobantes pendientes de informar.
        </p>
      ) : null}
      {status && status.to_inform.length > 0 ? (
        <div class="table-wrap stack">
          <table id="caea-to-inform">
            <thead>
              <tr>
                <th>Comprobante</th>
                <th>Fecha</th>
                <th class="num">Total</th>
                <th>Informar hasta</th>
                <th>Estado</th>
              </tr>
            </thead>
            <tbody>
              {status.to_inform.map((p) => (
                <tr key={p.invoice_id}>
                  <td>
                    <a href={`/facturas/${p.invoice_id}`}>{p.receipt}</a>
                  </td>
                  <td data-label="Fecha">{p.issue_date ? formatDate(p.issue_date) : ''}</td>
                  <td class="num" data-label="Total">
                    {formatArs(Math.round(p.total * 100))}
                  </td>
                  <td data-label="Informar hasta">{p.inform_by ? formatDate(p.inform_by) : ''}</td>
                  <td>
                    {p.stale
                      ? 'De otro CUIT o ambiente: no se informa'
                      : p.status === 'rejected'
                        ? `Rechazado por ARCA: ${p.last_error ?? ''}`
                        : p.tries > 0
                          ? `Reintentando (${p.tries})`
                          : 'Por informar'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </Card>
  );
}
