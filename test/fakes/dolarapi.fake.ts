import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeAnswer {
  status?: number;
  /** Sent as JSON unless it is a string (sent as is). */
  body?: unknown;
  /** Milliseconds before the headers are sent. */
  delayMs?: number;
  /** Milliseconds between the headers and the body. */
  bodyDelayMs?: number;
}

/** A local stand-in for DolarAPI (`GET /v1/dolares/{casa}`), answering what the test sets. */
export interface FakeDolarApi {
  url: string;
  requests: string[];
  answer(next: FakeAnswer): void;
  /** A quote in DolarAPI's wire format. */
  quote(venta: number, fechaActualizacion: string, compra?: number): void;
  close(): Promise<void>;
}

export async function startFakeDolarApi(): Promise<FakeDolarApi> {
  let current: FakeAnswer = { status: 404, body: { message: 'not set' } };
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req.url ?? '');
    const { status = 200, body, delayMs = 0, bodyDelayMs = 0 } = current;
    setTimeout(() => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.flushHeaders();
      setTimeout(() => res.end(typeof body === 'string' ? body : JSON.stringify(body)), bodyDelayMs);
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    answer(next) {
      current = next;
    },
    quote(venta, fechaActualizacion, compra = venta - 50) {
      current = { body: { moneda: 'USD', casa: 'oficial', nombre: 'Oficial', compra, venta, fechaActualizacion } };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
