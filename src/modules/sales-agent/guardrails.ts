import type { PriceList } from '../docs/price-list.ts';
import { type BrainAnswer, MIN_CONFIDENCE } from './brain.ts';
import { ASKS_HUMAN, CLOSING, DISCOUNT, DISCOUNT_LINE, FIRM_OBJECTION, NEGOTIATION } from './rules-brain.ts';
import { normalize, sentences } from './text.ts';

/** Instagram's limit for one text message, in UTF-8 bytes. */
export const MAX_REPLY_BYTES = 1000;

/**
 * Anything that says or implies the reply is automated (rule 7), over normalized text (no accents,
 * lowercase). Spanish and English, with the usual spellings and dodges ("I.A.", "b0t", "chat-bot").
 */
const AUTOMATION = new RegExp(
  [
    String.raw`\b(chat ?-?)?b[o0]ts?\b`,
    String.raw`\brob[o0]t`,
    String.raw`\bi\.? ?a\.?(?=[\s,.;:!?)]|$)`,
    String.raw`\ba\.? ?i\.?(?=[\s,.;:!?)]|$)`,
    'inteligencia artificial',
    'artificial intelligence',
    'asistente (virtual|digital|automatic|inteligente|de ia|conversacional|artificial)',
    'virtual assistant',
    'automat(ic|iz|ed)',
    'auto-?respuesta',
    'autorespond',
    'respuesta (generada|predeterminada|programada)',
    'mensaje (generado|predeterminado|programado)',
    'generad[oa]s? (por|con) (un|una|ia|inteligencia|computadora|sistema)',
    'modelo de (lenguaje|ia)',
    'language model',
    String.raw`\bllm\b`,
    String.raw`\bgpt`,
    'chatgpt',
    'openai',
    String.raw`\bclaude\b`,
    String.raw`\bgemini\b`,
    String.raw`\bno soy (una persona|un humano|humano|real)\b`,
    String.raw`\bsoy (un|una) (programa|software|sistema|algoritmo|asistente|computadora)\b`,
    String.raw`\b(esta|este) (respuesta|mensaje) (es|fue) (automatic|generad|programad)`,
    String.raw`\bmaquina\b`,
    String.raw`\balgoritmo`,
    String.raw`\bcomputadora que\b`,
    String.raw`\bsin intervencion humana\b`,
    String.raw`\bcontestador\b`,
    // "Mostradorbot", "salesbot": a name ending in bot.
    String.raw`\w+b[o0]ts?\b`,
    'agente (virtual|digital|automatic|inteligente|de ia|conversacional|artificial)',
    String.raw`\b(te|le|les|los|las) (responde|contesta|escribe|atiende|habla) (un|una|el|la|nuestro|nuestra) (asistente|agente)\b`,
    String.raw`\bsoy (el|la|tu|su) (asistente|agente)\b`,
  ].join('|'),
);

export function mentionsAutomation(text: string): boolean {
  return AUTOMATION.test(normalize(text));
}

/** The amounts a reply may quote: every price and extra of the published list. */
export function publishedAmounts(prices: PriceList): Set<number> {
  const amounts = new Set<number>();
  for (const plan of prices.plans) amounts.add(plan.monthly_price);
  for (const extra of prices.extras) {
    if (extra.monthly_price !== undefined) amounts.add(extra.monthly_price);
    if (extra.one_time_price !== undefined) amounts.add(extra.one_time_price);
  }
  return amounts;
}

/** "24.900", "24.900,00", "24,900", "24900.5", "1,5" (with "mil") → a number. */
function parseNumber(raw: string): number | null {
  let s = raw.replace(/[.,]$/, '');
  const lastDot = s.lastIndexOf('.');
  const lastComma = s.lastIndexOf(',');
  if (lastDot >= 0 && lastComma >= 0) {
    const decimal = lastDot > lastComma ? '.' : ',';
    const group = decimal === '.' ? ',' : '.';
    s = s.split(group).join('').replace(decimal, '.');
  } else if (lastDot >= 0 || lastComma >= 0) {
    const sep = lastDot >= 0 ? '.' : ',';
    const groups = s.split(sep);
    // Groups of three after the first: thousands separators; otherwise a decimal separator.
    if (groups.length > 1 && groups.slice(1).every((g) => g.length === 3)) s = groups.join('');
    else s = groups.slice(0, -1).join('') + '.' + groups[groups.length - 1];
  }
  const value = Number(s);
  return Number.isFinite(value) ? value : null;
}

