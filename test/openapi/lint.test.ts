import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { type Finding, redocly, spectral } from './lint.ts';

// Issue 26: both OpenAPI documents lint clean under Redocly's `recommended` and Spectral's
// `spectral:oas` (every rule): 0 errors, 0 warnings.

const DOCUMENTS = ['/openapi.json', '/docs/openapi-comercio.json'];

describe('both OpenAPI documents lint clean (issue 26)', () => {
  let t: TestApp;
  beforeAll(async () => {
    // A deployment's address: the linters warn on localhost and example.com servers.
    t = await buildTestApp({ env: { PUBLIC_BASE_URL: 'https://mostrador.com.ar' } });
  });
  afterAll(() => t.close());

  const show = (found: Finding[]) =>
    found.length + ' findings:\n' + found.map((f) => `${f.tool} ${f.severity} ${f.rule} at ${f.where}: ${f.message}`).join('\n');

  for (const url of DOCUMENTS) {
    it(`${url}: Redocly recommended`, async () => {
      const found = await redocly((await t.app.inject({ url })).json());
      expect(found, show(found)).toEqual([]);
    });
    it(`${url}: every operation has an operationId and a summary, and declares the error body on its 4xx`, async () => {
      const doc = (await t.app.inject({ url })).json();
      for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Record<string, unknown>>>)) {
        for (const [method, operation] of Object.entries(item)) {
          expect(operation['operationId'], `${method} ${path}`).toEqual(expect.any(String));
          expect(String(operation['summary'] ?? '').length, `${method} ${path} summary`).toBeGreaterThan(0);
          const responses = operation['responses'] as Record<string, { content?: Record<string, { schema?: unknown }> }>;
          expect(Object.keys(responses), `${method} ${path}`).toContain('400');
          for (const [status, response] of Object.entries(responses)) {
            if (Number(status) < 400) continue;
            // The error body in JSON; pages (the kiosk, the docs) answer their errors as a page.
            const content = Object.values(response.content ?? {});
            expect(content.length, `${method} ${path} ${status}`).toBeGreaterThan(0);
            for (const media of content) expect(media.schema, `${method} ${path} ${status}`).toBeDefined();
          }
        }
      }
    });
    it(`${url}: Spectral spectral:oas`, async () => {
      const found = await spectral((await t.app.inject({ url })).json());
      expect(found, show(found)).toEqual([]);
    });
  }
});
