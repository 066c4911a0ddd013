import { useState } from 'preact/hooks';
import { CountGrid, parseCount } from './count-grid.tsx';
import { formatDateTime } from '../../../lib/format.ts';
import { formatPesos, wideCents } from '../../../lib/money.ts';
import { api, errorText } from '../../ui/api.ts';
import { isNetworkError } from './sync.ts';
import { CashMove } from './cash-move.tsx';
import { METHODS, methodLabel } from './methods.ts';

export interface SessionReport {
  session: {
    id: number;
    box_id: number;
    box_name: string;
    status: 'open' | 'closed';
    opening_cash: number;
    opened_at: string;
    opened_by: string;
    closed_at: string | null;
    closed_by: string | null;
    note: string | null;
    /** Whose shift it is (issue 29). */
    user_id?: number | null;
    user_name?: string | null;
    handed_over_to?: number | null;
  };
  sales: { count: number; total: number };
  payments: { method: string; amount: number; count: number }[];
  refunds: { method: string; amount: number; count: number }[];
  cash_in: number;
  cash_out: number;
  cash_moves: { id: number; kind: 'in' | 'out'; amount: number; reason: string; created_by: string; created_at: string }[];
  expected: Record<string, number>;
  counted: Record<string, number> | null;
  difference: Record<string, number> | null;
  /** Sales of the shift cancelled after its close: a note apart; none of the figures above moves. */
  later_refunds?: LaterRefund[];
}

/** A sale of a closed shift cancelled, or partly returned, after the close (later_refunds). */
export interface LaterRefund {
  sale_id: number;
  kind: 'cancelled' | 'returned';
  total: number;
  refunded: number;
  cancelled_at: string;
  refund_session_id: number | null;
}

/**
 * One line of "Devoluciones posteriores": a cancellation names the sale's total and what went back;
 * a return of some lines, only what it gave back (the sale may still be paid).
 */
export function laterRefundText(x: LaterRefund): string {
  const when = formatDateTime(x.cancelled_at);
  const from = x.refund_session_id !== null ? ` (devuelto desde el turno N.º ${x.refund_session_id})` : '';
  if (x.kind === 'returned') {
    // Without a shift a return's money went to the customer's account (store credit).
    const to = from || (x.refunded > 0 ? ' (a favor en la cuenta del cliente)' : '');
    return `Venta N.º ${x.sale_id}: devolución de ${formatPesos(x.refunded)} el ${when}${to}`;
  }
  const back = x.refunded > 0 ? `se devolvieron ${formatPesos(x.refunded)}` : 'no había dinero para devolver';
  return `Venta N.º ${x.sale_id} (${formatPesos(x.total)}): anulada el ${when}; ${back}${from}`;
}

/**
 * A closed shift's difference as one line of Cierres and «Tus cierres», method by method: a cash
 * shortage is never netted against a surplus in another method (a transfer refunded by someone
 * else, a card batch). `null` difference (not counted yet) reads "—"; all zero reads `zero`.
 */
export function differenceSummary(report: SessionReport, zero: string): { text: string; tone: '' | 'ok' | 'error' } {
  if (!report.difference) return { text: '—', tone: '' };
  const parts = Object.entries(report.difference).filter(([, amount]) => wideCents(amount) !== 0);
  if (parts.length === 0) return { text: zero, tone: '' };
  const order = METHODS.map((m) => m.id);
  parts.sort(([a], [b]) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
  // Only cash off: the amount alone, as it always read; otherwise each method by name.
  const onlyCash = parts.length === 1 && parts[0]![0] === 'efectivo';
  return {
    text: onlyCash
      ? formatPesos(parts[0]![1])
      : parts.map(([method, amount]) => `${methodLabel(method)} ${formatPesos(amount)}`).join(' · '),
    tone: parts.some(([, amount]) => amount < 0) ? 'error' : 'ok',
  };
}

/** Closing the session: what was counted per method (blind: the expected shows only in the report). */
export function CloseSession({
  sessionId,
  boxName,
  company,
  pending,
  offline,
  onQueueClose,
  report,
  onClosed,
  onBack,
  onNewSession,
}: {
  sessionId: number;
  boxName: string;
  company: { name: string };
  pending: number;
  /** No connection (or a shift opened offline): the close is queued and sent after the sales. */
  offline: boolean;
  onQueueClose: (counted: Record<string, number>, note: string) => void;
  report: SessionReport | null;
  onClosed: (report: SessionReport) => void;
  onBack: () => void;
  onNewSession: () => void;
}) {
  const [counted, setCounted] = useState<Record<string, string>>({});
  const [note, setNote] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  if (report) {
    return (
      <div class="stack">
        <CloseReport report={report} company={company} />
        <div class="row no-print">
          <button type="button" onClick={() => window.print()}>
            Imprimir cierre
          </button>
          <button type="button" class="secondary" onClick={onNewSession} id="report-new-session">
            Abrir un turno nuevo
          </button>
        </div>
      </div>
    );
  }

  async function close() {
    const values: Record<string, number> = {};
    for (const m of METHODS) {
      const text = counted[m.id]?.trim() ?? '';
      if (text === '') continue;
      const value = parseCount(m.id, text);
      if (value === null) {
        setError(
          `El monto de ${m.label} no es válido: escribí por ejemplo 5000 o 5.000,50${m.id === 'efectivo' ? '' : ' (con - adelante si devolviste más de lo que cobraste)'}.`,
        );
        return;
      }
      values[m.id] = value / 100;
    }
    if (offline || pending > 0) {
      onQueueClose(values, note.trim());
      return;
    }
    setBusy(true);
    const closeId = crypto.randomUUID();
    try {
      const closed = await api<SessionReport>('POST', `/api/v1/box-sessions/${sessionId}/close`, {
        body: { counted: values, ...(note.trim() ? { note: note.trim() } : {}), client_id: closeId },
        messages: { invalid_state: 'Este turno ya estaba cerrado. Actualizá la página.' },
      });
      onClosed(closed);
    } catch (err) {
      if (isNetworkError(err)) onQueueClose(values, note.trim());
      else setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <section class="card register-close">
        <h1>Cerrar {boxName}</h1>
        {pending > 0 ? (
          <p class="notice" role="status" id="close-pending">
            {pending === 1
              ? 'Hay 1 venta guardada sin conexión que todavía no llegó al servidor.'
              : `Hay ${pending} ventas guardadas sin conexión que todavía no llegaron al servidor.`}{' '}
            El cierre se guarda y se envía después, así las cuenta.
          </p>
        ) : offline ? (
          <p class="notice" role="status" id="close-offline">
            Sin conexión: el cierre se guarda y se registra cuando vuelva la conexión.
          </p>
        ) : null}
        <p class="muted">Contá lo que hay en la caja por medio de pago. Lo que no contaste queda en cero.</p>
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            void close();
          }}
        >
          <CountGrid idPrefix="count" counted={counted} onChange={setCounted} />
          <div class="field">
            <label for="count-note">Nota (opcional)</label>
            <input id="count-note" value={note} maxLength={500} onInput={(e) => setNote((e.target as HTMLInputElement).value)} />
          </div>
          {error ? (
            <p class="error" role="alert">
              {error}
            </p>
          ) : null}
          <div class="row">
            <button type="button" class="secondary" onClick={onBack}>
              Volver a vender
            </button>
            <button type="submit" disabled={busy} id="close-confirm">
              Cerrar caja
            </button>
          </div>
        </form>
      </section>
      {sessionId > 0 && !offline ? <CashMove sessionId={sessionId} /> : null}
    </>
  );
}

