import { describe, expect, it } from 'vitest';
import type { NameCandidate } from './scanner.repo.ts';
import { rankCandidates } from './scanner.service.ts';

const candidate = (id: number, score: number, closeness = 0): NameCandidate => ({
  id,
  score,
  closeness,
  name: `P${id}`,
  description: '',
  bc: null,
  basePrice: '1.00',
  photo: null,
  mark: null,
  categoryId: null,
  enable: true,
});

describe('rankCandidates', () => {
  it('orders by score, then closeness of the whole name, then id, and keeps 1 + 5', () => {
    const ranked = rankCandidates([
      candidate(9, 0.5, 0.1),
      candidate(3, 0.9),
      candidate(4, 0.5, 0.3),
      candidate(2, 0.5, 0.3),
      candidate(5, 0.4),
      candidate(6, 0.35),
      candidate(7, 0.31),
    ]);
    expect(ranked.map((c) => c.id)).toEqual([3, 2, 4, 9, 5, 6]);
  });

  it('offers looser alternatives but answers nothing when even the best is too weak', () => {
    expect(rankCandidates([candidate(1, 0.3), candidate(2, 0.25), candidate(3, 0.1)]).map((c) => c.id)).toEqual([1, 2]);
    expect(rankCandidates([candidate(1, 0.29), candidate(2, 0.25)])).toEqual([]);
  });
});
