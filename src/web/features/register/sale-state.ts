import { lineTotalCents } from '../../../lib/money.ts';
import {
  applyDiscounts,
  beyondLimit,
  type DiscountedSale,
  type DiscountInput,
  percentOf,
} from '../../../modules/register/discounts.ts';
import type { Catalog, Product } from './catalog.ts';
import type { SaleWire } from './sync.ts';
import type { Discount, Line, TicketData } from './types.ts';

/**
 * The cashier's screen as an explicit state: what it shows (`mode`), the sale being loaded, the
 * search under the input and the last ticket. Every change is an action through `saleReducer`,
 * a pure function (tested in sale-state.test.ts); the components only dispatch.
 *
 *   sell ──pay──▶ pay ──sold──▶ ticket ──next──▶ sell
 *    ▲  ◀──back──┘                               │
 *    └──back── close ──closed──▶ report ──back───┘
 */
export type Mode = 'sell' | 'pay' | 'ticket' | 'close' | 'report';

export interface SaleState {
  mode: Mode;
  lines: Line[];
  /** The highlighted line (−1: none). */
  selected: number;
  query: string;
  results: Product[];
  resultIndex: number;
  ticket: TicketData | null;
  nextUid: number;
  /** The discount on the whole sale. */
  saleDiscount: Discount | null;
}

export type SaleAction =
  | { type: 'add'; product: Product; qtyMilli?: number }
  | { type: 'add_label'; product: Product; qtyMilli: number; subtotalCents: number; label: string; priceLabel: boolean }
  | { type: 'change_qty'; index: number; deltaMilli: number }
  | { type: 'remove'; index: number }
  | { type: 'line_discount'; index: number; discount: Discount | null }
  | { type: 'sale_discount'; discount: Discount | null }
  | { type: 'select'; index: number }
  | { type: 'move'; delta: number }
  | { type: 'query'; text: string; results?: Product[] }
  | { type: 'clear' }
  | { type: 'pay' }
  | { type: 'back' }
  | { type: 'sold'; ticket: TicketData }
  | { type: 'ticket_sent'; key: string; sale: SaleWire }
  | { type: 'next_sale'; firstKey?: string }
  | { type: 'close' }
  | { type: 'closed' }
  /** The sale that was being loaded before a reload (IndexedDB), back on screen. */
  | { type: 'restore'; lines: Line[]; saleDiscount?: Discount | null };

export const initialSale: SaleState = {
  mode: 'sell',
  lines: [],
  selected: -1,
  query: '',
  results: [],
  resultIndex: 0,
  ticket: null,
  nextUid: 1,
  saleDiscount: null,
};

const subtotal = (priceCents: number, qtyMilli: number) => lineTotalCents(priceCents / 100, qtyMilli / 1000);
const clamp = (n: number, max: number) => Math.max(Math.min(n, max), max < 0 ? -1 : 0);
/** After lines go away the highlight stays where it was, or on the last line. */
const keep = (selected: number, lines: Line[]) => Math.min(selected, lines.length - 1);

export function saleReducer(state: SaleState, action: SaleAction): SaleState {
  switch (action.type) {
    case 'restore': {
      // Kept lines go first; a line loaded before they came back stays, after them, with a new
      // uid (nothing the cashier loaded is lost). Never into a sale already being paid or done.
      if (action.lines.length === 0 || state.mode !== 'sell') return state;
      let nextUid = Math.max(1, ...action.lines.map((l) => l.uid + 1));
      const meanwhile = state.lines.map((l) => ({ ...l, uid: nextUid++ }));
      const lines = [...action.lines, ...meanwhile];
      return {
        ...state,
        lines,
        selected: lines.length - 1,
        nextUid: Math.max(nextUid, state.nextUid),
        saleDiscount: state.saleDiscount ?? action.saleDiscount ?? null,
      };
    }
    case 'add': {
      const qtyMilli = action.qtyMilli ?? 1000;
      const { product } = action;
      const same = state.lines.findIndex((l) => l.product.id === product.id && l.scaleLabel === null);
      const cleared = { query: '', results: [], resultIndex: 0 };
      if (same >= 0 && product.unit === 'unit') {
        const lines = state.lines.map((l, n) =>
          n === same
            ? { ...l, qtyMilli: l.qtyMilli + qtyMilli, subtotalCents: subtotal(l.priceCents, l.qtyMilli + qtyMilli) }
            : l,
        );
        return { ...state, ...cleared, lines, selected: same };
      }
      const line: Line = {
        uid: state.nextUid,
        product,
        qtyMilli,
        priceCents: product.priceCents,
        subtotalCents: subtotal(product.priceCents, qtyMilli),
        scaleLabel: null,
        priceLabel: false,
      };
      return { ...state, ...cleared, lines: [...state.lines, line], selected: state.lines.length, nextUid: state.nextUid + 1 };
    }
    case 'add_label': {
      const line: Line = {
        uid: state.nextUid,
        product: action.product,
        qtyMilli: action.qtyMilli,
        priceCents: action.product.priceCents,
        subtotalCents: action.subtotalCents,
        scaleLabel: action.label,
        priceLabel: action.priceLabel,
      };
      return {
        ...state,
        query: '',
        results: [],
        lines: [...state.lines, line],
        selected: state.lines.length,
        nextUid: state.nextUid + 1,
      };
    }
    case 'change_qty': {
      const lines = state.lines.flatMap((l, n) => {
        if (n !== action.index || l.scaleLabel) return [l];
        const qty = l.qtyMilli + action.deltaMilli;
        return qty <= 0 ? [] : [{ ...l, qtyMilli: qty, subtotalCents: subtotal(l.priceCents, qty) }];
      });
      return { ...state, lines, selected: keep(state.selected, lines) };
    }
    case 'remove': {
      const lines = state.lines.filter((_, n) => n !== action.index);
      return { ...state, lines, selected: keep(state.selected, lines) };
    }
    case 'line_discount': {
      const lines = state.lines.map((l, n) => (n === action.index ? { ...l, discount: action.discount } : l));
      return { ...state, lines };
    }
    case 'sale_discount':
      return { ...state, saleDiscount: action.discount };
    case 'select':
      return { ...state, selected: clamp(action.index, state.lines.length - 1) };
    case 'move':
      return state.results.length > 0
        ? { ...state, resultIndex: clamp(state.resultIndex + action.delta, state.results.length - 1) }
        : { ...state, selected: clamp(state.selected + action.delta, state.lines.length - 1) };
    case 'query':
      return { ...state, query: action.text, results: action.results ?? [], resultIndex: 0 };
    case 'clear':
      return { ...state, lines: [], selected: -1, saleDiscount: null };
    case 'pay':
      return state.mode === 'sell' && state.lines.length > 0 ? { ...state, mode: 'pay' } : state;
    case 'back':
      return { ...state, mode: 'sell' };
    case 'sold':
      return {
        ...state,
        mode: 'ticket',
        ticket: action.ticket,
        lines: [],
        selected: -1,
        query: '',
        results: [],
        saleDiscount: null,
      };
    case 'ticket_sent':
      return state.ticket?.key === action.key ? { ...state, ticket: { ...state.ticket, sale: action.sale } } : state;
    case 'next_sale':
      return { ...state, mode: 'sell', ticket: null, query: action.firstKey ?? '', results: [] };
    case 'close':
      return { ...state, mode: 'close' };
    case 'closed':
      return { ...state, mode: 'report' };
  }
}