export interface QuotedAmount {
  text: string;
  value: number | null;
  currency: 'ARS' | 'USD';
}

const NUM = String.raw`\d[\d.,]*\d|\d`;
const MULT = String.raw`(?:\s*(mil|k|lucas|luquitas|palos|millones|millon)\b)?`;
const AMOUNT_PATTERNS: RegExp[] = [
  // $ 24.900 · ARS 24900 · AR$ 24.900 · u$s 20 · USD 20 · US$ 20 (with an optional "mil")
  new RegExp(String.raw`(u\$s|us\$|usd|ar\$|ars|\$)\s*(${NUM})${MULT}`, 'g'),
  // 24.900 pesos · 25 mil pesos · 20 dólares · 25 lucas
  new RegExp(String.raw`(?<![\d.,$])(${NUM})${MULT}\s*(pesos|mangos|ars|dolares|usd|lucas|luquitas)\b`, 'g'),
  // sale 19900 · cuesta 12.000 por mes · a 30000 mensuales (an unlabelled number in a price phrase)
  new RegExp(
    String.raw`\b(sale|salen|cuesta|cuestan|vale|valen|precio de|precio|abonas|pagas|pagarias|cobramos|costo de|por solo|por apenas|te queda en|te lo dejo en|queda en)\s+(?:a\s+|en\s+|de\s+)?(${NUM})${MULT}(?!\s*(%|por ciento|dias|meses|usuarios|cajas|depositos|productos|sucursales))`,
    'g',
  ),
  new RegExp(String.raw`(?<![\d.,$])(${NUM})${MULT}\s*(por mes|al mes|mensuales|mensual|/mes|por ano|anuales|finales)\b`, 'g'),
];

const MULTIPLIER: Record<string, number> = {
  mil: 1000,
  k: 1000,
  lucas: 1000,
  luquitas: 1000,
  palos: 1e6,
  millones: 1e6,
  millon: 1e6,
};

/** Every amount of money the reply quotes. */
export function quotedAmounts(reply: string): QuotedAmount[] {
  const text = normalize(reply);
  const found = new Map<number, QuotedAmount>();
  for (const pattern of AMOUNT_PATTERNS) {
    pattern.lastIndex = 0;
    for (const match of text.matchAll(pattern)) {
      const at = match.index ?? 0;
      if ([...found.keys()].some((k) => Math.abs(k - at) < 4)) continue;
      const groups = match.slice(1).filter((g): g is string => g !== undefined);
      const numberRaw = groups.find((g) => /\d/.test(g))!;
      const multiplier = groups.map((g) => MULTIPLIER[g]).find((m) => m !== undefined) ?? 1;
      const usd = groups.some((g) => /^(u\$s|us\$|usd|dolares)$/.test(g));
      const base = parseNumber(numberRaw);
      found.set(at, {
        text: match[0],
        value: base === null ? null : Math.round(base * multiplier * 100) / 100,
        currency: usd ? 'USD' : 'ARS',
      });
    }
  }
  return [...found.values()];
}

/** Sentences that promise a discount or a price of their own (not the published list). */
const PROMISE =
  /(\d+ ?%|\d+ por ciento|descuento|bonific|rebaja|\bpromo|\bofert|precio especial|te (lo|la) dej(o|amos|an)|se (lo|la) dej(o|amos|an)|(lo|la) dejamos (en|a)\b|te (hago|hacemos) (un|el|precio)\b(?! (la|el) carga)|te regalo|de regalo|2 ?x ?1|(meses?|semanas?) (gratis|sin cargo|bonificad)|primer mes (gratis|sin cargo|bonificado)|sin cargo (el|los) prim|mitad de precio|medio precio|a mitad|congelad|precio de amigo|mas barato para vos|para vos,? (a|en|sale|queda)?|solo por hoy|por tiempo limitado|si (arrancas|contratas|empezas|te sumas|te anotas) (hoy|ya|esta semana|este mes|ahora))/;

