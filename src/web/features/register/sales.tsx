import { useEffect, useState } from 'preact/hooks';
import { formatCountOf, formatDateTime } from '../../../lib/format.ts';
import { formatPesos, formatQuantity } from '../../../lib/money.ts';
import { api, errorText } from '../../ui/api.ts';
import { DateInput } from '../../ui/form.tsx';
import { Card, PageTitle, TableWrap } from '../../ui/layout.tsx';
import { Notice, useNotice } from '../../ui/notice.tsx';
import { cancelledNotReturned, METHODS, methodLabel, returnable } from './methods.ts';
import type { SaleWire } from './sync.ts';
import { InvoicePanel } from '../invoicing/invoice-panel.tsx';
import { useConfirm } from '../../ui/dialog.tsx';
import { creditNoteText, ReturnDialog } from './return-dialog.tsx';

type Sale = SaleWire & {
  source: 'register' | 'integration';
  box_name: string | null;
  box_session_id: number | null;
  sold_by: string | null;
  customer_name: string | null;
  cancellation_reason: string | null;
  cancelled_at: string | null;
};

/**
 * What cancelling a sale moves: the money taken that goes back (a pending sale may have taken some
 * too) and the part on account, which leaves the customer's balance instead.
 */
export function cancelMoney(sale: Pick<Sale, 'payments'>): { back: number; onAccount: number } {
  let back = 0;
  let onAccount = 0;
  for (const p of sale.payments) {
    const cents = Math.round(p.amount * 100);
    if (p.method === 'cuenta_corriente') onAccount += cents;
    else back += cents;
  }
  return { back: back / 100, onAccount: onAccount / 100 };
}

interface Summary {
  date: string;
  count: number;
  total: number;
  pending: number;
  cancelled: number;
  by_method: { method: string; amount: number; count: number }[];
  /** Payments on account received that day: money in, but not that day's sales. */
  account_payments?: { method: string; amount: number; count: number }[];
  by_box: {
    box_id: number | null;
    box_name: string | null;
    origin: 'register' | 'integration';
    count: number;
    total: number;
  }[];
}

const STATUS: Record<string, string> = { pending: 'Pendiente', paid: 'Pagada', cancelled: 'Anulada' };
const today = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Argentina/Buenos_Aires' }).format(new Date());

