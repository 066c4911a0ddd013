import { useEffect, useState } from 'preact/hooks';
import { formatDateTime } from '../../lib/format.ts';
import type { InvitationViewWire } from '../../modules/users/invitations.service.ts';
import { type ErrorBody, messageFor, OFFLINE_MESSAGE } from '../ui/api.ts';
import { BusyButton, Field } from '../ui/form.tsx';
import { Card } from '../ui/layout.tsx';
import { mountPage } from '../ui/page-data.ts';

interface InvitationData {
  /** Who is signed in in this browser, if anyone. */
  signed_in: { email: string; name: string | null } | null;
  min_password: number;
}

const ROLE: Record<string, string> = { admin: 'administración', cashier: 'caja' };

/** Titles of the pages for a link that no longer works, by the code of the refusal. */
const DEAD_LINK: Record<string, string> = {
  invitation_expired: 'La invitación venció',
  invitation_used: 'La invitación ya se usó',
  invitation_revoked: 'La invitación fue anulada',
  not_found: 'El enlace no es válido',
};

const MESSAGES = {
  not_found: 'Revisá que hayas copiado el enlace completo, tal como te lo pasaron.',
  invitation_used: 'Cada enlace sirve una sola vez. Si ya la aceptaste, ingresá con tu email y tu contraseña.',
  invitation_expired: 'Los enlaces valen 7 días. Pedile a la empresa que te invite de nuevo.',
  invitation_revoked: 'La empresa la anuló o te mandó otra más nueva. Si la esperabas, pedile un enlace nuevo.',
  401: 'Tu sesión terminó: ingresá de nuevo.',
};

class CallError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null,
  ) {
    super(message);
  }
}

/** POSTs JSON; a refusal becomes a CallError with its Spanish text (a 401 does not leave the page). */
async function post<T>(url: string, body: unknown): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).catch(() => {
    throw new CallError(OFFLINE_MESSAGE, 0, 'offline');
  });
  const data = res.status === 204 ? undefined : await res.json().catch(() => null);
  if (!res.ok) {
    const err = (data ?? null) as ErrorBody | null;
    throw new CallError(messageFor(res.status, err, MESSAGES), res.status, err?.code ?? null);
  }
  return data as T;
}

const textOf = (err: unknown) => (err instanceof CallError ? err.message : 'Algo salió mal en esta página. Actualizala.');

/** The token is after `#` in the link: browsers never send it to a server or in a Referer. */
function tokenOfLink(): string {
  return decodeURIComponent(location.hash.replace(/^#/, '')).trim();
}

function DeadLink({ code, text }: { code: string | null; text: string }) {
  return (
    <Card>
      <h1 id="invitation-title">{DEAD_LINK[code ?? ''] ?? 'No pudimos abrir la invitación'}</h1>
      <p id="invitation-problem" class="notice notice-error" role="alert">
        {text}
      </p>
      <p>
        <a href="/login">Ir a ingresar</a>
      </p>
    </Card>
  );
}

function NewAccount({ token, email, min }: { token: string; email: string; min: number }) {
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    const password = String(data.get('password') ?? '');
    if (password !== String(data.get('password_again') ?? '')) {
      setMessage('Las dos contraseñas no coinciden.');
      return;
    }
    if (password.length < min) {
      setMessage(`La contraseña tiene que tener al menos ${min} caracteres.`);
      return;
    }
    const name = String(data.get('display_name') ?? '').trim();
    setBusy(true);
    setMessage('');
    try {
      await post('/api/invitations/accept-new', { token, password, ...(name ? { display_name: name } : {}) });
      location.assign('/');
      return;
    } catch (err) {
      setMessage(textOf(err));
    }
    setBusy(false);
  };
  return (
    <form id="new-account-form" onSubmit={submit}>
      <input type="email" name="email" value={email} autocomplete="username" hidden readOnly />
      <Field id="new-name" label="Tu nombre (opcional)">
        <input id="new-name" name="display_name" maxLength={120} autocomplete="name" />
      </Field>
      <Field id="new-password" label="Elegí una contraseña" hint={`Al menos ${min} caracteres.`}>
        <input id="new-password" name="password" type="password" autocomplete="new-password" required minLength={min} />
      </Field>
      <Field id="new-password-again" label="Repetila">
        <input id="new-password-again" name="password_again" type="password" autocomplete="new-password" required />
      </Field>
      <p id="new-account-message" class="error" role="alert">
        {message}
      </p>
      <BusyButton type="submit" busy={busy}>
        Crear mi usuario y entrar
      </BusyButton>
    </form>
  );
}

function ExistingAccount({ email, onSignedIn }: { email: string; onSignedIn: () => void }) {
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const password = String(new FormData(form).get('password') ?? '');
    setBusy(true);
    setMessage('');
    try {
      await post('/api/auth/login', { email, password });
      onSignedIn();
    } catch (err) {
      const status = err instanceof CallError ? err.status : 0;
      setMessage(
        status === 401 || status === 422
          ? 'La contraseña no es correcta.'
          : status === 429
            ? 'Demasiados intentos. Esperá unos minutos y probá de nuevo.'
            : textOf(err),
      );
      (form.elements.namedItem('password') as HTMLInputElement).value = '';
    }
    setBusy(false);
  };
  return (
    <form id="existing-account-form" onSubmit={submit}>
      <input type="email" name="email" value={email} autocomplete="username" hidden readOnly />
      <Field id="existing-password" label={`Tu contraseña de Mostrador (${email})`}>
        <input id="existing-password" name="password" type="password" autocomplete="current-password" required />
      </Field>
      <p id="existing-account-message" class="error" role="alert">
        {message}
      </p>
      <BusyButton type="submit" busy={busy}>
        Ingresar
      </BusyButton>
    </form>
  );
}

