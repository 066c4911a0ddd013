import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { isPostgresRun } from '../setup/db.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';
import {
  assertFuzz,
  expectHouseError,
  extremeNumber,
  FUZZ_TIMEOUT_MS,
  nastyString,
  nastyValue,
  printStats,
  statsFor,
  tableCounter,
} from './fuzz.ts';

/**
 * Issue 26: every operation of both OpenAPI documents under requests generated from the documents'
 * own schemas — valid values, boundary values (limits ± 1, lengths at and past the maximum, real and
 * impossible dates) and invalid ones (wrong types, NUL, lone surrogates, `Infinity` as text). A new
 * route is fuzzed with no new test code. Never a 5xx; a refusal is `{error, code}` (a page may answer
 * with a page); a refusal writes nothing (the row count of every table unchanged).
 */
const BOUNDED_RUNS = 6;
const DOCUMENTS = ['/openapi.json', '/docs/openapi-comercio.json'];

type Schema = Record<string, unknown>;
type Operation = { method: string; path: string; operation: Schema };

/** Calendar dates around the edges: real ones and ones that match yyyy-mm-dd but do not exist. */
const dateText = fc.oneof(
  fc.constantFrom('2024-02-29', '2025-01-01', '2025-12-31', '2025-02-30', '2025-13-01', '2025-00-10', '0000-01-01', '9999-12-31'),
  fc
    .date({ min: new Date('2000-01-01'), max: new Date('2030-12-31'), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10)),
);
const dateTimeText = fc.oneof(
  fc.date({ min: new Date('2000-01-01'), max: new Date('2030-12-31'), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.constantFrom('2025-02-30T10:00:00Z', '2025-01-01T24:00:00Z', '2025-01-01'),
);
const amountText = fc.constantFrom('Infinity', '-Infinity', '1e999', 'NaN', '12.5', '1e12', '-0');

/** Values for one schema: mostly what it describes (edges included), sometimes anything at all. */
function valueFor(schema: Schema | undefined, doc: Schema, depth = 0): fc.Arbitrary<unknown> {
  const valid = validFor(schema, doc, depth);
  return fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: nastyValue });
}

function resolve(schema: Schema | undefined, doc: Schema): Schema {
  let current = schema ?? {};
  for (let i = 0; i < 5 && typeof current['$ref'] === 'string'; i++) {
    const path = (current['$ref'] as string).replace(/^#\//, '').split('/');
    current = path.reduce<Schema>((node, key) => (node[key] as Schema) ?? {}, doc);
  }
  return current;
}

function validFor(raw: Schema | undefined, doc: Schema, depth: number): fc.Arbitrary<unknown> {
  const schema = resolve(raw, doc);
  if (depth > 6) return fc.constant(null);
  if (schema['const'] !== undefined) return fc.constant(schema['const']);
  if (Array.isArray(schema['enum'])) return fc.constantFrom(...(schema['enum'] as unknown[]));
  const branches = [...((schema['anyOf'] as Schema[]) ?? []), ...((schema['oneOf'] as Schema[]) ?? [])];
  if (branches.length > 0) return fc.oneof(...branches.map((b) => validFor(b, doc, depth + 1)));
  const types = Array.isArray(schema['type']) ? (schema['type'] as string[]) : [schema['type'] as string | undefined];
  const type = types.find((t) => t !== 'null') ?? (schema['properties'] ? 'object' : undefined);
  const min = schema['minimum'] as number | undefined;
  const max = schema['maximum'] as number | undefined;
  switch (type) {
    case 'integer': {
      const lo = min ?? -5;
      const hi = Math.min(max ?? 1000, lo + 10_000);
      return fc.oneof(fc.integer({ min: lo, max: hi }), fc.constantFrom(lo - 1, hi + 1, 1, 2, 3), extremeNumber);
    }
    case 'number': {
      const lo = min ?? -1e6;
      const hi = max ?? 1e6;
      return fc.oneof(
        fc.double({ min: lo, max: hi, noNaN: true, noDefaultInfinity: true }),
        fc.constantFrom(lo, hi, 0, 1),
        amountText,
        extremeNumber,
      );
    }
    case 'boolean':
      return fc.oneof(fc.boolean(), fc.constantFrom('true', 'false', 'si', 1));
    case 'array': {
      const items = schema['items'] as Schema | undefined;
      const maxItems = Math.min((schema['maxItems'] as number | undefined) ?? 3, 3);
      return fc.array(valueFor(items, doc, depth + 1), { maxLength: maxItems });
    }
    case 'object': {
      const properties = (schema['properties'] as Record<string, Schema> | undefined) ?? {};
      const required = (schema['required'] as string[] | undefined) ?? [];
      const shape = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, valueFor(v, doc, depth + 1)]));
      return fc.record(shape, { requiredKeys: required.filter((k) => k in properties) });
    }
    case 'string': {
      const format = schema['format'];
      if (format === 'date') return dateText;
      if (format === 'date-time') return dateTimeText;
      const pattern = schema['pattern'] as string | undefined;
      const maxLength = (schema['maxLength'] as number | undefined) ?? 60;
      const edges = fc.constantFrom('', 'x'.repeat(Math.min(maxLength, 5000)), 'x'.repeat(Math.min(maxLength + 1, 5001)));
      if (pattern) return fc.oneof(fc.stringMatching(new RegExp(pattern)), edges);
      return fc.oneof({ weight: 3, arbitrary: fc.string({ maxLength: Math.min(maxLength, 40) }) }, edges, nastyString);
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function operationsOf(doc: Schema): Operation[] {
  const found: Operation[] = [];
  for (const [path, item] of Object.entries(doc['paths'] as Record<string, Schema>)) {
    for (const method of METHODS) if (item[method]) found.push({ method, path, operation: item[method] as Schema });
  }
  return found;
}

/** A request for one operation, from its parameters and body schemas. */
function requestsFor({ method, path, operation }: Operation, doc: Schema): fc.Arbitrary<InjectOptions & { url: string }> {
  const parameters = ((operation['parameters'] as Schema[] | undefined) ?? []).map((p) => resolve(p, doc));
  const of = (where: string) => parameters.filter((p) => p['in'] === where);
  const pathValues = fc.record(
    Object.fromEntries(
      of('path').map((p) => [
        p['name'] as string,
        fc.oneof({ weight: 3, arbitrary: fc.constantFrom(1, 2, 3) }, valueFor(p['schema'] as Schema, doc)),
      ]),
    ),
  );
  const queryValues = fc.record(
    Object.fromEntries(of('query').map((p) => [p['name'] as string, valueFor(p['schema'] as Schema, doc)])),
    {
      requiredKeys: of('query')
        .filter((p) => p['required'])
        .map((p) => p['name'] as string),
    },
  );
  const content = ((operation['requestBody'] as Schema | undefined)?.['content'] as Record<string, Schema> | undefined) ?? {};
  const json = content['application/json'];
  const body: fc.Arbitrary<{ type: string; payload: string | Buffer } | null> = json
    ? valueFor(json['schema'] as Schema, doc).map((value) => ({
        type: 'application/json',
        payload: JSON.stringify(value) ?? 'null',
      }))
    : content['text/csv']
      ? fc
          .oneof(
            fc.constant('nombre;precio;codigo\nPan;10;\n'),
            fc.string({ maxLength: 80 }).map((s) => `nombre;precio\n${s};1\n`),
            fc.uint8Array({ maxLength: 60 }).map((b) => Buffer.concat([Buffer.from('nombre;precio\n'), Buffer.from(b)])),
          )
          .map((payload) => ({ type: 'text/csv', payload }))
      : fc.constant(null);
  return fc.tuple(pathValues, queryValues, body).map(([pathParams, query, payload]) => {
    const url = path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(pathParams[name] ?? '1')));
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) search.set(k, typeof v === 'string' ? v : JSON.stringify(v));
    const text = search.toString();
    return {
      method: method.toUpperCase() as 'GET',
      url: text ? `${url}?${text}` : url,
      ...(payload ? { payload: payload.payload, headers: { 'content-type': payload.type } } : {}),
    };
  });
}

