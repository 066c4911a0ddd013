import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'preact/hooks';
import { useConfirm } from '../../ui/dialog.tsx';
import { Notice, useNotice } from '../../ui/notice.tsx';
import { CloseSession, type SessionReport } from './close.tsx';
import { ConnectionBanner } from './connection-banner.tsx';
import { Handover } from './handover.tsx';
import { OpenSession } from './open-session.tsx';
import { PayDialog } from './pay-dialog.tsx';
import { DiscountApproval, SaleDiscountDialog } from './register-dialogs.tsx';
import { RegisterHead } from './register-head.tsx';
import { initialSale, interpretEntry, saleReducer, saleTotal } from './sale-state.ts';
import { SaleView } from './sale-view.tsx';
import { RegisterStore } from './store.ts';
import { Ticket } from './ticket.tsx';
import { OFFLINE_SHIFT, type RegisterState, type RegisterUser } from './types.ts';
import { useRegisterKeys } from './use-register-keys.ts';
import { useRegisterLink } from './use-register-link.ts';
import { useRegisterShift } from './use-register-shift.ts';
import { useSell } from './use-sell.ts';
import { useCaeaHold, useKeptCart } from './use-register-storage.ts';

export type { Line, RegisterState, RegisterUser } from './types.ts';

/**
 * The cashier's screen: open a shift, sell (scan, charge, ticket), close. The sale's state is the
 * reducer of sale-state.ts; the person's shift is useRegisterShift; the server link (catalogue,
 * offline queue) is useRegisterLink; what stays on the device (the cart, the CAEA numbers) is
 * use-register-storage; the keyboard is useRegisterKeys; each part of the screen is its own component.
 */
export function Register({ initial, user }: { initial: RegisterState; user: RegisterUser }) {
  const companyKey = useMemo(() => fold(initial.company.name), [initial.company.name]);
  const store = useMemo(() => new RegisterStore(companyKey), [companyKey]);
  const [notice, showNotice, clearNotice] = useNotice();
  const shift = useRegisterShift({ initial, user, store, notify: showNotice, clearNotice });
  const { state, box, boxId, sessionId } = shift;
  const [sale, dispatch] = useReducer(saleReducer, initialSale);
  const [report, setReport] = useState<SessionReport | null>(null);
  const { ask, dialog } = useConfirm();
  const input = useRef<HTMLInputElement>(null);
  const link = useRegisterLink(store, state.scale_label, dispatch, shift.onShiftsSent);
  const { catalog, offline, pending, failed } = link;
  useKeptCart(store, sale, dispatch);
  const caeaHeld = useCaeaHold(store, { boxId: box?.id ?? null, sessionId, offline, pending });
  const total = saleTotal(sale);
  // The discount dialog: a line's (its index) or the sale's (null); undefined when closed.
  const [discountFor, setDiscountFor] = useState<number | null | undefined>(undefined);
  const { approval, setApproval, confirmSale } = useSell({
    sale,
    dispatch,
    box,
    sessionId,
    state,
    link,
    store,
    shift,
    notify: showNotice,
  });

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

  if (state.boxes.length === 0) {
    return (
      <section class="card">
        <h1>Caja</h1>
        <p>La empresa todavía no tiene cajas. Un administrador puede crearlas en la configuración.</p>
      </section>
    );
  }
  if (shift.othersShift && box && sessionId !== null) {
    return (
      <>
        <Notice notice={notice} />
        <Handover
          sessionId={sessionId}
          boxName={box.name}
          owner={box.open_session_user_name ?? 'otra persona'}
          onDone={(id) => shift.takeShift(box.id, id)}
          onOtherBox={
            state.boxes.length > 1
              ? () => shift.setBoxId(state.boxes.find((b) => b.id !== box.id && b.open_session_id === null)?.id ?? box.id)
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
        onOpen={(cents, chosen) => void shift.openSession(link, cents, chosen)}
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
        onQueueClose={(counted, note) => void shift.queueClose(link, dispatch, counted, note)}
        report={report}
        onClosed={(r) => {
          setReport(r);
          dispatch({ type: 'closed' });
        }}
        onBack={() => dispatch({ type: 'back' })}
        onNewSession={() => {
          shift.forgetShift();
          setReport(null);
          dispatch({ type: 'back' });
        }}
      />
    );
  }

  return (
    <div class="register">
      <ConnectionBanner offline={offline} pending={pending} failed={failed} />
      <RegisterHead
        boxName={box?.name ?? ''}
        sessionId={sessionId}
        catalogSize={catalog ? catalog.size : null}
        user={user}
        caeaReady={caeaHeld !== null}
        onClose={() => dispatch({ type: 'close' })}
      />
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
        <SaleDiscountDialog
          sale={sale}
          index={discountFor}
          limitPercent={state.discount_limit_percent}
          free={state.can_discount_freely}
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
        <DiscountApproval
          sale={sale}
          limitPercent={state.discount_limit_percent}
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