/** An amount written in words ("veinte mil pesos", "un millón"): the published list writes digits. */
const AMOUNT_IN_WORDS =
  /\b(un|una|uno|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|trece|catorce|quince|dieci\w+|veinte|veinti\w+|treinta|cuarenta|cincuenta|sesenta|setenta|ochenta|noventa|cien|ciento|doscientos|trescientos|cuatrocientos|quinientos|seiscientos|setecientos|ochocientos|novecientos|mil|medio|media)\s+(mil|millon|millones|lucas|luquitas|palos|pesos|dolares|mangos|k)\b/;

/** A number as the reply writes it: digits, with thousands or decimal separators; not part of a word (A4). */
const NUMBER_TOKEN = /(?<![\p{L}\d.,])\d[\d.,]*\d(?![\p{L}\d])|(?<![\p{L}\d.,])\d(?![\p{L}\d])/gu;

/** Every number the published list says: prices, the trial's days, and the figures of each plan (300 productos, 5 usuarios). */
export function publishedNumbers(prices: PriceList): Set<number> {
  const numbers = publishedAmounts(prices);
  numbers.add(prices.trial_days);
  const texts = [
    prices.billing,
    ...prices.plans.flatMap((p) => [p.name, p.for, ...p.includes]),
    ...prices.extras.map((e) => e.name),
  ];
  for (const text of texts) for (const value of numbersIn(text)) numbers.add(value);
  return numbers;
}

/** Every number the reply writes (12, 24.900, 1,5). */
function numbersIn(reply: string): number[] {
  return [...reply.matchAll(NUMBER_TOKEN)].map((m) => parseNumber(m[0])).filter((n): n is number => n !== null);
}

/** How a reply names each extra of the list, by its id; an extra not here may be quoted anywhere. */
const EXTRA_MENTIONS: Record<string, RegExp> = {
  'deposito-adicional': /\b(depositos?|sucursal(es)?)( o (depositos?|sucursal(es)?))? (adicional(es)?|extras?|de mas|mas)\b/g,
  migracion: /\b(carga inicial|carga del catalogo|migracion|planilla)\b/g,
};

/** Where a sentence names a plan or an extra, and the one price each may be quoted at. */
function priceMentions(sentence: string, prices: PriceList): { at: number; price: number }[] {
  const mentions: { at: number; price: number }[] = [];
  let masked = sentence;
  for (const extra of prices.extras) {
    const pattern = EXTRA_MENTIONS[extra.id];
    const price = extra.monthly_price ?? extra.one_time_price;
    if (!pattern || price === undefined) continue;
    for (const m of sentence.matchAll(pattern)) {
      mentions.push({ at: m.index ?? 0, price });
      // "carga inicial" names the extra, not the plan Inicial.
      masked = masked.slice(0, m.index) + ' '.repeat(m[0].length) + masked.slice((m.index ?? 0) + m[0].length);
    }
  }
  for (const plan of prices.plans) {
    const name = normalize(plan.name).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    for (const m of masked.matchAll(new RegExp(`\\b${name}\\b`, 'g')))
      mentions.push({ at: m.index ?? 0, price: plan.monthly_price });
  }
  return mentions;
}

/**
 * An amount quoted next to a plan or an extra is that one's price ("el Comercio a $ 7.900" is not):
 * an amount belongs to the names written since the amount before it ("el Cadena $ 69.900; cada
 * depósito adicional, $ 7.900"), or, when there is none, to those up to the next amount
 * ("$ 24.900 el Comercio"); with no name around it, any published amount may stand.
 */
function misattributedAmount(reply: string, prices: PriceList): boolean {
  for (const sentence of sentences(normalize(reply))) {
    const mentions = priceMentions(sentence, prices);
    if (mentions.length === 0) continue;
    const amounts = quotedAmounts(sentence)
      .map((a) => ({ value: a.value, at: sentence.indexOf(a.text) }))
      .sort((a, b) => a.at - b.at);
    for (const [i, amount] of amounts.entries()) {
      if (amount.value === null) continue;
      const from = i === 0 ? -1 : amounts[i - 1]!.at;
      const until = i === amounts.length - 1 ? Number.POSITIVE_INFINITY : amounts[i + 1]!.at;
      const before = mentions.filter((m) => m.at > from && m.at < amount.at);
      const owners = before.length > 0 ? before : mentions.filter((m) => m.at > amount.at && m.at < until);
      if (owners.length > 0 && !owners.some((m) => m.price === amount.value)) return true;
    }
  }
  return false;
}

