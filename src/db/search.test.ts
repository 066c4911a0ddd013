import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { charPairs, searchPairs } from './search.ts';

describe('search pairs', () => {
  it('cuts a word in its distinct runs of 2 characters, by code point', () => {
    expect(charPairs('kg')).toEqual(['kg']);
    expect(charPairs('1,5')).toEqual(['1,', ',5']);
    expect(charPairs('aaa')).toEqual(['aa']);
    expect(charPairs('x')).toEqual([]);
    expect(charPairs('a€b')).toEqual(['a€', '€b']);
    expect(charPairs('1😀')).toEqual(['1😀']);
  });

  it('asks the index of pairs only for the words the trigram index cannot take, from 2 characters up', () => {
    const bound: Record<string, unknown> = {};
    const conditions = searchPairs(sql`p.search`, 'Harina 1 KG 1,5 azúcar', (name, value) => {
      bound[name] = value;
      return value;
    });
    expect(conditions).toHaveLength(2);
    expect(bound).toEqual({ pairs2: ['kg'], pairs3: ['1,', ',5'] });
  });

  it('asks only for the pairs the caller calls rare, and not for a word left with none', () => {
    const bound: Record<string, unknown> = {};
    const bind = (name: string, value: unknown) => {
      bound[name] = value;
      return value;
    };
    const common = new Set(['de', '1,']);
    const conditions = searchPairs(sql`p.search`, 'yerba de 1,5', bind, (pairs) => pairs.filter((p) => !common.has(p)));
    expect(conditions).toHaveLength(1);
    expect(bound).toEqual({ pairs2: [',5'] });
  });
});
