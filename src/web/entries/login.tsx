import { useState } from 'preact/hooks';
import { ApiError, api, errorText } from '../ui/api.ts';
import { BusyButton, Field } from '../ui/form.tsx';
import { Card } from '../ui/layout.tsx';
import { mountPage } from '../ui/page-data.ts';

interface LoginData {
  next: string;
  /** Who is already signed in in this browser, if anyone. */
  signed_in: { email: string; name: string | null } | null;
}

function loginMessage(err: unknown): string {
  if (!(err instanceof ApiError)) return errorText(err);
  if (err.status === 401 || err.status === 422 || err.status === 400) return 'El email o la contraseña no son correctos.';
  if (err.status === 429) return 'Demasiados intentos. Esperá unos minutos y probá de nuevo.';
  return err.message;
}

function LoginForm({ next }: { next: string }) {
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    setBusy(true);
    setMessage('');
    try {
      await fetchLogin(String(data.get('email') ?? ''), String(data.get('password') ?? ''));
      location.assign(next);
      return;
    } catch (err) {
      setMessage(loginMessage(err));
      const password = form.elements.namedItem('password') as HTMLInputElement;
      password.value = '';
      password.focus();
    }
    setBusy(false);
  };
  return (
    <form id="login-form" onSubmit={submit} autocomplete="on">
      <Field id="email" label="Email">
        <input id="email" name="email" type="email" autocomplete="username" required autofocus />
      </Field>
      <Field id="password" label="Contraseña">
        <input id="password" name="password" type="password" autocomplete="current-password" required />
      </Field>
      <p id="login-message" class="error" role="alert">
        {message}
      </p>
      <BusyButton type="submit" busy={busy}>
        Ingresar
      </BusyButton>
    </form>
  );
}

/** The login API answers 401 for a wrong password: here that is a message, not a trip to /login. */
async function fetchLogin(email: string, password: string) {
  const res = await fetch('/api/auth/login', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  }).catch(() => {
    throw new ApiError('No hay conexión con el servidor. Revisá tu red y probá de nuevo.', 0, 'offline', null);
  });
  if (!res.ok) throw new ApiError('No pudimos iniciar la sesión. Probá de nuevo en un rato.', res.status, null, null);
}

function Login({ next, signed_in: signedIn }: LoginData) {
  const [who, setWho] = useState(signedIn);
  const [busy, setBusy] = useState(false);
  const switchAccount = async () => {
    setBusy(true);
    try {
      await api('POST', '/api/auth/logout');
    } catch {
      // Logged out or not, the form below lets the person sign in with another account.
    }
    setWho(null);
    setBusy(false);
  };
  return (
    <div class="login">
      <Card>
        <h1>Ingresá a Mostrador</h1>
        {who ? (
          <div id="signed-in" class="stack">
            <p>
              Ya ingresaste como <strong>{who.name ?? who.email}</strong>
              {who.name ? ` (${who.email})` : ''}.
            </p>
            <p class="row">
              <a class="button" href={next} id="continue">
                Seguir como {who.name ?? who.email}
              </a>
              <BusyButton class="secondary" busy={busy} onClick={switchAccount} id="switch-account">
                Ingresar con otra cuenta
              </BusyButton>
            </p>
          </div>
        ) : (
          <LoginForm next={next} />
        )}
      </Card>
      <p class="muted">
        ¿Olvidaste tu contraseña? Pedile a quien administra Mostrador en tu empresa que te asigne una temporal desde Personas.
      </p>
    </div>
  );
}

mountPage<LoginData>((data) => <Login {...data} />);
