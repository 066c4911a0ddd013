import { useEffect, useMemo, useState } from 'preact/hooks';
import { formatDateTime } from '../../../lib/format.ts';
import { formatArs, formatPesos, toCents } from '../../../lib/money.ts';
import { api, errorText } from '../../ui/api.ts';
import { Card, PageTitle } from '../../ui/layout.tsx';
import { InvoicePanel } from '../invoicing/invoice-panel.tsx';
import { CloseReport, differenceSummary, type SessionReport } from './close.tsx';
import { ReturnDialog } from './return-dialog.tsx';
import { type ArrivedSale, type QueuedSale, RegisterStore } from './store.ts';
import { cancelledNotReturned, returnable } from './methods.ts';
import type { SaleWire } from './sync.ts';
import { Ticket } from './ticket.tsx';
import type { TicketData } from './types.ts';

const STATUS: Record<string, string> = { pending: 'Pendiente', paid: 'Pagada', cancelled: 'Anulada' };

export interface MySalesData {
  company: { name: string; cuit: string | null };
  user: { id: number; email: string; name: string | null; role: 'admin' | 'cashier' | null };
}

/** The register's IndexedDB of this company (the same name the register uses). */
export function companyStoreKey(name: string) {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-');
}

/** A sale as the 80 mm ticket prints it again. */
export function ticketOf(sale: SaleWire, boxName: string): TicketData {
  return {
    key: `sale-${sale.id}`,
    soldAt: sale.created_at,
    boxName,
    lines: sale.items.map((item, n) => ({
      uid: n + 1,
      product: {
        id: item.product_id,
        name: item.name,
        priceCents: toCents(item.price),
        bc: null,
        sku: null,
        unit: item.unit,
        folded: '',
      },
      qtyMilli: Math.round(item.quantity * 1000),
      priceCents: toCents(item.price),
      subtotalCents: toCents(item.subtotal),
      scaleLabel: null,
      priceLabel: false,
    })),
    payments: sale.payments.map((p) => ({
      method: p.method,
      cents: toCents(p.tendered ?? p.amount),
      reference: p.reference ?? '',
    })),
    totalCents: toCents(sale.total),
    changeCents: toCents(sale.change),
    sale,
  };
}

/**
 * "Mis ventas": the person's current shift (or their last one) with its sales: print a ticket
 * again, invoice a sale (also one made offline, once it reached the server: marked), return or
 * exchange its lines in place (the ReturnDialog of Ventas; a cashier's money back, with an admin's
 * approval on the spot). Sales still waiting for connection on this computer show apart.
 */
