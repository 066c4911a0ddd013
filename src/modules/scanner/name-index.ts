import { boundedDistance, foldWord, type ReadText, readText, STOP_WORDS, type SearchToken } from './search-text.ts';

/**
 * One company's enabled product names, read once into an inverted index (term → products), so a
 * name lookup scores only the products that share a term with the query, with typed arrays and
 * no allocation per product. See docs/escaner.md ("Cómo se ordena") for the rules in Spanish.
 *
 * Score of a product = Σ over query terms of weight × match / Σ weights, where
 * - match is 1 for the same word, 0.85 / 0.7 for one / two typing slips, 0.7–0.95 for a word the
 *   query only starts (partial typing), and ×1.5 when the word is the first of the name (the
 *   product type: "queso" in "Queso cremoso", not "cremoso" in "Choclo amarillo cremoso");
 * - weight is how rare the term is in the catalogue (brands and types weigh more than "de" or a
 *   size that half the catalogue has); a query word that matches nothing still weighs, so the
 *   products that explain more of the query come first.
 * Equal scores: the product whose name is more fully covered by the query, then the shorter
 * name, then the lower id.
 */
export interface IndexedName {
  id: number;
  name: string;
  mark: string | null;
}

export interface RankedName {
  id: number;
  /** Relevance, 0 to 1.5 (first-word matches weigh 1.5). */
  score: number;
}

const WORD = 0;
const STOP = 1;
const NUMBER = 2;
const SIZE = 3;
const JOIN = 4;
const KIND: Record<SearchToken['kind'], number> = { word: WORD, stop: STOP, number: NUMBER, size: SIZE };

export const FIRST_WORD_BONUS = 1.5;
const MIN_TERM_MATCH = 0.6;

export class NameIndex {
  readonly size: number;
  private readonly ids: Int32Array;
  private readonly terms: Uint8Array;
  private readonly nameLength: Uint16Array;
  private readonly vocab: string[] = [];
  private readonly kinds: number[] = [];
  private readonly weights: Float64Array;
  private readonly postings: Int32Array[];
  private readonly lookup = new Map<string, number>();
  /** Fuzzy-matchable terms (words and joined words), by length. */
  private readonly byLength: number[][] = [];
  private readonly unmatchedWeight: number;
  /** Query word → catalogue terms it matches: shoppers type the same words over and over. */
  private readonly memo = new Map<string, TermMatch[]>();

  /** `read`: the names already read (see buildNameIndex); read here when absent. */
  constructor(products: readonly IndexedName[], read: readonly ReadName[] = products.map(readName())) {
    this.size = products.length;
    this.ids = new Int32Array(this.size);
    this.terms = new Uint8Array(this.size);
    this.nameLength = new Uint16Array(this.size);
    const lists: number[][] = [];
    const termOf = (text: string, kind: number) => {
      let term = this.lookup.get(text);
      if (term === undefined) {
        term = this.vocab.length;
        this.lookup.set(text, term);
        this.vocab.push(text);
        this.kinds.push(kind);
        lists.push([]);
        if (kind === WORD || kind === JOIN) {
          const bucket = this.byLength[text.length] ?? [];
          bucket.push(term);
          this.byLength[text.length] = bucket;
        }
      } else if (kind === WORD && this.kinds[term] === JOIN) {
        this.kinds[term] = WORD;
      }
      return term;
    };
    products.forEach((product, doc) => {
      this.ids[doc] = product.id;
      this.nameLength[doc] = Math.min(product.name.length, 65_535);
      const seen = new Map<number, boolean>();
      const add = (text: string, kind: number, first: boolean) => {
        const term = termOf(text, kind);
        seen.set(term, (seen.get(term) ?? false) || first);
      };
      const { name, mark } = read[doc]!;
      let firstWord = true;
      let content = 0;
      for (const token of name.tokens) {
        const kind = KIND[token.kind];
        add(token.text, kind, kind === WORD && firstWord);
        if (kind === WORD) firstWord = false;
        if (kind !== STOP) content += 1;
      }
      for (const number of name.sizeNumbers) add(number, NUMBER, false);
      for (const joined of joins(name.words)) add(joined, JOIN, false);
      if (mark) {
        for (const token of mark.tokens) if (token.kind === 'word') add(token.text, WORD, false);
        for (const joined of joins(mark.words)) add(joined, JOIN, false);
      }
      this.terms[doc] = Math.min(Math.max(content, 1), 255);
      for (const [term, first] of seen) lists[term]!.push((doc << 1) | (first ? 1 : 0));
    });
    this.postings = lists.map((list) => Int32Array.from(list));
    this.weights = Float64Array.from(this.postings, (list) => Math.log(1 + this.size / Math.max(list.length, 1)));
    this.unmatchedWeight = 0.5 * Math.log(1 + Math.max(this.size, 1));
  }

