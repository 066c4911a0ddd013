import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'preact/hooks';
import { formatArs } from '../../../lib/money.ts';
import { ApiError, api, errorText } from '../../ui/api.ts';
import { useConfirm } from '../../ui/dialog.tsx';
import { Notice, useNotice } from '../../ui/notice.tsx';
import { CloseSession, type SessionReport } from './close.tsx';
import { ConnectionBanner } from './connection-banner.tsx';
import { Handover } from './handover.tsx';
import { OpenSession } from './open-session.tsx';
import type { PickedCustomer } from './customer-picker.tsx';
import { PayDialog } from './pay-dialog.tsx';
import { ApprovalDialog } from './approval-dialog.tsx';
import { DiscountDialog } from './discount-dialog.tsx';
import { discountInput, initialSale, interpretEntry, needsApproval, pricedSale, saleReducer, saleTotal } from './sale-state.ts';
import { SaleView } from './sale-view.tsx';
import { type QueuedShift, RegisterStore } from './store.ts';
import { type FlushResult, isNetworkError, postSale } from './sync.ts';
import { type OfflineCaea, renewCaea, takeOfflineInvoice } from './caea-offline.ts';
import { Ticket } from './ticket.tsx';
import {
  type Discount,
  type Line,
  OFFLINE_SHIFT,
  type Payment,
  type RegisterState,
  type RegisterUser,
  type TicketData,
} from './types.ts';
import { useRegisterKeys } from './use-register-keys.ts';
import { keepShellOffline, useRegisterLink } from './use-register-link.ts';

export type { Line, RegisterState, RegisterUser } from './types.ts';

/**
 * The cashier's screen: open a shift, sell (scan, charge, ticket), close. The sale's state is the
 * reducer of sale-state.ts; the server link (catalogue, offline queue) is useRegisterLink; the
 * keyboard is useRegisterKeys; each part of the screen is its own component.
 */
/** A shift opened here without connection: its own id and box, until the server has it. */
interface OfflineShift {
  clientId: string;
  boxId: number;
}
const OFFLINE_SHIFT_KEY = 'caja:offline-shift';
const readOfflineShift = (): OfflineShift | null => {
  try {
    return JSON.parse(localStorage.getItem(OFFLINE_SHIFT_KEY) ?? 'null') as OfflineShift | null;
  } catch {
    return null;
  }
};

/** The page's state, with a shift opened offline (and not sent yet) shown as open. */
function withOfflineShift(initial: RegisterState): RegisterState {
  const shift = readOfflineShift();
  if (!shift) return initial;
  return {
    ...initial,
    boxes: initial.boxes.map((b) =>
      b.id === shift.boxId && b.open_session_id === null
        ? { ...b, open_session_id: OFFLINE_SHIFT, open_session_user_id: initial.user_id ?? null }
        : b,
    ),
  };
}

