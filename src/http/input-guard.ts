import type { FastifyInstance, FastifyRequest, FastifySchema, preValidationHookHandler, RouteOptions } from 'fastify';
import { isUtf8 } from 'node:buffer';
import { AppError, dotted, type ErrorDetail, type PathStep, notUtf8, partRefusal, pointer } from '../lib/errors.ts';
import { AMOUNT_LIMIT, isAmount, parseAmountText } from '../lib/money.ts';
import { LONE_SURROGATE } from '../lib/storable.ts';

/**
 * The input rules every route shares, enforced once before any handler (and before validation):
 *
 * - no string of the path, the query or the body (values and keys) holds a NUL character or an
 *   unpaired UTF-16 surrogate: PostgreSQL can store neither (400 for the URL, 422 for the body);
 * - a number the schema expects that arrives as text is parsed by `parseAmountText`, which refuses
 *   `Infinity`, `1e999` and magnitudes an amount column cannot hold (422), instead of Ajv's coercion
 *   turning them into Infinity;
 * - an integer of the path or the query is decimal digits (`0x10`, `1e2`, ` 1`, `1.0` are 400);
 * - a `yyyy-mm-dd` pattern in a schema is a real calendar date (`format: date`), so `2025-02-30`
 *   is refused by validation rather than by PostgreSQL; a property with a default is optional.
 *
 * Cost on the hot path (the scanner's GETs): one `indexOf('%')` on the URL (only a percent escape can
 * put a NUL or a surrogate into a path or query value); a JSON body is walked for strings only when its
 * text has a `\u` escape (the only way JSON can carry either), and for numbers only when its schema
 * declares a number.
 */

const MAX_DETAILS = 10;
const DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$';

/** Why a string cannot be stored, or null when it can. */
export function unstorable(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain the NUL character (\\u0000)';
  if (LONE_SURROGATE.test(text)) return 'must not contain an unpaired UTF-16 surrogate';
  return null;
}

/** Every string (value or key) below `value` that cannot be stored, with its path (`step` joins it). */
export function unstorableStrings(
  value: unknown,
  path: string,
  found: ErrorDetail[] = [],
  step: PathStep = dotted,
): ErrorDetail[] {
  if (found.length >= MAX_DETAILS) return found;
  if (typeof value === 'string') {
    const message = unstorable(value);
    if (message) found.push({ path, message });
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) unstorableStrings(value[i], step(path, i), found, step);
  } else if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) {
    for (const [key, item] of Object.entries(value)) {
      const message = unstorable(key);
      if (message) found.push({ path: step(path, JSON.stringify(key).slice(1, -1)), message: `(a key) ${message}` });
      else unstorableStrings(item, step(path, key), found, step);
    }
  }
  return found.slice(0, MAX_DETAILS);
}

type Schema = Record<string, unknown>;

const isSchema = (value: unknown): value is Schema => value !== null && typeof value === 'object' && !Array.isArray(value);

function typeNames(schema: Schema): string[] {
  const type = schema['type'];
  return typeof type === 'string' ? [type] : Array.isArray(type) ? (type as string[]) : [];
}

function branches(schema: Schema): Schema[] {
  const list = [...((schema['anyOf'] as unknown[]) ?? []), ...((schema['oneOf'] as unknown[]) ?? [])];
  return list.filter(isSchema);
}

const branchesCache = new WeakMap<Schema, Schema[]>();

/** The schema and its anyOf/oneOf branches (cached: route schemas live as long as the app). */
function selfAndBranches(schema: Schema): Schema[] {
  let list = branchesCache.get(schema);
  if (list === undefined) {
    list = [schema, ...branches(schema)];
    branchesCache.set(schema, list);
  }
  return list;
}

const expectsCache = new WeakMap<Schema, boolean>();

/** Whether a value under this schema may be a JSON number (and not also a string); cached per schema. */
function expectsNumber(schema: Schema): boolean {
  let expects = expectsCache.get(schema);
  if (expects === undefined) {
    const all = selfAndBranches(schema).flatMap(typeNames);
    expects = all.includes('number') && !all.includes('string');
    expectsCache.set(schema, expects);
  }
  return expects;
}

const numberCache = new WeakMap<Schema, boolean>();

/** Whether a schema declares a `number` anywhere (cached: route schemas live as long as the app). */
function hasNumber(schema: Schema): boolean {
  const cached = numberCache.get(schema);
  if (cached !== undefined) return cached;
  numberCache.set(schema, false); // cycles end here
  const children = [
    ...Object.values((schema['properties'] as Record<string, unknown>) ?? {}),
    schema['items'],
    schema['additionalProperties'],
    ...branches(schema),
  ].filter(isSchema);
  const result = typeNames(schema).includes('number') || children.some(hasNumber);
  numberCache.set(schema, result);
  return result;
}