  /** The best `limit` products for a query, best first; empty when nothing shares a term with it. */
  search(query: string, limit: number): RankedName[] {
    if (this.size === 0) return [];
    const tokens = this.splitJoinedWords(this.mergeJoinedWords(queryTokens(query)));
    const work = shared.fit(this.size);
    const { score, best, matched, docStamp: docStamps, termStamp: termStamps, touched, termTouched } = work;
    const docStamp = work.nextDoc();
    let touchedCount = 0;
    let totalWeight = 0;
    // A size or a number alone ("2 litros") names no product: some word has to match.
    let wordMatched = false;
    for (const token of tokens) {
      // Stop words ("de", "la", "con") only help join words; scoring them would touch half the catalogue.
      if (token.kind === 'stop') continue;
      const matches = this.matchTerms(token);
      let weight: number;
      if (matches.length === 0) weight = token.kind === 'word' ? this.unmatchedWeight : 0.3;
      else weight = this.weights[matches[0]!.term]!;
      totalWeight += weight;
      if (matches.length === 0) continue;
      // One letter names nothing by itself ("aaaa" folds to "a", the A of "tipo A"); with a word
      // that matches it still helps ("azucar a").
      if (token.kind === 'word' && token.text.length > 1) wordMatched = true;
      if (matches.length === 1) {
        // One term: each product is in its postings once, so its value is the best one already.
        const { term, similarity } = matches[0]!;
        const boosted = this.kinds[term] === WORD ? similarity * FIRST_WORD_BONUS : similarity;
        const list = this.postings[term]!;
        for (let k = 0; k < list.length; k++) {
          const entry = list[k]!;
          const doc = entry >> 1;
          if (docStamps[doc] !== docStamp) {
            docStamps[doc] = docStamp;
            score[doc] = 0;
            matched[doc] = 0;
            touched[touchedCount++] = doc;
          }
          score[doc] = score[doc]! + weight * (entry & 1 ? boosted : similarity);
          matched[doc] = matched[doc]! + 1;
        }
        continue;
      }
      const termStamp = work.nextTerm();
      let termTouchedCount = 0;
      for (const { term, similarity } of matches) {
        const firstBoost = this.kinds[term] === WORD ? FIRST_WORD_BONUS : 1;
        const list = this.postings[term]!;
        for (let k = 0; k < list.length; k++) {
          const entry = list[k]!;
          const doc = entry >> 1;
          const value = entry & 1 ? similarity * firstBoost : similarity;
          if (termStamps[doc] !== termStamp) {
            termStamps[doc] = termStamp;
            best[doc] = value;
            termTouched[termTouchedCount++] = doc;
          } else if (value > best[doc]!) {
            best[doc] = value;
          }
        }
      }
      for (let k = 0; k < termTouchedCount; k++) {
        const doc = termTouched[k]!;
        if (docStamps[doc] !== docStamp) {
          docStamps[doc] = docStamp;
          score[doc] = 0;
          matched[doc] = 0;
          touched[touchedCount++] = doc;
        }
        score[doc] = score[doc]! + weight * best[doc]!;
        matched[doc] = matched[doc]! + 1;
      }
    }
    return wordMatched ? this.top(work, touchedCount, totalWeight, limit) : [];
  }

