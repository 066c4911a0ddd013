import { describe, expect, it } from 'vitest';
import { denseWindow, type PairShares } from './catalog.repo.ts';

// Shares as the bench's 100,000 products give them (pg_stats of products_search_pairs_idx).
const bench: PairShares = {
  share: new Map([
    // galletitas
    ['ga', 0.25],
    ['al', 0.3],
    ['ll', 0.174],
    ['le', 0.25],
    ['et', 0.17],
    ['ti', 0.0825],
    ['it', 0.1],
    ['ta', 0.15],
    ['as', 0.12],
    // terrabusi
    ['te', 0.2],
    ['er', 0.417],
    ['rr', 0.176],
    ['ra', 0.3],
    ['ab', 0.1],
    ['bu', 0.0995],
    ['us', 0.11],
    ['si', 0.12],
    // azucar ledesma
    ['az', 0.174],
    ['zu', 0.0813],
    ['uc', 0.0813],
    ['ca', 0.2],
    ['ar', 0.327],
    ['ed', 0.101],
    ['de', 0.2],
    ['es', 0.101],
    ['sm', 0.101],
    ['ma', 0.3],
    // harina kg yerba
    ['ha', 0.0833],
    ['ri', 0.0833],
    ['in', 0.265],
    ['na', 0.0833],
    ['kg', 0.0166],
    ['ye', 0.0824],
    ['rb', 0.0824],
    ['ba', 0.0824],
  ]),
  rarest: 0.0162,
};

describe('denseWindow: how many products in id order the list reads before it asks the indexes', () => {
  it('keeps 40 rows per row of the page without statistics (before the first ANALYZE) or words', () => {
    expect(denseWindow(['galletitas', 'terrabusi'], { share: new Map(), rarest: null }, 51)).toBe(2040);
    expect(denseWindow([], bench, 51)).toBe(2040);
  });

  it('keeps the default for a common word: it finds its page and stops long before', () => {
    // yerba: at most 8.2 % (its rarest pair): twice a page within 1,238 rows.
    expect(denseWindow(['yerba'], bench, 51)).toBe(2040);
  });

  it('reads further for two words that together should fill a page within 300 rows per row', () => {
    // At most 8.25 % × 9.95 %: twice a page expected within 12,425 rows (the 51st is near row 5,300).
    const window = denseWindow(['galletitas', 'terrabusi'], bench, 51);
    expect(window).toBe(Math.ceil(102 / (0.0825 * 0.0995)));
    expect(window).toBeLessThanOrEqual(51 * 300);
    expect(denseWindow(['azucar', 'ledesma'], bench, 51)).toBe(Math.ceil(102 / (0.0813 * 0.101)));
    // A pair the statistics do not list counts as the rarest listed one (1.62 %): galletitas then
    // is at most that, and the two words too rare to read for.
    expect(denseWindow(['galletitax', 'terrabusi'], bench, 51)).toBe(2040);
  });

  it('keeps the default when even the estimate is rarer than the most it may read (the indexes answer those)', () => {
    // harina × kg: at most 0.14 %, twice a page in 74,000 rows.
    expect(denseWindow(['harina', '1', 'kg'], bench, 51)).toBe(2040);
    // An unlisted pair: at most the rarest listed share, here 1.62 % each.
    expect(denseWindow(['qwx', 'zzj'], bench, 51)).toBe(2040);
  });

  it('leaves out a one-character word (no pair says how common it is)', () => {
    expect(denseWindow(['galletitas', 'x', 'terrabusi'], bench, 51)).toBe(denseWindow(['galletitas', 'terrabusi'], bench, 51));
  });
});
