import { describe, expect, it } from 'vitest';
import { printedLinesWithIva } from './printed-lines.ts';

describe('printed lines of a class B receipt', () => {
  it('a line split in two rows to add up keeps its whole bonificación on one row, which knows the whole quantity', () => {
    // 2 × Yerba at 2.390 with 313,03 off: 4.466,97, which no unit price times 2 gives.
    const rows = printedLinesWithIva([
      { name: 'Yerba', quantity: '2', unit: 'unit', price: '2390', subtotal: '4466.97', iva_rate: '21', discount: '313.03' },
    ]);
    expect(rows.map((r) => [r.quantityMilli, r.unitCents, r.amountCents, r.discountCents, r.lineQuantityMilli])).toEqual([
      [1000, 223_349, 223_349, 31_303, 2000],
      [1000, 223_348, 223_348, 0, 2000],
    ]);
    expect(rows.reduce((sum, r) => sum + r.amountCents, 0)).toBe(446_697);
  });

  it('a line printed whole says nothing more', () => {
    const [row] = printedLinesWithIva([
      { name: 'Pan', quantity: '2', unit: 'unit', price: '1000', subtotal: '1800', iva_rate: '21', discount: '200' },
    ]);
    expect(row).toMatchObject({ quantityMilli: 2000, unitCents: 90_000, discountCents: 20_000, lineQuantityMilli: 2000 });
  });
});