describe('fuzz: every operation of both OpenAPI documents, from their schemas (issue 26)', () => {
  let t: TestApp;
  let counts: () => Promise<Record<string, number>>;
  let auth: Record<string, string>;
  let scannerToken: string;
  let integrationKey: string;
  const docs: Record<string, Schema> = {};

  beforeAll(async () => {
    t = await buildTestApp({
      env: {
        AUTH_LOGIN_LIMIT_PER_CLIENT: '1000',
        SCANNER_RATE_LIMIT_PER_MINUTE: '1000000',
      },
    });
    const company = await makeCompany(t.container);
    scannerToken = company.scannerToken;
    integrationKey = company.integrationKey;
    for (const name of ['Yerba', 'Pan', 'Queso']) await makeProduct(t.container, company.id, { name });
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    auth = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
    for (const url of DOCUMENTS) docs[url] = (await t.app.inject({ url })).json();
    counts = await tableCounter(t.container.db);
  });
  afterAll(async () => {
    printStats(isPostgresRun() ? 'postgres' : 'pglite');
    await t.close();
  });

  for (const url of DOCUMENTS) {
    it(
      `${url}: never a 5xx, refusals are {error, code} and write nothing`,
      async () => {
        const doc = docs[url]!;
        const operations = operationsOf(doc);
        expect(operations.length).toBeGreaterThan(5);
        for (const op of operations) {
          const stats = statsFor(`${op.method.toUpperCase()} ${op.path}`);
          const isPage = !Object.keys(
            ((op.operation['responses'] as Record<string, Schema>)['200']?.['content'] as Schema | undefined) ?? {
              'application/json': {},
            },
          ).some((type) => type.includes('json'));
          await assertFuzz(
            requestsFor(op, doc),
            async (request) => {
              const headers: Record<string, string> = {
                ...auth,
                authorization: `Bearer ${op.path.startsWith('/api/integration') ? integrationKey : ''}`,
                'x-idempotency-key': randomUUID(),
                ...((request.headers as Record<string, string> | undefined) ?? {}),
              };
              if (!op.path.startsWith('/api/integration')) delete headers['authorization'];
              const target = request.url.replace(/([?&]token=)[^&]*/, `$1${scannerToken}`);
              const before = await counts();
              const res = await t.app.inject({ ...request, url: target, headers });
              stats.requests++;
              if (res.statusCode >= 500) stats.serverErrors++;
              expect(
                res.statusCode,
                `${request.method} ${target} ${String(request.payload ?? '').slice(0, 300)} → ${res.body.slice(0, 300)}`,
              ).toBeLessThan(500);
              if (res.statusCode < 400) {
                stats.accepted++;
                return;
              }
              stats.refused++;
              expectHouseError(res, isPage);
              const after = await counts();
              if (JSON.stringify(after) !== JSON.stringify(before)) stats.writesOnRefusal++;
              expect(after, `${request.method} ${target} refused with ${res.statusCode} but wrote`).toEqual(before);
            },
            BOUNDED_RUNS,
          );
        }
      },
      FUZZ_TIMEOUT_MS * 4,
    );
  }
});
