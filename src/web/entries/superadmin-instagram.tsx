import { useEffect, useRef, useState } from 'preact/hooks';
import { formatDateTime, formatRelative } from '../../lib/format.ts';
import type { ConversationWire, InstagramStatus, MessageWire } from '../../modules/instagram/instagram.service.ts';
import { ApiError, api, errorText, type Messages } from '../ui/api.ts';
import { ChannelTabs, narrowScreen } from '../ui/channel-tabs.tsx';
import { fetchConversations, ThreadList, useInboxList } from '../ui/inbox.tsx';
import { Card, PageTitle } from '../ui/layout.tsx';
import { Notice, useNotice } from '../ui/notice.tsx';
import { mountPage } from '../ui/page-data.ts';

/** Dates travel as ISO strings. */
type Wire<T> = { [K in keyof T]: T[K] extends Date | null ? string | null : T[K] extends Date ? string : T[K] };
type Status = Wire<InstagramStatus>;
type Conversation = Wire<ConversationWire>;
type Message = Wire<MessageWire> & { attachments: Attachment[] };
interface Attachment {
  id: string;
  type: string | null;
  mime_type: string | null;
  name: string | null;
  size: number | null;
}

interface InboxData {
  status: Status;
  conversations: Conversation[];
  list_timeout_ms: number;
  poll_ms: number;
  max_text_bytes: number;
}

/** A reply typed here: shown at once as pending, then sent or with the reason it was not. */
interface Outgoing {
  key: string;
  conversationId: string;
  text: string;
  state: 'pending' | 'error';
  error?: string;
}

const SEND_MESSAGES: Messages = {
  window_closed:
    'Instagram no deja responder: pasaron más de 24 horas desde el último mensaje de esta persona. Esperá a que vuelva a escribir.',
  reconnect_required: 'Hay que volver a conectar la cuenta de Instagram antes de responder.',
  channel_not_connected: 'No hay una cuenta de Instagram conectada.',
  send_disabled: 'El envío está apagado: la bandeja es de solo lectura (INSTAGRAM_SEND_ENABLED).',
  validation_failed: 'El mensaje es demasiado largo: Instagram acepta hasta 1.000 bytes.',
  rate_limited: 'Instagram pidió esperar: demasiados mensajes seguidos. Probá de nuevo en un rato.',
  recipient_not_found: 'Instagram no encuentra a esta persona: puede que haya cerrado o bloqueado la cuenta.',
  upstream_timeout: 'Instagram no respondió a tiempo. Puede que el mensaje no haya salido: revisá el hilo antes de reenviarlo.',
  upstream_failed: 'Instagram rechazó el envío. Probá de nuevo en un rato.',
};

const encoder = new TextEncoder();
const byteLength = (text: string) => encoder.encode(text).length;

const who = (c: Conversation) => (c.participant_username ? `@${c.participant_username}` : `Usuario ${c.participant_id}`);

function when(value: string | null): string {
  return value ? formatRelative(value) : 'nunca';
}

/** Asks for the thread list, aborted after `timeoutMs` (rule 3 of the inbox). */
const fetchList = (timeoutMs: number) => fetchConversations<Conversation>('/api/superadmin/instagram/conversations', timeoutMs);

