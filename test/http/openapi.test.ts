import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';

/** The contract's public surface, with the tag each operation must carry. */
const PUBLIC_OPERATIONS: [string, string, string][] = [
  ['get', '/api/public/scanner', 'Public'],
  ['get', '/api/exchange', 'Public'],
  ['get', '/scanner', 'Public'],
  ['get', '/llms.txt', 'Docs'],
  ['get', '/docs/llms.txt', 'Docs'],
  ['get', '/docs/llms-full.txt', 'Docs'],
  ['get', '/docs', 'Docs'],
  ['get', '/docs/{path}', 'Docs'],
  ['get', '/openapi.json', 'Docs'],
];

describe('GET /openapi.json', () => {
  let t: TestApp;
  let doc: Record<string, unknown> & { paths: Record<string, Record<string, { tags?: string[]; responses?: object }>> };

  beforeAll(async () => {
    t = await buildTestApp();
    const res = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    doc = res.json();
  });
  afterAll(() => t.close());

  it('is a valid OpenAPI 3.1.0 document, version 1.0.0', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as never);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(doc['openapi']).toBe('3.1.0');
    expect(doc['info']).toMatchObject({ version: '1.0.0' });
    expect((doc['tags'] as { name: string }[]).map((tag) => tag.name)).toEqual(expect.arrayContaining(['Public', 'Docs']));
  });

  it.each(PUBLIC_OPERATIONS)('describes %s %s with tag %s', (method, path, tag) => {
    const operation = doc.paths[path]?.[method];
    expect(operation, `${method} ${path}`).toBeDefined();
    expect(operation!.tags).toEqual([tag]);
  });

  it('tags every public operation and hides only assets and aliases', () => {
    const untagged = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, operation]) => !operation.tags?.length)
        .map(([method]) => `${method} ${path}`),
    );
    expect(untagged).toEqual([]);
    for (const hidden of ['/docs/assets/docs.css', '/scanner/kiosk.js', '/healthz']) expect(doc.paths[hidden]).toBeUndefined();
  });

  it('documents every status of the scanner and the 503 of the exchange rate', () => {
    expect(Object.keys(doc.paths['/api/public/scanner']!['get']!.responses!)).toEqual([
      '200',
      '400',
      '401',
      '404',
      '429',
      '500',
      '503',
    ]);
    expect(Object.keys(doc.paths['/api/exchange']!['get']!.responses!)).toEqual(expect.arrayContaining(['200', '503']));
    expect(Object.keys(doc.paths['/docs/{path}']!['get']!.responses!)).toEqual(['200', '301', '400', '404', '500', '503']);
  });

  it('answers 304 to a matching If-None-Match', async () => {
    const first = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    const again = await t.app.inject({
      method: 'GET',
      url: '/openapi.json',
      headers: { 'if-none-match': first.headers.etag as string },
    });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });
});
