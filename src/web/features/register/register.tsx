import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'preact/hooks';
import { ApiError, api, errorText } from '../../ui/api.ts';
import { useConfirm } from '../../ui/dialog.tsx';
import { Notice, useNotice } from '../../ui/notice.tsx';
import { CloseSession, type SessionReport } from './close.tsx';
import { ConnectionBanner } from './connection-banner.tsx';
import { OpenSession } from './open-session.tsx';
import type { PickedCustomer } from './customer-picker.tsx';
import { PayDialog } from './pay-dialog.tsx';
import { initialSale, interpretEntry, saleReducer, saleTotal } from './sale-state.ts';
import { SaleView } from './sale-view.tsx';
import { RegisterStore } from './store.ts';
import { isNetworkError, postSale } from './sync.ts';
import { type OfflineCaea, renewCaea, takeOfflineInvoice } from './caea-offline.ts';
import { Ticket } from './ticket.tsx';
import type { Payment, RegisterState, RegisterUser, TicketData } from './types.ts';
import { useRegisterKeys } from './use-register-keys.ts';
import { keepShellOffline, useRegisterLink } from './use-register-link.ts';

export type { Line, RegisterState, RegisterUser } from './types.ts';

/**
 * The cashier's screen: open a shift, sell (scan, charge, ticket), close. The sale's state is the
 * reducer of sale-state.ts; the server link (catalogue, offline queue) is useRegisterLink; the
 * keyboard is useRegisterKeys; each part of the screen is its own component.
 */
