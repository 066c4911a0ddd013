import type { RefObject } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import type { SaleAction, SaleState } from './sale-state.ts';

/**
 * The register's keyboard. On the input: Enter adds (or charges an empty input), ↑↓ choose,
 * Esc clears, +/− change the quantity and Supr removes the highlighted line. Anywhere: F2 search,
 * F4 charge, F8 cancel the sale, F9 print the ticket; on the ticket, Enter or the next scan starts
 * the next sale. A scanner types wherever the focus is: keys that land on the page go to the input.
 * Returns the input's keydown handler.
 */
export function useRegisterKeys({
  sale,
  dispatch,
  input,
  enter,
  startPay,
  clearSale,
}: {
  sale: SaleState;
  dispatch: (action: SaleAction) => void;
  input: RefObject<HTMLInputElement | null>;
  enter: () => void;
  startPay: () => void;
  clearSale: () => void;
}): (e: KeyboardEvent) => void {
  const { mode } = sale;

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement;
      if (mode !== 'sell' || e.key.length !== 1 || e.ctrlKey || e.metaKey || e.altKey) return;
      if (target === document.body || target.tagName === 'BUTTON') input.current?.focus();
    };
    window.addEventListener('keydown', onKey, { capture: true });
    return () => window.removeEventListener('keydown', onKey, { capture: true });
  }, [mode]);

  // The listener is registered once and calls this render's handler through a ref: a key pressed
  // right after a scan (before effects run) sees the new line.
  const pageKeys = useRef<(e: KeyboardEvent) => void>(() => {});
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => pageKeys.current(e);
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  pageKeys.current = (e: KeyboardEvent) => {
    if (e.key === 'F2') {
      e.preventDefault();
      if (mode === 'sell') {
        dispatch({ type: 'query', text: '' });
        input.current?.focus();
      }
    } else if (e.key === 'F4') {
      e.preventDefault();
      if (mode === 'sell') startPay();
    } else if (e.key === 'F8') {
      e.preventDefault();
      if (mode === 'sell') clearSale();
    } else if (e.key === 'F9' && mode === 'ticket') {
      e.preventDefault();
      window.print();
    } else if (
      mode === 'ticket' &&
      // Typing in the invoice's buyer form (or on a button or link) is not the next scan.
      !(e.target as HTMLElement).closest?.('button, a, input, select, textarea, [data-invoice-panel]') &&
      !e.ctrlKey &&
      !e.metaKey &&
      !e.altKey &&
      (e.key === 'Enter' || e.key.length === 1)
    ) {
      // The scan's first key is kept as the start of the next sale's input.
      e.preventDefault();
      dispatch({ type: 'next_sale', ...(e.key.length === 1 ? { firstKey: e.key } : {}) });
    }
  };

  return (e: KeyboardEvent) => {
    if (mode !== 'sell') return;
    if (e.key === 'Enter') {
      e.preventDefault();
      enter();
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      dispatch({ type: 'move', delta: e.key === 'ArrowDown' ? 1 : -1 });
    } else if (e.key === 'Escape') {
      dispatch({ type: 'query', text: '' });
    } else if (sale.query === '' && (e.key === '+' || e.key === '-') && sale.selected >= 0) {
      e.preventDefault();
      dispatch({ type: 'change_qty', index: sale.selected, deltaMilli: e.key === '+' ? 1000 : -1000 });
    } else if (sale.query === '' && e.key === 'Delete' && sale.selected >= 0) {
      e.preventDefault();
      dispatch({ type: 'remove', index: sale.selected });
    }
  };
}
