/** A jump larger than this fraction of the served rate is held until the next fetch confirms it. */
export const MAX_JUMP = 0.2;
/** A held reading is confirmed by a next reading within this fraction of it. */
export const CONFIRM_TOLERANCE = 0.05;

export interface Reading {
  source: string;
  rate: number;
  sourceUpdatedAt: Date;
}

export type Verdict =
  | { action: 'accept'; note: string | null }
  | { action: 'hold'; note: string }
  | { action: 'reject'; note: string }
  | { action: 'unchanged' };

const change = (from: number, to: number) => Math.abs(to - from) / from;
const percent = (fraction: number) => `${(fraction * 100).toFixed(1)} %`;

/**
 * Whether a fresh reading may replace the served rate. A rate is never invented: a non-positive
 * value is refused; a jump over MAX_JUMP is held and served only when the next reading confirms it
 * (within CONFIRM_TOLERANCE of the held one), which tells a real move from a one-off glitch.
 */
export function judgeReading(reading: Reading, served: Reading | null, held: Reading | null): Verdict {
  if (!Number.isFinite(reading.rate) || reading.rate <= 0) return { action: 'reject', note: `non-positive rate ${reading.rate}` };
  if (!served) return { action: 'accept', note: null };
  if (
    served.source === reading.source &&
    served.rate === reading.rate &&
    served.sourceUpdatedAt.getTime() === reading.sourceUpdatedAt.getTime()
  ) {
    return { action: 'unchanged' };
  }
  const jump = change(served.rate, reading.rate);
  if (jump <= MAX_JUMP) return { action: 'accept', note: null };
  if (held && change(held.rate, reading.rate) <= CONFIRM_TOLERANCE) {
    return { action: 'accept', note: `jump of ${percent(jump)} from ${served.rate} confirmed by a second reading` };
  }
  return { action: 'hold', note: `jump of ${percent(jump)} from ${served.rate}; waiting for the next fetch to confirm it` };
}
