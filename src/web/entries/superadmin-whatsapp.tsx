import { useEffect, useRef, useState } from 'preact/hooks';
import { formatDateTime, formatRelative } from '../../lib/format.ts';
import type { Template } from '../../modules/whatsapp/cloud.client.ts';
import { fillTemplate } from '../../modules/whatsapp/template-text.ts';
import type { WhatsappConversationWire, WhatsappMessageWire } from '../../modules/whatsapp/whatsapp.service.ts';
import { ApiError, api, errorText, type Messages } from '../ui/api.ts';
import { ChannelTabs, narrowScreen } from '../ui/channel-tabs.tsx';
import { BusyButton, Field } from '../ui/form.tsx';
import { fetchConversations, ThreadList, useInboxList } from '../ui/inbox.tsx';
import { Card, PageTitle } from '../ui/layout.tsx';
import { Notice, useNotice } from '../ui/notice.tsx';
import { mountPage } from '../ui/page-data.ts';

interface Status {
  configured: boolean;
  missing_settings: string[];
  connected: boolean;
  phone_number_id: string | null;
  waba_id: string | null;
  display_phone_number: string | null;
  agent_enabled: boolean;
  send_enabled: boolean;
  last_webhook_at: string | null;
  reconnect_required: boolean;
  reconnect_reason: string | null;
}
type Conversation = WhatsappConversationWire;
type Message = WhatsappMessageWire;

interface InboxData {
  status: Status;
  conversations: Conversation[];
  list_timeout_ms: number;
  poll_ms: number;
  max_text_chars: number;
}

interface Outgoing {
  key: string;
  conversationId: string;
  text: string;
  state: 'pending' | 'error';
  error?: string;
}

const API = '/api/superadmin/whatsapp';

/** Meta's refusals in Spanish, each with what to do (docs/operador/whatsapp.md, section 5). */
const SEND_MESSAGES: Messages = {
  window_closed:
    'Pasaron más de 24 horas desde el último mensaje de esta persona: WhatsApp solo deja mandar una plantilla aprobada. Elegí una abajo.',
  recipient_not_found: 'WhatsApp no encuentra este número o no acepta mensajes: probá por otro medio.',
  recipient_not_allowed:
    'Meta no deja escribirle a este número: la app está en modo de desarrollo. Agregalo a los destinatarios permitidos de la app en Meta (o pasá la app a modo en vivo) y probá de nuevo.',
  rate_limited: 'WhatsApp pidió esperar: demasiados mensajes seguidos. Probá de nuevo en unos minutos.',
  reconnect_required:
    'WhatsApp rechazó el token del canal (venció o se revocó): generá otro en Meta y guardá el canal de nuevo con «Cambiar el número o el token».',
  channel_not_connected: 'No hay un número de WhatsApp guardado: guardá el canal arriba.',
  send_disabled: 'El envío está apagado: WhatsApp es de solo lectura (WHATSAPP_SEND_ENABLED).',
  validation_failed: 'El mensaje está vacío o pasa los 4.096 caracteres que acepta WhatsApp.',
  upstream_timeout:
    'WhatsApp no respondió en 8 segundos. Puede que el mensaje haya salido: revisá el hilo antes de mandarlo de nuevo.',
  upstream_failed: 'WhatsApp rechazó el envío. Probá de nuevo en un rato; si sigue, revisá el estado del número en Meta.',
};
const TEMPLATE_MESSAGES: Messages = {
  ...SEND_MESSAGES,
  template_unsupported:
    'Esa plantilla pide una imagen, un encabezado o un botón con datos que desde acá no se pueden completar: elegí otra.',
  validation_failed:
    'La plantilla o sus valores no coinciden con lo aprobado en Meta: completá todos los valores y elegí una plantilla aprobada.',
};
const SETUP_MESSAGES: Messages = {
  validation_failed:
    'Revisá los datos: el identificador del número y el de la cuenta (WABA) son solo números, y el token es el de un usuario del sistema.',
};

