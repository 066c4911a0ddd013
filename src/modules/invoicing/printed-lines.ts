import { toCents, toMilli } from '../../lib/money.ts';
import { IVA_IDS } from './fiscal-rules.ts';

/** A sale line as the printout receives it (decimal strings, prices with IVA). */
export interface SourceLine {
  name: string;
  quantity: string;
  unit: string;
  price: string;
  subtotal: string;
  iva_rate: string;
  /** The line's discounts (its own and its share of the sale's), with IVA; the subtotal is net of them. */
  discount?: string;
}

/** A line as printed: quantity × unitCents = amountCents (half even, to the cent). */
export interface PrintedLine {
  name: string;
  unit: string;
  /** Quantity in thousandths (1 unit = 1000). */
  quantityMilli: number;
  unitCents: number;
  amountCents: number;
  iva_rate: string;
  /** The bonificación already taken off this line's amount (class A: without IVA); 0 for none. */
  discountCents: number;
  /**
   * The sale line's whole quantity: a line printed in two rows (one unit split off so the amounts
   * add up) carries its whole bonificación on the first, which must say it is the line's.
   */
  lineQuantityMilli: number;
}

/** quantity × unit price to the cent, rounded as a sale's lines are (half away from zero). */
export function lineAmount(quantityMilli: number, unitCents: number): number {
  const product = quantityMilli * unitCents;
  return (product < 0 ? -1 : 1) * Math.floor((Math.abs(product) + 500) / 1000);
}

/**
 * Make a group of printed lines add up to `target` cents without breaking quantity × price =
 * amount on any of them. Each entry is one sale line's printed parts (one part to begin with). The
 * difference (a few cents of rounding) goes to the largest line: its unit price moves if some price
 * gives exactly the amount needed; otherwise one unit is printed on its own line ("1 × price + the
 * difference") and the rest keeps its price.
 */
function settle(entries: PrintedLine[][], target: number): void {
  const diff = target - entries.reduce((sum, parts) => sum + parts[0]!.amountCents, 0);
  if (diff === 0 || entries.length === 0) return;
  let at = 0;
  for (let i = 1; i < entries.length; i++) if (entries[i]![0]!.amountCents > entries[at]![0]!.amountCents) at = i;
  const line = entries[at]![0]!;
  const wanted = line.amountCents + diff;
  const guess = Math.round((wanted * 1000) / line.quantityMilli);
  const price = [guess, guess - 1, guess + 1].find((u) => lineAmount(line.quantityMilli, u) === wanted);
  if (price !== undefined) {
    entries[at] = [{ ...line, unitCents: price, amountCents: wanted }];
    return;
  }
  // Only a quantity above 1 can lack an exact price (below 1 a cent of price moves the amount by
  // less than a cent): split off one unit.
  const restMilli = line.quantityMilli - 1000;
  const rest = lineAmount(restMilli, line.unitCents);
  entries[at] = [
    { ...line, quantityMilli: restMilli, amountCents: rest },
    { ...line, quantityMilli: 1000, unitCents: wanted - rest, amountCents: wanted - rest, discountCents: 0 },
  ];
}

/** A line at a given unit price (cents, fractional allowed) rounded to the cent. */
function priced(line: SourceLine, unitExact: number, discountCents: number): PrintedLine {
  const quantityMilli = toMilli(line.quantity);
  const unitCents = Math.round(unitExact);
  return {
    name: line.name,
    unit: line.unit,
    quantityMilli,
    unitCents,
    amountCents: lineAmount(quantityMilli, unitCents),
    iva_rate: line.iva_rate,
    discountCents,
    lineQuantityMilli: quantityMilli,
  };
}

/**
 * The lines of a class B or C receipt: prices with IVA, each line's amount exactly what the sale
 * charged for it (so the lines add up to the total).
 */
export function printedLinesWithIva(lines: SourceLine[]): PrintedLine[] {
  return lines.flatMap((l) => {
    const milli = toMilli(l.quantity);
    const subtotal = toCents(l.subtotal);
    const entries = [[priced(l, milli > 0 ? (subtotal * 1000) / milli : toCents(l.price), toCents(l.discount ?? 0))]];
    settle(entries, subtotal);
    return entries[0]!;
  });
}

/**
 * The lines of a class A receipt: prices without IVA. Per rate the printed nets add up to the
 * base sent to ARCA (`bases`, cents by rate); exempt lines print what they charged.
 */
export function printedLinesWithoutIva(lines: SourceLine[], bases: Map<string, number>): PrintedLine[] {
  const entries = lines.map((l) => {
    const milli = toMilli(l.quantity);
    const perMille = IVA_IDS[l.iva_rate]?.perMille ?? 0;
    const subtotal = toCents(l.subtotal);
    // The bonificación as printed without IVA (informative: the amounts are already net of it).
    const discount = Math.round((toCents(l.discount ?? 0) * 1000) / (1000 + perMille));
    return [priced(l, milli > 0 ? (subtotal * 1000 * 1000) / (milli * (1000 + perMille)) : 0, discount)];
  });
  for (const rate of new Set(lines.map((l) => l.iva_rate))) {
    const group = entries.filter((_, i) => lines[i]!.iva_rate === rate);
    const target =
      rate === 'exento'
        ? lines.filter((l) => l.iva_rate === rate).reduce((sum, l) => sum + toCents(l.subtotal), 0)
        : (bases.get(rate) ?? 0);
    settle(group, target);
    // settle replaced entries of `group`; copy them back in the sale's order.
    let k = 0;
    for (let i = 0; i < lines.length; i++) if (lines[i]!.iva_rate === rate) entries[i] = group[k++]!;
  }
  return entries.flat();
}
