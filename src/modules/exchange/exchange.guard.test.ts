import { describe, expect, it } from 'vitest';
import { judgeReading, type Reading } from './exchange.guard.ts';

const at = (rate: number, minute = 0, source = 'dolarapi.com:oficial'): Reading => ({
  source,
  rate,
  sourceUpdatedAt: new Date(Date.UTC(2026, 10, 20, 12, minute)),
});

describe('judgeReading', () => {
  it('accepts the first positive reading', () => {
    expect(judgeReading(at(1000), null, null)).toEqual({ action: 'accept', note: null });
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('rejects %d even with nothing served', (rate) => {
    expect(judgeReading(at(rate), null, null).action).toBe('reject');
  });

  it('reports an identical reading as unchanged', () => {
    expect(judgeReading(at(1000), at(1000), null)).toEqual({ action: 'unchanged' });
  });

  it('accepts moves up to 20 % either way', () => {
    expect(judgeReading(at(1200, 1), at(1000), null).action).toBe('accept');
    expect(judgeReading(at(800, 1), at(1000), null).action).toBe('accept');
  });

  it('holds moves over 20 %', () => {
    expect(judgeReading(at(1201, 1), at(1000), null).action).toBe('hold');
    expect(judgeReading(at(799, 1), at(1000), null).action).toBe('hold');
  });

  it('accepts a held jump confirmed within 5 % by the next reading', () => {
    expect(judgeReading(at(1500, 2), at(1000), at(1500, 1)).action).toBe('accept');
    expect(judgeReading(at(1570, 2), at(1000), at(1500, 1)).action).toBe('accept');
  });

  it('keeps holding when the next reading does not confirm the held one', () => {
    expect(judgeReading(at(1600, 2), at(1000), at(1500, 1)).action).toBe('hold');
  });
});
