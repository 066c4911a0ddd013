import { useState } from 'preact/hooks';
import { formatDateTime } from '../../lib/format.ts';
import type { SessionWire } from '../../modules/auth/session.wire.ts';
import { api, errorText } from '../ui/api.ts';
import { BusyButton, Field } from '../ui/form.tsx';
import { Card, PageTitle } from '../ui/layout.tsx';
import { Notice, useNotice } from '../ui/notice.tsx';
import { mountPage } from '../ui/page-data.ts';

type AccountData = SessionWire & { min_password: number };

const ROLE: Record<string, string> = { admin: 'administración', cashier: 'caja' };

function Account({
  user,
  company,
  companies,
  session,
  min_password: minPassword,
  must_change_password: mustChange,
}: AccountData) {
  const [busy, setBusy] = useState(false);
  const [notice, say] = useNotice();
  const [sessionsNotice, saySessions] = useNotice();
  const [ending, setEnding] = useState(false);
  const [choosing, setChoosing] = useState<number | null>(null);
  const choose = async (companyId: number) => {
    setChoosing(companyId);
    try {
      await api('POST', '/api/auth/company', { body: { company_id: companyId } });
      location.assign('/');
    } catch (err) {
      saySessions('error', errorText(err));
      setChoosing(null);
    }
  };
  const endOthers = async () => {
    setEnding(true);
    try {
      const { ended_sessions: ended } = await api<{ ended_sessions: number }>('POST', '/api/auth/sessions/end-others');
      saySessions(
        'ok',
        ended === 0
          ? 'No tenías otras sesiones abiertas.'
          : ended === 1
            ? 'Cerramos tu otra sesión abierta.'
            : `Cerramos tus otras ${ended} sesiones abiertas.`,
      );
    } catch (err) {
      saySessions('error', errorText(err));
    } finally {
      setEnding(false);
    }
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const next = String(data.get('new_password') ?? '');
    if (next !== String(data.get('repeat') ?? '')) return say('error', 'La contraseña nueva y su repetición no coinciden.');
    if (next.length < minPassword) return say('error', `La contraseña nueva tiene que tener al menos ${minPassword} caracteres.`);
    setBusy(true);
    try {
      const result = await api<{ ended_sessions: number }>('POST', '/api/auth/password', {
        body: { current_password: String(data.get('current_password') ?? ''), new_password: next },
        messages: { validation_failed: 'La contraseña actual no es correcta.' },
      });
      form.reset();
      if (mustChange) {
        location.assign('/');
        return;
      }
      say(
        'ok',
        result.ended_sessions > 0
          ? `Contraseña cambiada. Cerramos tus otras ${result.ended_sessions} sesiones abiertas.`
          : 'Contraseña cambiada.',
      );
    } catch (err) {
      say('error', errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const passwordForm = (
    <form id="password-form" onSubmit={submit}>
      <Field id="current-password" label={mustChange ? 'Contraseña temporal' : 'Contraseña actual'}>
        <input id="current-password" name="current_password" type="password" autocomplete="current-password" required />
      </Field>
      <Field id="new-password" label="Contraseña nueva" hint={`Al menos ${minPassword} caracteres.`}>
        <input
          id="new-password"
          name="new_password"
          type="password"
          autocomplete="new-password"
          required
          minLength={minPassword}
        />
      </Field>
      <Field id="repeat-password" label="Repetí la contraseña nueva">
        <input id="repeat-password" name="repeat" type="password" autocomplete="new-password" required />
      </Field>
      <BusyButton type="submit" busy={busy}>
        {mustChange ? 'Guardar y seguir' : 'Cambiar contraseña'}
      </BusyButton>
    </form>
  );
  if (mustChange) {
    // A temporary password (an admin reset it): nothing else works until the person sets their own.
    return (
      <>
        <PageTitle>Elegí tu contraseña</PageTitle>
        <Card title="Tu contraseña es temporal">
          <p id="password-temporary">
            Ingresaste con una contraseña temporal que te dio quien administra el negocio. Antes de seguir, elegí una contraseña
            tuya: solo vos la vas a saber.
          </p>
          <Notice notice={notice} id="password-message" />
          {passwordForm}
        </Card>
      </>
    );
  }
  return (
    <>
      <PageTitle>Mi cuenta</PageTitle>
      {!company && companies.length > 0 ? (
        <Card title="Elegí con qué empresa trabajar">
          <p class="muted">Tenés acceso a más de una empresa. La que elijas queda para la próxima vez que ingreses.</p>
          <ul class="choices" id="company-choices">
            {companies.map((c) => (
              <li key={c.id}>
                <BusyButton busy={choosing === c.id} onClick={() => void choose(c.id)}>
                  {c.name} ({ROLE[c.role] ?? c.role})
                </BusyButton>
              </li>
            ))}
          </ul>
        </Card>
      ) : null}
      <Card title="Tus datos">
        <dl class="facts">
          <dt>Nombre</dt>
          <dd>{user.display_name ?? '—'}</dd>
          <dt>Email</dt>
          <dd id="account-email">{user.email}</dd>
          <dt>Empresa</dt>
          <dd>{company ? `${company.name} (${ROLE[company.role ?? ''] ?? 'sin rol'})` : 'Ninguna'}</dd>
          {user.is_superadmin ? (
            <>
              <dt>Operación</dt>
              <dd>Sos operador de Mostrador</dd>
            </>
          ) : null}
          <dt>Sesión</dt>
          <dd>Vence el {formatDateTime(session.expires_at)} si no la usás</dd>
        </dl>
        {companies.length > 1 ? <p class="hint muted">Cambiás de empresa con el selector de arriba.</p> : null}
        {!company && companies.length === 0 && !user.is_superadmin ? (
          <p class="notice">Tu usuario no tiene acceso a ninguna empresa. Pedíselo a quien administra Mostrador en tu negocio.</p>
        ) : null}
        {company?.role === 'cashier' ? (
          <p class="hint muted">
            La pantalla de caja para vender desde el navegador está en camino; mientras tanto, tus ventas llegan por las
            integraciones de tu negocio.
          </p>
        ) : null}
      </Card>
      <Card title="Sesiones">
        <Notice notice={sessionsNotice} id="sessions-message" />
        <p class="muted">
          Si ingresaste en otra compu o en un celular que ya no usás, o creés que alguien más entró con tu usuario, cerrá las
          otras sesiones: esta queda abierta.
        </p>
        <BusyButton busy={ending} id="end-other-sessions" onClick={() => void endOthers()}>
          Cerrar las otras sesiones
        </BusyButton>
      </Card>
      <Card title="Cambiar la contraseña">
        <Notice notice={notice} id="password-message" />
        {passwordForm}
      </Card>
    </>
  );
}

mountPage<AccountData>((data) => <Account {...data} />);
