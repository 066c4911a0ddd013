/**
 * How the scanner reads product names and what shoppers type: the same rules on both sides, so a
 * name and a query meet in one spelling.
 *
 * - Accents, case and punctuation go; `1,5` and `1.5` are the same number.
 * - Words are folded to how they sound in Rioplatense Spanish (v/b, s/z/c, ll/y, silent h, doubled
 *   letters, qu/k, sh/ch, a leading "es" before a consonant) and plurals to the singular.
 * - Sizes become one canonical token in ml, g or m ("1,5 l", "1 litro y medio", "1500 cc" → `1500ml`;
 *   "medio kilo" → `500g`; "litro" alone → `1000ml`); pack counts "x 50" → `x50`.
 * - Number words ("dos litros", "seven up") are digits.
 */

export type TokenKind = 'word' | 'stop' | 'number' | 'size';

export interface SearchToken {
  text: string;
  kind: TokenKind;
  /** Words: as typed (lower case, no accents), before folding. */
  raw?: string;
}

export const STOP_WORDS = new Set([
  'de',
  'del',
  'la',
  'las',
  'el',
  'los',
  'con',
  'en',
  'para',
  'y',
  'o',
  'a',
  'al',
  'x',
  'por',
  'sin',
]);

const NUMBER_WORDS: Record<string, number> = {
  un: 1,
  uno: 1,
  una: 1,
  one: 1,
  dos: 2,
  two: 2,
  tres: 3,
  three: 3,
  cuatro: 4,
  cinco: 5,
  seis: 6,
  siete: 7,
  seven: 7,
  ocho: 8,
  nueve: 9,
  diez: 10,
  doce: 12,
  docena: 12,
};

/** Unit words → [canonical unit, factor to it]. */
const UNITS: Record<string, [string, number]> = {
  l: ['ml', 1000],
  lt: ['ml', 1000],
  lts: ['ml', 1000],
  litro: ['ml', 1000],
  litros: ['ml', 1000],
  ml: ['ml', 1],
  cc: ['ml', 1],
  mililitros: ['ml', 1],
  kg: ['g', 1000],
  kgs: ['g', 1000],
  kilo: ['g', 1000],
  kilos: ['g', 1000],
  kilogramo: ['g', 1000],
  kilogramos: ['g', 1000],
  g: ['g', 1],
  gr: ['g', 1],
  grs: ['g', 1],
  gramo: ['g', 1],
  gramos: ['g', 1],
  m: ['m', 1],
  mt: ['m', 1],
  mts: ['m', 1],
  metro: ['m', 1],
  metros: ['m', 1],
};
/** Units that, written alone, mean one of them ("litro" = 1 l); single letters alone are not sizes. */
const UNIT_ALONE = new Set(['litro', 'kilo', 'lt']);
const COUNT_WORDS = new Set(['u', 'un', 'unid', 'unidades', 'saquitos', 'rollos', 'sobres']);

