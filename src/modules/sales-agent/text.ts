import { formatPesos } from '../../lib/money.ts';

/** Lowercase, without accents or repeated spacing: what the rules and the guardrails match against. */
export function normalize(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[‘’´`]/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
}

/** Splits a reply into sentences, keeping each one's closing punctuation. */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?…])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** `$ 24.900` (the shared es-AR formatter, no cents when whole). */
export function pesos(amount: number): string {
  return formatPesos(amount, { wholeWithoutCents: true });
}
