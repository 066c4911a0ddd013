import { useState } from 'preact/hooks';
import { ApiError, errorText } from '../../ui/api.ts';
import { needsIdentifiedBuyer, takeOfflineInvoice } from './caea-offline.ts';
import { checkout } from './checkout.ts';
import type { PickedCustomer } from './customer-picker.tsx';
import { needsApproval, type SaleAction, type SaleState, saleTotal } from './sale-state.ts';
import type { RegisterStore } from './store.ts';
import { isNetworkError, postSale } from './sync.ts';
import { OFFLINE_SHIFT, type Payment, type RegisterState, type TicketData } from './types.ts';
import type { useRegisterLink } from './use-register-link.ts';
import type { useRegisterShift } from './use-register-shift.ts';

/** A sale waiting for an admin's approval of its discounts (the payments already chosen). */
interface PendingApproval {
  payments: Payment[];
  customer: PickedCustomer | null;
  error: string | null;
  busy: boolean;
}

/**
 * Charging the sale on screen: online it is sent at once (POST /api/v1/sales); without connection,
 * or behind operations still queued, it waits in the queue (a consumer's sale printed under the
 * CAEA when the box holds numbers). Discounts beyond the cashier's limit wait for an admin's
 * approval, which is only ever sent online.
 */
export function useSell({
  sale,
  dispatch,
  box,
  sessionId,
  state,
  link,
  store,
  shift,
  notify,
}: {
  sale: SaleState;
  dispatch: (a: SaleAction) => void;
  box: { id: number; name: string } | null;
  sessionId: number | null;
  state: RegisterState;
  link: ReturnType<typeof useRegisterLink>;
  store: RegisterStore;
  shift: ReturnType<typeof useRegisterShift>;
  notify: (kind: 'ok' | 'error', text: string) => void;
}) {
  const [approval, setApproval] = useState<PendingApproval | null>(null);
  const total = saleTotal(sale);
  const offline = link.offline;

  async function confirmSale(
    payments: Payment[],
    customer: PickedCustomer | null,
    approvedBy?: { email: string; password: string },
  ) {
    if (!box || sessionId === null) return;
    if (!approvedBy && !state.can_discount_freely && needsApproval(sale.lines, sale.saleDiscount, state.discount_limit_percent)) {
      // Beyond the limit an admin approves on the spot, online (their password never waits in the queue).
      setApproval({ payments, customer, error: null, busy: false });
      return;
    }
    const key = crypto.randomUUID();
    const { body, draft } = checkout(sale, { key, box, payments, customer, catalogAt: link.catalogAt });
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
          if (err instanceof ApiError && err.code === 'shift_of_another_person') void shift.reloadState();
          // Someone closed this box's session elsewhere: open a new one to go on (the sale stays loaded).
          if (err instanceof ApiError && err.code === 'no_open_session') shift.forgetShift(box.id);
          notify('error', errorText(err));
          return;
        }
        link.setOffline(true);
      }
    }
    // Offline, a consumer's sale is invoiced under the CAEA with the box's next reserved number;
    // from the RG 5700 threshold it waits to be invoiced online, with the buyer's document.
    const invoice = customer ? null : await takeOfflineInvoice(store, box.id, total).catch(() => null);
    await store.enqueue({ key, body, totalCents: total, queuedAt: draft.soldAt, ...(invoice ? { invoice } : {}) });
    finish({ ...draft, offlineInvoice: invoice, invoiceNeedsBuyer: !customer && needsIdentifiedBuyer(total) });
    void link.sync();
  }

  function finish(data: TicketData) {
    dispatch({ type: 'sold', ticket: data });
    void link.refreshQueue();
  }

  return { approval, setApproval, confirmSale };
}
