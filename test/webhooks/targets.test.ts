import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../app.ts';
import { type Receiver, startReceiver } from '../fakes/webhook-receiver.ts';
import { makeCompany, makeProduct } from '../factories.ts';
import { attemptRows, buildWebhookApp, deliveryRows, type TestClock } from './helpers.ts';
import { cliCtx } from '../../src/http/request-context.ts';

describe('webhook endpoints without ALLOW_PRIVATE_WEBHOOK_TARGETS', () => {
  let t: TestApp & { clock: TestClock };
  let receiver: Receiver;
  beforeAll(async () => {
    t = await buildWebhookApp({ ALLOW_PRIVATE_WEBHOOK_TARGETS: 'false' });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });

  it.each([
    'http://127.0.0.1:8080/hook',
    'http://localhost/hook',
    'http://10.1.2.3/hook',
    'http://192.168.0.10/hook',
    'http://172.20.0.1/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]/hook',
    'http://[fd00::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://0.0.0.0/hook',
  ])('refuses %s when the endpoint is registered', async (url) => {
    const company = await makeCompany(t.container);
    await expect(t.container.webhooks.endpoints.createEndpoint(cliCtx(company.id), { url })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ path: 'url', message: expect.stringContaining('private or loopback') }],
    });
    expect(await t.container.webhooks.endpoints.listEndpoints(company.id)).toEqual([]);
  });

  it('accepts a public https target', async () => {
    const company = await makeCompany(t.container);
    const { endpoint } = await t.container.webhooks.endpoints.createEndpoint(cliCtx(company.id), {
      url: 'https://hooks.example.com/mostrador',
    });
    expect(endpoint.url).toBe('https://hooks.example.com/mostrador');
    await t.container.webhooks.endpoints.removeEndpoint(cliCtx(company.id), endpoint.id);
  });

  it('checks the resolved address when sending: a name that resolves to loopback is refused, nothing is sent', async () => {
    const company = await makeCompany(t.container);
    const { endpoint } = await t.container.webhooks.endpoints.createEndpoint(cliCtx(company.id), {
      url: 'https://hooks.example.com/x',
    });
    // As if DNS changed after registration: the stored name now points at this machine.
    await t.container.db.query('UPDATE webhook_endpoints SET url = $1 WHERE id = $2', [
      `http://localhost:${receiver.port}/hooks`,
      endpoint.id,
    ]);
    await makeProduct(t.container, company.id);
    await t.container.webhooks.dispatcher.drain();
    expect(receiver.requests).toEqual([]);
    const [delivery] = await deliveryRows(t, endpoint.id);
    const [attempt] = await attemptRows(t, delivery!.id);
    expect(attempt!.error).toBe('target localhost resolves to the private or loopback address 127.0.0.1');
    expect(delivery!.status).toBe('pending');
  });
});

describe('webhook endpoint input', () => {
  let t: TestApp & { clock: TestClock };
  beforeAll(async () => {
    t = await buildWebhookApp();
  });
  afterAll(() => t.close());

  it.each([
    [{ url: 'ftp://example.com/x' }, 'url', 'must use http or https'],
    [{ url: 'not a url' }, 'url', 'is not a valid URL'],
    [{ url: 'https://user:pw@example.com/' }, 'url', 'must not carry credentials'],
    [{ url: 'https://example.com', events: ['sales.created', 'order.shipped'] }, 'events', 'unknown event "order.shipped"'],
    [{ url: 'https://example.com', events: [] }, 'events', 'at least one event'],
    [{ url: 'https://example.com', headers: { 'X-Signature': 'forged' } }, 'headers.X-Signature', 'cannot be replaced'],
    [{ url: 'https://example.com', headers: { 'X-Bad': 'a\r\nInjected: 1' } }, 'headers.X-Bad', 'without line breaks'],
    [{ url: 'https://example.com', headers: { 'Bad Name': 'v' } }, 'headers.Bad Name', 'not a valid header name'],
    [{ url: 'https://example.com', secret: 'short' }, 'secret', '24 to 256 characters'],
  ])('refuses %j naming the field', async (input, path, message) => {
    const company = await makeCompany(t.container);
    await expect(t.container.webhooks.endpoints.createEndpoint(cliCtx(company.id), input as never)).rejects.toMatchObject({
      code: 'validation_failed',
      details: expect.arrayContaining([{ path, message: expect.stringContaining(message) }]),
    });
    expect(await t.container.webhooks.endpoints.listEndpoints(company.id)).toEqual([]);
  });

  it('stores the secret and the extra headers encrypted, and never shows them back', async () => {
    const company = await makeCompany(t.container);
    const created = await t.container.webhooks.endpoints.createEndpoint(cliCtx(company.id), {
      url: 'https://erp.example.com/in',
      headers: { Authorization: 'Bearer mos_int_supersecretvalue' },
      events: ['product.upserted', 'product.upserted'],
    });
    expect(created.endpoint).toMatchObject({ headers: ['Authorization'], events: ['product.upserted'], enabled: true });
    expect(JSON.stringify(created.endpoint)).not.toContain('supersecret');
    expect(JSON.stringify(created.endpoint)).not.toContain(created.secret);
    const [row] = await t.container.db.query<Record<string, string>>('SELECT * FROM webhook_endpoints WHERE id = $1', [
      created.endpoint.id,
    ]);
    expect(JSON.stringify(row)).not.toContain('supersecret');
    expect(JSON.stringify(row)).not.toContain(created.secret);
    expect(t.container.cipher.decrypt(row!['secret_encrypted']!)).toBe(created.secret);
  });

  it('accepts a secret of the admin’s own (another Mostrador’s integration key)', async () => {
    const company = await makeCompany(t.container);
    const other = await makeCompany(t.container);
    const created = await t.container.webhooks.endpoints.createEndpoint(cliCtx(company.id), {
      url: 'https://otro.example.com/api/integration/in',
      secret: other.integrationKey,
    });
    expect(created.secret).toBe(other.integrationKey);
  });
});