function ConnectionCard({ status }: { status: Status }) {
  const send = status.send_enabled ? (
    <p data-send-flag="on">
      <strong>Envío encendido:</strong> desde acá se puede responder.
    </p>
  ) : (
    <p data-send-flag="off">
      <strong>Solo lectura:</strong> el envío está apagado (<code>INSTAGRAM_SEND_ENABLED</code>). Se leen los mensajes, no se
      responde.
    </p>
  );
  if (!status.configured) {
    return (
      <Card title="Canal sin configurar" id="connection">
        <p data-state="not-configured">
          Falta configurar el servidor para usar Instagram. Definí estas variables de entorno y reiniciá el servicio:
        </p>
        <ul>
          {status.missing_settings.map((name) => (
            <li key={name}>
              <code>{name}</code>
            </li>
          ))}
        </ul>
        <p class="muted">La guía de operación (docs/operador/instagram.md) explica de dónde sale cada una.</p>
      </Card>
    );
  }
  if (!status.connected || !status.account) {
    return (
      <Card title="Instagram sin conectar" id="connection">
        <p data-state="not-connected">
          Todavía no hay una cuenta de Instagram conectada. Conectá la cuenta profesional del servicio.
        </p>
        <p>
          <a class="button" href="/superadmin/instagram/connect">
            Conectar Instagram
          </a>
        </p>
        {send}
      </Card>
    );
  }
  const handle = status.account.username ? `@${status.account.username}` : status.account.id;
  return (
    <Card title={status.reconnect_required ? `Desconectado: ${handle}` : `Conectado: ${handle}`} id="connection">
      {status.reconnect_required ? (
        <div class="notice notice-error" data-state="reconnect-required" role="alert">
          <p>
            <strong>Hay que volver a conectar la cuenta.</strong>{' '}
            {status.reconnect_reason ? `Instagram dijo: ${status.reconnect_reason}` : 'Instagram rechazó el acceso guardado.'}
          </p>
          <p>
            <a class="button" href="/superadmin/instagram/connect">
              Volver a conectar
            </a>
          </p>
        </div>
      ) : (
        <p data-state="connected" class="muted">
          {status.last_sync_error
            ? 'Cuenta conectada. La última sincronización con Instagram falló; se vuelve a intentar cada minuto.'
            : 'Cuenta conectada y funcionando.'}
        </p>
      )}
      <details class="connection-more" open={!narrowScreen()} data-connection-more>
        <summary>Detalles de la conexión</summary>
        <dl class="facts">
          <dt>El acceso vence</dt>
          <dd>{status.token_expires_at ? formatDateTime(status.token_expires_at) : 'sin dato'}</dd>
          <dt>Último webhook</dt>
          <dd>{when(status.last_webhook_at)}</dd>
          <dt>Última sincronización</dt>
          <dd>
            {when(status.last_sync_at)}
            {status.last_sync_error ? (
              <span class="error-text" data-sync-failed>
                {' '}
                (falló)
              </span>
            ) : null}
          </dd>
        </dl>
        {status.recommended_settings.length > 0 ? (
          <p class="muted">
            Sin {status.recommended_settings.map((n) => `${n}`).join(' ni ')} los mensajes llegan solo por la sincronización de
            cada minuto.
          </p>
        ) : null}
        {send}
        <p>
          <a href="/superadmin/instagram/agent">Ver el agente de ventas</a>
        </p>
      </details>
    </Card>
  );
}

function AttachmentView({ attachment }: { attachment: Attachment }) {
  const name = attachment.name ?? attachment.mime_type ?? 'sin nombre';
  if (attachment.type === 'audio' || attachment.mime_type?.startsWith('audio/')) {
    return (
      <div class="attachment">
        <p class="muted" data-attachment-name>
          Audio: {name}
        </p>
        {/* biome-ignore lint/a11y/useMediaCaption: Instagram voice notes come with no captions to offer. */}
        <audio controls preload="none" src={`/api/superadmin/instagram/attachments?id=${encodeURIComponent(attachment.id)}`}>
          <a href={`/api/superadmin/instagram/attachments?id=${encodeURIComponent(attachment.id)}`}>Audio: {name}</a>
        </audio>
      </div>
    );
  }
  const kinds: Record<string, string> = {
    image: 'Imagen',
    video: 'Video',
    file: 'Archivo',
    share: 'Publicación compartida',
    story_mention: 'Mención en una historia',
  };
  return (
    <p class="attachment muted" data-attachment-placeholder>
      [{(attachment.type && kinds[attachment.type]) || 'Adjunto'}: {name} — se ve en la app de Instagram]
    </p>
  );
}

function MessageView({ message }: { message: Message }) {
  return (
    <li class={`message ${message.direction}`} data-direction={message.direction}>
      <div class="message-head">
        <strong data-author>{message.author}</strong>
        <span class="muted">{message.sent_at ? formatDateTime(message.sent_at) : ''}</span>
      </div>
      {message.is_deleted ? (
        <p class="muted" data-deleted>
          <em>Mensaje eliminado</em>
        </p>
      ) : message.is_unsupported ? (
        <p class="muted">
          <em>Tipo de mensaje que Instagram no comparte con esta bandeja</em>
        </p>
      ) : message.text ? (
        <p class="message-text">{message.text}</p>
      ) : null}
      {message.attachments.map((a) => (
        <AttachmentView key={a.id} attachment={a} />
      ))}
    </li>
  );
}

function ReplyBox({
  enabled,
  reason,
  maxBytes,
  onSend,
}: {
  enabled: boolean;
  reason: string;
  maxBytes: number;
  onSend: (text: string) => void;
}) {
  const [text, setText] = useState('');
  const bytes = byteLength(text);
  const tooLong = bytes > maxBytes;
  const submit = (event: Event) => {
    event.preventDefault();
    if (!enabled || tooLong || text.trim() === '') return;
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
        disabled={!enabled}
        placeholder={enabled ? 'Escribí tu respuesta' : reason}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) submit(e);
        }}
      />
      <div class="row">
        <span class={tooLong ? 'error-text' : 'muted'} data-bytes aria-live="polite">
          {bytes.toLocaleString('es-AR')} / {maxBytes.toLocaleString('es-AR')} bytes{tooLong ? ': demasiado largo' : ''}
        </span>
        <button type="submit" disabled={!enabled || tooLong || text.trim() === ''}>
          Enviar
        </button>
      </div>
      {enabled ? null : (
        <p class="muted" data-reply-disabled>
          {reason}
        </p>
      )}
    </form>
  );
}

