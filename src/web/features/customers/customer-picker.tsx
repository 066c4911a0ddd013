import { useState } from 'preact/hooks';
import { useDebouncedGet } from '../../ui/debounced-get.ts';
import { type Customer, conditionName, documentText } from './customer-text.ts';

/**
 * A search box over the enabled customers (name, document, phone or email) and the first matches
 * to pick from. Used by the invoice form; the register's picker can take it as it is.
 */
export function CustomerPicker({
  id,
  onPick,
  autoFocus = false,
}: {
  id: string;
  onPick: (c: Customer) => void;
  autoFocus?: boolean;
}) {
  const [q, setQ] = useState('');
  const [found, setFound] = useState<Customer[] | null>(null);
  const [problem, setProblem] = useState('');
  const params = new URLSearchParams({ enabled: 'true', limit: '8' });
  if (q.trim()) params.set('q', q.trim());
  useDebouncedGet<{ customers: Customer[] }>(
    `/api/v1/customers?${params}`,
    0,
    (answer) => {
      setFound(answer.customers);
      setProblem('');
    },
    setProblem,
  );
  return (
    <div class="customer-picker" data-customer-picker>
      <label for={id}>Buscar cliente</label>
      <input
        id={id}
        type="search"
        autoComplete="off"
        placeholder="Nombre, CUIT, DNI, teléfono o email"
        value={q}
        // biome-ignore lint/a11y/noAutofocus: the picker opens on demand, to type in it
        autoFocus={autoFocus}
        onInput={(e) => setQ((e.target as HTMLInputElement).value)}
      />
      {problem ? <p class="error-text">{problem}</p> : null}
      {found && found.length === 0 ? <p class="muted">No hay clientes con esa búsqueda.</p> : null}
      {found && found.length > 0 ? (
        <ul class="plain picker-results">
          {found.map((c) => (
            <li key={c.id}>
              <button type="button" class="link" data-pick-customer={c.id} onClick={() => onPick(c)}>
                <strong>{c.name}</strong>
                <span class="muted">{[documentText(c), conditionName(c.iva_condition)].filter(Boolean).join(' · ')}</span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
