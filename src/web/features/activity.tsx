import { useEffect, useState } from 'preact/hooks';
import { formatDateTime } from '../../lib/format.ts';
import type { AuditEntryWire } from '../../modules/audit/audit.repo.ts';
import { api } from '../ui/api.ts';
import { Card, TableWrap } from '../ui/layout.tsx';

/** Each audited action as the owner reads it in the activity log. */
export const AUDIT_LABELS: Record<string, string> = {
  'integration_key.revealed': 'Clave de integración mostrada',
  'integration_key.rotated': 'Clave de integración rotada',
  'scanner_token.rotated': 'Token del escáner rotado',
  'scale_label.updated': 'Formato de etiquetas de balanza cambiado',
  'company.created': 'Empresa creada',
  'auth.company_selected': 'Empresa elegida en una sesión',
  'webhook.created': 'Webhook agregado',
  'webhook.updated': 'Webhook modificado',
  'webhook.enabled': 'Webhook activado',
  'webhook.disabled': 'Webhook desactivado',
  'webhook.removed': 'Webhook eliminado',
  'webhook.secret_rotated': 'Secreto de un webhook rotado',
  'member.added': 'Persona agregada',
  'invitation.created': 'Invitación enviada',
  'invitation.revoked': 'Invitación anulada',
  'invitation.accepted': 'Invitación aceptada',
  'invitation.declined': 'Invitación rechazada',
  'member.role_changed': 'Rol de una persona cambiado',
  'member.disabled': 'Acceso de una persona desactivado',
  'member.enabled': 'Acceso de una persona reactivado',
  'user.password_reset': 'Contraseña temporal asignada',
  'user.password_set': 'Contraseña cambiada',
  'user.disabled': 'Usuario bloqueado',
  'fiscal.cuit_unavailable': 'CUIT no disponible pedido (lo revisa soporte)',
  'company.cuit_moved': 'CUIT cambiado por soporte',
  'company.cuit_claim_dismissed': 'Pedido de CUIT descartado por soporte',
};

/** Who did it, from where: the email of the person, or the command line. */
function actorOf(entry: AuditEntryWire) {
  return entry.actor_email ?? 'línea de comandos';
}

/** The company's recent audited actions; `version` changes when the page did something, to reload. */
export function Activity({ url, initial, version }: { url: string; initial: AuditEntryWire[]; version: number }) {
  const [entries, setEntries] = useState(initial);
  useEffect(() => {
    if (version === 0) return;
    void api<{ entries: AuditEntryWire[] }>('GET', url).then(
      (page) => setEntries(page.entries),
      () => {},
    );
  }, [version, url]);
  return (
    <Card title="Actividad reciente" id="activity">
      <TableWrap>
        <thead>
          <tr>
            <th>Cuándo</th>
            <th>Qué</th>
            <th>Quién</th>
            <th>Desde</th>
          </tr>
        </thead>
        <tbody id="audit-rows">
          {entries.length === 0 ? (
            <tr>
              <td colSpan={4} class="muted">
                Todavía no hay actividad registrada.
              </td>
            </tr>
          ) : null}
          {entries.map((e) => (
            <tr key={e.id}>
              <td>{formatDateTime(e.at)}</td>
              <td>{AUDIT_LABELS[e.action] ?? e.action}</td>
              <td>{actorOf(e)}</td>
              <td>{e.ip ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </TableWrap>
    </Card>
  );
}
