import { useState } from 'preact/hooks';
import { formatDateTime } from '../../lib/format.ts';
import type { MemberWire } from '../../modules/users/members.service.ts';
import { ApiError, api, errorText } from '../ui/api.ts';
import { useConfirm } from '../ui/dialog.tsx';
import { BusyButton, Field } from '../ui/form.tsx';
import { Card, TableWrap } from '../ui/layout.tsx';
import { Notice, useNotice } from '../ui/notice.tsx';
import { Secret } from '../ui/secret.tsx';

const ROLE: Record<string, string> = { admin: 'Administración', cashier: 'Caja' };

const MESSAGES = {
  forbidden:
    'Esa persona también tiene acceso a otras empresas: solo un operador de Mostrador puede asignarle una contraseña nueva.',
  validation_failed: 'Revisá el email: tiene que ser una dirección válida.',
};

/**
 * The people of one company: add (a new email gets a temporary password shown once), change the
 * role, turn access off and on, assign a temporary password. `api` is the company's members API.
 */
export function Members({ api: base, initial, me }: { api: string; initial: MemberWire[]; me: number | null }) {
  const [members, setMembers] = useState(initial);
  const [temporary, setTemporary] = useState<{ email: string; password: string } | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [notice, say] = useNotice();
  const { ask, dialog } = useConfirm();

  const reload = async () => setMembers((await api<{ members: MemberWire[] }>('GET', base)).members);
  /** Runs an action, reloads the list and only then tells the outcome (the row already shows it). */
  const run = async (key: string, action: () => Promise<string>) => {
    setBusy(key);
    try {
      const outcome = await action();
      await reload();
      say('ok', outcome);
    } catch (err) {
      say('error', err instanceof ApiError ? err.message : errorText(err));
    } finally {
      setBusy(null);
    }
  };

  const add = (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const body = {
      email: String(data.get('email') ?? '').trim(),
      role: String(data.get('role') ?? 'cashier'),
      ...(String(data.get('display_name') ?? '').trim() ? { display_name: String(data.get('display_name')).trim() } : {}),
    };
    void run('add', async () => {
      const created = await api<{ member: MemberWire; temporary_password: string | null }>('POST', base, {
        body,
        messages: MESSAGES,
      });
      form.reset();
      setTemporary(created.temporary_password ? { email: created.member.email, password: created.temporary_password } : null);
      return created.temporary_password
        ? `Listo: creamos el usuario de ${created.member.email}. Pasale la contraseña temporal de abajo.`
        : `Listo: ${created.member.email} ya tenía usuario en Mostrador y ahora también entra a esta empresa con su contraseña.`;
    });
  };

  const resetPassword = async (m: MemberWire) => {
    const yes = await ask(`Se le asigna a ${m.email} una contraseña temporal nueva y se cierran sus sesiones abiertas.`, {
      confirmLabel: 'Asignar contraseña',
    });
    if (!yes) return;
    await run(`reset-${m.user_id}`, async () => {
      const result = await api<{ temporary_password: string }>('POST', `${base}/${m.user_id}/reset-password`, {
        messages: MESSAGES,
      });
      setTemporary({ email: m.email, password: result.temporary_password });
      return `Contraseña temporal nueva para ${m.email}: pasásela y pedile que la cambie en «Mi cuenta».`;
    });
  };

  const setAccess = async (m: MemberWire, enabled: boolean) => {
    if (
      !enabled &&
      !(await ask(`${m.email} deja de entrar a esta empresa en el acto.`, { confirmLabel: 'Quitar acceso', danger: true }))
    )
      return;
    await run(`access-${m.user_id}`, async () => {
      await api('POST', `${base}/${m.user_id}/${enabled ? 'enable' : 'disable'}`, { messages: MESSAGES });
      return enabled ? `${m.email} vuelve a entrar a esta empresa.` : `${m.email} ya no entra a esta empresa.`;
    });
  };

  const changeRole = (m: MemberWire, role: string) =>
    run(`role-${m.user_id}`, async () => {
      await api('PATCH', `${base}/${m.user_id}`, { body: { role }, messages: MESSAGES });
      return `${m.email} ahora tiene el rol ${ROLE[role]?.toLowerCase()}.`;
    });

  return (
    <>
      <Card title="Personas con acceso" id="members">
        <Notice notice={notice} id="members-message" />
        {temporary ? (
          <div id="temporary-password">
            <p class="notice">
              Contraseña temporal de <strong>{temporary.email}</strong>: se muestra solo esta vez. Pedile que la cambie al entrar,
              en «Mi cuenta».
            </p>
            <Secret id="temporary-password-value" value={temporary.password} />
          </div>
        ) : null}
        <TableWrap id="member-rows">
          <thead>
            <tr>
              <th>Persona</th>
              <th>Rol</th>
              <th>Acceso</th>
              <th>Último ingreso</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {members.map((m) => {
              const self = m.user_id === me;
              return (
                <tr key={m.user_id} data-user-id={m.user_id}>
                  <td>
                    {m.display_name ? <strong>{m.display_name}</strong> : null}
                    <div class={m.display_name ? 'muted' : ''}>{m.email}</div>
                  </td>
                  <td>
                    {self ? (
                      ROLE[m.role]
                    ) : (
                      <select
                        aria-label={`Rol de ${m.email}`}
                        value={m.role}
                        disabled={busy !== null}
                        onChange={(e) => void changeRole(m, (e.currentTarget as HTMLSelectElement).value)}
                      >
                        <option value="cashier">Caja</option>
                        <option value="admin">Administración</option>
                      </select>
                    )}
                  </td>
                  <td>
                    {m.account_disabled ? (
                      <span class="badge off">Usuario bloqueado</span>
                    ) : m.disabled_at ? (
                      <span class="badge off">Sin acceso desde {formatDateTime(m.disabled_at)}</span>
                    ) : (
                      <span class="badge ok">Con acceso</span>
                    )}
                  </td>
                  <td>{m.last_login_at ? formatDateTime(m.last_login_at) : 'Nunca'}</td>
                  <td>
                    {self ? (
                      <span class="muted">Sos vos</span>
                    ) : (
                      <div class="row">
                        <BusyButton
                          class="secondary"
                          busy={busy === `reset-${m.user_id}`}
                          data-member-action="reset"
                          onClick={() => void resetPassword(m)}
                        >
                          Contraseña temporal
                        </BusyButton>
                        {m.disabled_at ? (
                          <BusyButton
                            class="secondary"
                            busy={busy === `access-${m.user_id}`}
                            data-member-action="enable"
                            onClick={() => void setAccess(m, true)}
                          >
                            Devolver acceso
                          </BusyButton>
                        ) : (
                          <BusyButton
                            class="danger"
                            busy={busy === `access-${m.user_id}`}
                            data-member-action="disable"
                            onClick={() => void setAccess(m, false)}
                          >
                            Quitar acceso
                          </BusyButton>
                        )}
                      </div>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </TableWrap>
      </Card>
      <Card title="Agregar una persona">
        <form id="member-form" onSubmit={add}>
          <Field id="member-email" label="Email">
            <input id="member-email" name="email" type="email" required maxLength={254} autocomplete="off" />
          </Field>
          <Field id="member-name" label="Nombre (opcional)">
            <input id="member-name" name="display_name" maxLength={120} />
          </Field>
          <Field
            id="member-role"
            label="Rol"
            hint="Caja: vende y consulta. Administración: además configura la empresa y maneja las personas."
          >
            <select id="member-role" name="role">
              <option value="cashier">Caja</option>
              <option value="admin">Administración</option>
            </select>
          </Field>
          <BusyButton type="submit" busy={busy === 'add'}>
            Agregar
          </BusyButton>
        </form>
      </Card>
      {dialog}
    </>
  );
}