/** Why Meta did not deliver one of our messages (the status's error code), and what to do. */
const FAILURE_TEXTS: Record<number, string> = {
  131026: 'el número no usa WhatsApp o no puede recibirlo. Probá por otro medio.',
  131047: 'pasaron más de 24 horas desde su último mensaje. Mandá una plantilla aprobada.',
  131049: 'Meta lo retuvo para no saturar a la persona con mensajes de empresas. Probá más adelante.',
  131050: 'la persona pidió no recibir mensajes de marketing.',
  131051: 'WhatsApp no acepta ese tipo de mensaje.',
  131053: 'no se pudo subir el archivo.',
  130429: 'demasiados mensajes seguidos. Esperá unos minutos.',
  131056: 'demasiados mensajes seguidos a esta persona. Esperá unos minutos.',
  132000: 'los valores no coinciden con la plantilla aprobada.',
  132001: 'la plantilla no existe en ese idioma o no está aprobada.',
};

function failureText(code: number | null): string {
  return (code !== null && FAILURE_TEXTS[code]) || `WhatsApp no pudo entregarlo${code !== null ? ` (código ${code})` : ''}.`;
}

const phone = (waId: string) => `+${waId}`;
const who = (c: Conversation) => (c.profile_name ? `${c.profile_name} · ${phone(c.wa_id)}` : phone(c.wa_id));
const ourNumber = (s: Status) => s.display_phone_number ?? (s.phone_number_id ? `número ${s.phone_number_id}` : 'WhatsApp');
const when = (value: string | null) => (value ? formatRelative(value) : 'nunca');

const fetchList = (timeoutMs: number) => fetchConversations<Conversation>(`${API}/conversations`, timeoutMs);

function SetupForm({ onSaved, replacing }: { onSaved: (s: Status) => void; replacing: boolean }) {
  const [phoneId, setPhoneId] = useState('');
  const [wabaId, setWabaId] = useState('');
  const [token, setToken] = useState('');
  const [display, setDisplay] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      const answer = await api<{ status: Status }>('PUT', `${API}/channel`, {
        body: {
          phone_number_id: phoneId.trim(),
          waba_id: wabaId.trim(),
          token: token.trim(),
          display_phone_number: display.trim() || null,
        },
        messages: SETUP_MESSAGES,
      });
      setToken('');
      onSaved(answer.status);
    } catch (err) {
      setProblem(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} data-setup>
      <Field id="wa-phone-id" label="Identificador del número (Phone number ID)">
        <input id="wa-phone-id" inputMode="numeric" value={phoneId} required onInput={(e) => setPhoneId(e.currentTarget.value)} />
      </Field>
      <Field id="wa-waba-id" label="Identificador de la cuenta (WhatsApp Business Account ID)">
        <input id="wa-waba-id" inputMode="numeric" value={wabaId} required onInput={(e) => setWabaId(e.currentTarget.value)} />
      </Field>
      <Field
        id="wa-token"
        label="Token del usuario del sistema"
        hint="Se guarda cifrado y no vuelve a mostrarse. Nunca llega al navegador de nuevo."
      >
        <input
          id="wa-token"
          type="password"
          autoComplete="off"
          value={token}
          required
          onInput={(e) => setToken(e.currentTarget.value)}
        />
      </Field>
      <Field id="wa-display" label="Número como se muestra (opcional)" hint="Por ejemplo +54 9 11 5555-0000.">
        <input id="wa-display" value={display} onInput={(e) => setDisplay(e.currentTarget.value)} />
      </Field>
      {problem ? (
        <p class="error-text" role="alert">
          {problem}
        </p>
      ) : null}
      <button type="submit" disabled={busy} aria-busy={busy}>
        {replacing ? 'Guardar el nuevo número' : 'Guardar el canal'}
      </button>
    </form>
  );
}

