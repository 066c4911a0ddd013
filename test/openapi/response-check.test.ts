import swagger from '@fastify/swagger';
import Fastify from 'fastify';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import type { App } from '../../src/http/app.types.ts';
import { checkResponses, responseChecker, takeViolations } from '../setup/response-check.ts';

// Issue 26: the response-schema replay must be able to fail. A document with one operation, and
// answers that break it on purpose: an undeclared status, a body that misses a required field, a
// media type the status does not declare. And the same through the test app's hook, on a server
// whose route answers something its own schema does not say.
const doc = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  components: {
    schemas: {
      Product: {
        type: 'object',
        required: ['id', 'name'],
        properties: { id: { type: 'integer' }, name: { type: 'string' }, at: { type: 'string', format: 'date-time' } },
      },
    },
  },
  paths: {
    '/api/v1/products/{id}': {
      get: {
        responses: {
          '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Product' } } } },
          '404': { description: 'no', content: { 'application/json': { schema: { type: 'object', required: ['error'] } } } },
        },
      },
    },
  },
};

describe('response check', () => {
  const checker = responseChecker([doc]);
  const answer = (status: number, body: unknown, contentType = 'application/json; charset=utf-8') =>
    checker.check({ method: 'GET', route: '/api/v1/products/:id', status, contentType, body: JSON.stringify(body) });

  it('passes an answer the document describes', () => {
    expect(answer(200, { id: 1, name: 'Yerba', at: '2025-01-01T00:00:00Z' })).toBeNull();
    expect(answer(404, { error: 'no' })).toBeNull();
  });

  it('fails an undeclared status, an invalid body, a wrong format and an undeclared media type', () => {
    expect(answer(409, { error: 'x' })).toMatch(/status not declared/);
    expect(answer(200, { id: 1 })).toMatch(/must have required property 'name'/);
    expect(answer(200, { id: 'uno', name: 'Yerba' })).toMatch(/must be integer/);
    expect(answer(200, { id: 1, name: 'Yerba', at: '2025-02-30T00:00:00Z' })).toMatch(/format/);
    expect(answer(200, 'a,b', 'text/csv')).toMatch(/answered text\/csv/);
  });

  it('leaves alone what no document describes', () => {
    expect(checker.check({ method: 'GET', route: '/nowhere', status: 418, contentType: 'text/plain', body: 'x' })).toBeNull();
  });

  it('the test app hook records a mismatch of a real server (and nothing for a true answer)', async () => {
    const app = Fastify();
    await app.register(swagger, { openapi: { openapi: '3.1.0', info: { title: 't', version: '1' } } });
    const Thing = Type.Object({ id: Type.Integer(), name: Type.String() });
    // The second route's schema declares 200 only; its handler answers 418 (a status it never declared).
    app.get('/api/v1/things/:id', { schema: { response: { 200: Thing } } }, async () => ({ id: 1, name: 'uno' }));
    app.get('/api/v1/things/:id/teapot', { schema: { response: { 200: Thing } } }, async (_request, reply) => {
      reply.statusCode = 418;
      return { id: 2, name: 'teapot' };
    });
    checkResponses(app as unknown as App);
    await app.ready();
    takeViolations();
    await app.inject({ url: '/api/v1/things/1' });
    expect(takeViolations()).toEqual([]);
    await app.inject({ url: '/api/v1/things/2/teapot' });
    expect(takeViolations()).toEqual([expect.stringMatching(/GET \/api\/v1\/things\/\{id\}\/teapot → 418: status not declared/)]);
    await app.close();
  });
});
