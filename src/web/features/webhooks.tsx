import { useEffect, useState } from 'preact/hooks';
import type { attemptToWire, deliveryToWire } from '../../modules/webhooks/deliveries.service.ts';
import type { EndpointWire } from '../../modules/webhooks/endpoints.service.ts';
import { OUTBOUND_EVENTS } from '../../modules/webhooks/webhook-events.ts';
import { formatDateTime } from '../../lib/format.ts';
import { ApiError, api, errorText } from '../ui/api.ts';
import { useConfirm } from '../ui/dialog.tsx';
import { BusyButton, Field, InlineForm } from '../ui/form.tsx';
import { Card, TableWrap } from '../ui/layout.tsx';
import { Notice, type NoticeKind, useNotice } from '../ui/notice.tsx';
import { Secret } from '../ui/secret.tsx';
import { EVENT_DESCRIPTIONS, explainDeliveryError, explainEndpointProblems } from './webhook-texts.ts';

type Delivery = ReturnType<typeof deliveryToWire>;
type Attempt = ReturnType<typeof attemptToWire>;

const API = '/api/settings/integrations/webhooks';
const DISABLED: Record<string, string> = {
  manual: 'Desactivado a mano',
  gone: 'Desactivado: respondió 410 Gone',
  failing: 'Desactivado: 5 días con fallas',
};
const STATUS: Record<string, string> = { pending: 'Pendiente', delivered: 'Entregado', failed: 'Falló' };
const when = (iso: string) => formatDateTime(iso, { seconds: true });

/** The settings API refuses in English for integrators; the owner reads it in Spanish. */
function endpointError(err: unknown): string {
  if (err instanceof ApiError && err.code === 'validation_failed' && err.body?.details?.length) {
    return explainEndpointProblems(err.body.details);
  }
  if (err instanceof ApiError && err.status === 404) return 'Ese webhook ya no existe: actualizá la página.';
  return errorText(err);
}

function statusText(e: EndpointWire): string {
  let text = e.enabled
    ? e.failing_since
      ? `Activo, con fallas desde ${when(e.failing_since)}`
      : 'Activo'
    : (DISABLED[e.disabled_reason ?? ''] ?? 'Desactivado');
  if (e.previous_secret_expires_at) text += ` · secreto anterior válido hasta ${when(e.previous_secret_expires_at)}`;
  return text;
}

type Say = (kind: NoticeKind, text: string) => void;

