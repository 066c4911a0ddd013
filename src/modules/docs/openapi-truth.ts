/**
 * What every operation can answer, added to both OpenAPI documents after the split so that they say
 * what the server does (issue 26): the shared layers answer the same errors on every route — the input
 * guard and validation (400, 422), the surface guards (401, 403), `:id` lookups (404), body parsing
 * (413, 415), rate limits (429), draining (503) and the error handler (500) — always with the error body.
 */

type Json = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
/** Methods whose requests may carry a body, which Fastify parses (or refuses) by its content type. */
const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete']);

/** The description of each error status an operation may be given. */
const STATUS_TEXT: Record<number, string> = {
  400: 'Malformed request: a query or path value is invalid (bad_request)',
  401: 'No valid credentials (unauthenticated)',
  403: 'Not allowed for these credentials (forbidden)',
  404: 'Not found, or another company’s (not_found)',
  413: 'Body too large (payload_too_large)',
  415: 'Unsupported content type (unsupported_media_type)',
  422: 'The body does not validate (validation_failed and others)',
  429: 'Too many requests (rate_limited)',
  500: 'Internal error (internal)',
  503: 'Not ready or shutting down (unavailable)',
};

/** Bodies the route schemas cannot declare: the CSV import reads raw bytes. */
const SPREADSHEET_BODY: Json = {
  required: true,
  description: 'The spreadsheet: UTF-8 (with or without BOM), UTF-16 with BOM or Windows-1252; ";" or ","',
  content: { 'text/csv': { schema: { type: 'string' } } },
};
const REQUEST_BODIES: Record<string, Json> = {
  'post /api/v1/products/import': SPREADSHEET_BODY,
  'post /api/v1/customers/import': SPREADSHEET_BODY,
};

const ERROR_SCHEMA: Json = {
  type: 'object',
  description: 'Error: {error, code[, details]}',
  required: ['error', 'code'],
  properties: {
    error: { type: 'string', description: 'Human-readable message for the caller (English)' },
    code: { type: 'string', description: 'Machine-readable code, e.g. product_not_found' },
    details: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: {
          path: {
            type: 'string',
            description:
              'Where the problem is: a JSON Pointer (RFC 6901) into the refused part of the request, e.g. /items/0/price in the body or /limit in the query ("" is the whole part); in the data of an integration event, a dotted path such as data.sale.total',
          },
          message: { type: 'string' },
          expected: { type: 'string', description: 'What the field should have been, e.g. the right check digit' },
          product_id: { type: 'integer', description: 'The other product a conflicting value belongs to' },
          product_name: { type: 'string', description: 'That product’s name' },
          customer_id: { type: 'integer', description: 'The other customer a document belongs to' },
          customer_name: { type: 'string', description: 'That customer’s name' },
          found: { type: 'string', description: 'What a refused file turned out to be (xlsx, pdf, an encoding)' },
          line: { type: 'integer', description: 'The first bad line of a refused file' },
        },
      },
    },
  },
};

const ERROR_PAGE_TEXT = 'An error page in Spanish, when the client asks for text/html';

/** Every error answer of an address a browser opens is also a page, for a client that asks for HTML. */
function declarePages(responses: Json, pageContent: Json): void {
  for (const [status, response] of Object.entries(responses)) {
    if (Number(status) < 400 || typeof response !== 'object' || response === null || '$ref' in response) continue;
    const declared = response as Json;
    const content = ((declared['content'] as Json | undefined) ?? {}) as Json;
    if (!content['text/html']) declared['content'] = { ...content, ...pageContent };
  }
}

/** A stable camelCase id from the method and path: GET /api/v1/products/{id} → getApiV1ProductsById. */
export function operationIdFor(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith('{') ? `by-${segment.slice(1, -1)}` : segment))
    .flatMap((segment) => segment.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return [method, ...words].map((word, i) => (i === 0 ? word : word[0]!.toUpperCase() + word.slice(1))).join('');
}

function queryParameters(operation: Json): Json[] {
  return ((operation['parameters'] as Json[] | undefined) ?? []).filter((p) => p['in'] === 'query');
}

