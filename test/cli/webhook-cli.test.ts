import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany } from '../factories.ts';
import { runCliOn } from './run-cli.ts';

describe('webhook CLI', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_TARGETS: 'false' } });
  });
  afterAll(() => t.close());

  const cli = (...argv: string[]) => runCliOn(t.container, argv);

  it('adds an endpoint and prints exactly {endpoint:{id,url},secret}', async () => {
    const company = await makeCompany(t.container);
    const { code, out } = await cli(
      'webhook',
      'add',
      '--company',
      String(company.id),
      '--url',
      'https://tienda.example.com/hooks/mostrador',
      '--events',
      'sales.paid, product.upserted',
      '--header',
      'Authorization: Bearer abc:def',
      '--header',
      'X-Tienda: centro',
      '--json',
    );
    expect(code).toBe(0);
    const json = JSON.parse(out);
    expect(Object.keys(json)).toEqual(['endpoint', 'secret']);
    expect(Object.keys(json.endpoint)).toEqual(['id', 'url']);
    expect(json.endpoint.url).toBe('https://tienda.example.com/hooks/mostrador');
    expect(json.secret).toMatch(/^mos_whs_[A-Za-z0-9_-]{43}$/);
    const [endpoint] = await t.container.webhooks.endpoints.listEndpoints(company.id);
    expect(endpoint).toMatchObject({
      id: json.endpoint.id,
      events: ['sales.paid', 'product.upserted'],
      headers: ['Authorization', 'X-Tienda'],
    });
    const [row] = await t.container.db.query<{ headers_encrypted: string }>(
      'SELECT headers_encrypted FROM webhook_endpoints WHERE id = $1',
      [json.endpoint.id],
    );
    expect(JSON.parse(t.container.cipher.decrypt(row!.headers_encrypted))).toEqual({
      Authorization: 'Bearer abc:def',
      'X-Tienda': 'centro',
    });
  });

  it('lists and removes endpoints, only the company’s own', async () => {
    const company = await makeCompany(t.container);
    const other = await makeCompany(t.container);
    const added = JSON.parse(
      (await cli('webhook', 'add', '--company', String(company.id), '--url', 'https://a.example.com/h', '--json')).out,
    );
    const listed = JSON.parse((await cli('webhook', 'list', '--company', String(company.id), '--json')).out);
    expect(listed.endpoints.map((e: { id: string }) => e.id)).toEqual([added.endpoint.id]);
    expect(listed.endpoints[0]).toMatchObject({ url: 'https://a.example.com/h', events: null, enabled: true, headers: [] });
    expect(JSON.stringify(listed)).not.toContain(added.secret);
    expect(JSON.parse((await cli('webhook', 'list', '--company', String(other.id), '--json')).out)).toEqual({ endpoints: [] });
    expect((await cli('webhook', 'list', '--company', String(other.id))).out).toContain('no tiene webhooks');

    const wrong = await cli('webhook', 'remove', '--company', String(other.id), '--id', added.endpoint.id);
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain(`webhook endpoint ${added.endpoint.id} not found`);
    const removed = await cli('webhook', 'remove', '--company', String(company.id), '--id', added.endpoint.id, '--json');
    expect(removed.code).toBe(0);
    expect(JSON.parse(removed.out)).toEqual({ removed: { id: added.endpoint.id } });
    expect(await t.container.webhooks.endpoints.listEndpoints(company.id)).toEqual([]);
  });

  it('prints the secret once in text mode, in Spanish', async () => {
    const company = await makeCompany(t.container);
    const { code, out } = await cli('webhook', 'add', '--company', String(company.id), '--url', 'https://b.example.com/h');
    expect(code).toBe(0);
    expect(out).toMatch(/Secreto de firma: mos_whs_/);
    expect(out).toContain('Eventos: todos');
  });

  it.each([
    [['webhook', 'add', '--company', '1'], '--url is required'],
    [['webhook', 'add', '--url', 'https://x.example.com'], '--company is required'],
    [['webhook', 'add', '--company', '1', '--url', 'https://x.example.com', '--header', 'NoColon'], '--header must look like'],
    [['webhook', 'add', '--company', '1', '--url', 'https://x.example.com', '--events', ' , '], '--events needs at least one'],
    [['webhook', 'remove', '--company', '1'], '--id is required'],
    [['webhook', 'list'], '--company is required'],
  ])('exits 2 with usage for %j', async (argv, message) => {
    const { code, err, out } = await cli(...argv);
    expect(code).toBe(2);
    expect(err).toContain(message);
    expect(err).toContain('webhook add --company ID --url URL');
    expect(out).toBe('');
  });

  it('exits 1 naming the problem when the endpoint is refused, and writes nothing', async () => {
    const company = await makeCompany(t.container);
    const privateTarget = await cli('webhook', 'add', '--company', String(company.id), '--url', 'http://127.0.0.1:9/h', '--json');
    expect(privateTarget.code).toBe(1);
    expect(privateTarget.err).toContain('private or loopback');
    const badEvent = await cli(
      'webhook',
      'add',
      '--company',
      String(company.id),
      '--url',
      'https://x.example.com',
      '--events',
      'sales.refunded',
    );
    expect(badEvent.code).toBe(1);
    expect(badEvent.err).toContain('unknown event "sales.refunded"');
    const noCompany = await cli('webhook', 'add', '--company', '999999', '--url', 'https://x.example.com');
    expect(noCompany.code).toBe(1);
    expect(noCompany.err).toContain('company 999999 not found');
    expect(await t.container.webhooks.endpoints.listEndpoints(company.id)).toEqual([]);
  });
});
