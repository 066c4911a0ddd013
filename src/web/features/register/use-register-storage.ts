import { useEffect, useRef, useState } from 'preact/hooks';
import { type OfflineCaea, renewCaea } from './caea-offline.ts';
import type { SaleAction, SaleState } from './sale-state.ts';
import type { RegisterStore } from './store.ts';
import type { Discount, Line } from './types.ts';

/** The sale being loaded survives a reload (issue 29): kept in IndexedDB, put back when the page opens. */
export function useKeptCart(store: RegisterStore, sale: SaleState, dispatch: (a: SaleAction) => void) {
  const loaded = useRef(false);
  useEffect(() => {
    store
      .getCart<{ lines: Line[]; saleDiscount?: Discount | null }>()
      .then((cart) => {
        if (cart?.lines?.length) dispatch({ type: 'restore', lines: cart.lines, saleDiscount: cart.saleDiscount ?? null });
      })
      .catch(() => {})
      .finally(() => {
        loaded.current = true;
      });
  }, [store]);
  useEffect(() => {
    if (loaded.current) void store.putCart({ lines: sale.lines, saleDiscount: sale.saleDiscount }).catch(() => {});
  }, [store, sale.lines, sale.saleDiscount]);
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
