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
