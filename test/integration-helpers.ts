import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { App } from '../src/http/app.types.ts';
import type { Conn } from '../src/db/client.ts';
import { selectRows } from '../src/db/client.ts';
import { hmacSha256Hex } from '../src/lib/secrets.ts';

export const INTEGRATION_PATH = '/api/integration/in';

export interface SendOptions {
  /** Idempotency key; a fresh one unless given (null: no header). */
  idempotencyKey?: string | null;
  /** Sign the body (default true). */
  sign?: boolean;
  signature?: string;
  sentAt?: string | null;
  /** Exact bytes to send instead of JSON.stringify(envelope). */
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

/** POSTs one event the way an integrator does: JSON body, bearer key, signature, fresh idempotency key. */
export function sendEvent(app: App, key: string, envelope: unknown, options: SendOptions = {}) {
  const body = options.raw ?? JSON.stringify(envelope);
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const idempotencyKey = options.idempotencyKey === undefined ? randomUUID() : options.idempotencyKey;
  if (idempotencyKey !== null) headers['x-idempotency-key'] = idempotencyKey;
  if (options.signature !== undefined) headers['x-signature'] = options.signature;
  else if (options.sign !== false) headers['x-signature'] = hmacSha256Hex(key, body);
  if (options.sentAt !== undefined && options.sentAt !== null) headers['x-sent-at'] = options.sentAt;
  return app.inject({ method: 'POST', url: INTEGRATION_PATH, headers: { ...headers, ...options.headers }, payload: body });
}

export function poll(app: App, key: string, query: Record<string, string | number> = {}) {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
  return app.inject({
    method: 'GET',
    url: `${INTEGRATION_PATH}${search ? `?${search}` : ''}`,
    headers: { authorization: `Bearer ${key}` },
  });
}

export interface RowCounts {
  inbound: number;
  outbox: number;
  sales: number;
  sale_items: number;
  invoices: number;
  movements: number;
  products: number;
  stock_levels: number;
}

/** Row counts of a company's tables, to prove that a refused or failed request wrote nothing. */
export async function countRows(conn: Conn, companyId: number) {
  const [row] = await selectRows<RowCounts>(
    conn,
    sql`SELECT
      (SELECT count(*)::int FROM inbound_events WHERE company_id = ${companyId}) AS inbound,
      (SELECT count(*)::int FROM outbox_events WHERE company_id = ${companyId}) AS outbox,
      (SELECT count(*)::int FROM sales WHERE company_id = ${companyId}) AS sales,
      (SELECT count(*)::int FROM sale_items WHERE company_id = ${companyId}) AS sale_items,
      (SELECT count(*)::int FROM invoices WHERE company_id = ${companyId}) AS invoices,
      (SELECT count(*)::int FROM movements WHERE company_id = ${companyId}) AS movements,
      (SELECT count(*)::int FROM products WHERE company_id = ${companyId}) AS products,
      (SELECT count(*)::int FROM stock_levels WHERE company_id = ${companyId}) AS stock_levels`,
  );
  return row!;
}

export const saleCreated = (id: number, productId: number, extra: Record<string, unknown> = {}) => ({
  event: 'sales.created',
  data: {
    sale: {
      id,
      total: 300,
      payment_method: 'efectivo',
      items: [
        { product_id: productId, quantity: 2, price: 100 },
        { product_id: productId, quantity: 1, price: 100 },
      ],
      ...extra,
    },
  },
});
