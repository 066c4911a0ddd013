import { useState } from 'preact/hooks';
import { formatPesos } from '../../lib/money.ts';
import { useDebouncedGet } from '../ui/debounced-get.ts';
import { Card, PageTitle, TableWrap } from '../ui/layout.tsx';
import { Notice, useNotice } from '../ui/notice.tsx';
import { mountPage } from '../ui/page-data.ts';
import { SpreadsheetImport } from '../ui/spreadsheet-import.tsx';
import { type Customer, conditionName, documentText, whatsappLink } from '../features/customers/customer-text.ts';

const PAGE = 50;

/** Clientes: search (name, document, phone, email), the list by name, new customer, spreadsheets. */
function Customers() {
  const [q, setQ] = useState('');
  const [enabled, setEnabled] = useState('true');
  const [customers, setCustomers] = useState<Customer[] | null>(null);
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [next, setNext] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  const [notice, say] = useNotice();

  const cursor = cursors[cursors.length - 1] ?? null;
  const params = new URLSearchParams({ limit: String(PAGE) });
  if (q.trim()) params.set('q', q.trim());
  if (enabled) params.set('enabled', enabled);
  if (cursor) params.set('cursor', cursor);
  useDebouncedGet<{ customers: Customer[]; meta: { next_cursor: string | null } }>(
    `/api/v1/customers?${params}`,
    reload,
    (answer) => {
      setCustomers(answer.customers);
      setNext(answer.meta.next_cursor);
    },
    (text) => say('error', text),
  );
  const restart = () => setCursors([null]);

  return (
    <>
      <PageTitle lead="Tus clientes: sus datos fiscales para facturar, su contacto y sus compras.">Clientes</PageTitle>
      <nav class="row page-actions" aria-label="Acciones de clientes">
        <a class="button" href="/clientes/nuevo" data-action="new">
          Nuevo cliente
        </a>
        <a class="button secondary" href="#importar" data-action="import">
          Importar
        </a>
        <a class="button secondary" href="/api/v1/customers/export" data-action="export">
          Exportar
        </a>
      </nav>
      <Notice notice={notice} />
      <Card title="Clientes" id="customers-card">
        <form class="row filters" onSubmit={(e) => e.preventDefault()}>
          <label for="search" class="visually-hidden">
            Buscar
          </label>
          <input
            id="search"
            type="search"
            placeholder="Buscar por nombre, CUIT, DNI, teléfono o email"
            value={q}
            onInput={(e) => {
              setQ((e.target as HTMLInputElement).value);
              restart();
            }}
          />
          <label for="filter-enabled" class="visually-hidden">
            Estado
          </label>
          <select
            id="filter-enabled"
            value={enabled}
            onChange={(e) => {
              setEnabled((e.target as HTMLSelectElement).value);
              restart();
            }}
          >
            <option value="true">Habilitados</option>
            <option value="false">Deshabilitados</option>
            <option value="">Todos</option>
          </select>
        </form>
        {customers === null ? <p class="muted">Cargando…</p> : null}
        {customers?.length === 0 ? (
          <p data-no-customers>
            {q.trim() ? 'No hay clientes con esa búsqueda.' : 'Todavía no cargaste clientes.'}{' '}
            <a href="/clientes/nuevo">Agregar uno</a>
          </p>
        ) : null}
        {customers && customers.length > 0 ? (
          <TableWrap id="customers" stack>
            <thead>
              <tr>
                <th>Cliente</th>
                <th>Documento</th>
                <th>Contacto</th>
                <th>Cuenta corriente</th>
              </tr>
            </thead>
            <tbody>
              {customers.map((c) => (
                <tr key={c.id} data-customer={c.id}>
                  <td>
                    <a href={`/clientes/${c.id}`} data-open={c.id}>
                      <strong>{c.name}</strong>
                    </a>
                    <br />
                    <span class="muted">{conditionName(c.iva_condition)}</span>
                  </td>
                  <td data-label="Documento">{documentText(c) || '—'}</td>
                  <td data-label="Contacto">
                    {c.phone ? (
                      <a href={whatsappLink(c.phone)} target="_blank" rel="noopener">
                        {c.phone}
                      </a>
                    ) : null}
                    {c.phone && c.email ? <br /> : null}
                    {c.email ? <span class="muted">{c.email}</span> : null}
                    {!c.phone && !c.email ? '—' : null}
                  </td>
                  <td data-label="Cuenta corriente">
                    {c.account_enabled
                      ? c.credit_limit === null
                        ? 'Sí, sin límite'
                        : `Sí, hasta ${formatPesos(c.credit_limit)}`
                      : 'No'}
                  </td>
                </tr>
              ))}
            </tbody>
          </TableWrap>
        ) : null}
        <p class="row pager">
          <button
            type="button"
            class="secondary"
            disabled={cursors.length <= 1}
            onClick={() => setCursors((c) => c.slice(0, -1))}
          >
            Anteriores
          </button>
          <button type="button" class="secondary" disabled={!next} onClick={() => next && setCursors((c) => [...c, next])}>
            Siguientes
          </button>
        </p>
      </Card>
      <Card title="Importar planilla" id="importar">
        <SpreadsheetImport
          url="/api/v1/customers/import"
          onImported={() => {
            say('ok', 'Planilla importada.');
            setReload((n) => n + 1);
          }}
        >
          <p class="muted">
            Planilla CSV de Excel o de otro sistema (columnas como nombre, cuit, dni, condicion_iva, telefono, email, calle,
            ciudad). Una fila con el id o el documento de un cliente lo actualiza; si no, crea uno.{' '}
            <a href="/docs/clientes">Formato</a>
          </p>
        </SpreadsheetImport>
      </Card>
    </>
  );
}

mountPage<Record<string, never>>(() => <Customers />);
