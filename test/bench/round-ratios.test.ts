import { describe, expect, it } from 'vitest';
import { median, roundRatios, roundsText } from '../../bench/results.ts';

describe('the ratio of interleaved bench rounds', () => {
  it('pairs each round with the baseline measured next to it', () => {
    // The scanner's rounds of 2026-11-28: barcode against PK SELECT, req/s.
    const barcode = [2369, 2405, 3472];
    const pk = [4563, 3150, 4172];
    const byRound = roundRatios(barcode, pk);
    expect(byRound.map((r) => r.toFixed(2))).toEqual(['0.52', '0.76', '0.83']);
    expect(median(byRound)).toBeCloseTo(0.7635, 3);
    // The medians of the columns taken apart pair round 2's barcode with round 3's baseline.
    expect(median(barcode) / median(pk)).toBeCloseTo(0.5765, 3);
    expect(roundsText(byRound)).toBe("0.76 (median of the rounds' own: 0.52, 0.76, 0.83)");
  });

  it('takes the middle value, or the mean of the two middle ones', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([0.9, 0.8, 1.0, 0.7])).toBeCloseTo(0.85, 10);
    expect(median([5])).toBe(5);
  });

  it('does not sort the caller’s values', () => {
    const values = [3, 1, 2];
    median(values);
    expect(values).toEqual([3, 1, 2]);
  });

  it('refuses rounds without a baseline each', () => {
    expect(() => roundRatios([1, 2], [1])).toThrow(/2 rounds against 1 baselines/);
    expect(() => roundRatios([], [])).toThrow();
  });
});