function ConnectionCard({ status, onStatus }: { status: Status; onStatus: (s: Status) => void }) {
  const [agentBusy, setAgentBusy] = useState(false);
  const [agentProblem, setAgentProblem] = useState<string | null>(null);
  const send = status.send_enabled ? (
    <p data-send-flag="on">
      <strong>Envío encendido:</strong> desde acá se puede responder.
    </p>
  ) : (
    <p data-send-flag="off">
      <strong>Solo lectura:</strong> el envío está apagado (<code>WHATSAPP_SEND_ENABLED</code>).
    </p>
  );
  if (!status.configured) {
    return (
      <Card title="WhatsApp sin configurar" id="connection">
        <p data-state="not-configured">
          Falta configurar el servidor para recibir WhatsApp. Definí estas variables de entorno y reiniciá el servicio:
        </p>
        <ul>
          {status.missing_settings.map((name) => (
            <li key={name}>
              <code>{name}</code>
            </li>
          ))}
        </ul>
        <p class="muted">La guía de operación (docs/operador/whatsapp.md) explica de dónde sale cada una.</p>
      </Card>
    );
  }
  if (!status.connected) {
    return (
      <Card title="WhatsApp sin número" id="connection">
        <p data-state="not-connected">
          Todavía no hay un número guardado. Copiá los datos del panel de WhatsApp de Meta (API Setup):
        </p>
        <SetupForm onSaved={onStatus} replacing={false} />
        {send}
      </Card>
    );
  }
  const toggleAgent = async () => {
    setAgentBusy(true);
    setAgentProblem(null);
    try {
      onStatus((await api<{ status: Status }>('PUT', `${API}/agent`, { body: { enabled: !status.agent_enabled } })).status);
    } catch (err) {
      setAgentProblem(errorText(err));
    } finally {
      setAgentBusy(false);
    }
  };
  return (
    <Card title={`Conectado: ${ourNumber(status)}`} id="connection">
      <p data-state="connected" class="muted">
        {status.last_webhook_at
          ? `Número guardado. Último mensaje de Meta: ${when(status.last_webhook_at)}.`
          : 'Número guardado. Meta todavía no mandó ningún webhook: revisá la suscripción (guía, sección 3).'}
      </p>
      {status.reconnect_required ? (
        <p class="error-text" role="alert" data-state="reconnect-required">
          WhatsApp rechazó el token del canal (venció o se revocó). No se manda nada, tampoco el agente de ventas, hasta que
          generes otro token en Meta y guardes el canal de nuevo en «Cambiar el número o el token».
        </p>
      ) : null}
      <details class="connection-more" open={!narrowScreen()} data-connection-more>
        <summary>Detalles del canal</summary>
        <dl class="facts">
          <dt>Phone number ID</dt>
          <dd>{status.phone_number_id}</dd>
          <dt>Cuenta (WABA)</dt>
          <dd>{status.waba_id}</dd>
          <dt>Último webhook</dt>
          <dd>{when(status.last_webhook_at)}</dd>
          <dt>Agente de ventas</dt>
          <dd data-agent-flag={status.agent_enabled ? 'on' : 'off'}>
            {status.agent_enabled ? 'atiende este canal' : 'no atiende este canal'}{' '}
            <BusyButton busy={agentBusy} class="secondary" onClick={() => void toggleAgent()} data-agent-toggle>
              {status.agent_enabled ? 'Apagar en WhatsApp' : 'Encender en WhatsApp'}
            </BusyButton>
          </dd>
        </dl>
        {agentProblem ? <p class="error-text">{agentProblem}</p> : null}
        {send}
        <details open={status.reconnect_required}>
          <summary>Cambiar el número o el token</summary>
          <SetupForm onSaved={onStatus} replacing={true} />
        </details>
        <p>
          <a href="/superadmin/instagram/agent?channel=whatsapp">Ver el agente de ventas</a>
        </p>
      </details>
    </Card>
  );
}

function Ticks({ message }: { message: Message }) {
  if (message.direction !== 'outbound') return null;
  const labels = { sent: 'Enviado', delivered: 'Entregado', read: 'Leído', failed: 'No se entregó' } as const;
  const marks = { sent: '✓', delivered: '✓✓', read: '✓✓', failed: '✗' } as const;
  const status = message.status;
  if (!status) {
    return (
      <span class="ticks muted" data-ticks="none" title="Enviado a WhatsApp, sin confirmación todavía">
        Sin confirmación
      </span>
    );
  }
  return (
    <span class="ticks" data-ticks={status} data-status={status} title={labels[status]}>
      {marks[status]} {labels[status]}
    </span>
  );
}