  private top({ score, matched, touched }: Scratch, touchedCount: number, totalWeight: number, limit: number): RankedName[] {
    const chosen: number[] = [];
    for (let k = 0; k < touchedCount; k++) {
      const doc = touched[k]!;
      if (chosen.length === limit) {
        // Most products score clearly below the last one kept: one subtraction, no tie-break.
        const byScore = score[doc]! - score[chosen[limit - 1]!]!;
        if (byScore < -1e-9 || (byScore <= 1e-9 && !this.better(score, matched, doc, chosen[limit - 1]!))) continue;
      }
      let at = chosen.length === limit ? limit - 1 : chosen.length;
      chosen[at] = doc;
      while (at > 0 && this.better(score, matched, doc, chosen[at - 1]!)) {
        chosen[at] = chosen[at - 1]!;
        chosen[at - 1] = doc;
        at -= 1;
      }
    }
    const total = totalWeight > 0 ? totalWeight : 1;
    return chosen.map((doc) => ({ id: this.ids[doc]!, score: score[doc]! / total }));
  }

  /** Whether product `a` goes before `b`: score, then coverage of its name, then the shorter name, then the lower id. */
  private better(score: Float64Array, matched: Uint8Array, a: number, b: number): boolean {
    const byScore = score[a]! - score[b]!;
    if (Math.abs(byScore) > 1e-9) return byScore > 0;
    const coverA = matched[a]! / this.terms[a]!;
    const coverB = matched[b]! / this.terms[b]!;
    if (coverA !== coverB) return coverA > coverB;
    if (this.nameLength[a] !== this.nameLength[b]) return this.nameLength[a]! < this.nameLength[b]!;
    return this.ids[a]! < this.ids[b]!;
  }

  /** Catalogue terms a query token stands for, with how well; the best first. */
  private matchTerms(token: SearchToken): TermMatch[] {
    const exact = this.lookup.get(token.text);
    if (token.kind !== 'word') return exact === undefined ? NONE : [{ term: exact, similarity: 1 }];
    // Slips allowed by the word as typed: folding shortens "salchichas" to "salcica". A word that
    // folds to under 4 letters allows none however long it was typed: "ssssssss" folds to "s", and
    // two slips from "s" are every word of three letters ("sal").
    const typed = Math.max(token.text.length, token.raw?.length ?? 0);
    const maxEdits = token.text.length < 4 ? 0 : typed >= 8 ? 2 : 1;
    const key = `${maxEdits}${token.text}`;
    const known = this.memo.get(key);
    if (known) return known;
    const found = this.fuzzyMatches(token.text, exact, maxEdits);
    if (this.memo.size >= MEMO_WORDS) this.memo.clear();
    this.memo.set(key, found);
    return found;
  }

  private fuzzyMatches(text: string, exact: number | undefined, maxEdits: number): TermMatch[] {
    const found: TermMatch[] = [];
    if (exact !== undefined) found.push({ term: exact, similarity: 1 });
    const length = text.length;
    for (let other = Math.max(1, length - maxEdits); other < this.byLength.length; other++) {
      const bucket = this.byLength[other];
      if (!bucket) continue;
      const prefixOnly = other > length + maxEdits;
      if (prefixOnly && length < 3) break;
      for (const term of bucket) {
        if (term === exact) continue;
        const candidate = this.vocab[term]!;
        let similarity = 0;
        if (length >= 3 && other > length && candidate.startsWith(text)) similarity = 0.7 + (0.25 * length) / other;
        if (!prefixOnly && maxEdits > 0) {
          const distance = boundedDistance(text, candidate, maxEdits);
          if (distance <= maxEdits) similarity = Math.max(similarity, distance === 1 ? 0.85 : 0.7);
        }
        if (similarity >= MIN_TERM_MATCH) found.push({ term, similarity });
      }
    }
    found.sort((a, b) => b.similarity - a.similarity || this.weights[b.term]! - this.weights[a.term]!);
    return this.withoutCovered(found);
  }

