import { useEffect, useState } from 'preact/hooks';
import { type OfflineCaea, renewCaea } from './caea-offline.ts';
import type { SaleAction, SaleState } from './sale-state.ts';
import type { RegisterStore } from './store.ts';
import type { Discount, Line } from './types.ts';

/** The sale being loaded survives a reload (issue 29): kept in IndexedDB, put back when the page opens. */
export function useKeptCart(store: RegisterStore, sale: SaleState, dispatch: (a: SaleAction) => void) {
  // State, not a ref: once the kept cart is read, what is on screen then (the kept lines and any
  // scanned meanwhile) is written back at once, not only at the next change.
  const [loaded, setLoaded] = useState(false);
  useEffect(() => {
    store
      .getCart<{ lines: Line[]; saleDiscount?: Discount | null }>()
      .then((cart) => {
        if (cart?.lines?.length) dispatch({ type: 'restore', lines: cart.lines, saleDiscount: cart.saleDiscount ?? null });
      })
      .catch(() => {})
      .finally(() => setLoaded(true));
  }, [store]);
  useEffect(() => {
    if (loaded) void store.putCart({ lines: sale.lines, saleDiscount: sale.saleDiscount }).catch(() => {});
  }, [store, loaded, sale.lines, sale.saleDiscount]);
}

/**
 * The box's reserved CAEA numbers (issue 32), renewed whenever it is online with a shift open and
 * nothing left to send; null when the company has no CAEA for now.
 */
export function useCaeaHold(
  store: RegisterStore,
  { boxId, sessionId, offline, pending }: { boxId: number | null; sessionId: number | null; offline: boolean; pending: number },
) {
  const [held, setHeld] = useState<OfflineCaea | null>(null);
  useEffect(() => {
    if (offline || pending > 0 || boxId === null || sessionId === null) return;
    void renewCaea(store, boxId)
      .then(setHeld)
      .catch(() => {});
  }, [offline, pending, boxId, sessionId]);
  return held;
}
