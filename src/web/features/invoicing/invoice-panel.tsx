import { useEffect, useState } from 'preact/hooks';
import { formatCuit } from '../../../lib/cuit.ts';
import { formatDate } from '../../../lib/format.ts';
import { formatArs, formatPesos } from '../../../lib/money.ts';
import { ApiError, api, type ErrorBody, errorText } from '../../ui/api.ts';
import { describeError } from '../../ui/messages.ts';
import { BusyButton, Field } from '../../ui/form.tsx';
import { CustomerForm } from '../customers/customer-form.tsx';
import { CustomerPicker } from '../customers/customer-picker.tsx';
import { addressText, type Customer, classFor, conditionName, documentText } from '../customers/customer-text.ts';

export interface InvoiceWire {
  id: number;
  sale_id: number;
  type: string;
  kind: 'invoice' | 'credit_note';
  receipt: string;
  cae: string;
  cae_expiration: string;
  total: number;
  source: 'arca' | 'integration';
  issue_date: string | null;
  buyer: { doc_type_name: string; doc_number: string | null; name: string | null } | null;
  print_url: string;
}

interface AttemptWire {
  id: number;
  kind: 'invoice' | 'credit_note';
  receipt: string;
  status: 'pending' | 'approved' | 'rejected';
  errors: { code: number; message: string; hint: string }[];
  observations: { code: number; message: string; hint: string }[];
  last_error: string | null;
  updated_at: string;
}

interface SaleInvoices {
  invoices: InvoiceWire[];
  attempts: AttemptWire[];
}

/** RG 5700/2025: from this total a sale to a final consumer identifies the buyer. */
const IDENTIFY_FROM = 10_000_000;

type BuyerKind = 'customer' | 'final' | 'cuit' | 'dni';
const CUIT_CONDITIONS = [
  [1, 'IVA Responsable Inscripto'],
  [6, 'Responsable Monotributo'],
  [4, 'IVA Sujeto Exento'],
  [13, 'Monotributista Social'],
  [16, 'Monotributo Trabajador Independiente Promovido'],
  [15, 'IVA No Alcanzado'],
  [7, 'Sujeto No Categorizado'],
  [5, 'Consumidor Final'],
] as const;

const MESSAGES = {
  arca_rejected: 'ARCA rechazó el comprobante.',
  upstream_timeout:
    'ARCA no respondió a tiempo. El comprobante quedó pendiente: Mostrador lo confirma con ARCA solo; podés reintentar.',
  upstream_failed: 'ARCA respondió con un error. Probá de nuevo en unos minutos.',
  unavailable: 'ARCA no se puede usar en este momento. Probá de nuevo en unos minutos.',
  invalid_state: 'No se puede facturar esta venta en el estado en que está: actualizá la página.',
  validation_failed: (body: ErrorBody) =>
    body.details?.some(
      (d) => d.message === 'buyer_identification_required' || (d.path === '/buyer/doc_type' && d.message === 'cuit'),
    )
      ? describeError(body)
      : 'Revisá los datos del comprador: hay alguno que no es válido.',
  conflict: 'No se pudo facturar ahora: ya hay un pedido en curso para esta venta. Probá de nuevo en un momento.',
};

function printHref(invoice: InvoiceWire, format: 'ticket' | 'a4', print: boolean) {
  return `${invoice.print_url}?formato=${format}${print ? '&imprimir=1' : ''}`;
}

function IssuedLine({ invoice }: { invoice: InvoiceWire }) {
  return (
    <li class="invoice-line" data-invoice={invoice.id}>
      <span>
        <strong>
          {invoice.kind === 'invoice' ? 'Factura' : 'Nota de crédito'} {invoice.receipt}
        </strong>{' '}
        · CAE {invoice.cae} (vence {formatDate(invoice.cae_expiration)}) · {formatPesos(invoice.total)}
        {invoice.buyer?.name ? ` · ${invoice.buyer.name}` : ''}
      </span>
      {invoice.source === 'arca' ? (
        <span class="row">
          <a class="button" href={printHref(invoice, 'ticket', true)} target="_blank" rel="noopener" data-print-ticket>
            Imprimir ticket fiscal
          </a>
          <a class="button secondary" href={printHref(invoice, 'a4', false)} target="_blank" rel="noopener" data-print-a4>
            Ver A4 / PDF
          </a>
        </span>
      ) : null}
    </li>
  );
}

