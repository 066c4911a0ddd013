import { useEffect, useState } from 'preact/hooks';
import { formatDate } from '../../../lib/format.ts';
import { formatPesos } from '../../../lib/money.ts';
import { api, errorText } from '../../ui/api.ts';
import { BusyButton } from '../../ui/form.tsx';
import { TableWrap } from '../../ui/layout.tsx';
import { PaymentForm } from './payment-form.tsx';
import type { CustomerAccountWire, StatementShareWire } from './types.ts';

/** The balance as a person reads it: what is owed, or the saldo a favor. */
export function balanceText(balance: number): string {
  if (balance > 0) return `Debe ${formatPesos(balance)}`;
  if (balance < 0) return `Saldo a favor ${formatPesos(-balance)}`;
  return 'Sin deuda';
}

/** How old an open sale is: "1 día", "12 días". */
export function daysText(days: number): string {
  return days === 1 ? '1 día' : `${days} días`;
}

/**
 * A customer's cuenta corriente: balance, limit and available, the open sales, "Registrar pago",
 * the printable statement and "Compartir" (WhatsApp or e-mail). The Cliente page mounts it; the
 * Cuentas corrientes list opens it under a customer.
 */
export function AccountPanel({
  customerId,
  sessionId,
  onChange,
}: {
  customerId: number;
  sessionId?: number | null;
  /** Called after a payment (the page refreshes what it shows of the account). */
  onChange?: () => void;
}) {
  const [view, setView] = useState<CustomerAccountWire | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [share, setShare] = useState<StatementShareWire | null>(null);
  const [sharing, setSharing] = useState(false);

  async function load() {
    try {
      setView(await api<CustomerAccountWire>('GET', `/api/v1/customers/${customerId}/account`));
      setError(null);
    } catch (err) {
      setError(errorText(err));
    }
  }
  useEffect(() => {
    void load();
  }, [customerId]);

  async function shareStatement() {
    setSharing(true);
    try {
      setShare(await api<StatementShareWire>('POST', `/api/v1/customers/${customerId}/statement/share`));
    } catch (err) {
      setError(errorText(err));
    } finally {
      setSharing(false);
    }
  }

  if (!view) {
    return error ? (
      <p class="notice notice-error" role="alert">
        {error}
      </p>
    ) : (
      <p class="muted">Cargando la cuenta…</p>
    );
  }
  const { account, open_sales: open } = view;
  return (
    <div class="account-panel stack" data-account={customerId}>
      <dl class="account-figures">
        <div>
          <dt>Saldo</dt>
          <dd id={`account-${customerId}-balance`} class={account.balance > 0 ? 'owes' : ''}>
            {balanceText(account.balance)}
          </dd>
        </div>
        <div>
          <dt>Límite</dt>
          <dd>{account.credit_limit === null ? 'Sin límite' : formatPesos(account.credit_limit)}</dd>
        </div>
        <div>
          <dt>Disponible</dt>
          <dd>{account.available === null ? '—' : formatPesos(account.available)}</dd>
        </div>
      </dl>
      {open.length > 0 ? (
        <TableWrap stack>
          <thead>
            <tr>
              <th>Venta</th>
              <th>Fecha</th>
              <th class="num">A cuenta</th>
              <th class="num">Pagado</th>
              <th class="num">Debe</th>
            </tr>
          </thead>
          <tbody>
            {open.map((s) => (
              <tr key={s.sale_id}>
                <td>N.º {s.sale_id}</td>
                <td data-label="Fecha">
                  {formatDate(s.created_at)} <span class="muted">({daysText(s.days)})</span>
                </td>
                <td class="num" data-label="A cuenta">
                  {formatPesos(s.on_account)}
                </td>
                <td class="num" data-label="Pagado">
                  {formatPesos(s.paid)}
                </td>
                <td class="num" data-label="Debe">
                  {formatPesos(s.open)}
                </td>
              </tr>
            ))}
          </tbody>
        </TableWrap>
      ) : (
        <p class="muted">No hay ventas a cuenta pendientes.</p>
      )}
      <PaymentForm
        customerId={customerId}
        {...(sessionId !== undefined && { sessionId })}
        onPaid={() => {
          void load();
          onChange?.();
        }}
      />
      <div class="row">
        <a class="button secondary" href={`/clientes/${customerId}/estado-de-cuenta`} target="_blank" rel="noopener">
          Estado de cuenta
        </a>
        <BusyButton busy={sharing} class="secondary" onClick={shareStatement} id={`account-${customerId}-share`}>
          Compartir
        </BusyButton>
      </div>
      {share ? (
        <p class="row account-share" role="status">
          <a class="button" href={share.whatsapp_url} target="_blank" rel="noopener">
            Enviar por WhatsApp
          </a>
          <a class="button secondary" href={share.mailto_url}>
            Enviar por email
          </a>
          <span class="muted">El enlace vence el {formatDate(share.expires_at)}.</span>
        </p>
      ) : null}
      {error ? (
        <p class="notice notice-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
