import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { type FakeDolarApi, startFakeDolarApi } from '../fakes/dolarapi.fake.ts';
import { isPostgresRun } from '../setup/db.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';
import {
  assertFuzz,
  assertRuns,
  expectHouseError,
  extremeNumber,
  FUZZ_TIMEOUT_MS,
  LONG_RUN,
  nastyString,
  nastyValue,
  printStats,
  statsFor,
  writeWatch,
} from './fuzz.ts';

/**
 * Issue 26: every operation of both OpenAPI documents under requests generated from the documents'
 * own schemas — valid values, boundary values (limits ± 1, lengths at and past the maximum, real and
 * impossible dates) and invalid ones (wrong types, NUL, lone surrogates, `Infinity` as text). A new
 * route is fuzzed with no new test code. Never a 5xx; a refusal is `{error, code}` (a page may answer
 * with a page); a refusal writes nothing (the row count of every table unchanged).
 */
const DOCUMENTS = ['/openapi.json', '/docs/openapi-comercio.json'];

type Schema = Record<string, unknown>;
type Operation = { method: string; path: string; operation: Schema };

/**
 * What a request is made of. `valid`: values the schema describes; `boundary`: values at and just
 * past its edges (minimum and maximum ± 1, empty and over-long strings, dates that match the pattern
 * but do not exist); `invalid`: any field may be a bad value of any kind (wrong type, NUL, lone
 * surrogates, `Infinity` as text, deep nesting); `mixed`: mostly valid with edges and bad values now
 * and then (the long run's generator). `npm test` sends one request of each of the first three to
 * every operation (seconds); FUZZ_RUNS=N sends N mixed ones more.
 */
type Mode = 'valid' | 'boundary' | 'invalid' | 'mixed';
const MODES: Mode[] = ['valid', 'boundary', 'invalid'];

