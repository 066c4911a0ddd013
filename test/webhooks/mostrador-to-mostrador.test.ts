import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tx } from '../../src/db/client.ts';
import { recordInvoice } from '../../src/modules/invoicing/invoices.ts';
import { createSale, markSalePaid } from '../../src/modules/sales/sales.service.ts';
import { applyMovement, setProductStock } from '../../src/modules/stock/stock.ledger.ts';
import type { TestApp } from '../app.ts';
import { makeCompany, makeProduct } from '../factories.ts';
import { attemptRows, buildWebhookApp, deliveryRows, type TestClock } from './helpers.ts';
import { cliCtx } from '../../src/http/request-context.ts';

/**
 * Issue 6, item 5: company A's endpoint points at company B's /api/integration/in (B's key as the
 * bearer and as the signing secret). What happens in A arrives in B, once, even when redelivered.
 */
describe('Mostrador to Mostrador', () => {
  let t: TestApp & { clock: TestClock };
  let base: string;
  beforeAll(async () => {
    // The receiver is a whole Mostrador in this process: give an attempt time to be ingested even on a busy machine.
    t = await buildWebhookApp({ AUTH_LOGIN_LIMIT_PER_CLIENT: '1000' }, { attemptTimeoutMs: 5000 });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => t.close());

  const inA = <T>(fn: (tx: Tx) => Promise<T>) => t.container.db.orm.transaction(fn);
  const now = () => ({ now: t.clock.now() });
  const q = <T>(text: string, params: unknown[]) => t.container.db.query<T>(text, params);

  /** Sends everything due and insists it was accepted (shows B's answer when not). */
  async function deliver(endpointId: string) {
    await t.container.webhooks.dispatcher.drain();
    const rows = await deliveryRows(t, endpointId);
    const refused = rows.filter((d) => d.status !== 'delivered');
    if (refused.length > 0) {
      const answers = await Promise.all(
        refused.map(async (d) => [d.event, d.last_error, (await attemptRows(t, d.id)).at(-1)?.response_body]),
      );
      throw new Error(`not delivered: ${JSON.stringify(answers)}`);
    }
    return rows;
  }

  it('carries products, a paid sale, an invoice, a movement and a stock change from A into B, once', async () => {
    const a = await makeCompany(t.container, { name: 'Sucursal Norte' });
    const b = await makeCompany(t.container, { name: 'Casa Central' });
    const { endpoint } = await t.container.webhooks.endpoints.createEndpoint(cliCtx(a.id), {
      url: `${base}/api/integration/in`,
      headers: { Authorization: `Bearer ${b.integrationKey}` },
      secret: b.integrationKey,
    });

    const yerba = await makeProduct(t.container, a.id, { name: 'Yerba mate 1 kg', sku: 'YER-1', basePrice: 3500 });
    const azucar = await makeProduct(t.container, a.id, { name: 'Azúcar 1 kg', sku: 'AZU-1', basePrice: 1299.9 });
    await deliver(endpoint.id);
    const products = await q<{ id: number; name: string; sku: string; base_price: string }>(
      'SELECT id, name, sku, base_price::text FROM products WHERE company_id = $1 ORDER BY id',
      [b.id],
    );
    expect(products).toEqual([
      { id: yerba.id, name: 'Yerba mate 1 kg', sku: 'YER-1', base_price: '3500.00' },
      { id: azucar.id, name: 'Azúcar 1 kg', sku: 'AZU-1', base_price: '1299.90' },
    ]);

    await inA(async (tx) => {
      await createSale(
        tx,
        a.id,
        {
          id: 31,
          total: 8299.9,
          paymentMethod: 'efectivo',
          items: [
            { productId: yerba.id, quantity: 2, price: 3500 },
            { productId: azucar.id, quantity: 1, price: 1299.9 },
          ],
        },
        now(),
      );
      await markSalePaid(tx, a.id, { id: 31, paymentId: 'mp-555', paymentMethod: 'Mercado Pago' }, now());
      await recordInvoice(
        tx,
        a.id,
        {
          id: 4,
          saleId: 31,
          type: 'B',
          pointOfSale: 2,
          number: 118,
          cae: '74123456789012',
          caeExpiration: new Date('2026-12-31T00:00:00Z'),
          total: 8299.9,
        },
        now(),
      );
    });
    await deliver(endpoint.id);
    const [sale] = await q<{ status: string; total: string; payment_id: string; items: number }>(
      `SELECT s.status, s.total::text, s.payment_id, (SELECT count(*)::int FROM sale_items i WHERE i.company_id = s.company_id AND i.sale_id = s.id) AS items
       FROM sales s WHERE s.company_id = $1 AND s.id = 31`,
      [b.id],
    );
    expect(sale).toEqual({ status: 'paid', total: '8299.90', payment_id: 'mp-555', items: 2 });
    const [invoice] = await q<{ type: string; number: string; cae: string }>(
      'SELECT type, number::text, cae FROM invoices WHERE company_id = $1 AND id = 4',
      [b.id],
    );
    expect(invoice).toEqual({ type: 'B', number: '118', cae: '74123456789012' });

    const { movement } = await inA((tx) =>
      applyMovement(tx, a.id, { type: 'IN', depositId: 1, productId: yerba.id, amount: 24, reason: 'compra a proveedor' }, now()),
    );
    await deliver(endpoint.id);
    await inA((tx) => setProductStock(tx, a.id, { productId: yerba.id, stock: 20.5, reason: 'conteo' }, now()));
    await deliver(endpoint.id);

    const stock = async (companyId: number) =>
      (
        await q<{ stock: string }>('SELECT stock::text FROM products WHERE company_id = $1 AND id = $2', [companyId, yerba.id])
      )[0]!.stock;
    expect(await stock(a.id)).toBe('20.500');
    expect(await stock(b.id)).toBe('20.500');
    const movementsIn = (companyId: number) =>
      q<{ id: number; type: string; amount: string }>(
        'SELECT id, type, amount::text FROM movements WHERE company_id = $1 ORDER BY id',
        [companyId],
      );
    expect(await movementsIn(b.id)).toEqual(await movementsIn(a.id));
    expect((await movementsIn(b.id)).map((m) => m.type)).toEqual(['IN', 'ADJUSTMENT']);

    // B stored every event, each with a valid signature and A's event id as its idempotency key.
    // (Read from B's store directly: on a shared PostgreSQL server the poll waits for every older
    // transaction of the cluster, and other test runs may hold one open.)
    const sent = await q<{ id: string; event: string }>(
      'SELECT id, event FROM outbox_events WHERE company_id = $1 ORDER BY created_at, id',
      [a.id],
    );
    const stored = await q<{ event: string; idempotency_key: string; signature_valid: boolean; payload: string }>(
      'SELECT event, idempotency_key, signature_valid, payload::text FROM inbound_events WHERE company_id = $1',
      [b.id],
    );
    expect(stored.map((e) => e.idempotency_key).sort()).toEqual(sent.map((e) => e.id).sort());
    expect(stored.every((e) => e.signature_valid)).toBe(true);
    expect(stored.some((e) => e.payload.includes('company_id'))).toBe(false);
    expect(new Set(stored.map((e) => e.event))).toEqual(
      new Set(['product.upserted', 'sales.created', 'sales.paid', 'invoice.issued', 'movement.created', 'product.stock_updated']),
    );

    // Redelivering the movement is answered as a duplicate and changes nothing in B.
    const movementEvent = sent.find((e) => e.event === 'movement.created')!;
    const again = await t.container.webhooks.deliveries.redeliver(a.id, endpoint.id, movementEvent.id);
    const rows = await deliver(endpoint.id);
    const redelivered = rows.find((d) => d.id === again.id)!;
    expect(redelivered.attempts).toBe(2);
    const answer = (await attemptRows(t, again.id)).at(-1)!;
    expect(answer.status_code).toBe(200);
    expect(JSON.parse(answer.response_body!)).toMatchObject({ status: 'ok', idempotent: true });
    expect(await stock(b.id)).toBe('20.500');
    expect(await movementsIn(b.id)).toHaveLength(2);
    expect(movement.id).toBe((await movementsIn(b.id))[0]!.id);
  });

  it('keeps delivering after the receiver renews its key and the sender rotates to it, keeping the previous secret', async () => {
    const a = await makeCompany(t.container, { name: 'Sucursal Sur' });
    const b = await makeCompany(t.container, { name: 'Casa Matriz' });
    const ctx = cliCtx(a.id);
    const { endpoint } = await t.container.webhooks.endpoints.createEndpoint(ctx, {
      url: `${base}/api/integration/in`,
      headers: { Authorization: `Bearer ${b.integrationKey}` },
      secret: b.integrationKey,
    });
    await makeProduct(t.container, a.id, { name: 'Fideos 500 g' });
    await deliver(endpoint.id);

    // B renews its key; A's admin puts the new one in the header and rotates the secret to it the
    // default way (the previous secret would keep signing for 24 h).
    const { integrationKey: renewed } = await t.container.companies.rotateSecrets(b.id, { integration: true, scanner: false });
    await t.container.webhooks.endpoints.updateEndpoint(ctx, endpoint.id, { headers: { Authorization: `Bearer ${renewed}` } });
    const rotated = await t.container.webhooks.endpoints.rotateSecret(ctx, endpoint.id, { secret: renewed! });
    expect(rotated.endpoint.previous_secret_expires_at).not.toBeNull();

    const arroz = await makeProduct(t.container, a.id, { name: 'Arroz 1 kg' });
    await deliver(endpoint.id);
    const received = await q<{ name: string; signature_valid: boolean }>(
      `SELECT p.name, e.signature_valid FROM products p
       JOIN inbound_events e ON e.company_id = p.company_id AND (e.payload::jsonb #>> '{data,product,id}')::int = p.id
       WHERE p.company_id = $1 AND p.id = $2`,
      [b.id, arroz.id],
    );
    expect(received).toEqual([{ name: 'Arroz 1 kg', signature_valid: true }]);
  });
});
