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
 * How a condition takes a value of the request: as a parameter (asParam), or as a named
 * `sql.placeholder` of a statement prepared once per shape (see preparedTemplate in client.ts).
 */
export type Bind = (name: string, value: unknown) => unknown;
export const asParam: Bind = (_name, value) => value;