/** Lower case, no accents, no punctuation; digits split from letters; decimal commas as dots. */
export function plainWords(text: string): string[] {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/['’`´]/g, '')
    .replace(/_/g, ' ')
    .replace(/(\d)[.,](\d)/g, '$1_$2')
    .replace(/[^a-z0-9_]+/g, ' ')
    .replace(/_/g, '.')
    .replace(/([a-z])(\d)/g, '$1 $2')
    .replace(/(\d)([a-z])/g, '$1 $2')
    .trim()
    .split(' ')
    .filter(Boolean);
}

/** A plural to its singular: "limones" → "limon", "pañales" → "panal", "fideos" → "fideo". */
export function singular(word: string): string {
  if (word.length > 4 && /[^aeiou]es$/.test(word) && /[lnrd]es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/** The sound of a word: both a name and a query go through this before they are compared. */
export function fold(word: string): string {
  return word
    .replace(/^es(?=[bcdfgkmnpqtv])/, 's')
    .replace(/sh/g, 'ch')
    .replace(/ph/g, 'f')
    .replace(/gh/g, 'G')
    .replace(/gu(?=[ei])/g, 'G')
    .replace(/g(?=[ei])/g, 'j')
    .replace(/qu(?=[ei])/g, 'k')
    .replace(/ch/g, 'C')
    .replace(/c(?=[ei])/g, 's')
    .replace(/c/g, 'k')
    .replace(/q/g, 'k')
    .replace(/ll/g, 'y')
    .replace(/h/g, '')
    .replace(/v/g, 'b')
    .replace(/w/g, 'u')
    .replace(/z/g, 's')
    .replace(/G/g, 'g')
    .replace(/C/g, 'c')
    .replace(/(.)\1+/g, '$1');
}

/** Words already folded: catalogue names and queries repeat a few thousand words (bounded). */
const folded = new Map<string, string>();
const FOLDED_WORDS = 50_000;

/** `fold(singular(word))`, remembered: eighteen regular expressions per word were most of reading a name. */
export function foldWord(word: string): string {
  let out = folded.get(word);
  if (out === undefined) {
    out = fold(singular(word));
    if (folded.size >= FOLDED_WORDS) folded.clear();
    folded.set(word, out);
  }
  return out;
}

function numberOf(word: string): number | null {
  if (/^\d+(\.\d+)?$/.test(word)) return Number(word);
  return NUMBER_WORDS[word] ?? null;
}

const formatNumber = (value: number) => String(Math.round(value * 1000) / 1000);

export function sizeToken(value: number, unit: string): string {
  return `${formatNumber(value)}${unit}`;
}

export interface ReadText {
  tokens: SearchToken[];
  /** The folded words in order (stop words included), for joined-word matching ("coca cola" ~ "cocacola"). */
  words: string[];
  /** Each number as written next to a size or count ("1,5 l" → "1.5"): a bare "1.5" in a query finds it. */
  sizeNumbers: string[];
}

/**
 * Reads a name or a query into tokens. Sizes and counts become `size` tokens; a number with no
 * unit a `number` token; words are folded, stop words kept apart (they weigh little).
 */
export function readText(text: string): ReadText {
  const raw = plainWords(text);
  const tokens: SearchToken[] = [];
  const words: string[] = [];
  const sizeNumbers: string[] = [];
  for (let i = 0; i < raw.length; i++) {
    const word = raw[i]!;
    const next = raw[i + 1];
    const value = numberOf(word);
    // "(por kg)": how it is sold, not a size
    if (word === 'por' && next !== undefined && UNITS[next]) {
      tokens.push({ text: word, kind: 'stop' });
      words.push(word);
      i += 1;
      continue;
    }
    // "medio kilo", "1 litro y medio", "2 litros", "1.5 l"
    if ((value !== null || word === 'medio' || word === 'media') && next !== undefined && UNITS[next]) {
      const [unit, factor] = UNITS[next]!;
      let amount = value ?? 0.5;
      let used = 2;
      if (raw[i + 2] === 'y' && (raw[i + 3] === 'medio' || raw[i + 3] === 'media')) {
        amount += 0.5;
        used = 4;
      }
      tokens.push({ text: sizeToken(amount * factor, unit), kind: 'size' });
      sizeNumbers.push(formatNumber(amount));
      i += used - 1;
      continue;
    }
    // "3 x 100 g", "12 x 30 m": a pack of N of a size
    if (/^\d+$/.test(word) && next === 'x' && raw[i + 2] !== undefined && /^\d/.test(raw[i + 2]!)) {
      tokens.push({ text: `x${word}`, kind: 'size' });
      sizeNumbers.push(word);
      i += 1;
      continue;
    }
    // "x 50", "x 12 u"
    if (word === 'x' && next !== undefined && /^\d+$/.test(next) && !(raw[i + 2] && UNITS[raw[i + 2]!])) {
      tokens.push({ text: `x${next}`, kind: 'size' });
      sizeNumbers.push(next);
      i += 1;
      if (raw[i + 1] && COUNT_WORDS.has(raw[i + 1]!)) i += 1;
      continue;
    }
    // "50 saquitos", "12 unidades"
    if (/^\d+$/.test(word) && next !== undefined && COUNT_WORDS.has(next) && next !== 'un') {
      tokens.push({ text: `x${word}`, kind: 'size' });
      sizeNumbers.push(word);
      i += 1;
      continue;
    }
    if (UNIT_ALONE.has(word) || word === 'litros' || word === 'kilos') {
      const [unit, factor] = UNITS[word]!;
      tokens.push({ text: sizeToken(factor, unit), kind: 'size' });
      continue;
    }
    if (value !== null && /^\d/.test(word)) {
      tokens.push({ text: formatNumber(value), kind: 'number' });
      words.push(formatNumber(value));
      continue;
    }
    if (STOP_WORDS.has(word)) {
      tokens.push({ text: word, kind: 'stop' });
      words.push(word);
      continue;
    }
    if (word === 'un' || word === 'una' || word === 'uno') {
      tokens.push({ text: word, kind: 'stop' });
      words.push(word);
      continue;
    }
    // A number word alone ("seven up", "Dos Anclas") reads as its digit.
    if (value !== null) {
      tokens.push({ text: formatNumber(value), kind: 'number' });
      words.push(formatNumber(value));
      continue;
    }
    const folded = foldWord(word);
    tokens.push({ text: folded, kind: 'word', raw: word });
    words.push(folded);
  }
  return { tokens, words, sizeNumbers };
}

/**
 * Damerau–Levenshtein distance (adjacent transpositions count one) with an upper bound: anything
 * above `max` is reported as `max + 1`, and the work stops as soon as that is certain.
 */
export function boundedDistance(a: string, b: string, max: number, rows: Int32Array[] = scratchRows): number {
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > max) return max + 1;
  if (lb + 1 > rows[0]!.length) return max + 1;
  let prevPrev = rows[0]!;
  let prev = rows[1]!;
  let current = rows[2]!;
  for (let j = 0; j <= lb; j++) prev[j] = j;
  for (let i = 1; i <= la; i++) {
    current[0] = i;
    let rowMin = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= lb; j++) {
      const cb = b.charCodeAt(j - 1);
      const cost = ca === cb ? 0 : 1;
      let value = Math.min(prev[j]! + 1, current[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && ca === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === cb) {
        value = Math.min(value, prevPrev[j - 2]! + 1);
      }
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > max) return max + 1;
    const spare = prevPrev;
    prevPrev = prev;
    prev = current;
    current = spare;
  }
  return Math.min(prev[lb]!, max + 1);
}

const MAX_WORD = 64;
const scratchRows = [new Int32Array(MAX_WORD + 1), new Int32Array(MAX_WORD + 1), new Int32Array(MAX_WORD + 1)];
