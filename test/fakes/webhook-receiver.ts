import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

/** What the receiver does with the next requests. */
export type ReceiverMode =
  | { kind: 'status'; status: number; body?: string; headers?: Record<string, string> }
  /** Never answers (the sender's timeout must fire). */
  | { kind: 'hang' }
  /** Sends the status line and headers, then stalls the body. */
  | { kind: 'stall-body' };

/**
 * A webhook receiver on 127.0.0.1 for tests: records every request with its exact body and answers
 * as told (any status, a redirect, a hang, a stalled body). `down()` closes the port so connections
 * are refused; `up()` listens again on the same port.
 */
export async function startReceiver() {
  const requests: ReceivedRequest[] = [];
  let mode: ReceiverMode = { kind: 'status', status: 200, body: '{"status":"ok"}' };
  const hanging = new Set<ServerResponse>();
  let server: Server;
  let port = 0;
  const waiters: Array<() => void> = [];

  function handle(req: import('node:http').IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      });
      for (const wake of waiters.splice(0)) wake();
      if (mode.kind === 'hang') {
        hanging.add(res);
        return;
      }
      if (mode.kind === 'stall-body') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"status":');
        hanging.add(res);
        return;
      }
      res.writeHead(mode.status, { 'content-type': 'application/json', ...mode.headers });
      res.end(mode.body ?? '');
    });
  }

  async function listen() {
    server = createServer(handle);
    server.keepAliveTimeout = 2000;
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  }
  await listen();

  async function close() {
    for (const res of hanging) res.destroy();
    hanging.clear();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  return {
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    requests,
    set(next: ReceiverMode) {
      mode = next;
    },
    down: close,
    up: listen,
    close,
    /** Resolves when at least `count` requests have arrived. */
    async waitFor(count: number, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} requests, got ${requests.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
    },
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** A clock tests move forward (retries, leases, rotations, retention) without waiting. */
export function createTestClock() {
  let offsetMs = 0;
  return {
    now: () => new Date(Date.now() + offsetMs),
    advance(ms: number) {
      offsetMs += ms;
    },
  };
}
