import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createWebhookSender, type WebhookSender } from './webhook-sender.ts';

/**
 * A receiver that answers 200, except that it drops a kept-alive connection when the next request
 * arrives on it, as a server whose idle timeout fires while the request is on its way.
 */
async function droppingReceiver(drops: number) {
  const perSocket = new Map<Socket, number>();
  const received: { socketRequest: number; answered: boolean }[] = [];
  let left = drops;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const n = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, n);
    req.resume();
    req.on('end', () => {
      if (n > 1 && left > 0) {
        left--;
        received.push({ socketRequest: n, answered: false });
        req.socket.destroy();
        return;
      }
      received.push({ socketRequest: n, answered: true });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('webhook sender', () => {
  let sender: WebhookSender | undefined;
  let receiver: Awaited<ReturnType<typeof droppingReceiver>> | undefined;
  afterEach(async () => {
    sender?.close();
    await receiver?.close();
  });

  const post = (url: string) => sender!.send({ url, headers: { 'content-type': 'application/json' }, body: '{"event":"x"}' });

  it('sends again, once, on a new connection when the kept-alive one was closed under the request', async () => {
    receiver = await droppingReceiver(1);
    sender = createWebhookSender({ allowPrivateTargets: true });
    expect(await post(receiver.url)).toMatchObject({ statusCode: 200, error: null });
    // The second request goes on the same connection, which the receiver drops: it is sent again.
    expect(await post(receiver.url)).toMatchObject({ statusCode: 200, error: null });
    expect(receiver.received).toEqual([
      { socketRequest: 1, answered: true },
      { socketRequest: 2, answered: false },
      { socketRequest: 1, answered: true },
    ]);
  });

  it('reports the failure when the second connection is dropped too, and never sends a third time', async () => {
    receiver = await droppingReceiver(5);
    sender = createWebhookSender({ allowPrivateTargets: true });
    // Two at once: two kept-alive connections, each has answered once.
    const first = await Promise.all([post(receiver.url), post(receiver.url)]);
    expect(first.map((r) => r.statusCode)).toEqual([200, 200]);
    // The next request and its retry each go on one of them, and both are dropped.
    const failed = await post(receiver.url);
    expect(failed.statusCode).toBeNull();
    expect(failed.error).toMatch(/socket hang up|ECONNRESET/);
    expect(receiver.received.filter((r) => !r.answered)).toHaveLength(2);
    expect(receiver.received).toHaveLength(4);
  });
});
