import { useState } from 'preact/hooks';
import { formatDateTime } from '../../lib/format.ts';
import type { CreatedInvitationWire, InvitationWire } from '../../modules/users/invitations.service.ts';
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
  already_member: 'Esa persona ya está en la empresa: si no entra, devolvele el acceso desde la lista.',
};

/**
 * The people of one company: invite (the link is shown once, to pass on), the pending invitations
 * (revocable), change the role, turn access off and on, assign a temporary password. `api` is the
 * company's members API.
 */
export function Members({
  api: base,
  initial,
  invitations: initialInvitations,
  me,
}: {
  api: string;
  initial: MemberWire[];
  invitations: InvitationWire[];
  me: number | null;
}) {
  const [members, setMembers] = useState(initial);
  const [invitations, setInvitations] = useState(initialInvitations);
  const [link, setLink] = useState<{ email: string; link: string } | null>(null);
  const [temporary, setTemporary] = useState<{ email: string; password: string } | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [notice, say] = useNotice();
  const { ask, dialog } = useConfirm();

  const reload = async () => {
    const [people, pending] = await Promise.all([
      api<{ members: MemberWire[] }>('GET', base),
      api<{ invitations: InvitationWire[] }>('GET', `${base}/invitations`),
    ]);
    setMembers(people.members);
    setInvitations(pending.invitations);
  };
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

  const invite = (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const body = { email: String(data.get('email') ?? '').trim(), role: String(data.get('role') ?? 'cashier') };
    void run('invite', async () => {
      const created = await api<CreatedInvitationWire>('POST', base, { body, messages: MESSAGES });
      form.reset();
      setTemporary(null);
      setLink({ email: created.invitation.email, link: created.link });
      return `Listo: invitamos a ${created.invitation.email}. Pasale el enlace de abajo.`;
    });
  };

  const revoke = async (invitation: InvitationWire) => {
    const yes = await ask(`El enlace que le pasaste a ${invitation.email} deja de funcionar en el acto.`, {
      confirmLabel: 'Anular invitación',
      danger: true,
    });
    if (!yes) return;
    await run(`revoke-${invitation.id}`, async () => {
      await api('DELETE', `${base}/invitations/${invitation.id}`, { messages: MESSAGES });
      if (link?.email === invitation.email) setLink(null);
      return `Anulamos la invitación de ${invitation.email}.`;
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
      setLink(null);
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
        <TableWrap id="member-rows" stack>
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
                  <td data-label="Rol">
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
                  <td data-label="Último ingreso">{m.last_login_at ? formatDateTime(m.last_login_at) : 'Nunca'}</td>
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
      <Card title="Invitar a una persona" id="invite">
        <p class="muted">
          Te damos un enlace para pasarle (por WhatsApp, mail…). Con él, la persona crea su contraseña o ingresa con su usuario de
          Mostrador, y recién ahí entra a la empresa. El enlace sirve una vez y vence a los 7 días.
        </p>
        <form id="member-form" onSubmit={invite}>
          <Field id="member-email" label="Email">
            <input id="member-email" name="email" type="email" required maxLength={254} autocomplete="off" />
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
          <BusyButton type="submit" busy={busy === 'invite'}>
            Invitar
          </BusyButton>
        </form>
        {link ? (
          <div id="invitation-link" class="stack">
            <p class="notice">
              Enlace de invitación para <strong>{link.email}</strong>: se muestra solo esta vez. Copialo y pasáselo; si lo perdés,
              volvé a invitar a ese email (el enlace anterior deja de funcionar).
            </p>
            <Secret id="invitation-link-value" value={link.link} />
          </div>
        ) : null}
      </Card>
      <Card title="Invitaciones pendientes" id="invitations">
        {invitations.length === 0 ? (
          <p class="muted" id="no-invitations">
            No hay invitaciones sin responder.
          </p>
        ) : (
          <ul class="invitations" id="invitation-rows">
            {invitations.map((inv) => (
              <li key={inv.id} data-invitation-id={inv.id}>
                <div>
                  <div class="invitation-email">{inv.email}</div>
                  <div class="muted">
                    {ROLE[inv.role]} ·{' '}
                    {inv.expired ? (
                      <span class="badge off">Vencida el {formatDateTime(inv.expires_at)}</span>
                    ) : (
                      `vence el ${formatDateTime(inv.expires_at)}`
                    )}
                  </div>
                </div>
                <BusyButton
                  class="danger"
                  busy={busy === `revoke-${inv.id}`}
                  data-invitation-action="revoke"
                  onClick={() => void revoke(inv)}
                >
                  Anular
                </BusyButton>
              </li>
            ))}
          </ul>
        )}
      </Card>
      {dialog}
    </>
  );
}
