import { describe, expect, it } from 'vitest';
import { ean13 } from '../../../lib/barcode.ts';
import { DEFAULT_SCALE_LABEL_LAYOUT } from '../../../modules/scanner/scale-label.ts';
import { Catalog } from './catalog.ts';
import {
  discountOff,
  initialSale,
  interpretEntry,
  needsApproval,
  pricedSale,
  type SaleAction,
  type SaleState,
  saleReducer,
  saleTotal,
} from './sale-state.ts';
import type { TicketData } from './types.ts';

const catalog = new Catalog(
  [
    [1, 'Yerba mate 1 kg', 4250.5, '7790000000011', null, 'unit'],
    [2, 'Queso cremoso', 9000, null, '123', 'kg'],
    [3, 'Yerba compuesta', 2300, null, null, 'unit'],
  ],
  DEFAULT_SCALE_LABEL_LAYOUT,
);
const yerba = catalog.byId(1)!;
const queso = catalog.byId(2)!;

const run = (...actions: SaleAction[]) => actions.reduce(saleReducer, initialSale);
const ticket = (key: string): TicketData => ({
  key,
  soldAt: '2026-11-25T12:00:00Z',
  boxName: 'Caja 1',
  lines: [],
  payments: [],
  totalCents: 0,
  changeCents: 0,
  sale: null,
});

describe('saleReducer', () => {
  it('adds a unit product once and counts it up; the total is the sum of the lines', () => {
    const s = run(
      { type: 'add', product: yerba },
      { type: 'add', product: yerba, qtyMilli: 2000 },
      { type: 'add', product: queso, qtyMilli: 500 },
    );
    expect(s.lines.map((l) => [l.product.id, l.qtyMilli, l.subtotalCents])).toEqual([
      [1, 3000, 1_275_150],
      [2, 500, 450_000],
    ]);
    expect(s.selected).toBe(1);
    expect(saleTotal(s)).toBe(1_275_150 + 450_000);
    expect(new Set(s.lines.map((l) => l.uid)).size).toBe(2);
  });

  it('changes quantities, drops a line that reaches zero, keeps a scale line as printed', () => {
    const label: SaleAction = {
      type: 'add_label',
      product: queso,
      qtyMilli: 750,
      subtotalCents: 675_000,
      label: '2000123007504',
      priceLabel: false,
    };
    let s = run({ type: 'add', product: yerba }, label);
    s = saleReducer(s, { type: 'change_qty', index: 1, deltaMilli: 1000 });
    expect(s.lines[1]!.qtyMilli).toBe(750);
    s = saleReducer(s, { type: 'change_qty', index: 0, deltaMilli: -1000 });
    expect(s.lines.map((l) => l.product.id)).toEqual([2]);
    expect(s.selected).toBe(0);
    s = saleReducer(s, { type: 'remove', index: 0 });
    expect(s).toMatchObject({ lines: [], selected: -1 });
  });

  it('walks the modes: sell → pay → ticket → sell, and close → report → sell', () => {
    expect(run({ type: 'pay' }).mode).toBe('sell'); // nothing to charge
    let s: SaleState = run({ type: 'add', product: yerba }, { type: 'pay' });
    expect(s.mode).toBe('pay');
    expect(saleReducer(s, { type: 'back' }).mode).toBe('sell');
    s = saleReducer(s, { type: 'sold', ticket: ticket('k1') });
    expect(s).toMatchObject({ mode: 'ticket', lines: [], selected: -1, ticket: { key: 'k1', sale: null } });
    expect(saleReducer(s, { type: 'pay' }).mode).toBe('ticket');
    s = saleReducer(s, { type: 'ticket_sent', key: 'other', sale: { id: 9 } as never });
    expect(s.ticket?.sale).toBeNull();
    s = saleReducer(s, { type: 'ticket_sent', key: 'k1', sale: { id: 7 } as never });
    expect(s.ticket?.sale).toEqual({ id: 7 });
    s = saleReducer(s, { type: 'next_sale', firstKey: '7' });
    expect(s).toMatchObject({ mode: 'sell', ticket: null, query: '7' });
    expect(run({ type: 'close' }, { type: 'closed' }).mode).toBe('report');
    expect(run({ type: 'close' }, { type: 'closed' }, { type: 'back' }).mode).toBe('sell');
  });

  it('moves through the found products first, else through the lines', () => {
    let s = run({ type: 'add', product: yerba }, { type: 'add', product: queso }, { type: 'select', index: 0 });
    s = saleReducer(s, { type: 'move', delta: 1 });
    expect(s.selected).toBe(1);
    s = saleReducer(s, { type: 'move', delta: 1 });
    expect(s.selected).toBe(1);
    s = saleReducer(s, { type: 'query', text: 'yerba', results: catalog.search('yerba') });
    s = saleReducer(s, { type: 'move', delta: 5 });
    expect([s.resultIndex, s.selected]).toEqual([1, 1]);
    s = saleReducer(s, { type: 'add', product: s.results[s.resultIndex]! });
    // The second found is the yerba already in the sale: its line counts up.
    expect(s).toMatchObject({ query: '', results: [], selected: 0 });
    expect(s.lines[0]!.qtyMilli).toBe(2000);
  });
});