const integerKeysCache = new WeakMap<Schema, string[]>();

/** The properties of a query or path schema that take an integer and not also a string (cached). */
function integerKeys(schema: Schema): string[] {
  let keys = integerKeysCache.get(schema);
  if (keys === undefined) {
    const properties = isSchema(schema['properties']) ? (schema['properties'] as Schema) : {};
    keys = Object.entries(properties)
      .filter(([, child]) => {
        if (!isSchema(child)) return false;
        const all = selfAndBranches(child).flatMap(typeNames);
        return all.includes('integer') && !all.includes('string') && !all.includes('number');
      })
      .map(([key]) => key);
    integerKeysCache.set(schema, keys);
  }
  return keys;
}

/** An integer as a URL writes it: decimal digits, an optional sign, within what a double holds exactly. */
const INTEGER_TEXT = /^[-+]?\d{1,15}$/;

/**
 * Integers in the path and the query are decimal digits: Ajv's coercion (`Number(text)`) would also
 * take `0x10`, `1e2`, ` 1` or `1.0` as 16, 100 and 1, and a 20-digit id as a rounded double.
 */
function checkIntegers(schema: unknown, values: unknown, part: string): void {
  if (!isSchema(schema) || !isSchema(values)) return;
  const keys = integerKeys(schema);
  if (keys.length === 0) return;
  const found: ErrorDetail[] = [];
  for (const key of keys) {
    const value = values[key];
    if (typeof value === 'string' && !INTEGER_TEXT.test(value)) {
      found.push({ path: pointer('', key), message: 'must be an integer written in decimal digits (at most 15)' });
    }
  }
  if (found.length > 0) throw partRefusal(part, found);
}

/**
 * Walks `value` along `schema`: a string where only a number fits becomes that number through
 * `parseAmountText`, or a refusal; a number out of the amount range is refused. Mutates in place.
 */
function parseNumbers(schema: Schema, value: unknown, path: string, found: ErrorDetail[]): unknown {
  if (found.length >= MAX_DETAILS) return value;
  if (expectsNumber(schema)) {
    if (typeof value === 'string') {
      const parsed = parseAmountText(value);
      if (parsed === null) found.push({ path, message: `must be a finite decimal number below ${AMOUNT_LIMIT} in magnitude` });
      return parsed ?? value;
    }
    if (typeof value === 'number' && !isAmount(value)) {
      found.push({ path, message: `must be a finite decimal number below ${AMOUNT_LIMIT} in magnitude` });
    }
    return value;
  }
  if (Array.isArray(value)) {
    const items = schema['items'];
    if (isSchema(items)) for (let i = 0; i < value.length; i++) value[i] = parseNumbers(items, value[i], pointer(path, i), found);
    return value;
  }
  if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) {
    const object = value as Record<string, unknown>;
    const objectBranches = selfAndBranches(schema);
    for (const key of Object.keys(object)) {
      for (const branch of objectBranches) {
        const properties = branch['properties'] as Record<string, unknown> | undefined;
        const child = properties?.[key] ?? branch['additionalProperties'];
        if (isSchema(child) && hasNumber(child)) {
          object[key] = parseNumbers(child, object[key], pointer(path, key), found);
          break;
        }
      }
    }
  }
  return value;
}

/** JSON bodies whose text has no `\u` escape: they cannot hold a NUL or a lone surrogate. */
const escapeFree = new WeakSet<FastifyRequest>();

/**
 * Makes a route schema say what the server does (in place; idempotent): `format: date` next to every
 * `yyyy-mm-dd` pattern (validation then refuses 2025-02-30), and a property with a default is not
 * required (Ajv fills it in; a generated client must not be forced to send it).
 */
function truthfulSchema(schema: unknown, seen = new WeakSet<object>()): void {
  if (!isSchema(schema) && !Array.isArray(schema)) return;
  if (seen.has(schema as object)) return;
  seen.add(schema as object);
  if (isSchema(schema)) {
    if (schema['pattern'] === DATE_PATTERN && schema['format'] === undefined) schema['format'] = 'date';
    const required = schema['required'];
    const properties = schema['properties'];
    if (Array.isArray(required) && isSchema(properties)) {
      const kept = required.filter((name) => !(isSchema(properties[name]) && 'default' in (properties[name] as Schema)));
      if (kept.length === 0) delete schema['required'];
      else if (kept.length !== required.length) schema['required'] = kept;
    }
  }
  for (const child of Object.values(schema as object)) if (typeof child === 'object') truthfulSchema(child, seen);
}

