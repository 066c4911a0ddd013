import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';

describe('the two OpenAPI documents', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  it('/openapi.json keeps only the contract: no merchant API path, only its own tags', async () => {
    const doc = (await t.app.inject({ url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/api/v1'))).toEqual([]);
    const tags = new Set<string>();
    for (const item of Object.values(doc.paths) as Record<string, { tags?: string[] }>[]) {
      for (const operation of Object.values(item)) for (const tag of operation.tags ?? []) tags.add(tag);
    }
    expect([...tags].sort()).toEqual(['Docs', 'Integration', 'Public']);
  });

  it('/docs/openapi-comercio.json is a valid OpenAPI 3.1 document of /api/v1 with named component schemas', async () => {
    const res = await t.app.inject({ url: '/docs/openapi-comercio.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    const paths = Object.keys(doc.paths);
    expect(paths.length).toBeGreaterThan(20);
    expect(paths.every((p) => p.startsWith('/api/v1/'))).toBe(true);
    for (const path of ['/api/v1/products', '/api/v1/products/{id}', '/api/v1/movements', '/api/v1/stock', '/api/v1/sales']) {
      expect(paths).toContain(path);
    }
    for (const name of ['Product', 'Movement', 'StockLevel', 'Category', 'Deposit', 'Box', 'Error', 'Sale']) {
      expect(Object.keys(doc.components.schemas)).toContain(name);
    }
    expect(JSON.stringify(doc.paths['/api/v1/products'].get.responses['200'])).toContain('#/components/schemas/Product');
    expect(JSON.stringify(doc)).not.toContain('"$id"');
    expect(doc.components.securitySchemes.apiToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const path of ['/api/v1/me', '/api/v1/api-tokens', '/api/v1/api-tokens/{id}/revoke']) expect(paths).toContain(path);
  });

  it('declares the response headers the routes set: idempotent replays, the catalogue ETag (and its 304), Retry-After', async () => {
    const merchant = (await t.app.inject({ url: '/docs/openapi-comercio.json' })).json();
    const replay = (path: string, status: string) =>
      merchant.paths[path].post.responses[status]?.headers?.['idempotent-replay']?.schema;
    for (const path of [
      '/api/v1/sales',
      '/api/v1/box-sessions',
      '/api/v1/sales/{id}/returns',
      '/api/v1/customers/{id}/payments',
    ]) {
      const successes = Object.keys(merchant.paths[path].post.responses).filter((status) => status.startsWith('2'));
      expect([path, successes.map((status) => replay(path, status))]).toEqual([
        path,
        successes.map(() => ({ type: 'string', enum: ['true'] })),
      ]);
    }
    const catalog = merchant.paths['/api/v1/register/catalog'].get.responses;
    expect(Object.keys(catalog['200'].headers)).toEqual(['etag']);
    expect(catalog['304'].description).toContain('If-None-Match');
    const open = (await t.app.inject({ url: '/openapi.json' })).json();
    expect(open.paths['/api/public/scanner'].get.responses['429'].headers['retry-after']).toBeDefined();
    expect(open.paths['/api/exchange'].get.responses['503'].headers['retry-after']).toBeDefined();
    expect(open.paths['/api/integration/in'].post.responses['200'].headers['x-idempotency-mismatch']).toBeDefined();
    for (const doc of [merchant, open]) {
      const result = await new Validator().validate(doc as never);
      expect(result.errors ?? []).toEqual([]);
    }
  });
});

describe('the merchant API guide', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  it('serves the page and an example spreadsheet that imports cleanly', async () => {
    const page = await t.app.inject({ url: '/docs/api-comercio.md' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('/api/v1/products/import');
    const csv = await t.app.inject({ url: '/docs/ejemplo-productos.csv' });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    const { makeCompany, makeUser } = await import('../factories.ts');
    const { login, SAME_ORIGIN } = await import('../sessions.ts');
    const company = await makeCompany(t.container);
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const headers = {
      cookie: (await login(t.app, admin.email, admin.password)).cookie,
      ...SAME_ORIGIN,
      'content-type': 'text/csv',
    };
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/products/import', headers, payload: csv.rawPayload });
    expect(res.json()).toMatchObject({ created: 4, updated: 0, errors: [] });
  });
});
