import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import { validationDetails } from '../../http/error-handler.ts';
import { AppError, type ErrorDetail } from '../../lib/errors.ts';
import {
  EVENT_DATA,
  type EventData,
  type EventName,
  FUTURE_EVENTS,
  isSupportedEvent,
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
addFormats(ajv, ['date-time', 'uri']);

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

export type ValidEvent = { [E in EventName]: { event: E; data: EventData<E> } }[EventName];

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Checks the envelope in the contract's order: event supported (422), then data (422, every problem with its path). */
export function validateEnvelope(body: unknown, companyId: number): ValidEvent {
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