/**
 * The customer a receipt goes to: the one chosen (with the class it gets and why), a search to
 * choose another, or the quick creation of a new one (name, document, condition, address).
 */
function ChosenCustomer({
  saleId,
  customer,
  issuer,
  creating,
  onCreating,
  onChoose,
}: {
  saleId: number;
  customer: Customer | null;
  issuer: string | null;
  creating: boolean;
  onCreating: (creating: boolean) => void;
  onChoose: (customer: Customer | null) => void;
}) {
  if (creating) {
    return (
      <div class="chosen-customer" data-new-customer>
        <p>
          <strong>Cliente nuevo</strong>
        </p>
        <CustomerForm
          customer={null}
          compact
          idPrefix={`new-customer-${saleId}`}
          onSaved={(saved) => onChoose(saved)}
          onCancel={() => onCreating(false)}
        />
      </div>
    );
  }
  if (!customer) {
    return (
      <>
        <CustomerPicker id={`customer-search-${saleId}`} onPick={onChoose} autoFocus />
        <button type="button" class="link" data-create-customer onClick={() => onCreating(true)}>
          + Cliente nuevo
        </button>
      </>
    );
  }
  const letter = classFor(issuer, customer);
  return (
    <div class="chosen-customer" data-chosen-customer={customer.id}>
      <p>
        <strong>{customer.name}</strong>
        {documentText(customer) ? ` · ${documentText(customer)}` : ''}
      </p>
      <p class="muted">
        {conditionName(customer.iva_condition)}
        {addressText(customer.address) ? ` · ${addressText(customer.address)}` : ''}
      </p>
      <p data-receipt-class={letter}>
        Le corresponde <strong>Factura {letter}</strong>
        {letter === 'B' && issuer === 'responsable_inscripto'
          ? customer.document_type === 'cuit'
            ? ' (su condición frente al IVA no recibe Factura A).'
            : ' (la Factura A necesita su CUIT).'
          : '.'}
      </p>
      <button type="button" class="link" data-change-customer onClick={() => onChoose(null)}>
        Elegir otro cliente
      </button>
    </div>
  );
}

/**
 * A sale's fiscal receipts: the ones issued, the attempts ARCA rejected (with what to fix) or left
 * pending (with "Reintentar"), the buyer form and "Facturar", and the credit note of a cancelled
 * invoiced sale. Used on the register's ticket and in a sale's detail.
 */
