import { useEffect, useState } from 'preact/hooks';
import { formatDateTime } from '../../lib/format.ts';
import type { AuditAction, AuditEntryWire } from '../../modules/audit/audit.repo.ts';
import { api } from '../ui/api.ts';
import { Card, TableWrap } from '../ui/layout.tsx';

/**
 * Each audited action as the owner reads it in the activity log: every action the server records
 * (the compiler holds this to AuditAction), so the log never shows an identifier like `box_session.opened`.
 */
export const AUDIT_LABELS: Record<AuditAction, string> = {
  'auth.login': 'Ingreso',
  'auth.login_failed': 'Ingreso fallido',
  'auth.logout': 'Cierre de sesión',
  'auth.other_sessions_ended': 'Otras sesiones cerradas',
  'auth.company_selected': 'Empresa elegida en una sesión',
  'integration_key.revealed': 'Clave de integración mostrada',
  'integration_key.rotated': 'Clave de integración rotada',
  'scanner_token.rotated': 'Token del escáner rotado',
  'scale_label.updated': 'Formato de etiquetas de balanza cambiado',
  'company.created': 'Empresa creada',
  'user.disabled': 'Usuario bloqueado',
  'user.password_set': 'Contraseña cambiada',
  'user.password_reset': 'Contraseña temporal asignada',
  'member.added': 'Persona agregada',
  'invitation.created': 'Invitación enviada',
  'invitation.revoked': 'Invitación anulada',
  'invitation.accepted': 'Invitación aceptada',
  'invitation.declined': 'Invitación rechazada',
  'invitation.refused': 'Invitación no aceptada (otra cuenta)',
  'member.role_changed': 'Rol de una persona cambiado',
  'member.disabled': 'Acceso de una persona desactivado',
  'member.enabled': 'Acceso de una persona reactivado',
  'webhook.created': 'Webhook agregado',
  'webhook.updated': 'Webhook modificado',
  'webhook.enabled': 'Webhook activado',
  'webhook.disabled': 'Webhook desactivado',
  'webhook.removed': 'Webhook eliminado',
  'webhook.secret_rotated': 'Secreto de un webhook rotado',
  'catalog.price_change': 'Aumento o rebaja masiva de precios',
  'catalog.imported': 'Planilla de productos importada',
  'customer.imported': 'Planilla de clientes importada',
  'api_token.created': 'Token de API creado',
  'api_token.revoked': 'Token de API revocado',
  'box_session.opened': 'Turno de caja abierto',
  'box_session.closed': 'Turno de caja cerrado',
  'box_session.cash_moved': 'Ingreso o retiro de efectivo en la caja',
  'sale.cancelled': 'Venta anulada',
  'sale.refunded': 'Venta anulada con devolución del dinero',
  'sale.returned': 'Devolución de una venta',
  'sale.price_changed': 'Precio cambiado en la caja',
  'sale.discounted': 'Descuento en la caja',
  'sale.discount_approved': 'Descuento aprobado por un administrador',
  'sale.discount_approval_failed': 'Aprobación de descuento rechazada',
  'sale.refund_approved': 'Devolución de dinero aprobada por un administrador',
  'sale.refund_approval_failed': 'Aprobación de devolución rechazada',
  'settings.discount_limit_changed': 'Límite de descuento del cajero cambiado',
  'account.credit_limit_overridden': 'Venta por encima del límite de crédito autorizada',
  'account.statement_shared': 'Estado de cuenta compartido',
  'fiscal.updated': 'Datos fiscales cambiados',
  'fiscal.cuit_unavailable': 'CUIT no disponible pedido (lo revisa soporte)',
  'company.cuit_moved': 'CUIT cambiado por soporte',
  'company.cuit_claim_dismissed': 'Pedido de CUIT descartado por soporte',
  'fiscal.certificate_uploaded': 'Certificado de ARCA cargado',
  'fiscal.csr_created': 'Pedido de certificado (CSR) generado',
  'invoice.issued': 'Factura emitida',
  'invoice.rejected': 'Factura rechazada por ARCA',
  'caea.obtained': 'CAEA obtenido',
  'caea.informed': 'Comprobantes CAEA informados a ARCA',
  'caea.no_movement_informed': 'CAEA sin movimiento informado',
  'caea.no_movement_rejected': 'CAEA sin movimiento rechazado por ARCA',
  'caea.block_reserved': 'Números CAEA reservados para una caja',
  'caea.block_returned': 'Números CAEA devueltos por una caja',
  'invoice.contingency_duplicate': 'Comprobante CAEA repetido',
};

/** The owner's words for an audited action (an action newer than this page: its name, as recorded). */
export function auditLabel(action: string): string {
  return Object.hasOwn(AUDIT_LABELS, action) ? AUDIT_LABELS[action as AuditAction] : action;
}

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
      <TableWrap id="audit" stack>
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
              <td data-label="Cuándo">{formatDateTime(e.at)}</td>
              <td data-label="Qué">{auditLabel(e.action)}</td>
              <td data-label="Quién">{actorOf(e)}</td>
              <td data-label="Desde">{e.ip ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </TableWrap>
    </Card>
  );
}