function Answer({ token, company }: { token: string; company: string }) {
  const [busy, setBusy] = useState<'accept' | 'decline' | null>(null);
  const [message, setMessage] = useState('');
  const [declined, setDeclined] = useState(false);
  const answer = async (what: 'accept' | 'decline') => {
    setBusy(what);
    setMessage('');
    try {
      await post(`/api/invitations/${what}`, { token });
      if (what === 'accept') {
        location.assign('/');
        return;
      }
      setDeclined(true);
    } catch (err) {
      setMessage(textOf(err));
    }
    setBusy(null);
  };
  if (declined) {
    return (
      <p id="invitation-declined" class="notice notice-ok" role="status">
        Listo: rechazaste la invitación. {company} ya lo sabe; el enlace dejó de funcionar.
      </p>
    );
  }
  return (
    <div class="stack">
      <p id="answer-message" class="error" role="alert">
        {message}
      </p>
      <p class="row">
        <BusyButton
          busy={busy === 'accept'}
          disabled={busy !== null}
          id="accept-invitation"
          onClick={() => void answer('accept')}
        >
          Aceptar y entrar
        </BusyButton>
        <BusyButton
          class="secondary"
          busy={busy === 'decline'}
          disabled={busy !== null}
          id="decline-invitation"
          onClick={() => void answer('decline')}
        >
          Rechazar
        </BusyButton>
      </p>
    </div>
  );
}

function Invitation({ signed_in: signedIn, min_password: min }: InvitationData) {
  const token = tokenOfLink();
  const [state, setState] = useState<
    { kind: 'loading' } | { kind: 'dead'; code: string | null; text: string } | ({ kind: 'open' } & InvitationViewWire)
  >({ kind: 'loading' });
  const [who, setWho] = useState(signedIn?.email ?? null);
  const [mode, setMode] = useState<'new' | 'existing'>('new');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!token) {
      setState({ kind: 'dead', code: 'not_found', text: MESSAGES.not_found });
      return;
    }
    post<InvitationViewWire>('/api/invitations/view', { token })
      .then((view) => setState({ kind: 'open', ...view }))
      .catch((err) => setState({ kind: 'dead', code: err instanceof CallError ? err.code : null, text: textOf(err) }));
  }, [token]);

  const logout = async () => {
    setBusy(true);
    await post('/api/auth/logout', {}).catch(() => undefined);
    setWho(null);
    setBusy(false);
  };

  if (state.kind === 'loading') return <Card>Abriendo la invitación…</Card>;
  if (state.kind === 'dead') return <DeadLink code={state.code} text={state.text} />;
  const { company, email, role, expires_at: expiresAt } = state.invitation;
  return (
    <Card>
      <h1 id="invitation-title">Te invitaron a {company}</h1>
      <p id="invitation-summary">
        Para <strong>{email}</strong>, con rol de {ROLE[role] ?? role}. El enlace vale hasta el {formatDateTime(expiresAt)} y
        sirve una sola vez.
      </p>
      {who === email ? (
        <Answer token={token} company={company} />
      ) : who ? (
        <div id="other-account" class="stack">
          <p>
            Ingresaste como <strong>{who}</strong>, pero la invitación es para <strong>{email}</strong>.
          </p>
          <BusyButton class="secondary" busy={busy} id="switch-account" onClick={() => void logout()}>
            Salir de esa cuenta
          </BusyButton>
        </div>
      ) : (
        <div class="stack">
          <p class="row">
            <button
              type="button"
              class={mode === 'new' ? '' : 'secondary'}
              aria-pressed={mode === 'new'}
              id="mode-new"
              onClick={() => setMode('new')}
            >
              Es mi primera vez
            </button>
            <button
              type="button"
              class={mode === 'existing' ? '' : 'secondary'}
              aria-pressed={mode === 'existing'}
              id="mode-existing"
              onClick={() => setMode('existing')}
            >
              Ya tengo usuario
            </button>
          </p>
          {mode === 'new' ? (
            <NewAccount token={token} email={email} min={min} />
          ) : (
            <ExistingAccount email={email} onSignedIn={() => setWho(email)} />
          )}
        </div>
      )}
    </Card>
  );
}

// Another link pasted into this tab changes only the part after `#`: open it as a new page.
window.addEventListener('hashchange', () => location.reload());

mountPage<InvitationData>((data) => (
  <div class="login">
    <Invitation {...data} />
  </div>
));