/** Ventas: the day's summary, the list with filters, a sale's detail and its cancellation. */
export function Sales({ boxes }: { boxes: { id: number; name: string }[] }) {
  const [filters, setFilters] = useState({ from: today(), to: today(), box_id: '', status: '', method: '' });
  const [sales, setSales] = useState<Sale[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [summary, setSummary] = useState<Summary | null>(null);
  const [detail, setDetail] = useState<Sale | null>(null);
  const [notice, show] = useNotice();
  const { ask, dialog: confirmDialog } = useConfirm();
  const [returning, setReturning] = useState<'return' | 'exchange' | null>(null);
  const [cancelError, setCancelError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);

  const [retryError, setRetryError] = useState<{ returnId: number; text: string } | null>(null);

  /** A return's credit note tried again (pending, or rejected by ARCA); its error beside its button. */
  async function retryCreditNote(saleId: number, returnId: number) {
    setRetryError(null);
    try {
      await api('POST', `/api/v1/sales/${saleId}/returns/${returnId}/credit-note`);
      await refresh(saleId);
    } catch (err) {
      setRetryError({ returnId, text: errorText(err) });
    }
  }

  /** The sale read again (after a return or an exchange) in the detail and the list, and the summary. */
  async function refresh(id: number) {
    const { sale: fresh } = await api<{ sale: Sale }>('GET', `/api/v1/sales/${id}`);
    setDetail(fresh);
    setSales((list) => list?.map((s) => (s.id === fresh.id ? fresh : s)) ?? null);
    void load();
    if (filters.from) {
      api<Summary>('GET', `/api/v1/sales/summary?date=${filters.from}`)
        .then(setSummary)
        .catch(() => {});
    }
  }

  const query = (extra: Record<string, string> = {}) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...filters, ...extra })) {
      // "Integración" in the box filter: the sales received through the integration, not a box.
      if (k === 'box_id' && v === 'integration') params.set('source', 'integration');
      else if (v) params.set(k, v);
    }
    return params.toString();
  };

  async function load(cursor?: string) {
    try {
      const page = await api<{ sales: Sale[]; next_cursor: string | null }>(
        'GET',
        `/api/v1/sales?${query(cursor ? { cursor } : {})}`,
      );
      setSales((current) => (cursor ? [...(current ?? []), ...page.sales] : page.sales));
      setNext(page.next_cursor);
    } catch (err) {
      show('error', errorText(err));
    }
  }

  // /ventas?venta=N (Mis ventas' "Devolver"): that sale's detail opens at once.
  useEffect(() => {
    const wanted = Number(new URLSearchParams(location.search).get('venta'));
    if (!Number.isInteger(wanted) || wanted <= 0) return;
    api<{ sale: Sale }>('GET', `/api/v1/sales/${wanted}`)
      .then((r) => setDetail(r.sale))
      .catch((err) => show('error', errorText(err)));
  }, []);

  useEffect(() => {
    void load();
    if (filters.from) {
      api<Summary>('GET', `/api/v1/sales/summary?date=${filters.from}`)
        .then(setSummary)
        .catch(() => setSummary(null));
    }
  }, [filters]);

  async function cancel(sale: Sale) {
    const reason = (document.getElementById('cancel-reason') as HTMLInputElement | null)?.value.trim() ?? '';
    setCancelError(null);
    setDone(null);
    if (!reason) {
      setCancelError('Escribí el motivo de la anulación.');
      return;
    }
    const { back, onAccount } = cancelMoney(sale);
    const question = `¿Anular la venta N.º ${sale.id}${back > 0 ? ` y devolver ${formatPesos(back)}` : ''}?${
      onAccount > 0 ? ` Los ${formatPesos(onAccount)} a cuenta corriente salen del saldo del cliente.` : ''
    } El stock vuelve al depósito.`;
    if (!(await ask(question, { confirmLabel: back > 0 ? 'Anular y devolver' : 'Anular', danger: true }))) return;
    try {
      const { sale: updated } = await api<{ sale: Sale }>('POST', `/api/v1/sales/${sale.id}/cancel`, {
        body: { reason },
        messages: {
          forbidden: 'Anular una venta cobrada es una devolución: solo un administrador puede hacerla.',
          invalid_state: 'Esta venta ya no se puede anular (si tuvo devoluciones, devolvé lo que queda).',
        },
      });
      setDetail(updated);
      setSales((list) => list?.map((s) => (s.id === updated.id ? updated : s)) ?? null);
      setDone(`Venta N.º ${updated.id} anulada. El stock volvió al depósito.`);
      if (filters.from) {
        api<Summary>('GET', `/api/v1/sales/summary?date=${filters.from}`)
          .then(setSummary)
          .catch(() => {});
      }
    } catch (err) {
      setCancelError(errorText(err));
    }
  }

  const set = (key: keyof typeof filters) => (e: Event) =>
    setFilters((f) => ({ ...f, [key]: (e.target as HTMLInputElement).value }));

  return (
    <>
      <PageTitle lead="Lo vendido en las cajas y lo recibido de otros sistemas. Las fechas son de Argentina.">Ventas</PageTitle>
      <Notice notice={notice} />
      {summary ? (
        <Card title={`Resumen del ${summary.date.split('-').reverse().join('/')}`}>
          <div class="stats" id="sales-summary">
            <div class="stat">
              <strong>{formatPesos(summary.total)}</strong>
              {formatCountOf(summary.count, 'venta', 'ventas')}
            </div>
            {summary.by_method.map((m) => (
              <div class="stat" key={m.method}>
                <strong>{formatPesos(m.amount)}</strong>
                {methodLabel(m.method)}
              </div>
            ))}
            {summary.pending > 0 ? (
              <div class="stat">
                <strong>{formatPesos(summary.pending)}</strong>
                pendiente de cobro
              </div>
            ) : null}
          </div>
          {summary.by_box.length > 0 ? (
            <p class="muted">
              {summary.by_box
                .map(
                  (b) =>
                    `${b.origin === 'integration' ? 'Integración' : (b.box_name ?? 'Caja')}: ${b.count} · ${formatPesos(b.total)}`,
                )
                .join(' — ')}
              {summary.cancelled > 0 ? ` — ${summary.cancelled} ${summary.cancelled === 1 ? 'anulada' : 'anuladas'}` : ''}
            </p>
          ) : null}
          {summary.account_payments && summary.account_payments.length > 0 ? (
            <p id="sales-account-payments">
              <strong>Cobranzas de cuenta corriente</strong> (plata que entró ese día, no son ventas de ese día):{' '}
              {summary.account_payments
                .map((p) => `${methodLabel(p.method)} ${formatPesos(p.amount)} (${p.count} ${p.count === 1 ? 'pago' : 'pagos'})`)
                .join(' · ')}
            </p>
          ) : null}
        </Card>
      ) : null}
      <Card
        title="Listado"
        actions={
          <a class="button secondary" href={`/api/v1/sales/export.csv?${query()}`} download>
            Descargar CSV
          </a>
        }
      >
        <form class="row sales-filters" onSubmit={(e) => e.preventDefault()}>
          <label for="sales-from">
            Desde{' '}
            <DateInput id="sales-from" required value={filters.from} onValue={(from) => setFilters((f) => ({ ...f, from }))} />
          </label>
          <label for="sales-to">
            Hasta <DateInput id="sales-to" required value={filters.to} onValue={(to) => setFilters((f) => ({ ...f, to }))} />
          </label>
          {boxes.length > 0 ? (
            <label>
              Caja{' '}
              <select value={filters.box_id} onChange={set('box_id')}>
                <option value="">Todas</option>
                {boxes.map((b) => (
                  <option key={b.id} value={b.id}>
                    {b.name}
                  </option>
                ))}
                <option value="integration">Integración</option>
              </select>
            </label>
          ) : null}
          <label>
            Estado{' '}
            <select value={filters.status} onChange={set('status')}>
              <option value="">Todos</option>
              <option value="paid">Pagadas</option>
              <option value="pending">Pendientes</option>
              <option value="cancelled">Anuladas</option>
            </select>
          </label>
          <label>
            Medio{' '}
            <select value={filters.method} onChange={set('method')}>
              <option value="">Todos</option>
              {METHODS.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.label}
                </option>
              ))}
            </select>
          </label>
        </form>
        {sales === null ? (
          <p class="muted">Cargando…</p>
        ) : sales.length === 0 ? (
          <p class="muted">No hay ventas con estos filtros.</p>
        ) : (
          <TableWrap id="sales" stack>
            <thead>
              <tr>
                <th>Venta</th>
                <th>Fecha</th>
                <th>Caja</th>
                <th>Estado</th>
                <th>Medio</th>
                <th class="num">Total</th>
              </tr>
            </thead>
            <tbody>
              {sales.map((s) => (
                <tr key={s.id} class={detail?.id === s.id ? 'selected' : ''}>
                  <td>
                    <button
                      type="button"
                      class="link"
                      onClick={() => {
                        setDetail(s);
                        setCancelError(null);
                        setDone(null);
                      }}
                    >
                      N.º {s.id}
                    </button>
                  </td>
                  <td data-label="Fecha">{formatDateTime(s.created_at)}</td>
                  <td data-label="Caja">{s.source === 'integration' ? 'Integración' : (s.box_name ?? '—')}</td>
                  <td data-label="Estado">
                    <span class={`badge ${s.status === 'cancelled' ? 'off' : s.status === 'paid' ? 'ok' : ''}`}>
                      {STATUS[s.status]}
                    </span>
                    {s.status === 'paid' && (s.returned_total ?? 0) > 0 ? (
                      <span class="badge warn" data-returned>
                        Devuelto {formatPesos(s.returned_total ?? 0)}
                      </span>
                    ) : null}
                  </td>
                  <td data-label="Medio">{s.payment_method ? methodLabel(s.payment_method) : '—'}</td>
                  <td data-label="Total" class="num">
                    {formatPesos(s.total)}
                  </td>
                </tr>
              ))}
            </tbody>
          </TableWrap>
        )}
        {next ? (
          <button type="button" class="secondary" onClick={() => void load(next)}>
            Ver más
          </button>
        ) : null}
      </Card>
      {detail ? (
        <Card title={`Venta N.º ${detail.id}`} id="sale-detail">
          <dl class="facts">
            <dt>Estado</dt>
            <dd>{STATUS[detail.status]}</dd>
            <dt>Fecha</dt>
            <dd>{formatDateTime(detail.created_at)}</dd>
            <dt>Origen</dt>
            <dd>
              {detail.source === 'register'
                ? `${detail.box_name} · turno ${detail.box_session_id} · ${detail.sold_by}`
                : 'Integración'}
            </dd>
            {detail.customer_name ? (
              <>
                <dt>Cliente</dt>
                <dd>{detail.customer_name}</dd>
              </>
            ) : null}
            {detail.discount > 0 ? (
              <>
                <dt>Descuentos</dt>
                <dd id="sale-detail-discount">
                  <span class="money">−{formatPesos(detail.discount)}</span>
                  {detail.discount_reason ? ` · ${detail.discount_reason}` : ''}
                  {detail.discount_approved_by ? ` · aprobó ${detail.discount_approved_by}` : ''}
                </dd>
              </>
            ) : null}
            {detail.cancellation_reason ? (
              <>
                <dt>Motivo de anulación</dt>
                <dd>{detail.cancellation_reason}</dd>
              </>
            ) : null}
          </dl>
          <TableWrap id="sale-lines">
            <tbody>
              {detail.items.map((i) => (
                <tr key={i.id} data-item>
                  <td>
                    {i.name}
                    {i.discount > 0 ? (
                      <span class="line-discount">
                        Descuento <span class="money">−{formatPesos(i.discount)}</span>
                        {i.discount_reason ? ` · ${i.discount_reason}` : ''}
                      </span>
                    ) : null}
                  </td>
                  <td class="num">
                    {formatQuantity(i.quantity)} × {formatPesos(i.price)}
                  </td>
                  <td class="num">{formatPesos(i.subtotal)}</td>
                </tr>
              ))}
              <tr class="total-row" data-sale-total>
                <th colSpan={2}>Total</th>
                <td class="num">{formatPesos(detail.total)}</td>
              </tr>
              {detail.payments.map((p) => (
                <tr key={`p${p.id}`}>
                  <td colSpan={2}>
                    {methodLabel(p.method)}
                    {p.reference ? ` (${p.reference})` : ''}
                    {p.change > 0 ? ` · recibido ${formatPesos(p.tendered ?? 0)}, vuelto ${formatPesos(p.change)}` : ''}
                  </td>
                  <td class="num">{formatPesos(p.amount)}</td>
                </tr>
              ))}
              {(detail.returned_total ?? 0) > 0 ? (
                <>
                  <tr data-sale-returned>
                    <td colSpan={2}>Devuelto</td>
                    <td class="num">−{formatPesos(detail.returned_total ?? 0)}</td>
                  </tr>
                  <tr class="total-row" data-sale-net>
                    <th colSpan={2}>Queda después de las devoluciones</th>
                    <td class="num">
                      {formatPesos((Math.round(detail.total * 100) - Math.round((detail.returned_total ?? 0) * 100)) / 100)}
                    </td>
                  </tr>
                </>
              ) : null}
            </tbody>
          </TableWrap>
          {(detail.returns ?? []).length > 0 ? (
            <>
              <h3>Devoluciones</h3>
              <ul class="returns-list" id="sale-returns">
                {(detail.returns ?? []).map((r) => (
                  <li key={r.id} data-return={r.id}>
                    <span>
                      {formatDateTime(r.created_at)} ·{' '}
                      {r.lines
                        .map((l) => {
                          const item = detail.items.find((i) => i.id === l.item_id);
                          return `${formatQuantity(l.quantity)} ${item?.name ?? ''}`;
                        })
                        .join(', ')}{' '}
                      · {r.refund.store_credit ? 'saldo a favor' : methodLabel(r.refund.method)} · {r.reason}
                      {r.exchange_sale_id ? ` · cambio por la venta N.º ${r.exchange_sale_id}` : ''}
                    </span>
                    <span class="money">{formatPesos(r.amount)}</span>
                    {r.credit_note ? <span class="muted">{creditNoteText(r)}</span> : null}
                    {r.credit_note && r.credit_note.status !== 'issued' ? (
                      <>
                        <button
                          type="button"
                          class="secondary"
                          data-retry-credit-note={r.id}
                          onClick={() => void retryCreditNote(detail.id, r.id)}
                        >
                          Reintentar nota de crédito
                        </button>
                        {retryError?.returnId === r.id ? (
                          <span class="error-text" role="alert">
                            {retryError.text}
                          </span>
                        ) : null}
                      </>
                    ) : null}
                  </li>
                ))}
              </ul>
            </>
          ) : null}
          <h3>Facturación</h3>
          <InvoicePanel
            key={`${detail.id}-${detail.status}-${(detail.returns ?? []).length}`}
            saleId={detail.id}
            total={detail.total}
            cancelled={detail.status === 'cancelled'}
            canCreditNote
            customerId={detail.customer_id}
          />
          <div class="row sale-actions" data-sale-actions>
            {cancelledNotReturned(detail) ? (
              <p class="muted" data-on-account>
                Venta a cuenta corriente: no se devuelve ni se cambia; si hace falta, anulala y su parte sale del saldo del
                cliente.
              </p>
            ) : null}
            {returnable(detail) ? (
              <>
                <button type="button" data-open-return onClick={() => setReturning('return')}>
                  Devolver
                </button>
                <button type="button" class="secondary" data-open-exchange onClick={() => setReturning('exchange')}>
                  Cambiar
                </button>
              </>
            ) : null}
            {detail.status !== 'cancelled' &&
            (detail.source === 'register' || detail.status === 'pending') &&
            (detail.returns ?? []).length === 0 ? (
              <>
                <label class="visually-hidden" for="cancel-reason">
                  Motivo de la anulación
                </label>
                <input id="cancel-reason" placeholder="Motivo de la anulación" maxLength={500} />
                <button type="button" class="danger" onClick={() => void cancel(detail)}>
                  {cancelMoney(detail).back > 0 ? 'Anular y devolver' : 'Anular venta'}
                </button>
              </>
            ) : null}
          </div>
          {cancelError ? (
            <p class="error-text" role="alert" data-cancel-error>
              {cancelError}
            </p>
          ) : null}
          {done ? (
            <p class="notice notice-ok" role="status" data-sale-done>
              {done}
            </p>
          ) : null}
          {returning ? (
            <ReturnDialog
              sale={detail}
              mode={returning}
              boxes={boxes}
              onClose={() => setReturning(null)}
              onDone={(message) => {
                setReturning(null);
                setDone(message);
                void refresh(detail.id);
              }}
            />
          ) : null}
          {confirmDialog}
        </Card>
      ) : null}
    </>
  );
}