export function Register({ initial, user }: { initial: RegisterState; user: RegisterUser }) {
  const [state, setState] = useState(initial);
  const storedBox = Number(localStorage.getItem('caja:box'));
  const [boxId, setBoxId] = useState<number | null>(
    initial.boxes.find((b) => b.id === storedBox)?.id ?? initial.boxes[0]?.id ?? null,
  );
  const box = state.boxes.find((b) => b.id === boxId) ?? null;
  const sessionId = box?.open_session_id ?? null;
  const companyKey = useMemo(() => fold(initial.company.name), [initial.company.name]);
  const store = useMemo(() => new RegisterStore(companyKey), [companyKey]);
  const [sale, dispatch] = useReducer(saleReducer, initialSale);
  const [report, setReport] = useState<SessionReport | null>(null);
  const [notice, showNotice, clearNotice] = useNotice();
  const { ask, dialog } = useConfirm();
  const input = useRef<HTMLInputElement>(null);
  const link = useRegisterLink(store, state.scale_label, dispatch);
  const { catalog, offline, pending, failed } = link;
  const total = saleTotal(sale);
  // The box's reserved CAEA numbers: renewed whenever it is online with nothing left to send.
  const [caeaHeld, setCaeaHeld] = useState<OfflineCaea | null>(null);
  useEffect(() => {
    if (offline || pending > 0 || !box || sessionId === null) return;
    void renewCaea(store, box.id)
      .then(setCaeaHeld)
      .catch(() => {});
  }, [offline, pending, box?.id, sessionId]);

  const focusInput = useCallback(() => {
    if (sale.mode === 'sell') requestAnimationFrame(() => input.current?.focus());
  }, [sale.mode]);
  useEffect(focusInput, [focusInput, sale.lines.length, sessionId, catalog]);

  function enter() {
    clearNotice();
    if (sale.results.length > 0) {
      const product = sale.results[sale.resultIndex];
      if (product) dispatch({ type: 'add', product });
      return;
    }
    if (sale.query.trim() === '') {
      if (sale.lines.length > 0) startPay();
      return;
    }
    if (!catalog) {
      showNotice('error', 'El catálogo todavía se está cargando.');
      return;
    }
    const entry = interpretEntry(sale.query, catalog);
    if ('action' in entry) dispatch(entry.action);
    else if ('choose' in entry) dispatch({ type: 'query', text: sale.query, results: entry.choose });
    else {
      if (entry.clear) dispatch({ type: 'query', text: '' });
      showNotice('error', entry.error);
    }
  }

  function onQuery(text: string) {
    const searching = catalog && !/^[\d*.,]*$/.test(text) && text.trim().length >= 2;
    dispatch({ type: 'query', text, results: searching ? catalog.search(text) : [] });
  }

  async function clearSale() {
    if (sale.lines.length === 0) return;
    const sure = await ask('¿Anular la venta en curso? Se borran todos los productos cargados.', {
      confirmLabel: 'Anular venta',
      danger: true,
    });
    if (sure) dispatch({ type: 'clear' });
    focusInput();
  }

  function startPay() {
    if (sale.lines.length === 0) showNotice('error', 'Cargá al menos un producto para cobrar.');
    else dispatch({ type: 'pay' });
  }

  const onKeyDown = useRegisterKeys({ sale, dispatch, input, enter, startPay, clearSale: () => void clearSale() });

  async function confirmSale(payments: Payment[], customer: PickedCustomer | null) {
    if (!box || sessionId === null) return;
    const key = crypto.randomUUID();
    const { lines } = sale;
    const body: Record<string, unknown> = {
      box_id: box.id,
      items: lines.map((l) =>
        l.scaleLabel
          ? { scale_label: l.scaleLabel, ...(l.priceLabel ? {} : { price: l.priceCents / 100 }) }
          : { product_id: l.product.id, quantity: l.qtyMilli / 1000, price: l.priceCents / 100 },
      ),
      payments: payments.map((p) => ({
        method: p.method,
        amount: p.cents / 100,
        ...(p.reference ? { reference: p.reference } : {}),
      })),
      ...(customer ? { customer: { id: customer.id, name: customer.name } } : {}),
      sold_at: new Date().toISOString(),
      ...(link.catalogAt ? { catalog_at: link.catalogAt } : {}),
    };
    const paidCents = payments.reduce((s, p) => s + p.cents, 0);
    const draft: TicketData = {
      key,
      soldAt: body['sold_at'] as string,
      boxName: box.name,
      lines,
      payments,
      totalCents: total,
      changeCents: Math.max(0, paidCents - total),
      sale: null,
    };
    const queued = (await store.queued()).filter((q) => !q.error).length;
    if (queued === 0 && !offline) {
      try {
        const { sale: sent } = await postSale(key, body);
        finish({ ...draft, sale: sent });
        return;
      } catch (err) {
        if (!isNetworkError(err)) {
          if (err instanceof ApiError && err.code === 'no_open_session') {
            // Someone closed this box's session elsewhere: open a new one to go on (the sale stays loaded).
            setState((st) => ({ ...st, boxes: st.boxes.map((b) => (b.id === box.id ? { ...b, open_session_id: null } : b)) }));
          }
          showNotice('error', errorText(err));
          return;
        }
        link.setOffline(true);
      }
    }
    // Offline, a consumer's sale is invoiced under the CAEA with the box's next reserved number.
    const invoice = customer ? null : await takeOfflineInvoice(store, box.id, total).catch(() => null);
    await store.enqueue({ key, body, totalCents: total, queuedAt: draft.soldAt, ...(invoice ? { invoice } : {}) });
    finish({ ...draft, offlineInvoice: invoice });
    void link.sync();
  }

  function finish(data: TicketData) {
    dispatch({ type: 'sold', ticket: data });
    void link.refreshQueue();
  }

  async function openSession(openingCents: number, chosenBox: number) {
    try {
      const { session } = await api<{ session: { id: number } }>('POST', '/api/v1/box-sessions', {
        body: { box_id: chosenBox, opening_cash: openingCents / 100 },
        messages: { conflict: 'Esa caja ya tiene un turno abierto. Actualizá la página.' },
      });
      localStorage.setItem('caja:box', String(chosenBox));
      void keepShellOffline(true);
      setBoxId(chosenBox);
      setState((s) => ({ ...s, boxes: s.boxes.map((b) => (b.id === chosenBox ? { ...b, open_session_id: session.id } : b)) }));
      clearNotice();
    } catch (err) {
      showNotice('error', errorText(err));
    }
  }

  if (state.boxes.length === 0) {
    return (
      <section class="card">
        <h1>Caja</h1>
        <p>La empresa todavía no tiene cajas. Un administrador puede crearlas en la configuración.</p>
      </section>
    );
  }
  if (sessionId === null) {
    return (
      <OpenSession
        boxes={state.boxes}
        boxId={boxId}
        onOpen={(cents, chosen) => void openSession(cents, chosen)}
        notice={<Notice notice={notice} />}
      />
    );
  }
  if (sale.mode === 'close' || sale.mode === 'report') {
    return (
      <CloseSession
        sessionId={sessionId}
        boxName={box?.name ?? ''}
        company={state.company}
        pending={pending}
        report={report}
        onClosed={(r) => {
          setReport(r);
          dispatch({ type: 'closed' });
        }}
        onBack={() => dispatch({ type: 'back' })}
        onNewSession={() => {
          setState((s) => ({ ...s, boxes: s.boxes.map((b) => (b.id === boxId ? { ...b, open_session_id: null } : b)) }));
          setReport(null);
          dispatch({ type: 'back' });
        }}
      />
    );
  }

  return (
    <div class="register">
      <ConnectionBanner offline={offline} pending={pending} failed={failed} />
      <div class="register-head row">
        <span class="badge ok">
          {box?.name} · turno {sessionId}
        </span>
        <span class="muted">{catalog ? `${catalog.size.toLocaleString('es-AR')} productos` : 'Cargando catálogo…'}</span>
        <span class="muted">{user.name ?? user.email}</span>
        {caeaHeld ? (
          <span class="badge" id="caea-ready" title="Números de factura reservados para vender sin conexión">
            Factura sin conexión: CAEA
          </span>
        ) : null}
        <button type="button" class="secondary" onClick={() => dispatch({ type: 'close' })} id="register-close">
          Cerrar caja
        </button>
      </div>
      {sale.mode === 'ticket' && sale.ticket ? (
        <Ticket data={sale.ticket} company={state.company} onNew={() => dispatch({ type: 'next_sale' })} />
      ) : (
        <SaleView
          sale={sale}
          dispatch={dispatch}
          input={input}
          notice={<Notice notice={notice} id="register-notice" />}
          onQuery={onQuery}
          onKeyDown={onKeyDown}
          onPay={startPay}
          onClear={() => void clearSale()}
        />
      )}
      {sale.mode === 'pay' ? (
        <PayDialog
          totalCents={total}
          onCancel={() => dispatch({ type: 'back' })}
          onConfirm={(payments, customer) => {
            dispatch({ type: 'back' });
            void confirmSale(payments, customer);
          }}
        />
      ) : null}
      {dialog}
    </div>
  );
}

function fold(text: string) {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-');
}
