import type { ComponentChild } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { formatDate, formatDateTime } from '../../../lib/format.ts';
import { formatPesos } from '../../../lib/money.ts';
import { SALE_STATUS_LABELS } from '../../../lib/sale-labels.ts';
import { api, errorText } from '../../ui/api.ts';
import { Card, PageTitle, TableWrap } from '../../ui/layout.tsx';
import { Notice, useNotice } from '../../ui/notice.tsx';
import { InvoicePanel, type InvoiceWire } from '../invoicing/invoice-panel.tsx';
import { CustomerForm } from './customer-form.tsx';
import { addressText, type Customer, conditionName, documentText, whatsappLink } from './customer-text.ts';

export interface CustomerPageData {
  /** null: a new customer (/clientes/nuevo). */
  customer: Customer | null;
  /** The id asked for is not a customer of this company. */
  not_found?: boolean;
}

interface SaleRow {
  id: number;
  status: string;
  total: number;
  created_at: string;
  box_name: string | null;
}

/** The customer's data as read, with WhatsApp and email links. */
function Facts({ customer }: { customer: Customer }) {
  const address = addressText(customer.address);
  return (
    <dl class="customer-facts" data-customer-facts>
      <dt>Documento</dt>
      <dd>{documentText(customer) || 'Sin documento'}</dd>
      <dt>Condición frente al IVA</dt>
      <dd>{conditionName(customer.iva_condition)}</dd>
      <dt>Domicilio</dt>
      <dd>{address || '—'}</dd>
      <dt>Teléfono</dt>
      <dd>
        {customer.phone ? (
          <a href={whatsappLink(customer.phone)} target="_blank" rel="noopener" data-whatsapp>
            {customer.phone} (WhatsApp)
          </a>
        ) : (
          '—'
        )}
      </dd>
      <dt>Email</dt>
      <dd>{customer.email ? <a href={`mailto:${customer.email}`}>{customer.email}</a> : '—'}</dd>
      <dt>Cuenta corriente</dt>
      <dd>
        {customer.account_enabled
          ? customer.credit_limit === null
            ? 'Sí, sin límite'
            : `Sí, hasta ${formatPesos(customer.credit_limit)}`
          : 'No'}
      </dd>
      {customer.notes ? (
        <>
          <dt>Notas</dt>
          <dd>{customer.notes}</dd>
        </>
      ) : null}
      <dt>Cliente desde</dt>
      <dd>{formatDate(customer.created_at)}</dd>
    </dl>
  );
}

/** The customer's sales, newest first, each with its "Facturar" (the customer preselected). */
function Sales({ customer, onInvoiced }: { customer: Customer; onInvoiced: () => void }) {
  const [sales, setSales] = useState<SaleRow[] | null>(null);
  const [open, setOpen] = useState<number | null>(null);
  const [problem, setProblem] = useState('');
  useEffect(() => {
    api<{ sales: SaleRow[] }>('GET', `/api/v1/sales?customer_id=${customer.id}&limit=20`)
      .then((answer) => setSales(answer.sales))
      .catch((err) => setProblem(errorText(err)));
  }, [customer.id]);
  if (problem) return <p class="error-text">{problem}</p>;
  if (!sales) return <p class="muted">Cargando…</p>;
  if (sales.length === 0) return <p class="muted">Todavía no tiene ventas.</p>;
  return (
    <TableWrap id="customer-sales" stack>
      <thead>
        <tr>
          <th>Venta</th>
          <th>Fecha</th>
          <th>Estado</th>
          <th>Total</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {sales.map((s) => [
          <tr key={s.id} data-sale={s.id}>
            <td>N.º {s.id}</td>
            <td data-label="Fecha">{formatDateTime(s.created_at)}</td>
            <td data-label="Estado">{SALE_STATUS_LABELS[s.status] ?? s.status}</td>
            <td data-label="Total">{formatPesos(s.total)}</td>
            <td>
              <button
                type="button"
                class="secondary"
                data-sale-invoicing={s.id}
                aria-expanded={open === s.id}
                onClick={() => setOpen(open === s.id ? null : s.id)}
              >
                {open === s.id ? 'Cerrar' : 'Comprobantes'}
              </button>
            </td>
          </tr>,
          open === s.id ? (
            <tr key={`${s.id}-invoice`}>
              <td colSpan={5}>
                <InvoicePanel
                  saleId={s.id}
                  total={s.total}
                  cancelled={s.status === 'cancelled'}
                  canCreditNote
                  customerId={customer.id}
                  onChange={onInvoiced}
                />
              </td>
            </tr>
          ) : null,
        ])}
      </tbody>
    </TableWrap>
  );
}