/**
 * Installs the input rules: the JSON parser that notes escape-free bodies, and, on each route as it is
 * registered, a preValidation hook first in its list that knows the route's schema (no lookup per
 * request). Returns the same guard for the not-found answer (src/http/error-handler.ts), which gets it
 * like any route: a URL nobody routes is still refused for a NUL in it.
 */
export function registerInputGuard(app: FastifyInstance): preValidationHookHandler {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  // Read as bytes: decoding to a string in the parser would put U+FFFD where a byte is not UTF-8.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const coded = contentCodingRefusal(request);
    if (coded) {
      done(coded, undefined);
      return;
    }
    if (!isUtf8(body as Buffer)) {
      done(notUtf8(), undefined);
      return;
    }
    const text = (body as Buffer).toString('utf8');
    if (!text.includes('\\u')) escapeFree.add(request);
    parseJson(request, text, done);
  });

  // Synchronous (it runs on every request): no promise per request; a refusal goes to done().
  const guardOf =
    (route: RouteOptions | null): preValidationHookHandler =>
    (request, _reply, done) => {
      try {
        guardInput(request, route?.schema);
      } catch (err) {
        done(err as Error);
        return;
      }
      done();
    };

  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.schema) truthfulSchema(route.schema);
    // A new array: fastify copies a GET's options (and this array) into the HEAD route it adds.
    route.preValidation = [guardOf(route), ...([] as preValidationHookHandler[]).concat(route.preValidation ?? [])];
  });
  return guardOf(null);
}

const JSON_TYPE = /^\s*application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * A body sent with a Content-Encoding (gzip, br, …) is refused with 415: nothing here decodes one,
 * and reading the compressed bytes as the body (or a plain body labelled compressed as if it were
 * plain) would answer something the sender did not send. `identity` is no coding.
 */
export function contentCodingRefusal(request: FastifyRequest): AppError | null {
  const coding = request.headers['content-encoding'];
  if (coding === undefined || /^\s*identity\s*$/i.test(coding)) return null;
  return new AppError(
    'unsupported_media_type',
    `content-encoding "${coding.slice(0, 40)}" is not supported: send the body uncompressed`,
  );
}

/** A content-type parser (`parseAs: 'buffer'`) that keeps the body as bytes, after the Content-Encoding rule. */
export function keepBytes(
  request: FastifyRequest,
  body: Buffer | string,
  done: (err: Error | null, body?: unknown) => void,
): void {
  const coded = contentCodingRefusal(request);
  if (coded) done(coded, undefined);
  else done(null, body);
}

/** Refuses unstorable strings and out-of-range numbers in the request's path, query and body. */
function guardInput(request: FastifyRequest, schema: FastifySchema | undefined) {
  const url = request.raw.url ?? '';
  if (url.includes('%')) {
    const inPath = unstorableStrings(request.params, '', [], pointer);
    if (inPath.length > 0) throw partRefusal('params', inPath);
    const inQuery = unstorableStrings(request.query, '', [], pointer);
    if (inQuery.length > 0) throw partRefusal('querystring', inQuery);
  }
  checkIntegers(schema?.params, request.params, 'params');
  const querySchema = schema?.querystring;
  checkIntegers(querySchema, request.query, 'querystring');
  if (isSchema(querySchema) && hasNumber(querySchema) && isSchema(request.query)) {
    const found: ErrorDetail[] = [];
    parseNumbers(querySchema, request.query, '', found);
    if (found.length > 0) throw partRefusal('querystring', found);
  }
  const body = request.body;
  if (body === undefined || body === null) return;
  if (Buffer.isBuffer(body)) {
    // Bytes reach a route with a JSON body schema when another parser of the scope took them (a
    // spreadsheet's text/csv): validating a Buffer as the object would list its methods as fields.
    if (schema?.body !== undefined && !JSON_TYPE.test(request.headers['content-type'] ?? '')) {
      throw new AppError('unsupported_media_type', 'this route takes a JSON body: send it with content-type: application/json');
    }
    return;
  }
  if (!escapeFree.has(request)) {
    const inBody = unstorableStrings(body, '', [], pointer);
    if (inBody.length > 0) throw partRefusal('body', inBody);
  }
  const bodySchema = schema?.body;
  if (isSchema(bodySchema) && hasNumber(bodySchema)) {
    const found: ErrorDetail[] = [];
    request.body = parseNumbers(bodySchema, body, '', found);
    if (found.length > 0) throw partRefusal('body', found);
  }
}
