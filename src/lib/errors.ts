/**
 * The closed set of error codes the API answers with, and the HTTP status of each.
 * This table is the only place a code is tied to a status.
 */
export const ERROR_STATUS = {
  bad_request: 400,
  missing_parameter: 400,
  invalid_json: 400,
  timestamp_out_of_window: 400,
  unauthenticated: 401,
  signature_mismatch: 401,
  forbidden: 403,
  invitation_wrong_account: 403,
  invitation_refused: 403,
  price_needs_admin: 403,
  discount_needs_approval: 403,
  approval_refused: 403,
  refund_needs_approval: 403,
  password_change_required: 403,
  invalid_signature: 403,
  send_disabled: 403,
  not_found: 404,
  product_not_found: 404,
  page_not_found: 404,
  customer_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  already_member: 409,
  last_admin: 409,
  cannot_change_self: 409,
  invitation_needs_login: 409,
  channel_not_connected: 409,
  reconnect_required: 409,
  insufficient_stock: 409,
  customer_document_taken: 409,
  credit_limit_exceeded: 409,
  shift_of_another_person: 409,
  invitation_expired: 410,
  invitation_used: 410,
  invitation_revoked: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unsupported_event: 422,
  validation_failed: 422,
  invalid_reference: 422,
  unknown_scale_plu: 422,
  invalid_state: 422,
  no_open_session: 422,
  return_exceeds_sold: 422,
  no_refund_session: 422,
  fiscal_setup_incomplete: 422,
  window_closed: 422,
  recipient_not_found: 422,
  recipient_not_allowed: 422,
  template_unsupported: 422,
  arca_rejected: 422,
  cuit_unavailable: 422,
  caea_unavailable: 422,
  rate_limited: 429,
  invitation_limit: 429,
  headers_too_large: 431,
  internal: 500,
  upstream_failed: 502,
  upstream_timeout: 504,
  unavailable: 503,
  rate_unavailable: 503,
  channel_not_configured: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  path: string;
  message: string;
  /** What the field should have been (e.g. the right GS1 check digit), for a screen to word. */
  expected?: string;
  /** The other product a conflicting sku or barcode belongs to, for a screen to name. */
  product_id?: number;
  product_name?: string;
  /** The other customer a document belongs to (customer_document_taken), for a screen to name. */
  customer_id?: number;
  customer_name?: string;
  /** What a refused file turned out to be (`xlsx`, `pdf`, an encoding…). */
  found?: string;
  /** The first bad line of a refused file. */
  line?: number;
  /** Why, as a word a screen picks its text by (`certificate_expired`…); `message` is for people. */
  reason?: string;
}

export interface AppErrorOptions {
  details?: ErrorDetail[];
  headers?: Record<string, string>;
  cause?: unknown;
}

/** The one error type of the application; the HTTP layer turns it into `{error, code}`. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.details = options.details;
    this.headers = options.headers;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

/**
 * A record a request names by its id in `field` that the company does not have (none, or another
 * company's): 422 invalid_reference naming the field, as `deposit 7 does not exist`.
 */
export function unknownRecord(field: string, what: string, id: number | string): AppError {
  return new AppError('invalid_reference', `${what} ${id} does not exist`, {
    details: [{ path: `/${field}`, message: `unknown ${what}` }],
  });
}

/** A JSON body whose bytes are not UTF-8 (RFC 8259 §8.1): refused, never read with U+FFFD in their place. */
export function notUtf8(): AppError {
  return new AppError('invalid_json', 'request body is not valid JSON: it is not UTF-8 text');
}

/** How a child's path is joined to its parent's: dotted (`data.sale.items.0`, the integration's). */
export type PathStep = (path: string, key: string | number) => string;
export const dotted: PathStep = (path, key) => `${path}.${key}`;
/** …or as a JSON Pointer (RFC 6901: `~` and `/` escaped), `/items/0`: the merchant API's. */
export const pointer: PathStep = (path, key) => `${path}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;

/**
 * The refusal of one part of a request (body, querystring, params, headers) whose details point
 * into it: a body of the wrong shape is 422 validation_failed, anything else a malformed request
 * (400 bad_request). "invalid body: /items/0/price must be >= 0; …", the part named when a
 * pointer is empty (the whole part).
 */
export function partRefusal(part: string, details: ErrorDetail[]): AppError {
  const summary = details.map((d) => `${d.path === '' ? `the ${part}` : d.path} ${d.message}`).join('; ');
  return new AppError(part === 'body' ? 'validation_failed' : 'bad_request', `invalid ${part}: ${summary}`, { details });
}
