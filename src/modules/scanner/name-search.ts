import { buildNameIndex, type NameIndex, type RankedName } from './name-index.ts';
import type { ScannerRepo, ScannerRow } from './scanner.repo.ts';

/** Products held in memory across all companies' indexes; the least recently used company goes first. */
export const MAX_INDEXED_PRODUCTS = 2_000_000;

interface Entry {
  index: NameIndex;
  version: number;
}

export interface NameMatch {
  row: ScannerRow;
  score: number;
}

/**
 * Name search over per-company in-memory indexes kept fresh by the catalogue version (migration
 * 0015): every lookup reads the version in the same statement as the products it answers, so a
 * rename, a new product or a disabled one is seen by the very next lookup, in every process.
 * A stale index is rebuilt once (one build per company at a time) and the query ranked again.
 */
export function createNameSearch(repo: ScannerRepo, maxProducts = MAX_INDEXED_PRODUCTS) {
  const entries = new Map<number, Entry>();
  const builds = new Map<number, Promise<Entry>>();
  let held = 0;

  function remember(companyId: number, entry: Entry) {
    const previous = entries.get(companyId);
    if (previous) {
      held -= previous.index.size;
      entries.delete(companyId);
    }
    entries.set(companyId, entry);
    held += entry.index.size;
    for (const [oldest, old] of entries) {
      if (held <= maxProducts || oldest === companyId) break;
      entries.delete(oldest);
      held -= old.index.size;
    }
  }

  function build(companyId: number): Promise<Entry> {
    let pending = builds.get(companyId);
    if (!pending) {
      pending = repo
        .loadNames(companyId)
        .then(async ({ version, names }) => {
          const entry = { index: await buildNameIndex(names), version };
          remember(companyId, entry);
          return entry;
        })
        .finally(() => builds.delete(companyId));
      builds.set(companyId, pending);
    }
    return pending;
  }

  async function current(companyId: number): Promise<Entry> {
    const entry = entries.get(companyId);
    if (!entry) return build(companyId);
    // Most recently used last: a Map keeps insertion order.
    entries.delete(companyId);
    entries.set(companyId, entry);
    return entry;
  }

  /** The best `limit` enabled products for the text, best first, with their relevance. */
  async function search(companyId: number, text: string, limit: number): Promise<NameMatch[]> {
    let entry = await current(companyId);
    for (let attempt = 0; ; attempt++) {
      const ranked = entry.index.search(text, limit);
      const { version, rows } = await repo.findRanked(
        companyId,
        ranked.map((r) => r.id),
      );
      if (version === entry.version || attempt > 0) return inOrder(ranked, rows);
      entry = await build(companyId);
    }
  }

  return { search, indexedCompanies: () => entries.size };
}

function inOrder(ranked: RankedName[], rows: ScannerRow[]): NameMatch[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const out: NameMatch[] = [];
  for (const { id, score } of ranked) {
    const row = byId.get(id);
    if (row) out.push({ row, score });
  }
  return out;
}

export type NameSearch = ReturnType<typeof createNameSearch>;
