import type { ErrorObject } from 'ajv';
import { MAX_AMOUNT_CENTS, toUnits } from './money.ts';

/**
 * The `x-precision` JSON Schema keyword: the decimals a number's column keeps (numeric(14,2) money,
 * numeric(14,3) quantities). A value that is not 0 but rounds to 0 there is refused: it would be
 * stored as 0 without a word (a price of 0.004 would make a free item, an opening count of 0.001
 * a count of 0). Exact 0 still passes where the schema allows it. Used by the integration's event
 * validator and by every route's body schema (Fastify's Ajv, src/app.ts).
 */
export const PRECISION = 'x-precision';
export const MONEY_DECIMALS = 2;
/** The most one amount holds (numeric(14,2)): every money input's maximum, prices, payments, counts and cash alike. */
export const MONEY_MAX = MAX_AMOUNT_CENTS / 100;
export const QUANTITY_DECIMALS = 3;

/** True when `value` is not 0 but rounds to 0 at `decimals` (it would be stored as 0). */
export function roundsToZeroAt(value: number | string, decimals: number): boolean {
  // Only a fraction can round to zero (and toUnits refuses numbers past the safe range).
  const number = Number(value);
  return number !== 0 && Math.abs(number) < 1 && toUnits(value, decimals) === 0;
}

type PrecisionCheck = ((decimals: number, value: number) => boolean) & { errors?: Partial<ErrorObject>[] };

const roundsToZero: PrecisionCheck = (decimals, value) => {
  // Numbers past the safe range are `maximum`'s to report.
  if (!roundsToZeroAt(value, decimals)) return true;
  const smallest = (10 ** -decimals).toFixed(decimals);
  roundsToZero.errors = [
    {
      keyword: PRECISION,
      message: `rounds to 0 at ${decimals} decimals (the stored precision): the least above 0 is ${smallest}`,
      params: { decimals },
    },
  ];
  return false;
};

/** The keyword's definition for `ajv.addKeyword`. */
export const precisionKeyword = {
  keyword: PRECISION,
  type: 'number',
  schemaType: 'number',
  errors: true,
  validate: roundsToZero,
} as const;

/** Adds the keyword to an Ajv instance (an Ajv plugin: Fastify's `ajv.plugins` takes it as is). */
export function addPrecisionKeyword<A extends { addKeyword(definition: typeof precisionKeyword): unknown }>(ajv: A): A {
  ajv.addKeyword(precisionKeyword);
  return ajv;
}
