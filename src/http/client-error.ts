import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ERROR_STATUS, type ErrorCode } from '../lib/errors.ts';

/**
 * What a request Node's HTTP parser refuses before Fastify sees it is answered with (a body longer
 * than its Content-Length, a broken request line, headers past the limit, one too slow): the same
 * `{error, code}` body as every other error, where Fastify's default wrote
 * `{"error":"Bad Request","message":"Client Error","statusCode":400}`.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  // A connection the client reset has nobody to answer (as Fastify's default handler does).
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [code, error]: [ErrorCode, string] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? ['request_timeout', 'the request did not arrive in time']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? ['headers_too_large', 'the request headers are larger than the server accepts']
        : ['bad_request', 'the request is not valid HTTP (a body longer than its Content-Length, a broken request line)'];
  const status = ERROR_STATUS[code];
  const body = JSON.stringify({ error, code });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
