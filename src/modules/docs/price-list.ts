import { readFileSync } from 'node:fs';
import { formatPesos, toCents } from '../../lib/money.ts';

/** The one published price list: the pricing page, /llms.txt and the sales agent all read it. */
export interface PriceList {
  currency: 'ARS';
  vat_included: boolean;
  updated: string;
  billing: string;
  trial_days: number;
  plans: Plan[];
  extras: Extra[];
}

export interface Plan {
  id: string;
  name: string;
  monthly_price: number;
  for: string;
  includes: string[];
}

export interface Extra {
  id: string;
  name: string;
  monthly_price?: number;
  one_time_price?: number;
}

export const PRICE_LIST_PATH = new URL('../../../content/price-list.json', import.meta.url);

function check(condition: boolean, problem: string): asserts condition {
  if (!condition) throw new Error(`content/price-list.json: ${problem}`);
}

const isPrice = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 && toCents(value) / 100 === value;

export function parsePriceList(data: unknown): PriceList {
  const list = data as PriceList;
  check(!!list && typeof list === 'object', 'must be an object');
  check(list.currency === 'ARS', 'currency must be "ARS"');
  check(typeof list.vat_included === 'boolean', 'vat_included must be true or false');
  check(/^\d{4}-\d{2}-\d{2}$/.test(list.updated), 'updated must be a YYYY-MM-DD date');
  check(Array.isArray(list.plans) && list.plans.length > 0, 'plans must be a non-empty list');
  for (const [i, plan] of list.plans.entries()) {
    check(
      typeof plan.id === 'string' && typeof plan.name === 'string' && typeof plan.for === 'string',
      `plans[${i}] needs id, name, for`,
    );
    check(isPrice(plan.monthly_price), `plans[${i}].monthly_price must be a non-negative amount with at most 2 decimals`);
    check(Array.isArray(plan.includes), `plans[${i}].includes must be a list`);
  }
  for (const [i, extra] of (list.extras ?? []).entries()) {
    check(typeof extra.name === 'string', `extras[${i}].name is required`);
    check(isPrice(extra.monthly_price ?? extra.one_time_price), `extras[${i}] needs monthly_price or one_time_price`);
  }
  return { ...list, extras: list.extras ?? [] };
}

export function loadPriceList(path: URL | string = PRICE_LIST_PATH): PriceList {
  return parsePriceList(JSON.parse(readFileSync(path, 'utf8')));
}

export const priceText = (amount: number) => (amount === 0 ? 'Gratis' : formatPesos(amount));

/** The price list as markdown: a table of plans, then extras and the billing terms. */
export function renderPriceList(list: PriceList): string {
  const lines = ['| Plan | Precio por mes | Para quién | Incluye |', '|---|---|---|---|'];
  for (const plan of list.plans) {
    lines.push(`| **${plan.name}** | ${priceText(plan.monthly_price)} | ${plan.for} | ${plan.includes.join('; ')} |`);
  }
  lines.push('');
  if (list.extras.length > 0) {
    lines.push('Adicionales:', '');
    for (const extra of list.extras) {
      const price =
        extra.monthly_price !== undefined
          ? `${priceText(extra.monthly_price)} por mes`
          : `${priceText(extra.one_time_price!)} una sola vez`;
      lines.push(`- ${extra.name}: ${price}`);
    }
    lines.push('');
  }
  const vat = list.vat_included ? 'Precios finales en pesos argentinos, IVA incluido.' : 'Precios en pesos argentinos, más IVA.';
  lines.push(
    `${vat} ${list.billing} Prueba gratis de ${list.trial_days} días de cualquier plan. Lista vigente desde el ${formatDate(list.updated)}.`,
  );
  return lines.join('\n');
}

function formatDate(isoDate: string): string {
  const [year, month, day] = isoDate.split('-');
  return `${day}/${month}/${year}`;
}