/** The receipts issued to the customer or of their sales. */
function Invoices({ customer, reload }: { customer: Customer; reload: number }) {
  const [invoices, setInvoices] = useState<InvoiceWire[] | null>(null);
  const [problem, setProblem] = useState('');
  useEffect(() => {
    api<{ invoices: InvoiceWire[] }>('GET', `/api/v1/invoices?customer_id=${customer.id}&limit=20`)
      .then((answer) => setInvoices(answer.invoices))
      .catch((err) => setProblem(errorText(err)));
  }, [customer.id, reload]);
  if (problem) return <p class="error-text">{problem}</p>;
  if (!invoices) return <p class="muted">Cargando…</p>;
  if (invoices.length === 0) return <p class="muted">Todavía no tiene comprobantes.</p>;
  return (
    <ul class="plain" id="customer-invoices">
      {invoices.map((i) => (
        <li key={i.id} data-invoice={i.id}>
          <a href={i.print_url} target="_blank" rel="noopener">
            {i.kind === 'invoice' ? 'Factura' : 'Nota de crédito'} {i.receipt}
          </a>{' '}
          · {i.issue_date ? formatDate(i.issue_date) : ''} · {formatPesos(i.total)} · venta {i.sale_id}
        </li>
      ))}
    </ul>
  );
}

/**
 * Cliente: the customer's data and its edit form, sales (with invoicing), receipts and
 * enable/disable. `accountPanel`, when given, is mounted in the "Cuenta corriente" section (the
 * account's balance, payments and statement live in their own feature).
 */
export function CustomerPage({
  data,
  accountPanel,
}: {
  data: CustomerPageData;
  accountPanel?: (customer: Customer) => ComponentChild;
}) {
  const [customer, setCustomer] = useState(data.customer);
  const [editing, setEditing] = useState(data.customer === null);
  const [notice, say] = useNotice();
  const [busy, setBusy] = useState(false);
  const [invoicesShown, setInvoicesShown] = useState(0);
  const account = customer && accountPanel ? accountPanel(customer) : null;

  if (data.not_found) {
    return (
      <>
        <PageTitle>Cliente</PageTitle>
        <Card>
          <p data-not-found>No encontramos ese cliente.</p>
          <p>
            <a href="/clientes">Volver a Clientes</a>
          </p>
        </Card>
      </>
    );
  }

  async function setEnabled(enabled: boolean) {
    if (!customer) return;
    setBusy(true);
    try {
      const { customer: saved } = await api<{ customer: Customer }>('PATCH', `/api/v1/customers/${customer.id}`, {
        body: { enabled },
      });
      setCustomer(saved);
      say('ok', enabled ? 'Cliente habilitado.' : 'Cliente deshabilitado: no aparece al buscar para vender o facturar.');
    } catch (err) {
      say('error', errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <p class="row">
        <a href="/clientes">← Clientes</a>
      </p>
      <PageTitle lead={customer ? `Cliente ${customer.id}${customer.enabled ? '' : ' · deshabilitado'}` : 'Cargá sus datos.'}>
        {customer ? customer.name : 'Nuevo cliente'}
      </PageTitle>
      <Notice notice={notice} />
      <Card
        title="Datos"
        id="customer-data"
        actions={
          customer && !editing ? (
            <>
              <button type="button" class="secondary" data-edit-customer onClick={() => setEditing(true)}>
                Editar
              </button>
              <button
                type="button"
                class="secondary"
                data-toggle-customer
                disabled={busy}
                onClick={() => void setEnabled(!customer.enabled)}
              >
                {customer.enabled ? 'Deshabilitar' : 'Habilitar'}
              </button>
            </>
          ) : null
        }
      >
        {editing ? (
          <CustomerForm
            customer={customer}
            onSaved={(saved, created) => {
              if (created) history.replaceState(null, '', `/clientes/${saved.id}`);
              setCustomer(saved);
              setEditing(false);
              say('ok', created ? `Cliente agregado: ${saved.name}.` : 'Cambios guardados.');
            }}
            {...(customer ? { onCancel: () => setEditing(false) } : {})}
          />
        ) : customer ? (
          <Facts customer={customer} />
        ) : null}
      </Card>
      {account ? (
        <section class="card" id="cuenta-corriente" aria-label="Cuenta corriente">
          {account}
        </section>
      ) : null}
      {customer ? (
        <>
          <Card title="Ventas" id="customer-sales-card">
            <Sales customer={customer} onInvoiced={() => setInvoicesShown((n) => n + 1)} />
          </Card>
          <Card title="Comprobantes" id="customer-invoices-card">
            <Invoices customer={customer} reload={invoicesShown} />
          </Card>
        </>
      ) : null}
    </>
  );
}