export interface GuardedAnswer {
  decision: 'reply' | 'handoff';
  reply: string | null;
  handoff_reason: string | null;
  confidence: number;
  /** Which guardrails changed the brain's answer, in order. */
  guardrails: string[];
}

/**
 * Rule 7, in code, after any brain: no hint of automation, no amount outside the published list,
 * discounts and unpublished quotes only as "the team confirms it", counter-offers and haggling to a
 * person, a handoff below the confidence floor, a reply that fits one Instagram message. `input` is what the person wrote.
 */
export function applyGuardrails(answer: BrainAnswer, input: string, prices: PriceList): GuardedAnswer {
  const confidence = Number.isFinite(answer.confidence) ? Math.min(1, Math.max(0, answer.confidence)) : 0;
  const applied: string[] = [];
  const handoff = (reason: string, guardrail?: string): GuardedAnswer => {
    if (guardrail) applied.push(guardrail);
    return { decision: 'handoff', reply: null, handoff_reason: reason, confidence, guardrails: applied };
  };
  const givenReason = typeof answer.handoff_reason === 'string' ? answer.handoff_reason.trim() : '';
  if (answer.decision !== 'reply') return handoff((givenReason || 'low_confidence').slice(0, 200));
  // A reply that names a reason to hand off is a handoff: the brain saw one.
  if (givenReason) return handoff(givenReason.slice(0, 200), 'brain_handoff_reason');
  if (confidence < MIN_CONFIDENCE) return handoff('low_confidence', 'confidence_floor');
  // Rule 6 holds whatever the brain wrote: asking for a person, a firm objection, a counter-offer
  // or a haggle (issue 31), and closing a sale are the team's to answer, in the rules brain's order.
  const said = normalize(input);
  if (ASKS_HUMAN.test(said)) return handoff('asked_for_human', 'asked_for_human');
  if (FIRM_OBJECTION.test(said)) return handoff('firm_objection', 'firm_objection');
  if (NEGOTIATION.test(said)) return handoff('price_negotiation', 'price_negotiation');
  if (CLOSING.test(said)) return handoff('closing_sale', 'closing_sale');
  let reply = (answer.reply ?? '').trim();
  if (reply === '') return handoff('empty_reply', 'empty_reply');
  if (mentionsAutomation(reply)) return handoff('automation_disclosure', 'automation_disclosure');
  const published = publishedAmounts(prices);
  const amounts = quotedAmounts(reply);
  if (amounts.some((a) => a.currency !== 'ARS' || a.value === null || !published.has(a.value))) {
    return handoff('unpublished_amount', 'unpublished_amount');
  }
  // Custom discounts and unpublished quotes: never promised, always "the team confirms it".
  const kept = sentences(reply).filter((s) => s === DISCOUNT_LINE || !PROMISE.test(normalize(s)));
  const promised = kept.length !== sentences(reply).length;
  if (promised) {
    applied.push('discount_promise_removed');
    reply = kept.join(' ');
  }
  // What stays: amounts without a currency word ("Comercio: 19.900 + IVA"), in words, or at another
  // plan's price, and any figure the list does not say (a trial of 90 days) go to a person.
  if (AMOUNT_IN_WORDS.test(normalize(reply)) || misattributedAmount(reply, prices)) {
    return handoff('unpublished_amount', 'unpublished_amount');
  }
  const numbers = publishedNumbers(prices);
  if (numbersIn(reply).some((n) => !numbers.has(n))) return handoff('unpublished_figure', 'unpublished_figure');
  const asked = DISCOUNT.test(normalize(input));
  if ((promised || asked) && !reply.includes(DISCOUNT_LINE)) {
    applied.push('team_confirms_discount');
    reply = reply ? `${reply} ${DISCOUNT_LINE}` : DISCOUNT_LINE;
  }
  if (Buffer.byteLength(reply, 'utf8') > MAX_REPLY_BYTES) return handoff('too_long', 'too_long');
  return { decision: 'reply', reply, handoff_reason: null, confidence, guardrails: applied };
}