const MEDIA_NAMES: Record<string, string> = {
  image: 'Imagen',
  audio: 'Audio',
  video: 'Video',
  document: 'Documento',
  sticker: 'Sticker',
};

/** A notice of WhatsApp in the thread (not written by the person), in Spanish. */
function systemNote(d: Record<string, unknown>): string {
  const newNumber = typeof d['wa_id'] === 'string' ? d['wa_id'] : typeof d['new_wa_id'] === 'string' ? d['new_wa_id'] : null;
  if (d['type'] === 'user_changed_number') {
    return newNumber
      ? `Aviso de WhatsApp: la persona cambió su número a ${phone(newNumber)}. Sus mensajes nuevos llegan a esta conversación.`
      : 'Aviso de WhatsApp: la persona cambió su número.';
  }
  if (d['type'] === 'user_identity_changed') return 'Aviso de WhatsApp: cambió el código de seguridad de la persona.';
  return 'Aviso de WhatsApp (no lo escribió la persona).';
}

function MessageBody({ message, quoted }: { message: Message; quoted: Message | undefined }) {
  const d = message.details as Record<string, unknown>;
  const s = (key: string) => (typeof d[key] === 'string' ? (d[key] as string) : null);
  const media = message.media_url;
  const parts = [];
  if (message.forwarded) parts.push(<p class="muted">Reenviado</p>);
  if (message.context_wamid) {
    parts.push(
      <p class="muted" data-context>
        ↪ En respuesta a {quoted ? `«${(quoted.text ?? MEDIA_NAMES[quoted.type] ?? quoted.type).slice(0, 80)}»` : 'un mensaje'}
      </p>,
    );
  }
  const kind = MEDIA_NAMES[message.type];
  if (media && (message.type === 'image' || message.type === 'sticker')) {
    parts.push(<img src={media} alt={message.text ?? kind} loading="lazy" data-media={message.type} />);
  } else if (media && message.type === 'audio') {
    parts.push(
      <div class="attachment">
        <p class="muted">{d['voice'] === true ? 'Nota de voz' : 'Audio'}</p>
        {/* biome-ignore lint/a11y/useMediaCaption: WhatsApp voice notes come with no captions to offer. */}
        <audio controls preload="none" src={media} data-media="audio">
          <a href={media}>Audio</a>
        </audio>
      </div>,
    );
  } else if (media && message.type === 'video') {
    parts.push(
      // biome-ignore lint/a11y/useMediaCaption: WhatsApp videos come with no captions to offer.
      <video controls preload="none" src={media} data-media="video">
        <a href={media}>Video</a>
      </video>,
    );
  } else if (media && message.type === 'document') {
    parts.push(
      <p class="attachment">
        <a href={media} target="_blank" rel="noopener" data-media="document">
          Documento: {s('filename') ?? s('mime_type') ?? 'sin nombre'}
        </a>
      </p>,
    );
  }
  if (message.type === 'system') {
    parts.push(
      <p class="muted" data-system>
        <em>{systemNote(d)}</em>
      </p>,
    );
  } else if (message.type === 'location') {
    const lat = Number(d['latitude']);
    const lon = Number(d['longitude']);
    parts.push(
      <p class="message-text" data-location>
        Ubicación: {[s('name'), s('address')].filter(Boolean).join(' — ') || 'sin nombre'}{' '}
        {Number.isFinite(lat) && Number.isFinite(lon) ? (
          <a href={`https://www.openstreetmap.org/?mlat=${lat}&mlon=${lon}#map=17/${lat}/${lon}`} target="_blank" rel="noopener">
            ver en el mapa
          </a>
        ) : null}
      </p>,
    );
  } else if (message.type === 'contacts') {
    const cards = Array.isArray(d['contacts']) ? (d['contacts'] as Record<string, unknown>[]) : [];
    parts.push(
      <ul class="message-text" data-contacts>
        {cards.map((c, i) => {
          const name = (c['name'] as Record<string, unknown> | undefined)?.['formatted_name'];
          const phones = Array.isArray(c['phones']) ? (c['phones'] as Record<string, unknown>[]) : [];
          return (
            <li key={i}>
              Contacto: {typeof name === 'string' ? name : 'sin nombre'}
              {phones.length ? ` (${phones.map((p) => p['phone']).join(', ')})` : ''}
            </li>
          );
        })}
      </ul>,
    );
  } else if (message.type === 'interactive' || message.type === 'button') {
    parts.push(<p class="message-text">Tocó: «{message.text ?? 'un botón'}»</p>);
  } else if (message.type === 'unsupported') {
    parts.push(
      <p class="muted">
        <em>Tipo de mensaje que WhatsApp no comparte con esta bandeja: se ve en el teléfono.</em>
      </p>,
    );
  } else if (message.type === 'template') {
    parts.push(
      <p class="message-text">
        <span class="muted">Plantilla {s('name')}: </span>
        {message.text}
      </p>,
    );
  } else if (message.text) {
    parts.push(<p class="message-text">{message.text}</p>);
  } else if (kind && !media) {
    parts.push(<p class="muted">[{kind}]</p>);
  }
  if (message.reactions.length) {
    parts.push(
      <p class="reactions" data-reactions>
        {message.reactions.map((r) => r.emoji).join(' ')}
      </p>,
    );
  }
  if (message.status === 'failed') {
    parts.push(
      <p class="error-text" data-failure>
        No se entregó: {failureText(message.error_code)}
      </p>,
    );
  }
  return <>{parts}</>;
}