export function MySales({ company, user }: MySalesData) {
  const store = useMemo(() => new RegisterStore(companyStoreKey(company.name)), [company.name]);
  const [shift, setShift] = useState<SessionReport | null | undefined>(undefined);
  const [shifts, setShifts] = useState<SessionReport[]>([]);
  const [report, setReport] = useState<SessionReport | null>(null);
  const [sales, setSales] = useState<SaleWire[] | null>(null);
  const [queued, setQueued] = useState<QueuedSale[]>([]);
  const [arrived, setArrived] = useState<Map<number, ArrivedSale>>(new Map());
  const [ticket, setTicket] = useState<TicketData | null>(null);
  const [invoicing, setInvoicing] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  // "Devolver" / "Cambiar" of a sale, in place (the same dialog as Ventas); what it did, after.
  const [returning, setReturning] = useState<{ sale: SaleWire; mode: 'return' | 'exchange' } | null>(null);
  const [done, setDone] = useState<string | null>(null);

  async function load() {
    // What this computer holds is read before the list shows, so a sale that arrived offline is
    // marked from the first paint (never listed a moment without its mark).
    const local = Promise.all([store.queued().catch(() => [] as QueuedSale[]), store.arrived().catch(() => [] as ArrivedSale[])]);
    let server: { current: SessionReport | null; sessions: SessionReport[]; sales: SaleWire[] } | null = null;
    try {
      const { sessions } = await api<{ sessions: SessionReport[] }>('GET', `/api/v1/box-sessions?user_id=${user.id}&limit=5`);
      const current = sessions.find((s) => s.session.status === 'open') ?? sessions[0] ?? null;
      const { sales } = current
        ? await api<{ sales: SaleWire[] }>('GET', `/api/v1/sales?box_session_id=${current.session.id}&limit=200`)
        : { sales: [] };
      server = { current, sessions, sales };
    } catch (err) {
      setError(errorText(err));
    }
    const [waiting, came] = await local;
    setQueued(waiting.filter((q) => !q.error));
    setArrived(new Map(came.map((a) => [a.saleId, a])));
    if (server) {
      setShift(server.current);
      setShifts(server.sessions);
      setSales(server.sales);
    }
  }

  useEffect(() => {
    void load();
    // Offline sales arrive while the page is open: look again every 10 s.
    const timer = setInterval(() => void load(), 10_000);
    return () => clearInterval(timer);
  }, []);

  if (ticket) {
    return (
      <Ticket
        data={ticket}
        company={company}
        onNew={() => setTicket(null)}
        doneLabel="Volver a mis ventas"
        doneId="ticket-back"
      />
    );
  }

  const open = shift?.session.status === 'open';
  return (
    <>
      <PageTitle
        lead={
          shift
            ? `${shift.session.box_name} · turno ${shift.session.id} · ${
                open
                  ? `abierto desde ${formatDateTime(shift.session.opened_at)}`
                  : `cerrado el ${formatDateTime(shift.session.closed_at ?? shift.session.opened_at)}`
              }`
            : undefined
        }
      >
        Mis ventas
      </PageTitle>
      {error ? (
        <p class="notice notice-error" role="alert">
          {error}
        </p>
      ) : null}
      {queued.length > 0 ? (
        <Card title="Esperando conexión" id="my-sales-queued">
          <p class="muted">
            Estas ventas se hicieron sin conexión en esta compu. Se registran solas cuando vuelve la conexión; ahí las podés
            facturar.
          </p>
          <ul class="my-sales">
            {queued.map((q) => (
              <li key={q.key} class="my-sale">
                <span class="my-sale-main">
                  <span>{formatDateTime(q.queuedAt)}</span>
                  <span class="amount">{formatArs(q.totalCents)}</span>
                </span>
                <span class="badge">Sin enviar</span>
              </li>
            ))}
          </ul>
        </Card>
      ) : null}
      {done ? (
        <p class="notice notice-ok" role="status" data-my-sales-done>
          {done}
        </p>
      ) : null}
      {returning && shift ? (
        <ReturnDialog
          key={`${returning.sale.id}-${returning.mode}`}
          sale={returning.sale}
          mode={returning.mode}
          boxes={[{ id: shift.session.box_id, name: shift.session.box_name }]}
          onClose={() => setReturning(null)}
          onDone={(message) => {
            setReturning(null);
            setDone(message);
            void load();
          }}
        />
      ) : null}
      <Card title={open ? 'Ventas de tu turno' : 'Ventas de tu último turno'} id="my-sales">
        {shift === undefined || sales === null ? (
          <p class="muted">Cargando…</p>
        ) : shift === null ? (
          <p class="muted">
            Todavía no abriste un turno. <a href="/caja">Ir a la caja</a>
          </p>
        ) : sales.length === 0 ? (
          <p class="muted">Todavía no hay ventas en este turno.</p>
        ) : (
          <ul class="my-sales">
            {sales.map((sale) => (
              <li key={sale.id} class="my-sale" data-sale={sale.id}>
                <span class="my-sale-main">
                  <strong>N.º {sale.id}</strong>
                  <span>{formatDateTime(sale.created_at)}</span>
                  <span class="amount">{formatPesos(sale.total)}</span>
                  <span class={`badge ${sale.status === 'cancelled' ? 'error' : sale.status === 'paid' ? 'ok' : ''}`}>
                    {STATUS[sale.status] ?? sale.status}
                  </span>
                  {sale.status === 'paid' && (sale.returned_total ?? 0) > 0 ? (
                    <span class="badge warn" data-returned>
                      Devuelto {formatPesos(sale.returned_total ?? 0)}
                    </span>
                  ) : null}
                  {arrived.has(sale.id) ? (
                    <span class="badge info" data-arrived>
                      Llegó sin conexión
                    </span>
                  ) : null}
                </span>
                <span class="row my-sale-actions">
                  <button
                    type="button"
                    class="secondary"
                    data-action="reprint"
                    onClick={() => setTicket(ticketOf(sale, shift.session.box_name))}
                  >
                    Ticket
                  </button>
                  {sale.status !== 'cancelled' ? (
                    <button
                      type="button"
                      class="secondary"
                      data-action="invoice"
                      aria-expanded={invoicing === sale.id}
                      onClick={() => setInvoicing(invoicing === sale.id ? null : sale.id)}
                    >
                      Facturar
                    </button>
                  ) : null}
                  {cancelledNotReturned(sale) ? (
                    <span class="muted" data-on-account>
                      A cuenta corriente: para devolverla, pedile al dueño que la anule.
                    </span>
                  ) : null}
                  {returnable(sale) ? (
                    <>
                      <button
                        type="button"
                        class="secondary"
                        data-action="return"
                        onClick={() => {
                          setDone(null);
                          setReturning({ sale, mode: 'return' });
                        }}
                      >
                        Devolver
                      </button>
                      <button
                        type="button"
                        class="secondary"
                        data-action="exchange"
                        onClick={() => {
                          setDone(null);
                          setReturning({ sale, mode: 'exchange' });
                        }}
                      >
                        Cambiar
                      </button>
                    </>
                  ) : null}
                </span>
                {invoicing === sale.id ? (
                  <div class="my-sale-invoice">
                    <InvoicePanel
                      saleId={sale.id}
                      total={sale.total}
                      cancelled={false}
                      canCreditNote={false}
                      customerId={sale.customer_id}
                    />
                  </div>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </Card>
      {shifts.some((s) => s.session.status === 'closed') ? (
        <Card title="Tus cierres" id="my-closes">
          <ul class="my-sales">
            {shifts
              .filter((s) => s.session.status === 'closed')
              .map((s) => {
                const diff = differenceSummary(s, 'Sin diferencia');
                return (
                  <li key={s.session.id} class="my-sale" data-shift={s.session.id}>
                    <span class="my-sale-main">
                      <strong>Turno {s.session.id}</strong>
                      <span>{s.session.box_name}</span>
                      <span>{s.session.closed_at ? formatDateTime(s.session.closed_at) : ''}</span>
                      <span class={`amount ${diff.tone}`}>{diff.text}</span>
                    </span>
                    <button
                      type="button"
                      class="secondary"
                      aria-expanded={report?.session.id === s.session.id}
                      onClick={() => setReport(report?.session.id === s.session.id ? null : s)}
                    >
                      Ver cierre
                    </button>
                  </li>
                );
              })}
          </ul>
        </Card>
      ) : null}
      {report ? <CloseReport report={report} company={company} /> : null}
      <p>
        <a href="/caja">Volver a la caja</a>
      </p>
    </>
  );
}
