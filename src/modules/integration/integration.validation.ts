import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import { validationDetails } from '../../http/error-handler.ts';
import { unstorableStrings } from '../../http/input-guard.ts';
import { AppError, type ErrorDetail } from '../../lib/errors.ts';
import { addPrecisionKeyword } from '../../lib/precision.ts';
import { parseRfc3339 } from '../../lib/time.ts';
import { toDepositProblem } from '../stock/stock.ledger.ts';
import { SENT_AT_TOLERANCE_MS } from './integration.checks.ts';
import {
  EVENT_DATA,
  type EventData,
  type EventName,
  FUTURE_EVENTS,
  isSupportedEvent,
  MOVEMENT_TYPES,
  SUPPORTED_EVENTS,
} from './events.schemas.ts';

// ajv-formats is CommonJS with a default export; under NodeNext its callable is `.default`.
const addFormats = addFormatsPlugin as unknown as typeof addFormatsPlugin.default;

/**
 * Inbound events are validated strictly: no type coercion, no defaults, no removal of unknown
 * fields (the stored envelope must stay exactly as received), and every problem reported.
 */
const ajv = new Ajv({
  allErrors: true,
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  strict: true,
  strictRequired: false,
});
addFormats(ajv, ['uri']);
const isUri = ajv.formats['uri'] as { validate: (value: string) => boolean } | ((value: string) => boolean);
const uriValid = typeof isUri === 'function' ? isUri : isUri.validate;
// An absolute URI whose scheme is http or https (a `javascript:` or `data:` photo is refused).
ajv.addFormat('http-url', { type: 'string', validate: (value: string) => /^https?:\/\//i.test(value) && uriValid(value) });
// Stricter than ajv-formats: no leap second, and only instants PostgreSQL and JavaScript both hold
// (DATE_TIME_MIN..DATE_TIME_MAX in lib/time.ts).
ajv.addFormat('date-time', { type: 'string', validate: (value: string) => parseRfc3339(value) !== null });
addPrecisionKeyword(ajv);

/** Deepest nesting of objects and arrays accepted in an event, the envelope itself being level 1. */
export const MAX_NESTING_DEPTH = 32;

const validators = Object.fromEntries(SUPPORTED_EVENTS.map((name) => [name, ajv.compile(EVENT_DATA[name])])) as Record<
  EventName,
  ValidateFunction
>;

/** The record each event carries in `data` (`data.sale`, `data.product`, …). */
export const EVENT_ENTITY: Record<EventName, 'sale' | 'invoice' | 'movement' | 'product'> = {
  'sales.created': 'sale',
  'sales.paid': 'sale',
  'sales.cancelled': 'sale',
  'invoice.issued': 'invoice',
  'movement.created': 'movement',
  'product.upserted': 'product',
  'product.stock_updated': 'product',
};

/**
 * The field of each event's record that says when it happened in the sender's system (none for a
 * stock update). It cannot be later than now, give or take the clock skew `x-sent-at` tolerates: a
 * sale, payment, movement or receipt dated next year (or in 9999) would sit in every report as the
 * newest, and a product's `updated_at` from the future would make every later update of it "older"
 * (the latest wins) for as long as the clock takes to reach it. Past times are the sender's history
 * and are kept (years 0001 to 9999, the schema's).
 */
const EVENT_TIME: Record<EventName, string | null> = {
  'sales.created': 'created_at',
  'sales.paid': 'paid_at',
  'sales.cancelled': 'cancelled_at',
  'invoice.issued': 'issued_at',
  'movement.created': 'created_at',
  'product.upserted': 'updated_at',
  'product.stock_updated': null,
};

export type ValidEvent = { [E in EventName]: { event: E; data: EventData<E> } }[EventName];

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Checks the envelope in the contract's order: event supported (422), then data (422, every problem with its path).
 * `text` is the JSON the body was parsed from, when the caller has it: without a `\u` escape in it
 * no string of the body can hold a NUL or an unpaired surrogate (JSON carries a control character
 * only escaped, and UTF-8 decoding never yields a lone surrogate), so the walk looking for them is skipped.
 */
export function validateEnvelope(body: unknown, companyId: number, now: Date, text?: string): ValidEvent {
  if (!isObject(body)) throw new AppError('unsupported_event', 'the body must be a JSON object {event, data}');
  const event = body['event'];
  if (event === undefined) throw new AppError('unsupported_event', 'event is missing; send {event, data}');
  if (typeof event !== 'string') throw new AppError('unsupported_event', 'event must be a string naming a supported event');
  if (!isSupportedEvent(event)) {
    const future = FUTURE_EVENTS.includes(event) ? ' yet' : '';
    throw new AppError(
      'unsupported_event',
      `event "${event}" is not supported${future}; supported events: ${SUPPORTED_EVENTS.join(', ')}`,
    );
  }
  const tooDeep = deeperThan(body, MAX_NESTING_DEPTH);
  if (tooDeep !== null) {
    throw invalidData(event, [
      {
        path: tooDeep,
        message: `nests objects and arrays deeper than ${MAX_NESTING_DEPTH} levels (the limit, envelope included)`,
      },
    ]);
  }
  const data = body['data'];
  if (!isObject(data)) {
    throw invalidData(event, [{ path: 'data', message: data === undefined ? 'is required' : 'must be an object' }]);
  }
  const validate = validators[event];
  const details = validate(data) ? [] : cleanDetails(validationDetails(meaningful(validate.errors ?? []), 'data'));
  const entity = EVENT_ENTITY[event];
  const record = data[entity];
  if (isObject(record) && record['company_id'] !== undefined && record['company_id'] !== companyId) {
    details.push({
      path: `data.${entity}.company_id`,
      message: `is ${JSON.stringify(record['company_id'])} but the integration key belongs to company ${companyId}`,
    });
  }
  if (event === 'product.stock_updated' && isObject(record)) details.push(...stockConsistency(record));
  if (event === 'movement.created' && isObject(record)) details.push(...movementDeposits(record));
  if (event === 'movement.created' && isObject(record) && record['type'] === 'ADJUSTMENT' && record['amount'] === 0) {
    details.push({ path: 'data.movement.amount', message: 'must not be 0: an ADJUSTMENT of 0 changes nothing' });
  }
  if (event === 'sales.created' && isObject(record) && Array.isArray(record['items'])) details.push(...itemIds(record['items']));
  const timeField = EVENT_TIME[event];
  const time = timeField !== null && isObject(record) ? record[timeField] : undefined;
  if (typeof time === 'string' && Date.parse(time) > now.getTime() + SENT_AT_TOLERANCE_MS) {
    details.push({ path: `data.${entity}.${timeField}`, message: 'is more than 5 minutes ahead of the server clock' });
  }
  // Strings PostgreSQL cannot store (NUL, a lone surrogate), with dotted paths; the depth is bounded by now.
  // Fields of the envelope beside `data` too: the rule is the event's, and a poller that keeps the
  // payload as jsonb could not store them either.
  if (text === undefined || text.includes('\\u')) {
    details.push(...unstorableStrings(data, 'data'));
    const beside = Object.fromEntries(Object.entries(body).filter(([key]) => key !== 'event' && key !== 'data'));
    details.push(...unstorableStrings(beside, '').map((d) => ({ ...d, path: d.path.slice(1) })));
  }
  if (details.length > 0) throw invalidData(event, details);
  return { event, data } as ValidEvent;
}

function invalidData(event: string, details: ErrorDetail[]) {
  const summary = details.map((d) => `${d.path} ${d.message}`).join('; ');
  return new AppError('validation_failed', `invalid data for ${event}: ${summary}`, { details });
}

/** `if` and `anyOf` failures only repeat what the errors inside them already say. */
function meaningful(errors: ErrorObject[]): ErrorObject[] {
  const kept = errors.filter((e) => e.keyword !== 'if' && e.keyword !== 'anyOf');
  return kept.length > 0 ? kept : errors;
}

/**
 * Nullable fields are `anyOf [T, null]`: a wrong value fails both branches, and "must be null"
 * only adds noise. A stock update missing both of its alternatives gets one clear message.
 */
function cleanDetails(details: ErrorDetail[]): ErrorDetail[] {
  const seen = new Set<string>();
  const pathsWithOther = new Set(details.filter((d) => d.message !== 'must be null').map((d) => d.path));
  const kept = details.filter((d) => {
    const key = `${d.path}\u0000${d.message}`;
    if (seen.has(key) || (d.message === 'must be null' && pathsWithOther.has(d.path))) return false;
    seen.add(key);
    return true;
  });
  const missingStock = (name: string) => kept.some((d) => d.path === `data.product.${name}` && d.message.includes('required'));
  if (missingStock('stock') && missingStock('current_stock')) {
    return [
      ...kept.filter((d) => d.path !== 'data.product.stock' && d.path !== 'data.product.current_stock'),
      { path: 'data.product.stock', message: 'is required: the new total stock (or current_stock, in the outbound shape)' },
    ];
  }
  return kept;
}

/** The inbound stock shape and the outbound one may both be present; they must then agree. */
function stockConsistency(product: Record<string, unknown>): ErrorDetail[] {
  const { stock, current_stock: current } = product;
  if (typeof stock === 'number' && typeof current === 'number' && stock !== current) {
    return [{ path: 'data.product.current_stock', message: `is ${current} but stock is ${stock}; send one of them` }];
  }
  return [];
}

/**
 * The deposits of a movement: `to_deposit_id` only on a TRANSFER, and another deposit than
 * `deposit_id` (the schema already requires it on a TRANSFER). Refused here, with the field's path,
 * like every other problem of `data`, instead of later by the stock ledger with a bare message.
 */
function movementDeposits(movement: Record<string, unknown>): ErrorDetail[] {
  const { type, deposit_id: from, to_deposit_id: to } = movement;
  if (to === undefined || typeof type !== 'string' || !(MOVEMENT_TYPES as readonly string[]).includes(type)) return [];
  const problem = toDepositProblem(type, from, to);
  return problem ? [{ path: 'data.movement.to_deposit_id', message: problem }] : [];
}

/**
 * Each item of a sale needs its own id: the one it brings, or its position (1, 2, …) when it brings
 * none, so `[{id: 2}, {}]` names item 2 twice. Items whose id the schema refuses are left to it.
 */
function itemIds(items: unknown[]): ErrorDetail[] {
  const firstAt = new Map<number, number>();
  const details: ErrorDetail[] = [];
  items.forEach((item, index) => {
    if (!isObject(item)) return;
    const given = item['id'];
    if (given !== undefined && !Number.isInteger(given)) return;
    const id = given === undefined ? index + 1 : (given as number);
    const earlier = firstAt.get(id);
    if (earlier === undefined) {
      firstAt.set(id, index);
      return;
    }
    details.push(
      given === undefined
        ? {
            path: `data.sale.items.${index}`,
            message: `has no id, so it takes its position ${id}, the id of data.sale.items.${earlier} too: give every item its own id, or none`,
          }
        : {
            path: `data.sale.items.${index}.id`,
            message: `is ${id}, the id of data.sale.items.${earlier} too: item ids must differ`,
          },
    );
  });
  return details;
}

/**
 * The top-level key (or `body`) under which objects and arrays nest deeper than `limit`, or null.
 * Iterative: a body nested thousands of levels deep must not exhaust the stack here either.
 */
export function deeperThan(body: Record<string, unknown>, limit: number): string | null {
  for (const [key, value] of Object.entries(body)) {
    let level: unknown[] = [value];
    for (let depth = 2; level.length > 0; depth++) {
      const next: unknown[] = [];
      for (const node of level) {
        if (typeof node !== 'object' || node === null) continue;
        for (const child of Object.values(node)) if (typeof child === 'object' && child !== null) next.push(child);
      }
      if (next.length > 0 && depth + 1 > limit) return key;
      level = next;
    }
  }
  return null;
}
