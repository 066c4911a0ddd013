import { useState } from 'preact/hooks';
import { formatCount, formatDateTime } from '../../lib/format.ts';
import { api, errorText } from '../ui/api.ts';
import { Card, PageTitle } from '../ui/layout.tsx';
import { Notice, useNotice } from '../ui/notice.tsx';
import { mountPage } from '../ui/page-data.ts';

interface Turn {
  inbound_mid: string;
  channel: 'instagram' | 'whatsapp';
  conversation_id: string;
  sender_id: string;
  participant_username: string | null;
  contact_name: string;
  thread_url: string;
  input_text: string | null;
  claimed_by: string;
  status: string;
  reason: string | null;
  thread_state: 'first' | 'active' | null;
  received_at: string;
  send_after: string | null;
  decision: 'reply' | 'handoff' | null;
  reply: string | null;
  handoff_reason: string | null;
  confidence: number | null;
  brain: string | null;
  guardrails: string[];
  brain_ms: number | null;
  decided_at: string | null;
  sent_at: string | null;
  handoff_open: boolean;
}

interface AgentData {
  summary: {
    enabled: boolean;
    send_enabled: boolean;
    account_id: string | null;
    sender_ids: string[];
    whatsapp: {
      enabled: boolean;
      channel_switch: boolean;
      send_enabled: boolean;
      number_id: string | null;
      sender_ids: string[];
    };
    brain: string;
    counts: Record<string, number>;
    delays: { first_seconds: [number, number]; active_seconds: [number, number]; active_window_minutes: number };
  };
  turns: Turn[];
  filters: { status: string; decision: string; sender: string; channel: string; q: string };
  limit: number;
}

const STATUS: Record<string, string> = {
  pending: 'Esperando la demora',
  sending: 'Enviando',
  sent: 'Enviada',
  held: 'Decidida, sin enviar',
  handoff: 'Pasó a una persona',
  skipped: 'Omitido',
  cancelled: 'Cancelada',
  superseded: 'Reemplazada por un mensaje más nuevo',
  failed: 'Falló',
};

const REASON: Record<string, string> = {
  other_sender: 'no es una persona designada',
  other_account: 'no es la cuenta designada',
  not_new: 'mensaje viejo (llegó por una resincronización)',
  unsupported: 'tipo de mensaje no soportado',
  no_text: 'sin texto (adjunto)',
  handoff_open: 'la conversación ya está en manos de una persona',
  human_replied: 'alguien del equipo respondió antes (la conversación quedó en manos de una persona)',
  human_started: 'alguien del equipo ya le había escrito (la conversación quedó en manos de una persona)',
  agent_disabled: 'el agente se apagó',
  send_disabled: 'INSTAGRAM_SEND_ENABLED está apagado',
  message_deleted: 'la persona borró el mensaje',
  too_late: 'llegó más de 10 minutos tarde a su hora de respuesta (¿el worker estuvo parado?): ya no se contesta',
  asked_for_human: 'pidió hablar con una persona',
  firm_objection: 'rechazo firme',
  closing_sale: 'quiere cerrar la compra',
  price_negotiation: 'regatea o propone su propio precio',
  low_confidence: 'confianza baja',
  automation_disclosure: 'la respuesta delataba que es automática',
  unpublished_amount: 'la respuesta tenía un monto fuera de la lista de precios',
  empty_reply: 'respuesta vacía',
  too_long: 'respuesta demasiado larga',
  brain_error: 'falló el modelo',
  unpublished_figure: 'la respuesta tenía una cifra que la lista de precios no dice',
  'newer message': 'llegó un mensaje más nuevo de la persona',
  // Why a send failed (the error code before the colon).
  window_closed: 'pasaron más de 24 horas desde el último mensaje de la persona',
  recipient_not_found: 'Instagram no encuentra a la persona',
  reconnect_required: 'hay que volver a conectar la cuenta de Instagram',
  channel_not_connected: 'la cuenta de Instagram no está conectada',
  upstream_failed: 'Instagram respondió con un error',
  upstream_timeout: 'Instagram no respondió a tiempo',
};

/** Where the message came from (claimed_by). */
const CLAIMED: Record<string, string> = {
  webhook: 'el aviso de Meta',
  sync: 'la sincronización',
  hub: 'el hub de canales',
};

