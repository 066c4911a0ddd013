import type { AllowedMethods } from './allowed-methods.ts';
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onResponseHookHandler,
  preValidationHookHandler,
} from 'fastify';
import { mapPgError } from '../db/pg-errors.ts';
import { AppError, dotted, type ErrorDetail, isAppError, type PathStep, partRefusal, pointer } from '../lib/errors.ts';
import { asksForHtml } from '../modules/docs/negotiation.ts';
import { sendHtml } from './page.ts';

interface ValidationItem {
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** Ajv errors as `{path, message}`: `base` turns the instance path, `step` adds a missing or extra property. */
function ajvDetails(items: ValidationItem[], base: (instancePath: string) => string, step: PathStep): ErrorDetail[] {
  return items.map((item) => {
    let path = base(item.instancePath ?? '');
    for (const name of [item.params?.['missingProperty'], item.params?.['additionalProperty']]) {
      if (typeof name === 'string') path = step(path, name);
    }
    return { path, message: item.message ?? 'is invalid' };
  });
}

/** Ajv errors with dotted paths under `root` (`data.sale.items.0.price`): the integration's format (docs/integraciones.md). */
export function validationDetails(items: ValidationItem[], root: string): ErrorDetail[] {
  return ajvDetails(items, (instancePath) => root + instancePath.replace(/\//g, '.'), dotted);
}

/**
 * Ajv errors of one part of a request (its body, query or path parameters) with a JSON Pointer into
 * that part (`/items/0/price`, `/limit`; the whole part is the empty pointer): the format of every
 * other check of the merchant API and the screens' API, so a client reads one format.
 */
export function pointerDetails(items: ValidationItem[]): ErrorDetail[] {
  return ajvDetails(items, (instancePath) => instancePath, pointer);
}

function fromFastifyError(err: FastifyError): AppError | null {
  if (err.validation) {
    // Query, path and header problems are a malformed request (400); a body of the wrong shape is 422.
    return partRefusal(err.validationContext ?? 'body', pointerDetails(err.validation as ValidationItem[]));
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'request body is too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(
        'unsupported_media_type',
        'unsupported content type: send application/json (a spreadsheet import: text/csv)',
      );
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('invalid_json', 'request body is not valid JSON');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('bad_request', 'content-length does not match the body');
    case 'FST_ERR_BAD_URL':
      return new AppError('bad_request', 'the URL path is not valid: a % must start a percent-encoded byte (%25 for % itself)');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('bad_request', 'a URL path parameter is too long');
  }
  if (err instanceof SyntaxError && err.statusCode === 400) return new AppError('invalid_json', 'request body is not valid JSON');
  if (err.statusCode === 429) return new AppError('rate_limited', 'too many requests; slow down and retry later');
  return null;
}

export function toAppError(err: unknown): AppError | null {
  if (isAppError(err)) return err;
  const mapped = mapPgError(err);
  if (isAppError(mapped)) return mapped;
  if (err && typeof err === 'object' && 'code' in err && typeof (err as FastifyError).code === 'string') {
    return fromFastifyError(err as FastifyError);
  }
  return null;
}

/** The error as a page for this request (a person opening the address in the browser), or null: JSON. */
export type ErrorPage = (err: AppError, request: FastifyRequest) => string | null;

/**
 * Whether the request is a browser opening an address (GET or HEAD, asking for HTML, not under
 * /api/): its error is then a page. Everything else, and every call of the screens (they ask for
 * JSON or anything), gets the `{error, code}` body.
 */
export function opensInBrowser(request: FastifyRequest): boolean {
  return (
    (request.method === 'GET' || request.method === 'HEAD') &&
    !request.url.startsWith('/api/') &&
    asksForHtml(request.headers.accept)
  );
}

/** Answers an error: as a page for a browser opening an address (when there is a page for it), else as JSON. */
export function answerError(request: FastifyRequest, reply: FastifyReply, err: AppError, page?: ErrorPage) {
  const body = page && opensInBrowser(request) ? page(err, request) : null;
  if (body === null) return sendError(reply, err);
  if (err.headers) reply.headers(err.headers);
  return sendHtml(reply, body, { status: err.status });
}

export function sendError(reply: FastifyReply, err: AppError) {
  if (err.headers) reply.headers(err.headers);
  const body: { error: string; code: string; details?: ErrorDetail[] } = { error: err.message, code: err.code };
  if (err.details) body.details = err.details;
  return reply.code(err.status).type('application/json; charset=utf-8').send(body);
}

/**
 * Errors Fastify raises before any route or hook runs (a path it cannot decode, like `/docs/%`):
 * the house error body too. Set as the `frameworkErrors` option of the app.
 */
export function handleFrameworkError(err: FastifyError, request: FastifyRequest, reply: FastifyReply, page?: ErrorPage) {
  reply.header('x-request-id', request.id);
  return answerError(
    request,
    reply,
    fromFastifyError(err) ?? new AppError('bad_request', 'the request could not be routed'),
    page,
  );
}

export function registerErrorHandling(app: FastifyInstance, page?: ErrorPage) {
  app.setErrorHandler((err: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const known = toAppError(err);
    if (known && known.code !== 'internal') {
      // 503s are expected states (not ready, no rate known yet): worth a warning, not an error page.
      if (known.status >= 500) request.log[known.status === 503 ? 'warn' : 'error']({ err }, known.message);
      return answerError(request, reply, known, page);
    }
    request.log.error({ err }, 'unhandled error');
    return answerError(request, reply, new AppError('internal', 'internal error'), page);
  });
}

/**
 * The answer to a URL no route matches. The application gives its routes their hooks as they are
 * registered (the input rules, the request metrics), not application-wide, so it passes them here:
 * the not-found answer is then given in a scope of its own that has them (fastify runs a scope's
 * hooks for the not-found handler set in it).
 */
export async function registerNotFound(
  app: FastifyInstance,
  hooks?: { preValidation: preValidationHookHandler; onResponse: onResponseHookHandler },
  page?: ErrorPage,
  methods?: AllowedMethods,
) {
  const notFound = (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0]!;
    // An address that exists for other methods: 405 naming them (Allow), not a 404.
    const allowed = methods?.allowedFor(path) ?? [];
    const err =
      allowed.length > 0
        ? new AppError(
            'method_not_allowed',
            `method ${request.method} is not allowed on ${path}; it takes ${allowed.join(', ')}`,
            {
              headers: { allow: allowed.join(', ') },
            },
          )
        : new AppError('not_found', `route ${request.method} ${path} not found`);
    return answerError(request, reply, err, page);
  };
  if (!hooks) {
    app.setNotFoundHandler(notFound);
    return;
  }
  await app.register(async (scope) => {
    scope.addHook('onResponse', hooks.onResponse);
    scope.setNotFoundHandler({ preValidation: hooks.preValidation }, notFound);
  });
}
