import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { LogLevel } from './config.ts';
import { statementName } from './db/statement-name.ts';

export type { Logger };

/** Headers and fields that carry secrets: never written to a log line. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-signature"]',
  'req.headers["x-hub-signature-256"]',
  'req.headers["x-channels-signature"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  '*.password',
  '*.secret',
  '*.token',
  '*.integration_key',
  '*.scanner_token',
  '*.integrationKey',
  '*.scannerToken',
];

const SECRET_QUERY_PARAMS = new Set(['token', 'access_token', 'key', 'secret', 'hub.verify_token', 'code']);

function decodedName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/** Paths whose next segment is a secret: the shared account statement's link (`/estado-de-cuenta/<token>`). */
const SECRET_PATH = /^(\/estado-de-cuenta\/)[^/?#]+/i;

/**
 * Masks secrets in a URL before it is logged: a token in the path (SECRET_PATH) and secret query
 * parameters, whose name is compared as the server reads it: percent-decoded (`t%6Fken`), without
 * case and without a `[]` suffix.
 */
export function redactUrl(raw: string): string {
  const url = raw.replace(SECRET_PATH, '$1[Redacted]');
  const start = url.indexOf('?');
  if (start === -1) return url;
  const hash = url.indexOf('#', start);
  const end = hash === -1 ? url.length : hash;
  const params = url
    .slice(start + 1, end)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = decodedName(eq === -1 ? pair : pair.slice(0, eq))
        .toLowerCase()
        .replace(/(\[\])+$/, '');
      return eq !== -1 && SECRET_QUERY_PARAMS.has(name) ? `${pair.slice(0, eq)}=[Redacted]` : pair;
    });
  return `${url.slice(0, start + 1)}${params.join('&')}${url.slice(end)}`;
}

interface QueryError extends Error {
  query: string;
  params: unknown[];
}

const isQueryError = (err: Error): err is QueryError =>
  typeof (err as Partial<QueryError>).query === 'string' && Array.isArray((err as Partial<QueryError>).params);

/**
 * An error as it may be logged: a failed query (Drizzle puts the statement and every parameter
 * in the message, the parameters again in `params`) becomes the database's error and the
 * statement's name, never its values; the rest of the chain of causes is cleaned the same way.
 */
export function loggableError(err: unknown, depth = 0): unknown {
  if (!(err instanceof Error) || depth > 8) return err;
  if (isQueryError(err)) {
    const cause = err.cause instanceof Error ? err.cause : null;
    const statement = statementName(err.query);
    const code = (cause as { code?: unknown } | null)?.code;
    // Data exceptions (SQLSTATE class 22) quote the offending value in their message: the code says enough.
    const reason = typeof code === 'string' && code.startsWith('22') ? `data exception (SQLSTATE ${code})` : cause?.message;
    const safe = new Error(`query ${statement} failed: ${reason ?? 'unknown error'}`) as Error & Record<string, unknown>;
    safe.name = 'QueryError';
    safe.statement = statement;
    if (typeof code === 'string') safe.code = code;
    safe.stack = `QueryError: ${safe.message}\n${(err.stack ?? '').split('\n').slice(err.message.split('\n').length).join('\n')}`;
    return safe;
  }
  if (err.cause === undefined) return err;
  const copy = Object.assign(Object.create(Object.getPrototypeOf(err) as object) as Error, err);
  Object.defineProperties(copy, {
    message: { value: err.message, enumerable: false, writable: true },
    stack: { value: err.stack, enumerable: false, writable: true },
    cause: { value: loggableError(err.cause, depth + 1), enumerable: false, writable: true },
  });
  return copy;
}

/**
 * A terminal a person reads gets one short line per entry, in local time (pino-pretty, written
 * synchronously so nothing is lost on exit); anything else (a file, a pipe, a log collector) gets JSON.
 */
export function terminalDestination(stream: NodeJS.WriteStream = process.stdout): pino.DestinationStream | undefined {
  if (!stream.isTTY) return undefined;
  return pretty({
    destination: stream,
    sync: true,
    colorize: stream.hasColors?.() ?? false,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,reqId',
  });
}

export function createLogger(level: LogLevel, destination: pino.DestinationStream | undefined = terminalDestination()): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[Redacted]' },
      serializers: {
        err: (err: unknown) => pino.stdSerializers.err(loggableError(err) as Error),
        req(req: { method: string; url: string; id?: string; ip?: string; headers?: Record<string, unknown> }) {
          return { method: req.method, url: redactUrl(req.url), id: req.id, remoteAddress: req.ip };
        },
        res(res: { statusCode: number }) {
          return { statusCode: res.statusCode };
        },
      },
    },
    destination,
  );
}
