import { useEffect, useState } from 'preact/hooks';
import { formatCuit } from '../../../lib/cuit.ts';
import { formatDate } from '../../../lib/format.ts';
import { formatArs, formatPesos } from '../../../lib/money.ts';
import { ApiError, api, type ErrorBody, errorText } from '../../ui/api.ts';
import { describeError } from '../../ui/messages.ts';
import { BusyButton, Field } from '../../ui/form.tsx';

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

type BuyerKind = 'final' | 'cuit' | 'dni';
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
    body.details?.some((d) => d.message === 'buyer_identification_required')
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
 * A sale's fiscal receipts: the ones issued, the attempts ARCA rejected (with what to fix) or left
 * pending (with "Reintentar"), the buyer form and "Facturar", and the credit note of a cancelled
 * invoiced sale. Used on the register's ticket and in a sale's detail.
 */
export function InvoicePanel({
  saleId,
  total,
  cancelled,
  canCreditNote,
}: {
  saleId: number;
  total: number;
  cancelled: boolean;
  canCreditNote: boolean;
}) {
  const [state, setState] = useState<SaleInvoices | null>(null);
  const [ready, setReady] = useState<boolean | null>(null);
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<{ text: string; details: string[] } | null>(null);
  const [buyer, setBuyer] = useState<{ kind: BuyerKind; number: string; condition: number; name: string }>({
    kind: total >= IDENTIFY_FROM ? 'dni' : 'final',
    number: '',
    condition: 5,
    name: '',
  });

  async function refresh() {
    const [invoices, fiscal] = await Promise.all([
      api<SaleInvoices>('GET', `/api/v1/sales/${saleId}/invoices`),
      api<{ ready: boolean }>('GET', '/api/v1/fiscal'),
    ]);
    setState(invoices);
    setReady(fiscal.ready);
  }

  useEffect(() => {
    refresh().catch((err) => setProblem({ text: errorText(err), details: [] }));
  }, [saleId]);

  async function act(action: () => Promise<unknown>) {
    setBusy(true);
    setProblem(null);
    try {
      await action();
      setOpen(false);
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
        body: {
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
                <option value="final">Consumidor final sin identificar</option>
                <option value="cuit">Con CUIT (factura A si es Responsable Inscripto o Monotributo)</option>
                <option value="dni">Con DNI</option>
              </select>
            </Field>
            {buyer.kind === 'final' && total >= IDENTIFY_FROM ? (
              <p class="error">
                Desde {formatArs(IDENTIFY_FROM * 100)} hay que identificar al comprador (RG 5700): elegí CUIT o DNI.
              </p>
            ) : null}
            {buyer.kind !== 'final' ? (
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
            <Field id={`buyer-name-${saleId}`} label="Nombre o razón social (opcional)">
              <input
                id={`buyer-name-${saleId}`}
                maxLength={200}
                value={buyer.name}
                onInput={(e) => setBuyer((b) => ({ ...b, name: e.currentTarget.value }))}
              />
            </Field>
            <p class="row">
              <BusyButton
                type="submit"
                busy={busy}
                id={`issue-${saleId}`}
                data-issue
                disabled={buyer.kind === 'final' && total >= IDENTIFY_FROM}
              >
                {busy ? 'Pidiendo el CAE a ARCA…' : 'Emitir factura'}
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