  /**
   * The matches that can change a score: a search keeps, per product, the best value among a
   * word's matches, in this order; a match whose every product already has an equal or better
   * value from the matches before it changes nothing and is left out. Most are joined words
   * ("aguamineral" for "agua" in "Agua mineral …"), which only hold products the word itself holds
   * at a higher value: the scores and the order stay exactly the same, and a search reads about
   * half the postings it did.
   */
  private withoutCovered(found: TermMatch[]): TermMatch[] {
    if (found.length < 2) return found;
    const work = shared.fit(this.size);
    const { best, termStamp: stamps } = work;
    const stamp = work.nextTerm();
    const kept: TermMatch[] = [];
    for (const match of found) {
      const firstBoost = this.kinds[match.term] === WORD ? FIRST_WORD_BONUS : 1;
      const list = this.postings[match.term]!;
      let raises = false;
      for (let k = 0; k < list.length; k++) {
        const entry = list[k]!;
        const doc = entry >> 1;
        const value = entry & 1 ? match.similarity * firstBoost : match.similarity;
        if (stamps[doc] !== stamp) {
          stamps[doc] = stamp;
          best[doc] = value;
          raises = true;
        } else if (value > best[doc]!) {
          best[doc] = value;
          raises = true;
        }
      }
      if (raises) kept.push(match);
    }
    return kept;
  }

  /** "panalesla gauchita" → "pañales la gauchita": a word that matches nothing but is two catalogue words. */
  private splitJoinedWords(tokens: SearchToken[]): SearchToken[] {
    const out: SearchToken[] = [];
    for (const token of tokens) {
      const raw = token.raw;
      if (token.kind !== 'word' || !raw || raw.length < 5 || (this.matchTerms(token)[0]?.similarity ?? 0) >= 0.85) {
        out.push(token);
        continue;
      }
      let split: SearchToken[] | null = null;
      for (let at = 2; at <= raw.length - 2 && !split; at++) {
        const parts = [raw.slice(0, at), raw.slice(at)].map((part) =>
          STOP_WORDS.has(part)
            ? { text: part, kind: 'stop' as const }
            : { text: foldWord(part), kind: 'word' as const, raw: part },
        );
        if (parts.every((part) => part.kind === 'stop' || this.lookup.has(part.text)) && parts.some((p) => p.kind === 'word')) {
          split = parts;
        }
      }
      out.push(...(split ?? [token]));
    }
    return out;
  }

  /** "villa vicencio" → "villavicencio", "san cor" → "sancor": two query words that one name writes joined. */
  private mergeJoinedWords(tokens: SearchToken[]): SearchToken[] {
    const merged: SearchToken[] = [];
    for (let i = 0; i < tokens.length; i++) {
      const a = tokens[i]!;
      const b = tokens[i + 1];
      if (b && a.kind !== 'size' && b.kind !== 'size' && (a.kind === 'word' || b.kind === 'word')) {
        const joined = collapse(a.text + b.text);
        const term = this.lookup.get(joined);
        if (term !== undefined && (!this.lookup.has(a.text) || !this.lookup.has(b.text))) {
          merged.push({ text: joined, kind: 'word' });
          i += 1;
          continue;
        }
      }
      merged.push(a);
    }
    return merged;
  }
}

export interface ReadName {
  name: ReadText;
  mark: ReadText | null;
}

/** Reads names (brands repeat: each is read once). */
function readName() {
  const marks = new Map<string, ReadText>();
  return (product: IndexedName): ReadName => {
    let mark: ReadText | null = null;
    if (product.mark) {
      mark = marks.get(product.mark) ?? readText(product.mark);
      marks.set(product.mark, mark);
    }
    return { name: readText(product.name), mark };
  };
}

