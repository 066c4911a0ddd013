import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';

/**
 * What Node's HTTP parser refuses before any route runs is answered with the same {error, code}
 * body as every other error (Fastify's default wrote {"error":"Bad Request","message":…}).
 */
describe('requests that are not valid HTTP', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await buildTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  /** Writes raw bytes and reads everything the server answers until it closes the connection. */
  const raw = (bytes: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.end(bytes));
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk) => {
        text += chunk;
      });
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });

  /** The last response of a connection: its status and its JSON body. */
  const lastAnswer = (text: string) => {
    const at = text.lastIndexOf('HTTP/1.1 ');
    const response = text.slice(at);
    return {
      status: Number(response.slice(9, 12)),
      type: /content-type: ([^\r]+)/i.exec(response)?.[1],
      body: JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)),
    };
  };

  it('a body longer than its Content-Length: the extra bytes are a broken request, 400 bad_request', async () => {
    const body = '{"event":"sales.created","data":{}}';
    const text = await raw(
      `POST /api/integration/in HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n${body}`,
    );
    // The first ten bytes are one request (refused: no key); what follows is not HTTP.
    expect(text).toContain('HTTP/1.1 401');
    const last = lastAnswer(text);
    expect(last).toMatchObject({ status: 400, type: 'application/json; charset=utf-8' });
    expect(last.body).toEqual({ error: expect.stringContaining('not valid HTTP'), code: 'bad_request' });
  });

  it('a broken request line: 400 bad_request', async () => {
    const last = lastAnswer(await raw('NOT A REQUEST\r\n\r\n'));
    expect(last.status).toBe(400);
    expect(last.body).toMatchObject({ code: 'bad_request' });
  });

  it('headers past the limit: 431 headers_too_large', async () => {
    const last = lastAnswer(await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(last.status).toBe(431);
    expect(last.body).toMatchObject({ code: 'headers_too_large' });
  });
});
