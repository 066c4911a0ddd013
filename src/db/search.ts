import { type SQL, sql } from 'drizzle-orm';

/** The words of a search, as the stored search text spells them (lower case, no accents). */
export function searchWords(q: string | undefined): string[] {
  return (q ?? '')
    .toLowerCase()
    .split(/\s+/)
    .map((w) =>
      w
        .normalize('NFD')
        .replace(/\p{M}/gu, '')
        .replace(/[\\%_]/g, ''),
    )
    .filter(Boolean)
    .slice(0, 8);
}

/** pg_trgm can look a LIKE pattern up only through a run of 3 letters or digits. */
const INDEXABLE = /[\p{L}\p{N}]{3}/u;

/**
 * One condition per word of `q` on a stored search column (lower case, no accents, trigram-indexed):
 * LIKE through the trigram index; a word without a run of 3 letters or digits cannot use that index
 * (pg_trgm would read all of it), so it is a plain substring test on the rows the others found.
 */
export function searchMatches(column: SQL, q: string | undefined, bind: Bind = asParam): SQL[] {
  return searchWords(q).map((word, i) =>
    INDEXABLE.test(word)
      ? sql`${column} LIKE ${bind(`like${i}`, `%${word}%`)}`
      : sql`strpos(${column}, ${bind(`word${i}`, word)}) > 0`,
  );
}

/**
 * What only the index of pairs of characters (search_pairs, migration 0280) can answer for the
 * words searchMatches tests with strpos: for each such word of 2 or more characters, "the row holds
 * all of its pairs". A row with the word has them, so adding these to searchMatches' conditions
 * keeps the same rows; they are for a plan that starts from the indexes (a filter over rows already
 * read does better with strpos alone, which is cheaper than computing the pairs of each row).
 * `rare` keeps the pairs worth asking for (any of them is enough to find the rows) and leaves out the
 * common ones: reading a long list of the index, and recomputing the pairs of every row found with
 * the other words, costs more than the strpos saves. A word left with none is not asked for.
 */
export function searchPairs(
  column: SQL,
  q: string | undefined,
  bind: Bind = asParam,
  rare: (pairs: string[]) => string[] = (pairs) => pairs,
): SQL[] {
  const found: SQL[] = [];
  searchWords(q).forEach((word, i) => {
    const pairs = INDEXABLE.test(word) ? [] : rare(charPairs(word));
    if (pairs.length > 0) {
      found.push(sql`search_pairs(${column}) @> ${bind(`pairs${i}`, pairs)}::text[]`);
    }
  });
  return found;
}

/** The distinct runs of 2 characters of a word, as search_pairs cuts the text: by code point, as PostgreSQL counts characters. */
export function charPairs(word: string): string[] {
  const chars = Array.from(word);
  const pairs = new Set<string>();
  for (let i = 0; i + 1 < chars.length; i++) pairs.add(chars[i]! + chars[i + 1]!);
  return [...pairs];
}

/**
 * How a condition takes a value of the request: as a parameter (asParam), or as a named
 * `sql.placeholder` of a statement prepared once per shape (see preparedTemplate in client.ts).
 */
export type Bind = (name: string, value: unknown) => unknown;
export const asParam: Bind = (_name, value) => value;