/** Whether a query parameter or a body property names a record by id (`deposit_id`, `items[].product_id`…). */
function refersToRecords(operation: Json, schemas: Json): boolean {
  if (queryParameters(operation).some((p) => String(p['name']).endsWith('_id'))) return true;
  let text = JSON.stringify(operation['requestBody'] ?? null);
  const seen = new Set<string>();
  for (let depth = 0; depth < 4; depth++) {
    const refs = [...text.matchAll(/#\/components\/schemas\/([A-Za-z0-9_.-]+)/g)].map((m) => m[1]!).filter((n) => !seen.has(n));
    if (refs.length === 0) break;
    for (const name of refs) {
      seen.add(name);
      text += JSON.stringify(schemas[name] ?? null);
    }
  }
  return /"[a-z_]+_id":\{/.test(text);
}

const REPLAY_HEADER = {
  'idempotent-replay': {
    description: 'true when this is the stored answer to an earlier request with the same x-idempotency-key',
    schema: { type: 'string', enum: ['true'] },
  },
};
const RETRY_AFTER = {
  'retry-after': { description: 'Seconds to wait before asking again', schema: { type: 'string', pattern: '^[0-9]+$' } },
};

/** The response headers the routes set, by operation and status ('2xx': every success it declares). */
const RESPONSE_HEADERS: Record<string, Record<string, Json>> = {
  'post /api/v1/sales': { '2xx': REPLAY_HEADER },
  'post /api/v1/box-sessions': { '2xx': REPLAY_HEADER },
  'post /api/v1/sales/{id}/returns': { '2xx': REPLAY_HEADER },
  'post /api/v1/sales/{id}/exchanges': { '2xx': REPLAY_HEADER },
  'post /api/v1/customers/{id}/payments': { '2xx': REPLAY_HEADER },
  'post /api/integration/in': {
    '2xx': {
      'x-idempotency-mismatch': {
        description:
          'Present when the idempotency key was already used with a different body: the stored event stands, this body was not applied',
        schema: { type: 'string' },
      },
    },
  },
  'get /api/public/scanner': { '429': RETRY_AFTER },
  'get /api/exchange': { '503': RETRY_AFTER },
  'get /docs/{path}': {
    '301': {
      location: {
        description: 'The same page at its one address, without the trailing slash (escaner%2F → /docs/escaner)',
        schema: { type: 'string' },
      },
    },
  },
  'get /api/v1/register/catalog': {
    '2xx': {
      etag: { description: "The catalogue's version: send it back as If-None-Match", schema: { type: 'string' } },
    },
  },
};

/** Declares the headers of RESPONSE_HEADERS on the operation's responses; a conditional GET gets its 304. */
function declareHeaders(key: string, responses: Json) {
  const declared = RESPONSE_HEADERS[key];
  if (!declared) return;
  if (declared['2xx']?.['etag']) {
    responses['304'] ??= { description: 'Not modified: If-None-Match names the current ETag (no body)' };
  }
  if (declared['301']) {
    responses['301'] ??= { description: 'Moved permanently to the address in Location (no body)' };
  }
  for (const [status, response] of Object.entries(responses)) {
    const headers = declared[status] ?? (/^2\d\d$/.test(status) ? declared['2xx'] : undefined);
    if (!headers) continue;
    const target = response as Json;
    target['headers'] = { ...((target['headers'] as Json | undefined) ?? {}), ...headers };
  }
}

/** Adds operationIds, `security: []` on public operations, the import's body and every error status answered. */
export function truthfulDocument(document: Json): Json {
  const doc = structuredClone(document);
  // Where a person finds the guides: the docs site of the same deployment.
  const server = ((doc['servers'] as { url?: string }[] | undefined) ?? [])[0]?.url;
  const info = ((doc['info'] as Json | undefined) ?? {}) as Json;
  if (server && !info['contact']) info['contact'] = { name: 'Mostrador', url: `${server}/docs` };
  doc['info'] = info;
  const components = ((doc['components'] as Json | undefined) ?? {}) as Json;
  const schemas = ((components['schemas'] as Json | undefined) ?? {}) as Json;
  schemas['Error'] ??= ERROR_SCHEMA;
  components['schemas'] = schemas;
  doc['components'] = components;
  const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
  // A browser opening an address outside /api/ reads an error as a page in Spanish (error-handler.ts, opensInBrowser).
  const pageContent = { 'text/html': { schema: { type: 'string', description: ERROR_PAGE_TEXT } } };
  const globalSecurity = Array.isArray(doc['security']) && (doc['security'] as unknown[]).length > 0;
  const ids = new Set<string>();
  for (const [path, item] of Object.entries((doc['paths'] as Json | undefined) ?? {})) {
    for (const method of METHODS) {
      const operation = (item as Json)[method] as Json | undefined;
      if (!operation) continue;
      let id = typeof operation['operationId'] === 'string' ? (operation['operationId'] as string) : operationIdFor(method, path);
      for (let n = 2; ids.has(id); n++) id = `${operationIdFor(method, path)}${n}`;
      ids.add(id);
      operation['operationId'] = id;
      if (!globalSecurity && operation['security'] === undefined) operation['security'] = [];
      const secured = globalSecurity
        ? !(Array.isArray(operation['security']) && (operation['security'] as unknown[]).length === 0)
        : (operation['security'] as unknown[]).length > 0;
      const body = REQUEST_BODIES[`${method} ${path}`];
      if (body && !operation['requestBody']) operation['requestBody'] = body;
      const statuses = [400, 500, 503];
      if (secured) statuses.push(401, 403);
      // A record named in the path, the query or the body may not exist (or be another company's).
      if (path.includes('{') || refersToRecords(operation, schemas)) statuses.push(404);
      // Any body is parsed by its content type before the route runs, even where the route takes none.
      if (operation['requestBody']) statuses.push(413, 415, 422);
      else if (BODY_METHODS.has(method)) statuses.push(413, 415);
      // Query values are checked past their schema too (a cursor this API gave, a real calendar date).
      else if (path.startsWith('/api/v1/') && queryParameters(operation).length > 0) statuses.push(422);
      const responses = ((operation['responses'] as Json | undefined) ?? {}) as Json;
      for (const status of statuses) {
        responses[String(status)] ??= { description: STATUS_TEXT[status], content: errorContent };
      }
      if (method === 'get' && !path.startsWith('/api/')) declarePages(responses, pageContent);
      declareHeaders(`${method} ${path}`, responses);
      operation['responses'] = responses;
    }
  }
  return doc;
}