const BUILD_CHUNK = 1000;

/**
 * Builds an index without holding the event loop for the whole catalogue: names are read in
 * chunks, yielding to other requests between them (10,000 names take a few hundred ms).
 */
export async function buildNameIndex(products: readonly IndexedName[]): Promise<NameIndex> {
  const reader = readName();
  const read: ReadName[] = [];
  for (let start = 0; start < products.length; start += BUILD_CHUNK) {
    for (const product of products.slice(start, start + BUILD_CHUNK)) read.push(reader(product));
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return new NameIndex(products, read);
}

/**
 * Per-product scratch space of a search, one for all the indexes of the process: a search runs
 * synchronously, start to end, so they can share it, and one set of arrays stays in the CPU
 * cache (one set per company, 100 companies × 10,000 products, missed it on most lookups).
 */
class Scratch {
  score = new Float64Array(0);
  best = new Float64Array(0);
  matched = new Uint8Array(0);
  docStamp = new Uint32Array(0);
  termStamp = new Uint32Array(0);
  touched = new Int32Array(0);
  termTouched = new Int32Array(0);
  private docStamps = 0;
  private termStamps = 0;

  /** Room for `size` products (grown, never shrunk: the largest catalogue searched so far). */
  fit(size: number): this {
    if (this.score.length < size) {
      this.score = new Float64Array(size);
      this.best = new Float64Array(size);
      this.matched = new Uint8Array(size);
      this.docStamp = new Uint32Array(size);
      this.termStamp = new Uint32Array(size);
      this.touched = new Int32Array(size);
      this.termTouched = new Int32Array(size);
    }
    return this;
  }

  /**
   * Stamps no product carries yet: a product with another stamp was not touched in this search
   * (`docStamp`) or this pass over a query word's terms (`termStamp`). Two counters: when one wraps
   * around, only its own array is cleared, never the other one in the middle of its search.
   */
  nextDoc(): number {
    this.docStamps = this.docStamps >= 0xffff_fff0 ? 1 : this.docStamps + 1;
    if (this.docStamps === 1) this.docStamp.fill(0);
    return this.docStamps;
  }

  nextTerm(): number {
    this.termStamps = this.termStamps >= 0xffff_fff0 ? 1 : this.termStamps + 1;
    if (this.termStamps === 1) this.termStamp.fill(0);
    return this.termStamps;
  }
}
const shared = new Scratch();

interface TermMatch {
  term: number;
  similarity: number;
}
const NONE: TermMatch[] = [];
const MEMO_WORDS = 4096;

/** Parsed queries: the kiosk and the shoppers repeat them; parsing is most of a search's work. */
const parsed = new Map<string, SearchToken[]>();
function queryTokens(query: string): SearchToken[] {
  let tokens = parsed.get(query);
  if (!tokens) {
    tokens = readText(query).tokens;
    if (parsed.size >= MEMO_WORDS) parsed.clear();
    parsed.set(query, tokens);
  }
  return tokens;
}

/** Runs of one letter as one ("cocaccola" → "cocacola"); a loop, not a regular expression: it runs on every query. */
function collapse(text: string): string {
  let out = '';
  let previous = -1;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === previous && code >= 97 && code <= 122) continue;
    out += text[i];
    previous = code;
  }
  return out;
}

/** Adjacent words of a name written together: "Coca Cola" → "cocacola", "Bon o Bon" → "bonobon". */
function joins(all: string[]): string[] {
  const out: string[] = [];
  // Brands are written with letters; joining sizes and numbers would only grow the vocabulary.
  const words = all.map((word) => (/^[a-z]+$/.test(word) ? word : ''));
  for (let i = 0; i + 1 < words.length; i++) {
    if (!words[i] || !words[i + 1]) continue;
    out.push(collapse(words[i]! + words[i + 1]!));
    if (i + 2 < words.length && words[i + 2]) out.push(collapse(words[i]! + words[i + 1]! + words[i + 2]!));
  }
  return out;
}
