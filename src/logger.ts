import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { LogLevel } from './config.ts';

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

const SECRET_QUERY_PARAMS = /([?&](?:token|access_token|key|secret|hub\.verify_token|code)=)[^&#]*/gi;

/** Masks secret query parameters in a URL before it is logged. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY_PARAMS, '$1[Redacted]');
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