describe('interpretEntry', () => {
  it('reads a barcode, a quantity before *, a scale label and a name', () => {
    expect(interpretEntry('7790000000011', catalog)).toEqual({ action: { type: 'add', product: yerba, qtyMilli: 1000 } });
    expect(interpretEntry('3*7790000000011', catalog)).toEqual({ action: { type: 'add', product: yerba, qtyMilli: 3000 } });
    expect(interpretEntry('0,5*cremoso', catalog)).toEqual({ action: { type: 'add', product: queso, qtyMilli: 500 } });
    const label = ean13('200012300450'); // PLU 00123, $ 450 at $ 9000 the kg → 0.05 kg
    expect(interpretEntry(label, catalog)).toEqual({
      action: { type: 'add_label', product: queso, qtyMilli: 50, subtotalCents: 45_000, label, priceLabel: true },
    });
    expect(interpretEntry('yerba', catalog)).toEqual({ choose: [catalog.byId(3), yerba] });
  });

  it('says what is wrong in Spanish, and clears the input after an unknown scan', () => {
    expect(interpretEntry('x*779', catalog)).toEqual({ error: 'La cantidad "x" no es válida.' });
    expect(interpretEntry('77999999', catalog)).toEqual({ error: 'No encontramos el código 77999999.', clear: true });
    expect(interpretEntry('fideos', catalog)).toEqual({ error: 'Ningún producto se llama "fideos".' });
  });
});

describe('discounts in the sale being loaded', () => {
  it('a line discount and a sale discount change the total as the server will; clearing or selling forgets them', () => {
    const loaded = run(
      { type: 'add', product: yerba, qtyMilli: 2000 },
      { type: 'add', product: catalog.byId(3)! },
      { type: 'line_discount', index: 0, discount: { kind: 'percent', value: 1000, reason: 'Promo' } },
    );
    // 2 × 4.250,50 = 8.501 − 850,10 + 2.300 = 9.950,90
    expect(saleTotal(loaded)).toBe(995_090);
    const withSale = saleReducer(loaded, {
      type: 'sale_discount',
      discount: { kind: 'amount', value: 95_090, reason: 'Redondeo' },
    });
    expect(saleTotal(withSale)).toBe(900_000);
    expect(pricedSale(withSale.lines, withSale.saleDiscount).saleDiscountCents).toBe(95_090);
    expect(needsApproval(withSale.lines, withSale.saleDiscount, 10)).toBe(true); // 1.945,10 of 10.801 = 18 %
    expect(needsApproval(loaded.lines, loaded.saleDiscount, 10)).toBe(false);
    expect(saleReducer(withSale, { type: 'clear' }).saleDiscount).toBeNull();
    expect(saleReducer(withSale, { type: 'sold', ticket: ticket('k') }).saleDiscount).toBeNull();
    const removed = saleReducer(withSale, { type: 'line_discount', index: 0, discount: null });
    expect(saleTotal(removed)).toBe(1_080_100 - 95_090);
  });

  it('a discount that no longer fits its line (the line shrank) counts as none, not as an error', () => {
    const state = run(
      { type: 'add', product: yerba, qtyMilli: 2000 },
      { type: 'line_discount', index: 0, discount: { kind: 'amount', value: 500_000, reason: 'x' } },
    );
    expect(saleTotal(state)).toBe(350_100);
    const shrunk = saleReducer(state, { type: 'change_qty', index: 0, deltaMilli: -1000 });
    expect(saleTotal(shrunk)).toBe(425_050);
    expect(discountOff({ kind: 'amount', value: 500_000, reason: 'x' }, 425_050)).toBeNull();
  });
});

describe('restore (the sale kept across a reload, issue 29)', () => {
  it('puts the kept lines back, before the lines loaded meanwhile (none is lost)', () => {
    const yerba = catalog.byId(1)!;
    const kept = saleReducer(saleReducer(initialSale, { type: 'add', product: yerba }), { type: 'add', product: yerba });
    const restored = saleReducer(initialSale, { type: 'restore', lines: kept.lines });
    expect(restored.lines).toEqual(kept.lines);
    expect(saleTotal(restored)).toBe(saleTotal(kept));
    // New lines after a restore get new uids.
    const more = saleReducer(restored, { type: 'add', product: catalog.byId(3)! });
    expect(new Set(more.lines.map((l) => l.uid)).size).toBe(2);
    // A line scanned before the kept ones came back stays, after them, with a uid of its own.
    const busy = saleReducer(initialSale, { type: 'add', product: catalog.byId(3)! });
    const merged = saleReducer(busy, { type: 'restore', lines: kept.lines });
    expect(merged.lines.map((l) => [l.product.id, l.qtyMilli])).toEqual([
      [1, 2000],
      [3, 1000],
    ]);
    expect(new Set(merged.lines.map((l) => l.uid)).size).toBe(2);
    expect(saleTotal(merged)).toBe(saleTotal(kept) + saleTotal(busy));
    expect(merged.selected).toBe(1);
    const after = saleReducer(merged, { type: 'add', product: catalog.byId(2)! });
    expect(new Set(after.lines.map((l) => l.uid)).size).toBe(3);
    // Nothing comes back into a sale being paid.
    const paying = saleReducer(busy, { type: 'pay' });
    expect(saleReducer(paying, { type: 'restore', lines: kept.lines })).toBe(paying);
  });
});