export function CloseReport({ report, company }: { report: SessionReport; company: { name: string } }) {
  const methods = [...new Set([...Object.keys(report.expected), ...Object.keys(report.counted ?? {})])];
  return (
    <article class="card ticket close-report" id="close-report" aria-label="Cierre de caja">
      <header>
        <strong>{company.name}</strong>
        <div>
          Cierre de {report.session.box_name} · turno {report.session.id}
        </div>
        {report.session.user_name ? <div id="close-report-person">Turno de {report.session.user_name}</div> : null}
        <div>
          Apertura {formatDateTime(report.session.opened_at)} ({report.session.opened_by})
        </div>
        {report.session.closed_at ? (
          <div>
            Cierre {formatDateTime(report.session.closed_at)} ({report.session.closed_by})
          </div>
        ) : (
          <div>Turno abierto</div>
        )}
      </header>
      <dl class="facts">
        <dt>Efectivo inicial</dt>
        <dd>{formatPesos(report.session.opening_cash)}</dd>
        <dt>Ventas</dt>
        <dd>
          {report.sales.count} · {formatPesos(report.sales.total)}
        </dd>
        {/* What came in by method, from which the expected column is made: the figure "Ventas" leaves
            out a sale returned whole, whose payment and its refund both stay in the drawer's sums. */}
        {report.payments.length > 0 ? (
          <>
            <dt>Cobrado</dt>
            <dd id="close-report-taken">
              {report.payments.map((p) => `${methodLabel(p.method)} ${formatPesos(p.amount)}`).join(' · ')}
            </dd>
          </>
        ) : null}
        {report.refunds.length > 0 ? (
          <>
            <dt>Devoluciones</dt>
            <dd>{report.refunds.map((r) => `${methodLabel(r.method)} ${formatPesos(r.amount)}`).join(' · ')}</dd>
          </>
        ) : null}
        <dt>Ingresos / retiros de efectivo</dt>
        <dd>
          {formatPesos(report.cash_in)} / {formatPesos(report.cash_out)}
        </dd>
      </dl>
      <div class="table-wrap">
        <table id="close-table">
          <thead>
            <tr>
              <th>Medio</th>
              <th class="num">Esperado</th>
              <th class="num">Contado</th>
              <th class="num">Diferencia</th>
            </tr>
          </thead>
          <tbody>
            {methods.map((m) => {
              const diff = report.difference?.[m] ?? null;
              return (
                <tr key={m}>
                  <td>{methodLabel(m)}</td>
                  <td class="num">{formatPesos(report.expected[m] ?? 0)}</td>
                  <td class="num">{report.counted ? formatPesos(report.counted[m] ?? 0) : '—'}</td>
                  <td class={`num ${diff === null || diff === 0 ? '' : diff < 0 ? 'error' : 'ok'}`}>
                    {diff === null ? '—' : diff === 0 ? 'OK' : formatPesos(diff)}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {report.session.note ? <p>Nota: {report.session.note}</p> : null}
      {report.session.handed_over_to ? <p>Relevo: siguió el turno N.º {report.session.handed_over_to}.</p> : null}
      {report.later_refunds && report.later_refunds.length > 0 ? (
        <div class="later-refunds">
          <p>
            <strong>Devoluciones posteriores</strong> (no cambian este cierre)
          </p>
          <ul>
            {report.later_refunds.map((x, n) => (
              <li key={`${x.sale_id}-${n}`}>{laterRefundText(x)}</li>
            ))}
          </ul>
        </div>
      ) : null}
    </article>
  );
}