function TemplatePicker({ conversationId, onSent }: { conversationId: string; onSent: (m: Message) => void }) {
  const [templates, setTemplates] = useState<Template[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [chosen, setChosen] = useState('');
  const [values, setValues] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    api<{ templates: Template[] }>('GET', `${API}/templates`, { messages: SEND_MESSAGES })
      .then((a) => setTemplates(a.templates))
      .catch((err) => setProblem(errorText(err)));
  }, []);
  const template = templates?.find((t) => `${t.name}|${t.language}` === chosen) ?? null;
  const label = (key: string) => (template?.parameter_format === 'NAMED' ? `Valor «${key}»` : `Valor ${key}`);
  const preview = template?.body
    ? fillTemplate(template.body, template.placeholders, values, (key) => `[${label(key).toLowerCase()}]`)
    : '';
  const send = async (event: Event) => {
    event.preventDefault();
    if (!template) return;
    setBusy(true);
    setProblem(null);
    try {
      const answer = await api<{ message: Message }>('POST', `${API}/templates/send`, {
        body: { conversation_id: conversationId, name: template.name, language: template.language, parameters: values },
        messages: TEMPLATE_MESSAGES,
      });
      onSent(answer.message);
      setChosen('');
      setValues([]);
    } catch (err) {
      setProblem(err instanceof ApiError ? err.message : errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="template-picker" onSubmit={send} data-template-picker>
      <p data-window-closed>
        Pasaron más de 24 horas desde el último mensaje de esta persona: WhatsApp solo deja mandar una{' '}
        <strong>plantilla aprobada</strong>.
      </p>
      {templates === null && !problem ? <p class="muted">Buscando las plantillas aprobadas…</p> : null}
      {templates && templates.length === 0 ? (
        <p class="muted" data-no-templates>
          La cuenta no tiene plantillas aprobadas. Creá una en el administrador de WhatsApp de Meta y esperá la aprobación.
        </p>
      ) : null}
      {templates && templates.length > 0 ? (
        <>
          <Field id="wa-template" label="Plantilla">
            <select
              id="wa-template"
              value={chosen}
              onChange={(e) => {
                const key = e.currentTarget.value;
                setChosen(key);
                const t = templates.find((x) => `${x.name}|${x.language}` === key);
                setValues(Array.from({ length: t?.parameters ?? 0 }, () => ''));
              }}
            >
              <option value="">Elegí una plantilla</option>
              {templates.map((t) => (
                <option key={`${t.name}|${t.language}`} value={`${t.name}|${t.language}`}>
                  {t.name} ({t.language})
                </option>
              ))}
            </select>
          </Field>
          {values.map((v, i) => (
            <Field key={i} id={`wa-param-${i}`} label={label(template?.placeholders[i] ?? String(i + 1))}>
              <input
                id={`wa-param-${i}`}
                value={v}
                required
                maxLength={1024}
                onInput={(e) => {
                  const next = [...values];
                  next[i] = e.currentTarget.value;
                  setValues(next);
                }}
              />
            </Field>
          ))}
          {template ? (
            <p class="muted" data-template-preview>
              Se va a mandar: {preview}
            </p>
          ) : null}
          <button type="submit" disabled={!template || busy || values.some((v) => v.trim() === '')} aria-busy={busy}>
            Mandar la plantilla
          </button>
        </>
      ) : null}
      {problem ? (
        <p class="error-text" role="alert" data-template-problem>
          {problem}
        </p>
      ) : null}
    </form>
  );
}

function ReplyBox({ maxChars, onSend }: { maxChars: number; onSend: (text: string) => void }) {
  const [text, setText] = useState('');
  const tooLong = text.length > maxChars;
  const submit = (event: Event) => {
    event.preventDefault();
    if (tooLong || text.trim() === '') return;
    onSend(text);
    setText('');
  };
  return (
    <form class="reply-box" onSubmit={submit} data-reply>
      <label for="reply-text">Respuesta</label>
      <textarea
        id="reply-text"
        rows={3}
        value={text}
        placeholder="Escribí tu respuesta"
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) submit(e);
        }}
      />
      <div class="row">
        <span class={tooLong ? 'error-text' : 'muted'} data-chars aria-live="polite">
          {text.length.toLocaleString('es-AR')} / {maxChars.toLocaleString('es-AR')} caracteres
          {tooLong ? ': demasiado largo' : ''}
        </span>
        <button type="submit" disabled={tooLong || text.trim() === ''}>
          Enviar
        </button>
      </div>
    </form>
  );
}