export function InvoicePanel({
  saleId,
  total,
  cancelled,
  canCreditNote,
  customerId = null,
  onChange,
}: {
  saleId: number;
  total: number;
  cancelled: boolean;
  canCreditNote: boolean;
  /** The sale's customer: preselected as the buyer. */
  customerId?: number | null;
  /** Called after a receipt was issued here (a list of receipts elsewhere on the page reloads). */
  onChange?: () => void;
}) {
  const [state, setState] = useState<SaleInvoices | null>(null);
  const [ready, setReady] = useState<boolean | null>(null);
  const [issuer, setIssuer] = useState<string | null>(null);
  const [customer, setCustomer] = useState<Customer | null>(null);
  const [creating, setCreating] = useState(false);
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<{ text: string; details: string[] } | null>(null);
  const [buyer, setBuyer] = useState<{ kind: BuyerKind; number: string; condition: number; name: string }>({
    kind: customerId !== null ? 'customer' : total >= IDENTIFY_FROM ? 'dni' : 'final',
    number: '',
    condition: 5,
    name: '',
  });

  async function refresh() {
    const [invoices, fiscal] = await Promise.all([
      api<SaleInvoices>('GET', `/api/v1/sales/${saleId}/invoices`),
      api<{ ready: boolean; iva_condition: string | null }>('GET', '/api/v1/fiscal'),
    ]);
    setState(invoices);
    setReady(fiscal.ready);
    setIssuer(fiscal.iva_condition);
  }

  useEffect(() => {
    refresh().catch((err) => setProblem({ text: errorText(err), details: [] }));
  }, [saleId]);

  // The sale's customer, when it is one of the company's (an integration's sale may name another
  // system's): looked up when the form opens, not for every sale shown.
  useEffect(() => {
    if (customerId === null || !open || customer !== null) return;
    api<{ customer: Customer }>('GET', `/api/v1/customers/${customerId}`)
      .then(({ customer: found }) => setCustomer(found))
      .catch(() => setBuyer((b) => (b.kind === 'customer' ? { ...b, kind: total >= IDENTIFY_FROM ? 'dni' : 'final' } : b)));
  }, [customerId, open]);

  async function act(action: () => Promise<unknown>) {
    setBusy(true);
    setProblem(null);
    try {
      await action();
      setOpen(false);
      onChange?.();
    } catch (err) {
      const details =
        err instanceof ApiError && err.code === 'arca_rejected' ? (err.body?.details ?? []).map((d) => d.message) : [];
      setProblem({ text: errorText(err), details });
    } finally {
      setBusy(false);
      await refresh().catch(() => {});
    }
  }

  const issue = () =>
    act(() =>
      api('POST', `/api/v1/sales/${saleId}/invoice`, {
        body:
          buyer.kind === 'customer'
            ? { customer_id: customer?.id }
            : {
                buyer:
                  buyer.kind === 'final'
                    ? { iva_condition: 5, ...(buyer.name.trim() ? { name: buyer.name.trim() } : {}) }
                    : {
                        doc_type: buyer.kind,
                        doc_number: buyer.number,
                        iva_condition: buyer.kind === 'dni' ? 5 : buyer.condition,
                        ...(buyer.name.trim() ? { name: buyer.name.trim() } : {}),
                      },
              },
        messages: MESSAGES,
      }),
    );

  if (!state) return problem ? <p class="error">{problem.text}</p> : <p class="muted">Buscando comprobantes…</p>;
  const invoice = state.invoices.find((i) => i.kind === 'invoice');
  const credit = state.invoices.find((i) => i.kind === 'credit_note');
  const pending = state.attempts.filter((a) => a.status === 'pending');
  const rejected = state.attempts.filter((a) => a.status === 'rejected').slice(-1);

  return (
    <div class="invoice-panel" data-invoice-panel>
      {state.invoices.length > 0 ? (
        <ul class="plain" id="invoices">
          {state.invoices.map((i) => (
            <IssuedLine key={i.id} invoice={i} />
          ))}
        </ul>
      ) : null}
      {pending.map((a) => (
        <p class="warning" key={a.id} data-pending-attempt={a.id}>
          {a.receipt} quedó pendiente: ARCA no confirmó la respuesta. Mostrador lo verifica con ARCA antes del próximo
          comprobante.{' '}
          <BusyButton
            class="secondary"
            busy={busy}
            onClick={() => act(() => api('POST', `/api/v1/invoice-attempts/${a.id}/retry`, { messages: MESSAGES }))}
          >
            Reintentar
          </BusyButton>
        </p>
      ))}
      {problem ? (
        <div class="error" role="alert" id="invoice-problem">
          <p>{problem.text}</p>
          {problem.details.length > 0 ? (
            <ul>
              {problem.details.map((d) => (
                <li key={d}>{d}</li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : !invoice && rejected[0] ? (
        <div class="muted" id="last-rejection">
          <p>El último intento fue rechazado por ARCA:</p>
          <ul>
            {[...rejected[0].errors, ...rejected[0].observations].map((m) => (
              <li key={m.code}>
                {m.code}: {m.hint}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {!invoice && !cancelled && pending.length === 0 ? (
        ready === false ? (
          <p class="muted">
            Para facturar, completá <a href="/settings/facturacion">Configuración → Facturación</a>.
          </p>
        ) : open ? (
          <form
            class="buyer-form"
            onSubmit={(e) => {
              e.preventDefault();
              void issue();
            }}
          >
            <Field id={`buyer-kind-${saleId}`} label="Comprador">
              <select
                id={`buyer-kind-${saleId}`}
                value={buyer.kind}
                onChange={(e) =>
                  setBuyer((b) => ({
                    ...b,
                    kind: e.currentTarget.value as BuyerKind,
                    condition: e.currentTarget.value === 'cuit' ? 1 : 5,
                  }))
                }
              >
                <option value="customer">Un cliente registrado</option>
                <option value="final">Consumidor final sin identificar</option>
                <option value="cuit">Con CUIT (factura A si es Responsable Inscripto o Monotributo)</option>
                <option value="dni">Con DNI</option>
              </select>
            </Field>
            {buyer.kind === 'customer' ? (
              <ChosenCustomer
                saleId={saleId}
                customer={customer}
                issuer={issuer}
                creating={creating}
                onCreating={setCreating}
                onChoose={(c) => {
                  setCustomer(c);
                  setCreating(false);
                }}
              />
            ) : null}
            {buyer.kind === 'final' && total >= IDENTIFY_FROM ? (
              <p class="error">
                Desde {formatArs(IDENTIFY_FROM * 100)} hay que identificar al comprador (RG 5700): elegí CUIT o DNI.
              </p>
            ) : null}
            {buyer.kind === 'cuit' || buyer.kind === 'dni' ? (
              <Field id={`buyer-number-${saleId}`} label={buyer.kind === 'cuit' ? 'CUIT' : 'DNI'}>
                <input
                  id={`buyer-number-${saleId}`}
                  inputMode="numeric"
                  autoComplete="off"
                  required
                  value={buyer.number}
                  onInput={(e) => setBuyer((b) => ({ ...b, number: e.currentTarget.value }))}
                  placeholder={buyer.kind === 'cuit' ? formatCuit('20123456786') : '30123456'}
                />
              </Field>
            ) : null}
            {buyer.kind === 'cuit' ? (
              <Field id={`buyer-condition-${saleId}`} label="Condición frente al IVA del comprador">
                <select
                  id={`buyer-condition-${saleId}`}
                  value={String(buyer.condition)}
                  onChange={(e) => setBuyer((b) => ({ ...b, condition: Number(e.currentTarget.value) }))}
                >
                  {CUIT_CONDITIONS.map(([id, label]) => (
                    <option key={id} value={String(id)}>
                      {label}
                    </option>
                  ))}
                </select>
              </Field>
            ) : null}
            {buyer.kind !== 'customer' ? (
              <Field id={`buyer-name-${saleId}`} label="Nombre o razón social (opcional)">
                <input
                  id={`buyer-name-${saleId}`}
                  maxLength={200}
                  value={buyer.name}
                  onInput={(e) => setBuyer((b) => ({ ...b, name: e.currentTarget.value }))}
                />
              </Field>
            ) : null}
            <p class="row">
              <BusyButton
                type="submit"
                busy={busy}
                id={`issue-${saleId}`}
                data-issue
                disabled={(buyer.kind === 'final' && total >= IDENTIFY_FROM) || (buyer.kind === 'customer' && !customer)}
              >
                {busy
                  ? 'Pidiendo el CAE a ARCA…'
                  : buyer.kind === 'customer' && customer
                    ? `Emitir factura ${classFor(issuer, customer)}`
                    : 'Emitir factura'}
              </BusyButton>
              <button type="button" class="secondary" onClick={() => setOpen(false)}>
                Cancelar
              </button>
            </p>
          </form>
        ) : (
          <button type="button" data-invoice-open onClick={() => setOpen(true)}>
            Facturar
          </button>
        )
      ) : null}
      {invoice && !credit && cancelled && canCreditNote ? (
        <BusyButton
          busy={busy}
          class="danger"
          data-credit-note
          onClick={() => act(() => api('POST', `/api/v1/invoices/${invoice.id}/credit-note`, { messages: MESSAGES }))}
        >
          Emitir nota de crédito
        </BusyButton>
      ) : null}
    </div>
  );
}