/** The deliveries of one endpoint, opened right under it: filter, page, attempts, replay, bulk retry. */
function Deliveries({ endpoint, say }: { endpoint: EndpointWire; say: Say }) {
  const [status, setStatus] = useState('');
  const [rows, setRows] = useState<Delivery[] | null>(null);
  const [before, setBefore] = useState<string | null>(null);
  const [detail, setDetail] = useState<{ delivery: Delivery; payload: unknown; attempts: Attempt[] } | null>(null);
  const [eventId, setEventId] = useState('');
  const [since, setSince] = useState('');
  const base = `${API}/${endpoint.id}`;

  const load = async (more: boolean, filter = status) => {
    const query = new URLSearchParams({ limit: '50' });
    if (filter) query.set('status', filter);
    if (more && before) query.set('before', before);
    const page = await api<{ deliveries: Delivery[]; next_before: string | null }>('GET', `${base}/deliveries?${query}`);
    setRows((current) =>
      more && current ? [...current, ...page.deliveries.filter((d) => !current.some((c) => c.id === d.id))] : page.deliveries,
    );
    setBefore(page.next_before);
  };
  useEffect(() => {
    void load(false).catch((err) => say('error', errorText(err)));
  }, []);

  const redeliver = async (id: string) => {
    try {
      await api('POST', `${base}/redeliver`, {
        body: { event_id: id },
        messages: { not_found: 'No hay ningún evento con ese id en esta empresa.' },
      });
      say('ok', 'Evento puesto otra vez en cola, con el mismo x-idempotency-key.');
      await load(false);
      return true;
    } catch (err) {
      say('error', `No se pudo reenviar: ${errorText(err)}`);
      return false;
    }
  };

  return (
    <div class="card nested" id="webhook-deliveries">
      <h3>
        Entregas a <span id="deliveries-url">{endpoint.url}</span>
      </h3>
      <div class="row">
        <label for="delivery-status">Mostrar</label>
        <select
          id="delivery-status"
          value={status}
          onChange={(e) => {
            const value = (e.currentTarget as HTMLSelectElement).value;
            setStatus(value);
            void load(false, value).catch((err) => say('error', errorText(err)));
          }}
        >
          <option value="">todas</option>
          <option value="failed">fallidas</option>
          <option value="pending">pendientes</option>
          <option value="delivered">entregadas</option>
        </select>
      </div>
      <TableWrap>
        <thead>
          <tr>
            <th>Fecha del evento</th>
            <th>Evento</th>
            <th>Estado</th>
            <th class="num">Intentos</th>
            <th>Última respuesta</th>
            <th />
          </tr>
        </thead>
        <tbody id="delivery-rows">
          {rows && rows.length === 0 ? (
            <tr>
              <td colSpan={6} class="muted">
                No hay entregas para mostrar.
              </td>
            </tr>
          ) : null}
          {(rows ?? []).map((d) => (
            <tr key={d.id} data-delivery-id={d.id}>
              <td>{when(d.event_created_at)}</td>
              <td>
                <code>{d.event}</code>
              </td>
              <td class={d.status === 'failed' ? 'error' : d.status === 'delivered' ? 'ok' : ''}>
                {STATUS[d.status] ?? d.status}
                {d.status === 'pending' && d.next_attempt_at
                  ? d.in_flight
                    ? ' (enviando)'
                    : ` (próximo intento ${when(d.next_attempt_at)})`
                  : ''}
              </td>
              <td class="num">{d.attempts}</td>
              <td>
                {d.last_error || (d.last_status_code && d.status !== 'delivered')
                  ? explainDeliveryError(d.last_error, d.last_status_code)
                  : d.last_status_code
                    ? `HTTP ${d.last_status_code}`
                    : '—'}
              </td>
              <td>
                <div class="row">
                  <button
                    type="button"
                    class="secondary"
                    data-webhook-action="attempts"
                    onClick={() =>
                      void api<typeof detail>('GET', `${base}/deliveries/${d.id}`).then(setDetail, (err) =>
                        say('error', errorText(err)),
                      )
                    }
                  >
                    Intentos
                  </button>
                  {d.kind === 'event' ? (
                    <button
                      type="button"
                      class="secondary"
                      data-webhook-action="redeliver"
                      onClick={() => void redeliver(d.event_id)}
                    >
                      Reenviar
                    </button>
                  ) : null}
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </TableWrap>
      {before ? (
        <p class="row">
          <button
            type="button"
            class="secondary"
            id="deliveries-more"
            onClick={() => void load(true).catch((err) => say('error', errorText(err)))}
          >
            Ver más
          </button>
        </p>
      ) : null}
      <InlineForm
        id="redeliver-event-id"
        label="Reenviar un evento por su id"
        value={eventId}
        onValue={setEventId}
        input={{ maxLength: 64, placeholder: 'x-event-id, por ejemplo 3f8a6f4e-…' }}
        buttonId="redeliver-by-id"
        buttonLabel="Reenviar"
        onSubmit={async () => {
          if (!eventId.trim()) return say('error', 'Escribí el id del evento (el x-event-id que recibiste).');
          if (await redeliver(eventId.trim())) setEventId('');
        }}
      />
      <InlineForm
        id="retry-since"
        label="Reintentar todas las fallidas desde"
        value={since}
        onValue={setSince}
        input={{ type: 'datetime-local' }}
        buttonId="retry-failed"
        buttonLabel="Reintentar"
        onSubmit={async () => {
          if (!since) return say('error', 'Elegí desde qué fecha y hora reintentar.');
          try {
            const result = await api<{ retried: number }>('POST', `${base}/retry-failed`, {
              body: { since: new Date(since).toISOString() },
            });
            say(
              'ok',
              result.retried === 1 ? 'Se reintenta 1 entrega fallida.' : `Se reintentan ${result.retried} entregas fallidas.`,
            );
            await load(false);
          } catch (err) {
            say('error', `No se pudo reintentar: ${errorText(err)}`);
          }
        }}
      />
      {detail ? (
        <div id="delivery-detail">
          <h3>
            Intentos de <code id="detail-event">{detail.delivery.event}</code>
          </h3>
          <TableWrap>
            <thead>
              <tr>
                <th class="num">#</th>
                <th>Cuándo</th>
                <th>Resultado</th>
                <th class="num">Demora</th>
                <th>Respuesta o error</th>
              </tr>
            </thead>
            <tbody id="attempt-rows">
              {detail.attempts.map((a) => (
                <tr key={a.attempt}>
                  <td class="num">{a.attempt}</td>
                  <td>{when(a.started_at)}</td>
                  <td class={a.outcome === 'delivered' ? 'ok' : 'error'}>{a.outcome === 'delivered' ? 'Entregado' : 'Falló'}</td>
                  <td class="num">{a.duration_ms === null ? '—' : `${a.duration_ms} ms`}</td>
                  <td>
                    {a.outcome === 'delivered' ? `HTTP ${a.status_code}` : explainDeliveryError(a.error, a.status_code)}
                    {a.response_body ? <div class="muted">{a.response_body}</div> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </TableWrap>
          <h3>Cuerpo enviado</h3>
          <pre id="detail-payload">{JSON.stringify(detail.payload, null, 2)}</pre>
        </div>
      ) : null}
    </div>
  );
}

function EndpointItem({
  endpoint,
  open,
  onToggle,
  act,
  say,
}: {
  endpoint: EndpointWire;
  open: boolean;
  onToggle: () => void;
  act: (action: string, endpoint: EndpointWire) => Promise<void>;
  say: Say;
}) {
  const [busy, setBusy] = useState(false);
  const run = (action: string) => async () => {
    setBusy(true);
    try {
      await act(action, endpoint);
    } finally {
      setBusy(false);
    }
  };
  const button = (action: string, label: string, kind = 'secondary') => (
    <BusyButton class={kind} busy={busy} data-webhook-action={action} onClick={run(action)}>
      {label}
    </BusyButton>
  );
  return (
    <li class="endpoint" data-endpoint-id={endpoint.id}>
      <div class="endpoint-url">
        <strong>{endpoint.url}</strong>
        {endpoint.description ? <div class="muted">{endpoint.description}</div> : null}
      </div>
      <p class="endpoint-events">
        Eventos:{' '}
        {endpoint.events
          ? endpoint.events.map((e) => EVENT_DESCRIPTIONS[e as keyof typeof EVENT_DESCRIPTIONS] ?? e).join(', ')
          : 'todos'}
      </p>
      <p class={`endpoint-status ${endpoint.enabled ? '' : 'error'}`}>{statusText(endpoint)}</p>
      <div class="row">
        <button type="button" class="secondary" data-webhook-action="deliveries" aria-expanded={open} onClick={onToggle}>
          {open ? 'Ocultar entregas' : 'Entregas'}
        </button>
        {button('test', 'Enviar evento de prueba')}
        {button('rotate', 'Rotar secreto')}
        {endpoint.enabled ? button('disable', 'Desactivar') : button('enable', 'Activar')}
        {button('remove', 'Eliminar', 'danger')}
      </div>
      {open ? <Deliveries endpoint={endpoint} say={say} /> : null}
    </li>
  );
}

function AddEndpointForm({ onCreated }: { onCreated: (created: { endpoint: EndpointWire; secret: string }) => Promise<void> }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    setError(null);
    const body: Record<string, unknown> = { url: String(data.get('url') ?? '').trim() };
    const description = String(data.get('description') ?? '').trim();
    if (description) body['description'] = description;
    const events = data.getAll('webhook-event').map(String);
    if (events.length) body['events'] = events;
    const headers: Record<string, string> = {};
    const bad = String(data.get('headers') ?? '')
      .split('\n')
      .filter((line) => line.trim())
      .filter((line) => {
        const colon = line.indexOf(':');
        if (colon < 1) return true;
        headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
        return false;
      });
    if (bad.length) return setError(`Cada encabezado va en su línea como «Nombre: valor» (revisá: ${bad[0]}).`);
    if (Object.keys(headers).length) body['headers'] = headers;
    const own = String(data.get('secret') ?? '');
    if (own) body['secret'] = own;
    setBusy(true);
    try {
      await onCreated(await api('POST', API, { body }));
      form.reset();
    } catch (err) {
      setError(`No se pudo agregar: ${endpointError(err)}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form id="webhook-form" onSubmit={submit}>
      <h3>Agregar un webhook</h3>
      <Field id="webhook-url" label="Dirección (URL)">
        <input
          id="webhook-url"
          name="url"
          type="url"
          required
          maxLength={2048}
          placeholder="https://tu-sistema.example.com/webhooks/mostrador"
        />
      </Field>
      <Field id="webhook-description" label="Descripción (opcional)">
        <input id="webhook-description" name="description" maxLength={500} />
      </Field>
      <fieldset>
        <legend>Eventos</legend>
        <div class="checks">
          {OUTBOUND_EVENTS.map((event) => (
            <label class="check" key={event}>
              <input type="checkbox" name="webhook-event" value={event} />
              <span>
                {EVENT_DESCRIPTIONS[event]} <code class="muted">{event}</code>
              </span>
            </label>
          ))}
        </div>
        <p class="hint muted">Si no marcás ninguno, recibe todos (también los que se agreguen más adelante).</p>
      </fieldset>
      <Field id="webhook-headers" label="Encabezados extra (opcional)" hint="Uno por línea: Nombre: valor">
        <textarea id="webhook-headers" name="headers" rows={3} placeholder="Authorization: Bearer …" />
      </Field>
      <Field
        id="webhook-own-secret"
        label="Secreto propio (opcional)"
        hint="Por ejemplo, la clave de integración de otro Mostrador."
      >
        <input id="webhook-own-secret" name="secret" autocomplete="off" maxLength={256} />
      </Field>
      {error ? (
        <p id="webhook-form-error" class="error" role="alert">
          {error}
        </p>
      ) : null}
      <BusyButton type="submit" busy={busy}>
        Agregar webhook
      </BusyButton>
    </form>
  );
}

/** The webhooks section of /settings/integrations. */
export function Webhooks({ initial, onChange }: { initial: EndpointWire[]; onChange: () => void }) {
  const [endpoints, setEndpoints] = useState(initial);
  const [open, setOpen] = useState<string | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const [notice, say] = useNotice();
  const { ask, dialog } = useConfirm();

  const reload = async () => {
    setEndpoints((await api<{ endpoints: EndpointWire[] }>('GET', API)).endpoints);
    onChange();
  };

  const actions: Record<string, (e: EndpointWire) => Promise<void>> = {
    test: async (e) => {
      say('info', 'Enviando un evento de prueba…');
      const { attempt: a } = await api<{
        attempt: {
          delivered: boolean;
          status_code: number | null;
          duration_ms: number;
          error: string | null;
          response_body: string | null;
        };
      }>('POST', `${API}/${e.id}/test`);
      if (a.delivered) say('ok', `Evento de prueba entregado: HTTP ${a.status_code} en ${a.duration_ms} ms.`);
      else say('error', `El evento de prueba no se entregó. ${explainDeliveryError(a.error, a.status_code)}`);
    },
    rotate: async (e) => {
      const yes = await ask(
        'Se crea un secreto nuevo. El actual sigue firmando 24 horas más (los envíos llevan las dos firmas) para que actualices tu sistema.',
        { confirmLabel: 'Rotar secreto' },
      );
      if (!yes) return;
      setSecret((await api<{ secret: string }>('POST', `${API}/${e.id}/rotate-secret`, { body: {} })).secret);
      say('ok', 'Secreto rotado: actualizalo en tu sistema antes de 24 horas.');
      await reload();
    },
    disable: async (e) => {
      await api('PATCH', `${API}/${e.id}`, { body: { enabled: false } });
      say('ok', 'Webhook desactivado: lo pendiente quedó como fallido y no se envía nada nuevo.');
      await reload();
    },
    enable: async (e) => {
      await api('PATCH', `${API}/${e.id}`, { body: { enabled: true } });
      say('ok', 'Webhook activado. Si querés recuperar lo que falló, usá «Reintentar todas las fallidas desde» en sus entregas.');
      await reload();
    },
    remove: async (e) => {
      if (!(await ask('Se elimina el webhook con todo su registro de entregas.', { confirmLabel: 'Eliminar', danger: true })))
        return;
      await api('DELETE', `${API}/${e.id}`);
      if (open === e.id) setOpen(null);
      say('ok', 'Webhook eliminado.');
      await reload();
    },
  };
  const act = async (action: string, endpoint: EndpointWire) => {
    try {
      await actions[action]!(endpoint);
    } catch (err) {
      say('error', `No se pudo completar la acción: ${endpointError(err)}`);
    }
  };

  return (
    <Card title="Webhooks" id="webhooks">
      <p class="muted">
        Mostrador envía cada venta, pago, factura, movimiento de stock y cambio de producto a las direcciones que agregues,
        firmado con un secreto. <a href="/docs/webhooks">Cómo recibirlos y verificar la firma</a>.
      </p>
      <Notice notice={notice} id="webhook-message" />
      {secret ? (
        <div id="webhook-secret">
          <p class="notice">
            Guardá este secreto ahora: no se vuelve a mostrar. Con él verificás la firma <code>x-signature</code> de cada envío.
          </p>
          <Secret id="webhook-secret-value" value={secret} />
        </div>
      ) : null}
      {endpoints.length === 0 ? (
        <p id="webhooks-empty" class="muted">
          Todavía no agregaste ningún webhook.
        </p>
      ) : (
        <ul class="endpoints" id="webhook-rows">
          {endpoints.map((e) => (
            <EndpointItem
              key={e.id}
              endpoint={e}
              open={open === e.id}
              onToggle={() => setOpen(open === e.id ? null : e.id)}
              act={act}
              say={say}
            />
          ))}
        </ul>
      )}
      <AddEndpointForm
        onCreated={async (created) => {
          setSecret(created.secret);
          say('ok', 'Webhook agregado. Guardá el secreto de firma que ves abajo del aviso.');
          await reload();
        }}
      />
      {dialog}
    </Card>
  );
}
