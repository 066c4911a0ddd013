import { useState } from 'preact/hooks';
import { formatDate } from '../../../lib/format.ts';
import { formatPesos } from '../../../lib/money.ts';
import { api, errorText } from '../../ui/api.ts';
import { Card, PageTitle, TableWrap } from '../../ui/layout.tsx';
import { AccountPanel } from './account-panel.tsx';
import type { AccountListWire } from './types.ts';

/** Cuentas corrientes: the customers who owe, oldest debt first, and the total owed. */
export function AccountsList({ list: first }: { list: AccountListWire }) {
  const [list, setList] = useState(first);
  const [open, setOpen] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  // The customer stays open after a payment that leaves them without debt (off the list).
  const [openName, setOpenName] = useState<string | null>(null);

  async function reload() {
    try {
      setList(await api<AccountListWire>('GET', '/api/v1/accounts?limit=500'));
    } catch (err) {
      setError(errorText(err));
    }
  }

  return (
    <>
      <PageTitle lead="Clientes que deben, primero la deuda más vieja.">Cuentas corrientes</PageTitle>
      <Card>
        <p class="account-total">
          Total adeudado: <strong id="total-owed">{formatPesos(list.total_owed)}</strong>{' '}
          <span class="muted">({list.count === 1 ? '1 cliente' : `${list.count} clientes`})</span>
        </p>
        {error ? (
          <p class="notice notice-error" role="alert">
            {error}
          </p>
        ) : null}
        {list.accounts.length === 0 ? (
          <p class="muted">Ningún cliente debe nada.</p>
        ) : (
          <TableWrap id="accounts" stack>
            <thead>
              <tr>
                <th>Cliente</th>
                <th class="num">Debe</th>
                <th>Desde</th>
                <th class="num">Límite</th>
              </tr>
            </thead>
            <tbody>
              {list.accounts.map((a) => (
                <tr key={a.customer.id}>
                  <td>
                    <button
                      type="button"
                      class="link"
                      aria-expanded={open === a.customer.id}
                      onClick={() => {
                        const closing = open === a.customer.id;
                        setOpen(closing ? null : a.customer.id);
                        setOpenName(closing ? null : a.customer.name);
                      }}
                    >
                      {a.customer.name}
                    </button>
                  </td>
                  <td class="num" data-label="Debe">
                    {formatPesos(a.balance)}
                  </td>
                  <td data-label="Desde">{a.oldest_due_at ? formatDate(a.oldest_due_at) : '—'}</td>
                  <td class="num" data-label="Límite">
                    {a.credit_limit === null ? 'Sin límite' : formatPesos(a.credit_limit)}
                  </td>
                </tr>
              ))}
            </tbody>
          </TableWrap>
        )}
        <p class="row">
          <button type="button" class="secondary" onClick={() => void reload()}>
            Actualizar
          </button>
        </p>
      </Card>
      {openName !== null ? (
        <Card title={`Cuenta de ${openName}`} id="account-card">
          <AccountPanel customerId={open!} onChange={() => void reload()} />
        </Card>
      ) : null}
    </>
  );
}
