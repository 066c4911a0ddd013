import { AppError } from '../../lib/errors.ts';
import { fromCents, toCents } from '../../lib/money.ts';

// Discounts at the register (issue 29): per line and per sale, as a percentage or an amount, with
// a reason. Pure arithmetic on cents; the cashier (cashier.ts) decides who may give them.

/** A discount as the register sends it: exactly one of percent or amount, and why. */
export interface DiscountInput {
  percent?: number;
  amount?: number;
  reason: string;
}

/** The company's default limit for cashiers, in percent of what the sale (or a line) costs. */
export const DEFAULT_DISCOUNT_LIMIT_PERCENT = 10;

/** The limit a company's settings set (companies.settings.discountLimitPercent), or the default. */
export function discountLimitOf(settings: Record<string, unknown>): number {
  const value = settings['discountLimitPercent'];
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 && value <= 100
    ? value
    : DEFAULT_DISCOUNT_LIMIT_PERCENT;
}

/** round(base × percent / 100) in cents, half away from zero; percent has at most 2 decimals. */
export function percentOf(baseCents: number, percent: number): number {
  const hundredths = Math.round(percent * 100);
  return Math.floor((baseCents * hundredths + 5000) / 10000);
}

/**
 * The cents a discount takes off `baseCents`; 422 when it is malformed or more than the base, or
 * (with `checkReason`) has no reason.
 */
export function discountCents(input: DiscountInput, baseCents: number, path: string, checkReason = true): number {
  const bad = (message: string, field = '') =>
    new AppError('validation_failed', `${path.slice(1).replaceAll('/', '.')}${field}: ${message}`, {
      details: [{ path: `${path}${field.replace('.', '/')}`, message }],
    });
  if (checkReason && input.reason.trim().length === 0) throw bad('must not be empty', '.reason');
  const hasPercent = input.percent !== undefined;
  const hasAmount = input.amount !== undefined;
  if (hasPercent === hasAmount) throw bad('give either percent or amount');
  let cents: number;
  if (hasPercent) {
    const percent = input.percent!;
    if (!(percent > 0 && percent <= 100) || Math.abs(percent * 100 - Math.round(percent * 100)) > 1e-6) {
      throw bad('must be above 0 and at most 100, with at most 2 decimals', '.percent');
    }
    cents = percentOf(baseCents, percent);
  } else {
    cents = toCents(input.amount!);
    if (cents <= 0) throw bad('must be at least 0.01', '.amount');
  }
  if (cents > baseCents) throw bad(`is more than what it discounts (${fromCents(baseCents)})`);
  return cents;
}

/** A priced line before discounts: its gross (what it costs at its price). */
export interface GrossLine {
  subtotalCents: number;
}

export interface DiscountedLine {
  /** The line's own discount. */
  discountCents: number;
  /** The line's share of the sale's discount. */
  saleDiscountCents: number;
  /** What the line costs: gross − discount − share. */
  netCents: number;
  reason: string | null;
}

export interface DiscountedSale {
  lines: DiscountedLine[];
  /** The sale's own discount (the sum of the shares). */
  saleDiscountCents: number;
  saleReason: string | null;
  grossCents: number;
  totalCents: number;
  /** Every discount of the sale (lines' and the sale's). */
  discountCents: number;
}

/**
 * Applies each line's discount, then the sale's on what the lines then cost, spread over the lines
 * in proportion to that (largest remainder, so the shares add up to the sale's discount exactly).
 * `checkReasons: false` prices discounts whose reason is still being typed (the register's preview).
 */
export function applyDiscounts(
  lines: GrossLine[],
  lineDiscounts: (DiscountInput | undefined)[],
  saleDiscount: DiscountInput | undefined,
  { checkReasons = true }: { checkReasons?: boolean } = {},
): DiscountedSale {
  const own = lines.map((l, n) => {
    const d = lineDiscounts[n];
    return d ? discountCents(d, l.subtotalCents, `/items/${n}/discount`, checkReasons) : 0;
  });
  const afterLines = lines.map((l, n) => l.subtotalCents - own[n]!);
  const base = afterLines.reduce((s, c) => s + c, 0);
  const saleCents = saleDiscount ? discountCents(saleDiscount, base, '/discount', checkReasons) : 0;
  const shares = spread(saleCents, afterLines);
  const grossCents = lines.reduce((s, l) => s + l.subtotalCents, 0);
  const out = lines.map(
    (_, n): DiscountedLine => ({
      discountCents: own[n]!,
      saleDiscountCents: shares[n]!,
      netCents: afterLines[n]! - shares[n]!,
      reason: own[n]! > 0 ? lineDiscounts[n]!.reason.trim() : null,
    }),
  );
  const totalCents = out.reduce((s, l) => s + l.netCents, 0);
  return {
    lines: out,
    saleDiscountCents: saleCents,
    saleReason: saleCents > 0 ? saleDiscount!.reason.trim() : null,
    grossCents,
    totalCents,
    discountCents: grossCents - totalCents,
  };
}

/**
 * `amount` spread over `weights` in proportion, largest remainder first; no share above its weight.
 * `amount` is at most the sum of the weights (a discount is never more than what it discounts).
 */
export function spread(amount: number, weights: number[]): number[] {
  const sum = weights.reduce((s, w) => s + w, 0);
  if (amount === 0 || sum === 0) return weights.map(() => 0);
  const exact = weights.map((w) => (amount * w) / sum);
  const shares = exact.map((e) => Math.floor(e));
  let left = amount - shares.reduce((s, c) => s + c, 0);
  const order = exact.map((e, n) => ({ n, rest: e - Math.floor(e) })).sort((a, b) => b.rest - a.rest || a.n - b.n);
  for (const { n } of order) {
    if (left === 0) break;
    if (shares[n]! < weights[n]!) {
      shares[n] = shares[n]! + 1;
      left -= 1;
    }
  }
  return shares;
}

/**
 * Whether the discounts go beyond `limitPercent`: a line's own discount beyond the limit of what the
 * line costs, or all the sale's discounts beyond the limit of what the sale costs before them. The
 * limit in cents is rounded as a percentage discount is, so "10 %" is always within a 10 % limit.
 */
export function beyondLimit(lines: GrossLine[], sale: DiscountedSale, limitPercent: number): boolean {
  if (sale.discountCents === 0) return false;
  const lineBeyond = lines.some((l, n) => sale.lines[n]!.discountCents > percentOf(l.subtotalCents, limitPercent));
  return lineBeyond || sale.discountCents > percentOf(sale.grossCents, limitPercent);
}

/** The discount as a percentage of the gross, 2 decimals (for the audit and the message). */
export function discountPercent(sale: DiscountedSale): number {
  return sale.grossCents === 0 ? 0 : Math.round((sale.discountCents * 10000) / sale.grossCents) / 100;
}
