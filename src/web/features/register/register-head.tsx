import { OFFLINE_SHIFT, type RegisterUser } from './types.ts';

/** The register's top line: box and shift, Mis ventas, the catalogue, who sells, CAEA ready, Cerrar caja. */
export function RegisterHead({
  boxName,
  sessionId,
  catalogSize,
  user,
  caeaReady,
  onClose,
}: {
  boxName: string;
  sessionId: number;
  catalogSize: number | null;
  user: RegisterUser;
  caeaReady: boolean;
  onClose: () => void;
}) {
  return (
    <div class="register-head row">
      <span class="badge ok">
        {boxName} · {sessionId === OFFLINE_SHIFT ? 'turno sin conexión' : `turno ${sessionId}`}
      </span>
      <a class="button secondary" href="/mis-ventas" id="register-my-sales">
        Mis ventas
      </a>
      <span class="muted">
        {catalogSize !== null ? `${catalogSize.toLocaleString('es-AR')} productos` : 'Cargando catálogo…'}
      </span>
      <span class="muted register-user">{user.name ?? user.email}</span>
      {caeaReady ? (
        <span class="badge" id="caea-ready" title="Números de factura reservados para vender sin conexión">
          Factura sin conexión: CAEA
        </span>
      ) : null}
      <button type="button" class="secondary" onClick={onClose} id="register-close">
        Cerrar caja
      </button>
    </div>
  );
}
