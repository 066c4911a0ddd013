import { useEffect, useState } from 'preact/hooks';
import { formatCount, formatCountOf, formatDate, formatDateTime } from '../../../lib/format.ts';
import { formatPesos, formatQuantity, wideCents } from '../../../lib/money.ts';
import { paymentMethodLabel } from '../../../lib/sale-labels.ts';
import { api } from '../../ui/api.ts';
import { Card, PageTitle, TableWrap } from '../../ui/layout.tsx';
import { BarList, ColumnChart } from './charts.tsx';

/** GET /api/v1/reports/home (src/modules/reports/reports.schemas.ts Home). */
export interface HomeData {
  today: { date: string; tickets: number; total: number; pending: number; cancelled: number };
  same_day_last_week: { date: string; tickets: number; total: number };
  month: { from: string; to: string; tickets: number; total: number };
  by_hour: { hour: number; tickets: number; total: number }[];
  by_method: { method: string; amount: number; count: number }[];
  top_today: TopProduct[];
  top_month: TopProduct[];
  below_minimum: { count: number; products: { id: number; name: string; unit: string; stock: number; min_stock: number }[] };
  receipts: {
    count: number;
    items: {
      attempt_id: number;
      sale_id: number;
      kind: string;
      letter: string;
      status: string;
      created_at: string;
      reason: string | null;
    }[];
  };
  open_shifts: { id: number; box_name: string; opened_at: string; opened_by: string; tickets: number; total: number }[];
}
interface TopProduct {
  product_id: number;
  name: string;
  quantity: number;
  total: number;
}

/** "+12,5 % que el martes pasado" / "igual que…" / no comparison when last week had nothing. */
function versus(now: number, before: number, day: string): string {
  if (before === 0) return now === 0 ? `Sin ventas, igual que el ${day} pasado` : `El ${day} pasado no hubo ventas`;
  const change = Math.round(((now - before) * 1000) / before) / 10;
  if (change === 0) return `Igual que el ${day} pasado`;
  const text = Math.abs(change).toLocaleString('es-AR', { maximumFractionDigits: 1 });
  return `${change > 0 ? '+' : '−'}${text} % que el ${day} pasado`;
}

const weekday = (day: string) => new Date(`${day}T12:00:00Z`).toLocaleDateString('es-AR', { weekday: 'long', timeZone: 'UTC' });

function TopList({ title, rows }: { title: string; rows: TopProduct[] }) {
  return rows.length === 0 ? (
    <p class="muted">Sin ventas {title === 'Hoy' ? 'hoy' : 'este mes'}.</p>
  ) : (
    <BarList
      title={`Productos más vendidos: ${title.toLowerCase()}`}
      head={['Producto', 'Ventas']}
      points={rows.map((r) => ({
        label: `${r.name} · ${formatQuantity(r.quantity)}`,
        value: r.total,
        text: formatPesos(r.total),
      }))}
    />
  );
}