/** A discount as the API takes it. */
export function discountInput(d: Discount): DiscountInput {
  return d.kind === 'percent' ? { percent: d.value / 100, reason: d.reason } : { amount: d.value / 100, reason: d.reason };
}

/** What a discount takes off `baseCents` (the server's arithmetic), or null when it is more than the base. */
export function discountOff(d: Discount, baseCents: number): number | null {
  const cents = d.kind === 'percent' ? percentOf(baseCents, d.value / 100) : d.value;
  return cents > baseCents ? null : cents;
}

/**
 * The sale's lines with their discounts, as the server will charge them (the same arithmetic,
 * modules/register/discounts.ts). A discount that no longer fits (the line shrank) counts as none.
 * It prices while the screen draws, so it never throws for a reason not typed yet (the discount
 * dialog asks for it on saving, and the server refuses a sale without it).
 */
export function pricedSale(lines: Line[], saleDiscount: Discount | null): DiscountedSale {
  const fits = (d: Discount | null | undefined, base: number) => (d && discountOff(d, base) !== null ? d : undefined);
  const own = lines.map((l) => fits(l.discount, l.subtotalCents));
  const base = lines.reduce((s, l, n) => s + l.subtotalCents - (own[n] ? discountOff(own[n]!, l.subtotalCents)! : 0), 0);
  const sale = fits(saleDiscount, base);
  return applyDiscounts(
    lines,
    own.map((d) => (d ? discountInput(d) : undefined)),
    sale ? discountInput(sale) : undefined,
    { checkReasons: false },
  );
}

/** Whether the sale's discounts need an admin's approval (beyond the company's limit, for a cashier). */
export function needsApproval(lines: Line[], saleDiscount: Discount | null, limitPercent: number): boolean {
  return beyondLimit(lines, pricedSale(lines, saleDiscount), limitPercent);
}

export const saleTotal = (state: SaleState) => pricedSale(state.lines, state.saleDiscount).totalCents;

/** A quantity typed before `*` ("3*779…", "0,5*779…"), in thousandths. */
export function parseQuantity(text: string): number | null {
  const t = text.replace(',', '.');
  if (!/^\d+(\.\d{1,3})?$/.test(t)) return null;
  const milli = Math.round(Number(t) * 1000);
  return milli > 0 ? milli : null;
}

/**
 * What Enter on the input means: an action to dispatch, a list to choose from, or a message for
 * the cashier (`clear`: empty the input, as after any scan). `3*779…` sets the quantity; 4–14
 * digits are a barcode or scale label; anything else is a name.
 */
export function interpretEntry(
  text: string,
  catalog: Catalog,
): { action: SaleAction } | { error: string; clear?: boolean } | { choose: Product[] } {
  let rest = text.trim();
  let qtyMilli = 1000;
  const star = rest.indexOf('*');
  if (star > 0) {
    const qty = parseQuantity(rest.slice(0, star));
    if (qty === null) return { error: `La cantidad "${rest.slice(0, star)}" no es válida.` };
    qtyMilli = qty;
    rest = rest.slice(star + 1);
  }
  if (/^\d{4,14}$/.test(rest)) {
    const found = catalog.scan(rest);
    if (found.kind === 'unknown') return { error: found.reason, clear: true };
    if (found.kind === 'product') return { action: { type: 'add', product: found.product, qtyMilli } };
    const price = found.product.priceCents;
    const qty = found.weightMilli ?? (price > 0 ? Math.max(1, Math.round((found.priceCents! * 1000) / price)) : 1000);
    return {
      action: {
        type: 'add_label',
        product: found.product,
        qtyMilli: qty,
        subtotalCents: found.priceCents ?? subtotal(price, qty),
        label: found.label,
        priceLabel: found.priceCents !== null,
      },
    };
  }
  const matches = catalog.search(rest);
  if (matches.length === 1) return { action: { type: 'add', product: matches[0]!, qtyMilli } };
  if (matches.length === 0) return { error: `Ningún producto se llama "${rest}".` };
  return { choose: matches };
}