/** Calendar dates: real ones, and around the edges ones that match yyyy-mm-dd but do not exist. */
const realDate = fc
  .date({ min: new Date('2000-01-01'), max: new Date('2030-12-31'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
const edgeDate = fc.constantFrom(
  '2024-02-29',
  '2025-01-01',
  '2025-12-31',
  '2025-02-30',
  '2025-13-01',
  '2025-00-10',
  '0000-01-01',
  '9999-12-31',
);
const realDateTime = fc
  .date({ min: new Date('2000-01-01'), max: new Date('2030-12-31'), noInvalidDate: true })
  .map((d) => d.toISOString());
const edgeDateTime = fc.constantFrom('2025-02-30T10:00:00Z', '2025-01-01T24:00:00Z', '2025-01-01', '2024-02-29T23:59:59Z');
const amountText = fc.constantFrom('Infinity', '-Infinity', '1e999', 'NaN', '12.5', '1e12', '-0');

function valueFor(schema: Schema | undefined, doc: Schema, mode: Mode, depth = 0): fc.Arbitrary<unknown> {
  const valid = validFor(schema, doc, mode, depth);
  if (mode === 'mixed') return fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: nastyValue });
  if (mode === 'invalid') return fc.oneof(valid, nastyValue);
  return valid;
}

function resolve(schema: Schema | undefined, doc: Schema): Schema {
  let current = schema ?? {};
  for (let i = 0; i < 5 && typeof current['$ref'] === 'string'; i++) {
    const path = (current['$ref'] as string).replace(/^#\//, '').split('/');
    current = path.reduce<Schema>((node, key) => (node[key] as Schema) ?? {}, doc);
  }
  return current;
}

/** One of the arbitraries the mode asks for: `valid`, `edge` or (mixed) any of them. */
function pick(mode: Mode, valid: fc.Arbitrary<unknown>, edge: fc.Arbitrary<unknown>, bad?: fc.Arbitrary<unknown>) {
  if (mode === 'valid') return valid;
  if (mode === 'boundary') return edge;
  return fc.oneof({ weight: 3, arbitrary: valid }, edge, ...(bad ? [bad] : []));
}

function validFor(raw: Schema | undefined, doc: Schema, mode: Mode, depth: number): fc.Arbitrary<unknown> {
  const schema = resolve(raw, doc);
  if (depth > 6) return fc.constant(null);
  if (schema['const'] !== undefined) return fc.constant(schema['const']);
  if (Array.isArray(schema['enum'])) return fc.constantFrom(...(schema['enum'] as unknown[]));
  const branches = [...((schema['anyOf'] as Schema[]) ?? []), ...((schema['oneOf'] as Schema[]) ?? [])];
  if (branches.length > 0) return fc.oneof(...branches.map((b) => validFor(b, doc, mode, depth + 1)));
  const types = Array.isArray(schema['type']) ? (schema['type'] as string[]) : [schema['type'] as string | undefined];
  const type = types.find((t) => t !== 'null') ?? (schema['properties'] ? 'object' : undefined);
  const min = schema['minimum'] as number | undefined;
  const max = schema['maximum'] as number | undefined;
  switch (type) {
    case 'integer': {
      const lo = min ?? -5;
      const hi = Math.min(max ?? 1000, lo + 10_000);
      return pick(mode, fc.integer({ min: lo, max: hi }), fc.constantFrom(lo - 1, lo, hi, hi + 1), extremeNumber);
    }
    case 'number': {
      const lo = min ?? -1e6;
      const hi = max ?? 1e6;
      return pick(
        mode,
        fc.double({ min: lo, max: hi, noNaN: true, noDefaultInfinity: true }),
        fc.constantFrom(lo, hi, 0, -0, hi * 10, lo === 0 ? -0.01 : lo * 10),
        fc.oneof(amountText, extremeNumber),
      );
    }
    case 'boolean':
      return pick(mode, fc.boolean(), fc.constantFrom('true', 'false', 'si', 1, 0));
    case 'array': {
      const items = schema['items'] as Schema | undefined;
      const maxItems = Math.min((schema['maxItems'] as number | undefined) ?? 3, 3);
      const minItems = Math.min((schema['minItems'] as number | undefined) ?? 0, maxItems);
      return fc.array(valueFor(items, doc, mode, depth + 1), {
        minLength: mode === 'boundary' ? 0 : minItems,
        maxLength: mode === 'boundary' ? maxItems + 1 : maxItems,
      });
    }
    case 'object': {
      const properties = (schema['properties'] as Record<string, Schema> | undefined) ?? {};
      const required = (schema['required'] as string[] | undefined) ?? [];
      const shape = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, valueFor(v, doc, mode, depth + 1)]));
      return fc.record(shape, { requiredKeys: required.filter((k) => k in properties) });
    }
    case 'string': {
      const format = schema['format'];
      if (format === 'date') return pick(mode, realDate, edgeDate);
      if (format === 'date-time') return pick(mode, realDateTime, edgeDateTime);
      const pattern = schema['pattern'] as string | undefined;
      const minLength = (schema['minLength'] as number | undefined) ?? 0;
      const maxLength = (schema['maxLength'] as number | undefined) ?? 60;
      const edges = fc.constantFrom(
        'x'.repeat(Math.max(minLength - 1, 0)),
        'x'.repeat(Math.min(maxLength, 5000)),
        'x'.repeat(Math.min(maxLength + 1, 5001)),
      );
      const valid = pattern
        ? fc.stringMatching(new RegExp(pattern))
        : fc.string({ minLength, maxLength: Math.max(minLength, Math.min(maxLength, 40)) });
      return pick(mode, valid, edges, nastyString);
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/**
 * A path segment percent-encoded; a lone surrogate (which `encodeURIComponent` refuses to encode) is
 * sent as its three WTF-8 bytes, i.e. invalid UTF-8 the server must refuse with a 4xx.
 */
function encodePathValue(value: string): string {
  let out = '';
  for (const char of value) {
    const unit = char.charCodeAt(0);
    if (char.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
    } else out += encodeURIComponent(char);
  }
  return out;
}

/** A CSV file: a valid one, one with a free-text cell, or a valid header followed by any bytes. */
function csvBody(mode: Mode): fc.Arbitrary<string | Buffer> {
  const valid = fc.constantFrom('nombre;precio;codigo\nPan;10;\n', 'nombre;precio;unidad;stock\nQueso;10,5;kg;2,5\n');
  const edge = fc.string({ maxLength: 80 }).map((s) => `nombre;precio\n${s};1\n`);
  const bad = fc.uint8Array({ maxLength: 60 }).map((b) => Buffer.concat([Buffer.from('nombre;precio\n'), Buffer.from(b)]));
  if (mode === 'valid') return valid;
  if (mode === 'boundary') return edge;
  if (mode === 'invalid') return bad;
  return fc.oneof(valid, edge, bad);
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
function requestsFor(
  { method, path, operation }: Operation,
  doc: Schema,
  mode: Mode,
): fc.Arbitrary<InjectOptions & { url: string }> {
  const parameters = ((operation['parameters'] as Schema[] | undefined) ?? []).map((p) => resolve(p, doc));
  const of = (where: string) => parameters.filter((p) => p['in'] === where);
  const pathValues = fc.record(
    Object.fromEntries(
      of('path').map((p) => [
        p['name'] as string,
        mode === 'valid'
          ? fc.constantFrom(1, 2, 3)
          : fc.oneof({ weight: 3, arbitrary: fc.constantFrom(1, 2, 3) }, valueFor(p['schema'] as Schema, doc, mode)),
      ]),
    ),
  );
  const queryValues = fc.record(
    Object.fromEntries(of('query').map((p) => [p['name'] as string, valueFor(p['schema'] as Schema, doc, mode)])),
    {
      requiredKeys: of('query')
        .filter((p) => p['required'])
        .map((p) => p['name'] as string),
    },
  );
  const content = ((operation['requestBody'] as Schema | undefined)?.['content'] as Record<string, Schema> | undefined) ?? {};
  const json = content['application/json'];
  const body: fc.Arbitrary<{ type: string; payload: string | Buffer } | null> = json
    ? valueFor(json['schema'] as Schema, doc, mode).map((value) => ({
        type: 'application/json',
        payload: JSON.stringify(value) ?? 'null',
      }))
    : content['text/csv']
      ? csvBody(mode).map((payload) => ({ type: 'text/csv', payload }))
      : fc.constant(null);
  return fc.tuple(pathValues, queryValues, body).map(([pathParams, query, payload]) => {
    const url = path.replace(/\{([^}]+)\}/g, (_, name: string) => encodePathValue(String(pathParams[name] ?? '1')));
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
  let dolarApi: FakeDolarApi;
  const docs: Record<string, Schema> = {};

  beforeAll(async () => {
    // A known exchange rate (from a local DolarAPI fake), so GET /api/exchange answers 200 instead of
    // its documented 503 rate_unavailable: the fuzz then holds every operation to "never a 5xx".
    dolarApi = await startFakeDolarApi();
    dolarApi.quote(1160.5, '2026-11-20T15:04:00.000Z', 1110);
    t = await buildTestApp({
      env: {
        EXCHANGE_SOURCE_URL: `${dolarApi.url}/v1/dolares/oficial`,
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
    await t.container.exchange.refresh();
    counts = await writeWatch(t.container.db);
  });
  afterAll(async () => {
    printStats(isPostgresRun() ? 'postgres' : 'pglite');
    await t.close();
    await dolarApi.close();
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
          const check = async (request: InjectOptions & { url: string }) => {
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
          };
          for (const mode of MODES) await assertRuns(requestsFor(op, doc, mode), check, 1);
          if (LONG_RUN) await assertFuzz(requestsFor(op, doc, 'mixed'), check, 0);
          expect(stats.requests, stats.target).toBeGreaterThanOrEqual(MODES.length);
        }
      },
      FUZZ_TIMEOUT_MS * 4,
    );
  }
});