function Inbox(data: InboxData) {
  const [status, setStatus] = useState(data.status);
  const [openId, setOpenId] = useState<string | null>(null);
  const [messages, setMessages] = useState<Message[] | null>(null);
  const [outgoing, setOutgoing] = useState<Outgoing[]>([]);
  const [notice, say] = useNotice();
  const openRef = useRef<string | null>(null);
  openRef.current = openId;
  const connected = status.configured && status.connected;

  async function loadThread(id: string) {
    try {
      const answer = await api<{ messages: Message[]; stale: boolean }>(
        'GET',
        `/api/superadmin/instagram/conversations/${encodeURIComponent(id)}/messages`,
      );
      if (openRef.current === id) setMessages(answer.messages);
    } catch (err) {
      if (openRef.current === id) say('error', errorText(err));
    }
  }

  // Rule 3: the first list is aborted after the timeout, and an empty first answer is asked once more.
  const { threads, listState, listProblem } = useInboxList({
    connected,
    stored: data.conversations,
    fetchList,
    fetchStatus: async () => (await api<{ status: Status }>('GET', '/api/superadmin/instagram/status')).status,
    onStatus: setStatus,
    refreshOpen: async () => {
      if (openRef.current) await loadThread(openRef.current);
    },
    listTimeoutMs: data.list_timeout_ms,
    pollMs: data.poll_ms,
    slowParty: 'Instagram',
  });

  function open(id: string) {
    setOpenId(id);
    setMessages(null);
    void loadThread(id);
  }

  // A link from the agent's log (?thread=<id>) opens that conversation.
  useEffect(() => {
    const linked = new URLSearchParams(window.location.search).get('thread');
    if (connected && linked) open(linked);
  }, []);

  async function send(text: string) {
    const conversationId = openId!;
    const key = `${Date.now()}-${Math.random()}`;
    setOutgoing((list) => [...list, { key, conversationId, text, state: 'pending' }]);
    try {
      const answer = await api<{ message: Message }>('POST', '/api/superadmin/instagram/messages', {
        body: { conversation_id: conversationId, text },
        messages: SEND_MESSAGES,
      });
      setOutgoing((list) => list.filter((o) => o.key !== key));
      if (openRef.current === conversationId) {
        setMessages((list) =>
          list && !list.some((m) => m.id === answer.message.id) ? [...list, { ...answer.message, attachments: [] }] : list,
        );
      }
    } catch (err) {
      const message = err instanceof ApiError ? err.message : errorText(err);
      setOutgoing((list) => list.map((o) => (o.key === key ? { ...o, state: 'error', error: message } : o)));
    }
  }

  const current = threads.find((t) => t.id === openId) ?? null;
  const handle = status.account?.username ? `@${status.account.username}` : (status.account?.id ?? '');
  const sendReason = !status.send_enabled
    ? 'Solo lectura: el envío está apagado (INSTAGRAM_SEND_ENABLED).'
    : status.reconnect_required
      ? 'Hay que volver a conectar la cuenta antes de responder.'
      : '';

  return (
    <>
      <PageTitle lead="La bandeja de mensajes de la cuenta de Instagram del servicio.">Instagram</PageTitle>
      <ChannelTabs current="instagram" />
      <Notice notice={notice} />
      <ConnectionCard status={status} />
      {connected ? (
        <div class={`inbox ${openId ? 'thread-open' : ''}`}>
          <ThreadList
            threads={threads}
            listState={listState}
            listProblem={listProblem}
            openId={openId}
            who={who}
            noText="Sin texto (un adjunto o una reacción)"
            empty={
              <>
                No hay conversaciones guardadas todavía. Cuando alguien le escriba a {handle} aparece acá. Si esperabas ver
                alguna, revisá que el webhook esté suscripto (arriba: «Último webhook»): esta lista se actualiza sola.
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
                    <MessageView key={m.id} message={m} />
                  ))}
                  {outgoing
                    .filter((o) => o.conversationId === openId)
                    .map((o) => (
                      <li key={o.key} class={`message outbound ${o.state}`} data-outgoing={o.state}>
                        <div class="message-head">
                          <strong data-author>{handle}</strong>
                          <span class="muted">{o.state === 'pending' ? 'Enviando…' : 'No se envió'}</span>
                        </div>
                        <p class="message-text">{o.text}</p>
                        {o.error ? <p class="error-text">{o.error}</p> : null}
                      </li>
                    ))}
                </ol>
                <ReplyBox
                  enabled={sendReason === ''}
                  reason={sendReason}
                  maxBytes={data.max_text_bytes}
                  onSend={(text) => void send(text)}
                />
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