/** Inicio: how today is going against last week, the month so far, and what needs attention. */
export function Home({ initial }: { initial: HomeData }) {
  const [data, setData] = useState(initial);
  // The figures move while the shop sells: refresh every minute while the page is open.
  useEffect(() => {
    const timer = setInterval(() => {
      api<HomeData>('GET', '/api/v1/reports/home').then(setData, () => undefined);
    }, 60_000);
    return () => clearInterval(timer);
  }, []);
  const { today, same_day_last_week: before, month } = data;
  const day = weekday(today.date);
  const average = today.tickets === 0 ? 0 : Math.round(wideCents(today.total) / today.tickets) / 100;
  // The shop's hours: 8 to 20, widened to the first and last hour with sales.
  const sold = data.by_hour.filter((h) => h.tickets > 0).map((h) => h.hour);
  const hours = data.by_hour.filter((h) => h.hour >= Math.min(8, ...sold) && h.hour <= Math.max(20, ...sold));
  return (
    <>
      <PageTitle lead={`Hoy, ${day} ${formatDate(today.date)}. Los números son los del resumen del día de Ventas.`}>
        Inicio
      </PageTitle>
      <Card title="Hoy">
        <div class="stats" id="home-today">
          <div class="stat">
            <span class="muted">Ventas de hoy</span>
            <strong>{formatPesos(today.total)}</strong>
            <span class="muted">{versus(wideCents(today.total), wideCents(before.total), day)}</span>
          </div>
          <div class="stat">
            <span class="muted">Tickets</span>
            <strong>{formatCount(today.tickets)}</strong>
            <span class="muted">
              {formatCount(before.tickets)} el {day} pasado
            </span>
          </div>
          <div class="stat">
            <span class="muted">Ticket promedio</span>
            <strong>{formatPesos(average)}</strong>
            {today.pending > 0 ? <span class="muted">{formatPesos(today.pending)} sin cobrar</span> : null}
          </div>
          <div class="stat">
            <span class="muted">En el mes</span>
            <strong>{formatPesos(month.total)}</strong>
            <span class="muted">
              {formatCountOf(month.tickets, 'ticket', 'tickets')} desde el {formatDate(month.from)}
            </span>
          </div>
        </div>
      </Card>
      <div class="home-grid">
        <Card title="Ventas por hora">
          <ColumnChart
            title="Ventas de hoy por hora"
            head={['Hora', 'Ventas']}
            labelEvery={2}
            points={hours.map((h) => ({ label: `${h.hour} h`, value: h.total, text: `${formatPesos(h.total)} (${h.tickets})` }))}
          />
        </Card>
        <Card title="Medios de pago de hoy">
          {data.by_method.length === 0 ? (
            <p class="muted">Todavía no hay cobros hoy.</p>
          ) : (
            <BarList
              title="Cobros de hoy por medio de pago"
              head={['Medio', 'Cobrado']}
              points={data.by_method.map((m) => ({
                label: paymentMethodLabel(m.method),
                value: m.amount,
                text: formatPesos(m.amount),
              }))}
            />
          )}
        </Card>
        <Card title="Más vendidos hoy">
          <TopList title="Hoy" rows={data.top_today} />
        </Card>
        <Card title="Más vendidos del mes">
          <TopList title="Este mes" rows={data.top_month} />
        </Card>
      </div>
      <Attention data={data} />
    </>
  );
}

function Attention({ data }: { data: HomeData }) {
  const { below_minimum: low, receipts, open_shifts: shifts } = data;
  return (
    <div class="home-grid">
      <Card title={`Debajo del mínimo (${formatCount(low.count)})`} id="home-low-stock">
        {low.count === 0 ? (
          <p class="muted">Ningún producto está debajo de su stock mínimo.</p>
        ) : (
          <TableWrap>
            <thead>
              <tr>
                <th>Producto</th>
                <th class="num">Stock</th>
                <th class="num">Mínimo</th>
              </tr>
            </thead>
            <tbody>
              {low.products.map((p) => (
                <tr key={p.id}>
                  <td>
                    <a href={`/productos/${p.id}`}>{p.name}</a>
                  </td>
                  <td class="num error">{formatQuantity(p.stock, p.unit)}</td>
                  <td class="num">{formatQuantity(p.min_stock, p.unit)}</td>
                </tr>
              ))}
            </tbody>
          </TableWrap>
        )}
      </Card>
      <Card title={`Comprobantes pendientes o rechazados (${formatCount(receipts.count)})`} id="home-receipts">
        {receipts.count === 0 ? (
          <p class="muted">No hay comprobantes esperando a ARCA ni rechazados.</p>
        ) : (
          <ul class="plain-list">
            {receipts.items.map((r) => (
              <li key={r.attempt_id}>
                <a href="/ventas">
                  {r.kind === 'credit_note' ? 'Nota de crédito' : 'Factura'} {r.letter} de la venta N.º {r.sale_id}
                </a>{' '}
                <span class={`badge ${r.status === 'rejected' ? 'off' : ''}`}>
                  {r.status === 'rejected' ? 'rechazada' : 'pendiente'}
                </span>
                <span class="muted"> {formatDateTime(r.created_at)}</span>
                {r.reason ? <div class="muted">{r.reason}</div> : null}
              </li>
            ))}
          </ul>
        )}
      </Card>
      <Card title={`Cajas abiertas (${formatCount(shifts.length)})`} id="home-shifts">
        {shifts.length === 0 ? (
          <p class="muted">No hay turnos de caja abiertos.</p>
        ) : (
          <ul class="plain-list">
            {shifts.map((s) => (
              <li key={s.id}>
                <strong>{s.box_name}</strong> · turno N.º {s.id}, abierto por {s.opened_by} el {formatDateTime(s.opened_at)} ·{' '}
                {formatCountOf(s.tickets, 'venta', 'ventas')}, {formatPesos(s.total)}
              </li>
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}
