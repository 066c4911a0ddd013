import type { ErrorDetail } from '../../lib/errors.ts';
import { describeError, isDescribed } from './messages.ts';

/**
 * The one API client of the browser pages. Same-origin JSON; a 401 sends the person to log in and
 * come back; any other refusal becomes an ApiError whose message is Spanish, ready to show.
 */

export interface ErrorBody {
  error?: string;
  code?: string;
  details?: ErrorDetail[];
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null,
    readonly body: ErrorBody | null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Messages by code or status that a page gives for its own calls; the rest fall back to GENERIC. */
export type Messages = Partial<Record<string, string | ((body: ErrorBody) => string)>>;

const GENERIC: Record<number, string> = {
  400: 'El pedido no es válido. Revisá los datos.',
  403: 'No tenés permiso para hacer esto con tu usuario.',
  404: 'No encontramos lo que buscabas: puede que lo hayan borrado. Actualizá la página.',
  409: 'Eso choca con algo que ya existe.',
  413: 'Es demasiado grande para enviarlo.',
  422: 'Revisá los datos: hay alguno que no es válido.',
  429: 'Demasiados intentos seguidos. Esperá un minuto y probá de nuevo.',
};

export const OFFLINE_MESSAGE = 'No hay conexión con el servidor. Revisá tu red y probá de nuevo.';

/**
 * The Spanish message for a refused call: the page's own for its code or status, else the one for
 * its code (ui/messages.ts), else a general one for its status. Never the server's English text.
 */
export function messageFor(status: number, body: ErrorBody | null, messages: Messages = {}): string {
  const own = (body?.code && messages[body.code]) || messages[String(status)];
  if (typeof own === 'function') return own(body ?? {});
  if (own) return own;
  if (body && isDescribed(body.code)) return describeError(body);
  if (status >= 500) return 'Algo falló de nuestro lado. Probá de nuevo en un rato.';
  return GENERIC[status] ?? `No se pudo completar (error ${status}).`;
}

export function loginUrl(): string {
  return `/login?next=${encodeURIComponent(location.pathname + location.search)}`;
}

export interface CallOptions {
  body?: unknown;
  messages?: Messages;
  signal?: AbortSignal;
  /** Extra request headers (e.g. x-idempotency-key). */
  headers?: Record<string, string>;
}

/** Calls the API; resolves with the parsed answer (undefined for 204) or throws an ApiError. */
export async function api<T>(
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  url: string,
  options: CallOptions = {},
): Promise<T> {
  const init: RequestInit = { method, credentials: 'same-origin', headers: { accept: 'application/json', ...options.headers } };
  if (options.body !== undefined) {
    init.headers = { ...init.headers, 'content-type': 'application/json' };
    init.body = JSON.stringify(options.body);
  }
  if (options.signal) init.signal = options.signal;
  let res: Response;
  try {
    res = await fetch(url, init);
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(OFFLINE_MESSAGE, 0, 'offline', null);
  }
  if (res.status === 401) {
    location.assign(loginUrl());
    throw new ApiError('Tu sesión terminó. Ingresá de nuevo.', 401, 'unauthenticated', null);
  }
  const data = res.status === 204 ? undefined : await res.json().catch(() => null);
  if (!res.ok) {
    const body = (data ?? null) as ErrorBody | null;
    // A temporary password: the account page is where the person sets their own (issue 29).
    if (body?.code === 'password_change_required') location.assign('/cuenta');
    throw new ApiError(messageFor(res.status, body, options.messages), res.status, body?.code ?? null, body);
  }
  return data as T;
}

/** The message to show for anything a call threw. */
export function errorText(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  return 'Algo salió mal en esta página. Actualizala y probá de nuevo.';
}