function Inbox(data: InboxData) {
  const [status, setStatus] = useState(data.status);
  const [openId, setOpenId] = useState<string | null>(null);
  const [messages, setMessages] = useState<Message[] | null>(null);
  const [thread, setThread] = useState<Conversation | null>(null);
  const [outgoing, setOutgoing] = useState<Outgoing[]>([]);
  const [notice, say] = useNotice();
  const openRef = useRef<string | null>(null);
  openRef.current = openId;
  const connected = status.configured && status.connected;

  async function loadThread(id: string) {
    try {
      const answer = await api<{ conversation: Conversation; messages: Message[] }>(
        'GET',
        `${API}/conversations/${encodeURIComponent(id)}/messages`,
      );
      if (openRef.current === id) {
        setMessages(answer.messages);
        setThread(answer.conversation);
      }
    } catch (err) {
      if (openRef.current === id) say('error', errorText(err));
    }
  }

  // The same rules as the Instagram tab (useInboxList).
  const { threads, listState, listProblem } = useInboxList({
    connected,
    stored: data.conversations,
    fetchList,
    fetchStatus: async () => (await api<{ status: Status }>('GET', `${API}/status`)).status,
    onStatus: setStatus,
    refreshOpen: async () => {
      if (openRef.current) await loadThread(openRef.current);
    },
    listTimeoutMs: data.list_timeout_ms,
    pollMs: data.poll_ms,
    slowParty: 'El servidor',
  });

  function open(id: string) {
    setOpenId(id);
    setMessages(null);
    setThread(threads.find((t) => t.id === id) ?? null);
    void loadThread(id);
  }

  // A link from the agent's log (?thread=<id>) opens that conversation.
  useEffect(() => {
    const linked = new URLSearchParams(window.location.search).get('thread');
    if (connected && linked) open(linked);
  }, []);

  const appendSent = (conversationId: string, message: Message | null) => {
    if (message && openRef.current === conversationId) {
      setMessages((list) => (list && !list.some((m) => m.wamid === message.wamid) ? [...list, message] : list));
    }
  };

  async function send(text: string) {
    const conversationId = openId!;
    const key = `${Date.now()}-${Math.random()}`;
    setOutgoing((list) => [...list, { key, conversationId, text, state: 'pending' }]);
    try {
      const answer = await api<{ message: Message | null }>('POST', `${API}/messages`, {
        body: { conversation_id: conversationId, text },
        messages: SEND_MESSAGES,
      });
      setOutgoing((list) => list.filter((o) => o.key !== key));
      appendSent(conversationId, answer.message);
    } catch (err) {
      const message = err instanceof ApiError ? err.message : errorText(err);
      setOutgoing((list) => list.map((o) => (o.key === key ? { ...o, state: 'error', error: message } : o)));
      // A closed window turns the box into the template picker.
      if (err instanceof ApiError && err.code === 'window_closed') void loadThread(conversationId);
    }
  }

  const current = thread ?? threads.find((t) => t.id === openId) ?? null;
  const number = ourNumber(status);
  const byWamid = new Map((messages ?? []).map((m) => [m.wamid, m]));

  return (
    <>
      <PageTitle lead="La bandeja de mensajes del número de WhatsApp del servicio.">WhatsApp</PageTitle>
      <ChannelTabs current="whatsapp" />
      <Notice notice={notice} />
      <ConnectionCard status={status} onStatus={setStatus} />
      {connected ? (
        <div class={`inbox ${openId ? 'thread-open' : ''}`}>
          <ThreadList
            threads={threads}
            listState={listState}
            listProblem={listProblem}
            openId={openId}
            who={who}
            noText="Sin texto"
            empty={
              <>
                No hay conversaciones guardadas todavía. Cuando alguien le escriba a {number} aparece acá: esta lista se actualiza
                sola. Si esperabas ver alguna, revisá arriba «Último webhook».
              </>
            }
            onOpen={open}
          />
          <Card title={current ? who(current) : 'Conversación'} id="thread">
            {openId ? (
              <>
                <button type="button" class="secondary back-to-list" onClick={() => setOpenId(null)}>
                  ← Conversaciones
                </button>
                {messages === null ? <p class="muted">Cargando mensajes…</p> : null}
                <ol class="messages">
                  {(messages ?? []).map((m) => (
                    <li key={m.wamid} class={`message ${m.direction}`} data-direction={m.direction} data-type={m.type}>
                      <div class="message-head">
                        <strong data-author>
                          {m.direction === 'inbound' ? (current?.profile_name ?? phone(current?.wa_id ?? '')) : number}
                        </strong>
                        <span class="muted">{m.sent_at ? formatDateTime(m.sent_at) : ''}</span>
                        <Ticks message={m} />
                      </div>
                      <MessageBody message={m} quoted={m.context_wamid ? byWamid.get(m.context_wamid) : undefined} />
                    </li>
                  ))}
                  {outgoing
                    .filter((o) => o.conversationId === openId)
                    .map((o) => (
                      <li key={o.key} class={`message outbound ${o.state}`} data-outgoing={o.state}>
                        <div class="message-head">
                          <strong data-author>{number}</strong>
                          <span class="muted">{o.state === 'pending' ? 'Enviando…' : 'No se envió'}</span>
                        </div>
                        <p class="message-text">{o.text}</p>
                        {o.error ? <p class="error-text">{o.error}</p> : null}
                      </li>
                    ))}
                </ol>
                {!status.send_enabled ? (
                  <p class="muted" data-reply-disabled>
                    Solo lectura: el envío está apagado (WHATSAPP_SEND_ENABLED).
                  </p>
                ) : current && !current.window_open ? (
                  <TemplatePicker key={openId} conversationId={openId} onSent={(m) => appendSent(openId, m)} />
                ) : (
                  <ReplyBox maxChars={data.max_text_chars} onSend={(text) => void send(text)} />
                )}
                {status.send_enabled && current?.window_open && current.window_closes_at ? (
                  <p class="muted" data-window-open>
                    Se puede escribir texto libre hasta el {formatDateTime(current.window_closes_at)}; después, solo plantillas.
                  </p>
                ) : null}
              </>
            ) : (
              <p class="muted">Elegí una conversación para leerla.</p>
            )}
          </Card>
        </div>
      ) : null}
    </>
  );
}

mountPage<InboxData>((data) => <Inbox {...data} />);
