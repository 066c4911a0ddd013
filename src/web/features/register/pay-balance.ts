/**
 * What the payment dialog tells the cashier under the amount: "Falta" while the payments plus the
 * amount being typed are short of the total, "Vuelto" when cash goes over it, and neither when they
 * are even (never both, never a zero). An amount over what is left with a method other than cash
 * gives no change: it is refused on confirm, and shown as such here.
 */
export type PayBalance =
  | { kind: 'short'; cents: number }
  | { kind: 'change'; cents: number }
  | { kind: 'even' }
  | { kind: 'over_without_cash'; cents: number };

export function payBalance(totalCents: number, paidCents: number, typedCents: number | null, cash: boolean): PayBalance {
  const typed = typedCents !== null && typedCents > 0 ? typedCents : 0;
  const left = totalCents - paidCents - typed;
  if (left > 0) return { kind: 'short', cents: left };
  if (left === 0) return { kind: 'even' };
  // Over: change when the excess is cash (typed now, or a cash payment already added).
  return cash || typed === 0 ? { kind: 'change', cents: -left } : { kind: 'over_without_cash', cents: -left };
}
