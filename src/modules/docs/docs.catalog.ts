import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseFrontMatter } from './front-matter.ts';

export const DOCS_DIR = fileURLToPath(new URL('../../../docs/', import.meta.url));
/** A page's file name is its address: lowercase letters, digits and dashes. */
const PAGE_FILE = /^([a-z0-9][a-z0-9-]*)\.md$/;
const DEFAULT_ORDER = 100;

/** One page of the docs site: its metadata and how to get its markdown body. */
export interface DocEntry {
  slug: string;
  title: string;
  description: string;
  order: number;
  /** The page body as written (front matter removed); generated pages compute it on first use. */
  body(): string;
}

export interface LoadedDocs {
  entries: DocEntry[];
  /** Files in the folder that are not pages, with why (logged at startup). */
  skipped: { file: string; reason: string }[];
}

/**
 * Reads every `docs/*.md` once, at startup. Only these files can ever be served: requests are
 * answered from this list, never by opening a path built from the request.
 */
export function loadDocFiles(dir: string = DOCS_DIR): LoadedDocs {
  const entries: DocEntry[] = [];
  const skipped: LoadedDocs['skipped'] = [];
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.md')) continue;
    const slug = PAGE_FILE.exec(file)?.[1];
    if (!slug) {
      skipped.push({ file, reason: 'file name must be lowercase letters, digits and dashes' });
      continue;
    }
    try {
      const { fields, body } = parseFrontMatter(readFileSync(`${dir}/${file}`, 'utf8'));
      const order = Number(fields['order'] ?? DEFAULT_ORDER);
      entries.push({
        slug,
        title: fields['title']?.trim() || slug,
        description: fields['description']?.trim() ?? '',
        order: Number.isFinite(order) ? order : DEFAULT_ORDER,
        body: () => body,
      });
    } catch (err) {
      skipped.push({ file, reason: (err as Error).message });
    }
  }
  return { entries, skipped };
}

/** Navigation order: `order`, then title. */
export function sortEntries(entries: DocEntry[]): DocEntry[] {
  return [...entries].sort((a, b) => a.order - b.order || a.title.localeCompare(b.title, 'es'));
}
