import { useState } from 'preact/hooks';
import { formatPesos } from '../../../lib/money.ts';
import type { DocumentType } from '../../../modules/customers/customer-fields.ts';
import { api, errorText } from '../../ui/api.ts';
import { useDebouncedGet } from '../../ui/debounced-get.ts';
import { balanceText } from '../accounts/account-panel.tsx';
import type { CustomerAccountWire } from '../accounts/types.ts';
import { documentText } from '../customers/customer-text.ts';

/** The customer a sale on account goes to, with their account as the register shows it. */
export interface PickedCustomer {
  id: number;
  name: string;
  accountEnabled: boolean;
  balance: number;
  creditLimit: number | null;
  available: number | null;
}

interface CustomerHit {
  id: number;
  name: string;
  document_type: DocumentType | null;
  document: string | null;
  phone: string | null;
}

/** A DNI (7–8 digits) or a CUIT/CUIL (11 digits), as typed at the register. */
function documentOf(text: string): { document_type: 'dni' | 'cuit'; document: string } | null {
  const digits = text.replace(/\D/g, '');
  if (digits.length === 11) return { document_type: 'cuit', document: digits };
  if (digits.length >= 7 && digits.length <= 8) return { document_type: 'dni', document: digits };
  return null;
}

/**
 * "Cuenta corriente" at the register: search a customer by name, document or phone, or create one
 * with name and document (the account enabled); shows the balance and the limit.
 */
export function CustomerPicker({
  picked,
  onPick,
}: {
  picked: PickedCustomer | null;
  onPick: (c: PickedCustomer | null) => void;
}) {
  const [q, setQ] = useState('');
  const [hits, setHits] = useState<CustomerHit[]>([]);
  const [creating, setCreating] = useState(false);
  const [name, setName] = useState('');
  const [doc, setDoc] = useState('');
  const [error, setError] = useState<string | null>(null);
  const query = q.trim();
  useDebouncedGet<{ customers: CustomerHit[] }>(
    `/api/v1/customers?enabled=true&limit=8${query ? `&q=${encodeURIComponent(query)}` : ''}`,
    0,
    (answer) => setHits(answer.customers),
    setError,
  );

  async function pick(id: number) {
    try {
      const { customer, account } = await api<CustomerAccountWire>('GET', `/api/v1/customers/${id}/account`);
      onPick({
        id,
        name: customer.name,
        accountEnabled: customer.account_enabled,
        balance: account.balance,
        creditLimit: account.credit_limit,
        available: account.available,
      });
      setError(null);
    } catch (err) {
      setError(errorText(err));
    }
  }

  async function create() {
    const document = documentOf(doc);
    if (name.trim() === '' || (doc.trim() !== '' && !document)) {
      setError('Escribí el nombre y, si lo tenés, el DNI (7 u 8 números) o el CUIT (11 números).');
      return;
    }
    try {
      const { customer } = await api<{ customer: { id: number } }>('POST', '/api/v1/customers', {
        body: { name: name.trim(), ...(document ?? {}), account_enabled: true },
      });
      setCreating(false);
      await pick(customer.id);
    } catch (err) {
      setError(errorText(err));
    }
  }

  if (picked) {
    return (
      <div class="customer-picked notice" id="customer-picked">
        <strong>{picked.name}</strong> · {balanceText(picked.balance)}
        {/* A limit only means something on an account that is enabled. */}
        {picked.accountEnabled
          ? ` · ${
              picked.creditLimit === null
                ? 'Sin límite de crédito'
                : `Límite ${formatPesos(picked.creditLimit)} (disponible ${formatPesos(picked.available ?? 0)})`
            }`
          : null}
        {picked.accountEnabled ? null : <p class="error">Este cliente no tiene cuenta corriente habilitada.</p>}{' '}
        <button type="button" class="link" onClick={() => onPick(null)}>
          Cambiar
        </button>
      </div>
    );
  }
  return (
    <div class="customer-picker stack">
      {creating ? (
        <div class="row">
          <input
            aria-label="Nombre del cliente"
            id="customer-new-name"
            placeholder="Nombre"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <input
            aria-label="DNI o CUIT"
            id="customer-new-document"
            inputMode="numeric"
            placeholder="DNI o CUIT"
            value={doc}
            onInput={(e) => setDoc(e.currentTarget.value)}
          />
          <button type="button" id="customer-create" onClick={() => void create()}>
            Crear cliente
          </button>
        </div>
      ) : (
        <div class="row">
          <input
            aria-label="Buscar cliente"
            id="customer-search"
            placeholder="Cliente: nombre, DNI/CUIT o teléfono"
            value={q}
            onInput={(e) => setQ(e.currentTarget.value)}
          />
          <button
            type="button"
            class="secondary"
            id="customer-new"
            onClick={() => {
              setCreating(true);
              setName(q);
            }}
          >
            Nuevo cliente
          </button>
        </div>
      )}
      {!creating ? (
        <ul class="customer-hits">
          {hits.map((c) => (
            <li key={c.id}>
              <button type="button" class="link" onClick={() => void pick(c.id)}>
                {c.name}
                {c.document ? <span class="muted"> · {documentText(c)}</span> : null}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