export function Register({ initial, user }: { initial: RegisterState; user: RegisterUser }) {
  const [state, setState] = useState(() => withOfflineShift(initial));
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
  const link = useRegisterLink(store, state.scale_label, dispatch, onShiftsSent);

  /** Shifts opened or closed offline reached the server: the open one gets its real number. */
  function onShiftsSent(shifts: FlushResult['shifts']) {
    const offlineShift = readOfflineShift();
    for (const s of shifts) {
      if (s.op === 'open' && offlineShift && s.clientId === offlineShift.clientId) {
        localStorage.removeItem(OFFLINE_SHIFT_KEY);
        setState((st) => ({
          ...st,
          boxes: st.boxes.map((b) =>
            b.id === offlineShift.boxId && b.open_session_id === OFFLINE_SHIFT ? { ...b, open_session_id: s.sessionId } : b,
          ),
        }));
      }
    }
  }

  // The sale being loaded survives a reload: kept in IndexedDB, put back when the page opens.
  const cartLoaded = useRef(false);
  useEffect(() => {
    store
      .getCart<{ lines: Line[]; saleDiscount?: Discount | null }>()
      .then((cart) => {
        if (cart?.lines?.length) dispatch({ type: 'restore', lines: cart.lines, saleDiscount: cart.saleDiscount ?? null });
      })
      .catch(() => {})
      .finally(() => {
        cartLoaded.current = true;
      });
  }, [store]);
  useEffect(() => {
    if (cartLoaded.current) void store.putCart({ lines: sale.lines, saleDiscount: sale.saleDiscount }).catch(() => {});
  }, [store, sale.lines, sale.saleDiscount]);
  const { catalog, offline, pending, failed } = link;
  const total = saleTotal(sale);
  // The discount dialog: a line's (its index) or the sale's (null); undefined when closed.
  const [discountFor, setDiscountFor] = useState<number | null | undefined>(undefined);
  // A sale waiting for an admin's approval of its discounts (the payments already chosen).
  const [approval, setApproval] = useState<{
    payments: Payment[];
    customer: PickedCustomer | null;
    error: string | null;
    busy: boolean;
  } | null>(null);
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

  async function confirmSale(
    payments: Payment[],
    customer: PickedCustomer | null,
    approvedBy?: { email: string; password: string },
  ) {
    if (!box || sessionId === null) return;
    const { lines } = sale;
    const priced = pricedSale(lines, sale.saleDiscount);
    if (!approvedBy && !state.can_discount_freely && needsApproval(lines, sale.saleDiscount, state.discount_limit_percent)) {
      // Beyond the limit an admin approves on the spot, online (their password never waits in the queue).
      setApproval({ payments, customer, error: null, busy: false });
      return;
    }
    const key = crypto.randomUUID();
    const body: Record<string, unknown> = {
      box_id: box.id,
      items: lines.map((l, n) => {
        const discount = l.discount && priced.lines[n]!.discountCents > 0 ? { discount: discountInput(l.discount) } : {};
        return l.scaleLabel
          ? { scale_label: l.scaleLabel, ...(l.priceLabel ? {} : { price: l.priceCents / 100 }), ...discount }
          : { product_id: l.product.id, quantity: l.qtyMilli / 1000, price: l.priceCents / 100, ...discount };
      }),
      ...(sale.saleDiscount && priced.saleDiscountCents > 0 ? { discount: discountInput(sale.saleDiscount) } : {}),
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
      saleDiscount: priced.saleDiscountCents > 0 ? sale.saleDiscount : null,
      payments,
      totalCents: total,
      changeCents: Math.max(0, paidCents - total),
      sale: null,
    };
    if (approvedBy) {
      // An approved sale goes now or not at all: it is never queued with the admin's password.
      setApproval((a) => a && { ...a, busy: true, error: null });
      try {
        const { sale: sent } = await postSale(key, { ...body, discount_approval: approvedBy });
        setApproval(null);
        finish({ ...draft, sale: sent });
      } catch (err) {
        const text = isNetworkError(err)
          ? 'Sin conexión: un descuento que supera el límite se aprueba con conexión. Probá de nuevo o quitá el descuento.'
          : errorText(err);
        setApproval((a) => a && { ...a, busy: false, error: text });
      }
      return;
    }
    // Anything still queued (sales, a shift opened offline) goes first: this sale waits its turn.
    const queued = (await store.queuedAll()).filter((q) => !q.error).length;
    if (queued === 0 && !offline && sessionId !== OFFLINE_SHIFT) {
      try {
        const { sale: sent } = await postSale(key, body);
        finish({ ...draft, sale: sent });
        return;
      } catch (err) {
        if (!isNetworkError(err)) {
          if (err instanceof ApiError && err.code === 'shift_of_another_person') void reloadState();
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

  async function reloadState() {
    try {
      const fresh = await api<RegisterState>('GET', '/api/v1/register');
      setState((s) => ({ ...withOfflineShift(fresh), scale_label: s.scale_label }));
    } catch {
      // Offline: the screen keeps what it had.
    }
  }

  function takeShift(chosenBox: number, sessionIdOfBox: number) {
    localStorage.setItem('caja:box', String(chosenBox));
    setBoxId(chosenBox);
    setState((s) => ({
      ...s,
      boxes: s.boxes.map((b) =>
        b.id === chosenBox
          ? { ...b, open_session_id: sessionIdOfBox, open_session_user_id: s.user_id ?? null, open_session_user_name: user.name }
          : b,
      ),
    }));
    clearNotice();
  }

  /**
   * Opens the person's own shift with their count. Without connection (or with operations still
   * queued) the open is queued with its own id and the register sells at once; the server takes
   * it once, in order, before the sales made in it.
   */
  async function openSession(openingCents: number, chosenBox: number) {
    // A box with a shift already open: go to it (the person's own sells at once; another's asks for the handover).
    const already = state.boxes.find((b) => b.id === chosenBox)?.open_session_id ?? null;
    if (already !== null) {
      localStorage.setItem('caja:box', String(chosenBox));
      setBoxId(chosenBox);
      return;
    }
    const clientId = crypto.randomUUID();
    const body = {
      box_id: chosenBox,
      opening_cash: openingCents / 100,
      client_id: clientId,
      opened_at: new Date().toISOString(),
    };
    const queued = (await store.queuedAll()).filter((q) => !q.error).length;
    if (queued === 0 && !offline) {
      try {
        const { session } = await api<{ session: { id: number } }>('POST', '/api/v1/box-sessions', {
          body,
          messages: { conflict: 'Esa caja ya tiene un turno abierto. Actualizá la página.' },
        });
        void keepShellOffline(true);
        takeShift(chosenBox, session.id);
        return;
      } catch (err) {
        if (!isNetworkError(err)) {
          if (err instanceof ApiError && err.code === 'shift_of_another_person') void reloadState();
          showNotice('error', errorText(err));
          return;
        }
        link.setOffline(true);
      }
    }
    const entry: QueuedShift = {
      kind: 'shift',
      op: 'open',
      key: clientId,
      clientId,
      sessionId: null,
      body,
      queuedAt: body.opened_at,
    };
    await store.enqueue(entry);
    localStorage.setItem(OFFLINE_SHIFT_KEY, JSON.stringify({ clientId, boxId: chosenBox } satisfies OfflineShift));
    takeShift(chosenBox, OFFLINE_SHIFT);
    showNotice('ok', 'Abriste el turno sin conexión: se registra cuando vuelva la conexión.');
    void link.refreshQueue();
  }

  /** A close made without connection (or after sales still queued): queued after them, sent once. */
  async function queueClose(counted: Record<string, number>, note: string) {
    const closeId = crypto.randomUUID();
    const offlineShift = readOfflineShift();
    const entry: QueuedShift = {
      kind: 'shift',
      op: 'close',
      key: closeId,
      clientId: offlineShift?.clientId ?? '',
      sessionId: sessionId !== null && sessionId > 0 ? sessionId : null,
      body: { counted, ...(note ? { note } : {}), client_id: closeId, closed_at: new Date().toISOString() },
      queuedAt: new Date().toISOString(),
    };
    await store.enqueue(entry);
    localStorage.removeItem(OFFLINE_SHIFT_KEY);
    setState((s) => ({ ...s, boxes: s.boxes.map((b) => (b.id === boxId ? { ...b, open_session_id: null } : b)) }));
    dispatch({ type: 'back' });
    showNotice('ok', 'Cerraste el turno sin conexión: el cierre se registra cuando vuelva la conexión.');
    void link.refreshQueue();
    void link.sync();
  }

  if (state.boxes.length === 0) {
    return (
      <section class="card">
        <h1>Caja</h1>
        <p>La empresa todavía no tiene cajas. Un administrador puede crearlas en la configuración.</p>
      </section>
    );
  }
  const othersShift =
    box !== null &&
    sessionId !== null &&
    sessionId !== OFFLINE_SHIFT &&
    box.open_session_user_id != null &&
    state.user_id != null &&
    box.open_session_user_id !== state.user_id;
  if (othersShift && box) {
    return (
      <>
        <Notice notice={notice} />
        <Handover
          sessionId={sessionId}
          boxName={box.name}
          owner={box.open_session_user_name ?? 'otra persona'}
          onDone={(id) => takeShift(box.id, id)}
          onOtherBox={
            state.boxes.length > 1
              ? () => setBoxId(state.boxes.find((b) => b.id !== box.id && b.open_session_id === null)?.id ?? box.id)
              : null
          }
        />
      </>
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
        offline={offline || sessionId === OFFLINE_SHIFT}
        onQueueClose={(counted, note) => void queueClose(counted, note)}
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
          {box?.name} · {sessionId === OFFLINE_SHIFT ? 'turno sin conexión' : `turno ${sessionId}`}
        </span>
        <a class="button secondary" href="/mis-ventas" id="register-my-sales">
          Mis ventas
        </a>
        <span class="muted">{catalog ? `${catalog.size.toLocaleString('es-AR')} productos` : 'Cargando catálogo…'}</span>
        <span class="muted register-user">{user.name ?? user.email}</span>
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
          onDiscount={(index) => setDiscountFor(index)}
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
      {discountFor !== undefined ? (
        <DiscountDialog
          title={
            discountFor === null ? 'Descuento a la venta' : `Descuento a ${sale.lines[discountFor]?.product.name ?? 'la línea'}`
          }
          baseCents={
            discountFor === null
              ? (() => {
                  const p = pricedSale(sale.lines, null);
                  return p.totalCents;
                })()
              : (sale.lines[discountFor]?.subtotalCents ?? 0)
          }
          initial={discountFor === null ? sale.saleDiscount : (sale.lines[discountFor]?.discount ?? null)}
          limitPercent={state.can_discount_freely ? null : state.discount_limit_percent}
          beyondLimit={(d) =>
            discountFor === null
              ? needsApproval(sale.lines, d, state.discount_limit_percent)
              : needsApproval(
                  sale.lines.map((l, n) => (n === discountFor ? { ...l, discount: d } : l)),
                  sale.saleDiscount,
                  state.discount_limit_percent,
                )
          }
          onCancel={() => {
            setDiscountFor(undefined);
            focusInput();
          }}
          onSave={(d) => {
            if (discountFor === null) dispatch({ type: 'sale_discount', discount: d });
            else dispatch({ type: 'line_discount', index: discountFor, discount: d });
            setDiscountFor(undefined);
            focusInput();
          }}
        />
      ) : null}
      {approval ? (
        <ApprovalDialog
          summary={`Los descuentos de esta venta (${formatArs(pricedSale(sale.lines, sale.saleDiscount).discountCents)}) superan el límite de ${String(state.discount_limit_percent).replace('.', ',')}\u00a0% para cajeros.`}
          error={approval.error}
          busy={approval.busy}
          onCancel={() => setApproval(null)}
          onApprove={(email, password) => void confirmSale(approval.payments, approval.customer, { email, password })}
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