const GUARDRAIL: Record<string, string> = {
  confidence_floor: 'confianza bajo el mínimo',
  automation_disclosure: 'mencionaba automatización',
  unpublished_amount: 'monto no publicado',
  discount_promise_removed: 'se quitó una promesa de descuento',
  team_confirms_discount: 'se agregó que el equipo confirma el descuento',
  empty_reply: 'respuesta vacía',
  too_long: 'demasiado larga',
  price_negotiation: 'era una contraoferta o un regateo',
  asked_for_human: 'pidió hablar con una persona',
  firm_objection: 'rechazo firme',
  closing_sale: 'quiere cerrar la compra',
  unpublished_figure: 'cifra que la lista no dice',
  brain_handoff_reason: 'el modelo dio un motivo para derivar',
};

/**
 * A turn's reason in Spanish: a known code, the code before a colon ("window_closed: …"), or a
 * reason that starts with a known phrase ("newer message <mid>"); a model's own words are quoted.
 */
function reasonText(r: string | null): string {
  if (!r) return '';
  const known = REASON[r] ?? REASON[r.split(':')[0]!.trim()] ?? Object.entries(REASON).find(([k]) => r.startsWith(`${k} `))?.[1];
  return known ?? `motivo del modelo: «${r}»`;
}

function Agent(data: AgentData) {
  const [turns, setTurns] = useState(data.turns);
  const [notice, say] = useNotice();
  const s = data.summary;

  const resume = async (conversationId: string) => {
    try {
      await api('POST', `/api/superadmin/instagram/agent/conversations/${conversationId}/resume`);
      setTurns((list) => list.map((t) => (t.conversation_id === conversationId ? { ...t, handoff_open: false } : t)));
      say('ok', 'El agente vuelve a atender esa conversación desde el próximo mensaje.');
    } catch (err) {
      say('error', errorText(err));
    }
  };

  return (
    <>
      <PageTitle lead="Cada mensaje que el agente miró, con su decisión. Revisalo antes de encender el envío.">
        Agente de ventas
      </PageTitle>
      <Card title="Estado">
        <ul class="plain" id="agent-status">
          <li>
            Agente: <strong>{s.enabled ? 'encendido' : 'apagado'}</strong> · Envío:{' '}
            <strong>{s.send_enabled ? 'encendido' : 'apagado (solo registro)'}</strong> · Cerebro:{' '}
            <strong>{s.brain === 'rules' ? 'reglas fijas' : s.brain}</strong>
          </li>
          <li>
            Instagram: cuenta {s.account_id ?? '—'} · Personas designadas: {s.sender_ids.length ? s.sender_ids.join(', ') : '—'}
          </li>
          <li data-whatsapp-agent={s.whatsapp.enabled ? 'on' : 'off'}>
            WhatsApp: <strong>{s.whatsapp.enabled ? 'atiende' : 'no atiende'}</strong>
            {s.whatsapp.number_id ? ` · número ${s.whatsapp.number_id}` : ' · sin SALES_AGENT_WHATSAPP_NUMBER_ID'}
            {s.whatsapp.channel_switch ? '' : ' · apagado en el canal'} · Envío:{' '}
            {s.whatsapp.send_enabled ? 'encendido' : 'apagado'} · Personas designadas:{' '}
            {s.whatsapp.sender_ids.length ? s.whatsapp.sender_ids.map((id) => `+${id}`).join(', ') : '—'}
          </li>
          <li>
            Demora: primer mensaje {s.delays.first_seconds[0]}–{s.delays.first_seconds[1]} s; conversación activa (le escribimos
            en los últimos {s.delays.active_window_minutes} minutos) {s.delays.active_seconds[0]}–{s.delays.active_seconds[1]} s.
          </li>
          <li>
            {Object.entries(s.counts)
              .map(([k, n]) => `${STATUS[k] ?? k}: ${formatCount(n)}`)
              .join(' · ') || 'Todavía no hay turnos registrados.'}
          </li>
        </ul>
      </Card>
      <Card>
        <form method="get" action="/superadmin/instagram/agent" class="row" id="agent-filters">
          <select name="status" aria-label="Estado" value={data.filters.status}>
            <option value="">Todos los estados</option>
            {Object.entries(STATUS).map(([k, label]) => (
              <option key={k} value={k}>
                {label}
              </option>
            ))}
          </select>
          <select name="channel" aria-label="Canal" value={data.filters.channel}>
            <option value="">Todos los canales</option>
            <option value="instagram">Instagram</option>
            <option value="whatsapp">WhatsApp</option>
          </select>
          <select name="decision" aria-label="Decisión" value={data.filters.decision}>
            <option value="">Toda decisión</option>
            <option value="reply">Responder</option>
            <option value="handoff">Pasar a una persona</option>
          </select>
          <input
            name="sender"
            type="search"
            value={data.filters.sender}
            placeholder="Persona (id, @usuario o nombre)"
            aria-label="Persona"
          />
          <input name="q" type="search" value={data.filters.q} placeholder="Texto" aria-label="Buscar en el texto" />
          <button type="submit" class="secondary">
            Filtrar
          </button>
        </form>
        <Notice notice={notice} id="agent-message" />
        {turns.length === 0 ? <p class="muted">No hay turnos que coincidan.</p> : null}
        <ol class="plain agent-turns" id="agent-turns">
          {turns.map((t) => (
            <li key={t.inbound_mid} data-mid={t.inbound_mid} data-status={t.status} class="agent-turn">
              <p>
                <a href={t.thread_url} data-thread-link>
                  <strong data-contact>{t.contact_name}</strong>
                </a>{' '}
                <span class="muted">({t.channel === 'whatsapp' ? 'WhatsApp' : 'Instagram'})</span> ·{' '}
                {formatDateTime(t.received_at, { seconds: true })} · <span class="badge">{STATUS[t.status] ?? t.status}</span>
                {t.reason ? (
                  <span class="muted">
                    {' '}
                    (
                    {t.reason === 'send_disabled' && t.channel === 'whatsapp'
                      ? 'WHATSAPP_SEND_ENABLED está apagado'
                      : t.reason === 'reconnect_required' && t.channel === 'whatsapp'
                        ? 'Meta rechazó el token del canal de WhatsApp: guardalo de nuevo con otro token'
                        : reasonText(t.reason)}
                    )
                  </span>
                ) : null}
              </p>
              <blockquote>{t.input_text ?? '—'}</blockquote>
              {t.decision === 'reply' ? (
                <p data-reply>
                  <span class="muted">{t.status === 'pending' ? 'Respuesta prevista (todavía no se mandó):' : 'Respuesta:'}</span>{' '}
                  {t.reply}
                </p>
              ) : null}
              {t.decision === 'handoff' ? (
                <p>
                  <span class="muted">{t.status === 'pending' ? 'Va a pasar a una persona:' : 'Pasa a una persona:'}</span>{' '}
                  {reasonText(t.handoff_reason)}
                </p>
              ) : null}
              {t.status === 'pending' && !t.decision ? (
                <p class="muted" data-unplanned>
                  La respuesta prevista aparece en el próximo minuto.
                </p>
              ) : null}
              <p class="muted small">
                {t.thread_state ? `${t.thread_state === 'first' ? 'Primer mensaje' : 'Conversación activa'} · ` : ''}
                {t.send_after ? `responder desde ${formatDateTime(t.send_after, { seconds: true })} · ` : ''}
                {t.brain ? `${t.brain === 'rules' ? 'reglas' : t.brain}, ${t.brain_ms ?? 0} ms · ` : ''}
                {t.confidence !== null ? `confianza ${t.confidence.toFixed(2).replace('.', ',')} · ` : ''}
                {t.sent_at ? `enviada ${formatDateTime(t.sent_at, { seconds: true })} · ` : ''}
                llegó por {CLAIMED[t.claimed_by] ?? t.claimed_by}
                {t.guardrails.length ? ` · controles: ${t.guardrails.map((g) => GUARDRAIL[g] ?? g).join(', ')}` : ''}
              </p>
              {t.handoff_open && (t.status === 'handoff' || t.reason === 'human_replied' || t.reason === 'human_started') ? (
                <button type="button" class="secondary" onClick={() => resume(t.conversation_id)}>
                  Devolver la conversación al agente
                </button>
              ) : null}
            </li>
          ))}
        </ol>
      </Card>
    </>
  );
}

mountPage<AgentData>((data) => <Agent {...data} />);
