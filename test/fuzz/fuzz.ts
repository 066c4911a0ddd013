import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { Database } from '../../src/db/client.ts';

/**
 * The fuzz suite's knobs. Every `npm test` runs a bounded number of cases per target (seconds);
 * FUZZ_RUNS=100000 runs that many per target instead (the long run). FUZZ_SEED replays a failure:
 * the seed is printed with every failure.
 */
export const LONG_RUN = process.env['FUZZ_RUNS'] !== undefined;
const SEED =
  process.env['FUZZ_SEED'] === undefined ? Date.now() ^ (Math.random() * 0x100000000) : Number(process.env['FUZZ_SEED']);

export function fuzzRuns(bounded: number): number {
  const runs = Number(process.env['FUZZ_RUNS']);
  return Number.isInteger(runs) && runs > 0 ? runs : bounded;
}

/** Test timeout of a fuzz target: a minute for the bounded run, none worth mentioning for the long one. */
export const FUZZ_TIMEOUT_MS = LONG_RUN ? 24 * 3600_000 : 60_000;

/** What a target did, printed after a long run (the closing note's counts). */
export interface FuzzStats {
  target: string;
  requests: number;
  accepted: number;
  refused: number;
  serverErrors: number;
  writesOnRefusal: number;
}

const allStats: FuzzStats[] = [];

export function statsFor(target: string): FuzzStats {
  const stats = { target, requests: 0, accepted: 0, refused: 0, serverErrors: 0, writesOnRefusal: 0 };
  allStats.push(stats);
  return stats;
}

export function printStats(backend: string): void {
  if (!LONG_RUN) return;
  for (const s of allStats) {
    console.log(
      `fuzz[${backend}] ${s.target}: requests=${s.requests} accepted=${s.accepted} refused=${s.refused} ` +
        `5xx=${s.serverErrors} writes_on_refusal=${s.writesOnRefusal}`,
    );
  }
  const sum = (key: 'requests' | 'accepted' | 'refused' | 'serverErrors' | 'writesOnRefusal') =>
    allStats.reduce((total, s) => total + s[key], 0);
  console.log(
    `fuzz[${backend}] TOTAL targets=${allStats.length} requests=${sum('requests')} accepted=${sum('accepted')} ` +
      `refused=${sum('refused')} 5xx=${sum('serverErrors')} writes_on_refusal=${sum('writesOnRefusal')}`,
  );
}

/** Runs a property with the suite's seed; a failure names the seed to replay it with. */
export async function assertFuzz<T>(arbitrary: fc.Arbitrary<T>, check: (value: T) => Promise<void>, bounded: number) {
  await assertRuns(arbitrary, check, fuzzRuns(bounded));
}

/** Like assertFuzz, with exactly `numRuns` cases whatever FUZZ_RUNS says. */
export async function assertRuns<T>(arbitrary: fc.Arbitrary<T>, check: (value: T) => Promise<void>, numRuns: number) {
  try {
    await fc.assert(fc.asyncProperty(arbitrary, check), { numRuns, seed: SEED, endOnFailure: LONG_RUN });
  } catch (err) {
    throw new Error(`fuzz failure (replay with FUZZ_SEED=${SEED}): ${(err as Error).message}`, { cause: err });
  }
}

/**
 * Bookkeeping written by refused requests on purpose: the shared rate-limit windows (PostgreSQL)
 * record every scanner lookup and login try, so that refusals are limited too; and a register sale
 * takes its sale and movement numbers before its transaction, like a sequence (docs/decisiones.md:
 * a refused register sale leaves its numbers unused), which creates the company's counter row of a
 * kind the first time. Every other table must keep its row count.
 */
const ATTEMPT_COUNTERS = ['rate_limit_windows', 'company_id_counters'];

/**
 * The row count of every table of the public schema (but the attempt counters), in one statement: a
 * refused request must leave all of them as they were.
 */
export async function tableCounter(db: Database): Promise<() => Promise<Record<string, number>>> {
  const tables = (
    await db.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables
       WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
    )
  ).filter(({ name }) => !ATTEMPT_COUNTERS.includes(name));
  const text = `SELECT ${tables.map(({ name }) => `(SELECT count(*)::int FROM public."${name}") AS "${name}"`).join(', ')}`;
  return async () => (await db.query<Record<string, number>>(text))[0]!;
}

/**
 * The row counts of every table, looked at cheaply: a write assigns a transaction id, so while the
 * next id to assign (the snapshot's xmax) stays the same nothing was written and the last counts
 * still hold; only when it moves are the tables counted again. Same answer as tableCounter, a
 * fraction of the statements (a fuzz run is mostly refusals that write nothing).
 */
export async function writeWatch(db: Database): Promise<() => Promise<Record<string, number>>> {
  const count = await tableCounter(db);
  const nextId = async () =>
    (await db.query<{ next: string }>('SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS next'))[0]!.next;
  let known: { next: string; counts: Record<string, number> } | null = null;
  return async () => {
    const next = await nextId();
    if (known?.next !== next) known = { next, counts: await count() };
    return known.counts;
  };
}

/**
 * The answer of a refused request is the house error body: `{error, code}` as JSON. (A docs page
 * asked for as HTML answers its HTML 404 page instead.)
 */
export function expectHouseError(res: LightMyRequestResponse, allowHtml = false) {
  const type = String(res.headers['content-type'] ?? '');
  if (allowHtml && type.startsWith('text/html')) return;
  expect(type, res.body).toMatch(/^application\/json/);
  const body = JSON.parse(res.body) as Record<string, unknown>;
  expect(typeof body['error'], res.body).toBe('string');
  expect(typeof body['code'], res.body).toBe('string');
}

// ---- Generators of bad input ---------------------------------------------------------------

const EDGE_DATE_TIMES = [
  '2024-12-31T23:59:60Z',
  '0000-01-01T00:00:00Z',
  '0001-01-01T00:00:00Z',
  '0001-01-01T00:00:00+00:01',
  '9999-12-31T23:59:59-23:59',
  '9999-12-31T23:59:59.9999999Z',
  '9999-12-31T23:59:59.999999Z',
  '2024-02-30T00:00:00Z',
  '2024-01-01T24:00:00Z',
  '2024-13-01T00:00:00Z',
  '2024-01-01T00:00:00+24:00',
  '2024-01-01T00:00:00.1234567891234Z',
  '2024-01-01 00:00:00Z',
  '2024-01-01t00:00:00z',
  '+010000-01-01T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '1970-01-01T00:00:00Z',
  '2024-01-01',
  '',
];

/** Date-times near and past the edges: calendar fields out of range, leap seconds, odd offsets. */
export const edgeDateTime = fc.oneof(
  fc.constantFrom(...EDGE_DATE_TIMES),
  fc
    .record({
      year: fc.integer({ min: 0, max: 10_000 }),
      month: fc.integer({ min: 0, max: 13 }),
      day: fc.integer({ min: 0, max: 32 }),
      hour: fc.integer({ min: 0, max: 25 }),
      minute: fc.integer({ min: 0, max: 60 }),
      second: fc.integer({ min: 0, max: 61 }),
      fraction: fc.option(fc.stringMatching(/^[0-9]{1,12}$/), { nil: undefined }),
      offset: fc.oneof(
        fc.constant('Z'),
        fc
          .tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 25 }), fc.integer({ min: 0, max: 61 }))
          .map(([sign, h, m]) => `${sign}${pad(h, 2)}:${pad(m, 2)}`),
      ),
    })
    .map(
      (d) =>
        `${pad(d.year, 4)}-${pad(d.month, 2)}-${pad(d.day, 2)}T${pad(d.hour, 2)}:${pad(d.minute, 2)}:${pad(d.second, 2)}` +
        `${d.fraction === undefined ? '' : `.${d.fraction}`}${d.offset}`,
    ),
);

function pad(n: number, width: number) {
  return String(n).padStart(width, '0');
}

const SPECIAL_STRINGS = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\u202e\u0007\u001b[31m',
  '%00',
  "'; DROP TABLE sales; --",
  '\u0024{jndi:ldap://x}',
  '<script>alert(1)</script>',
  'javascript:alert(1)',
  '',
  ' ',
  '\r\n',
  'null',
  '__proto__',
  '\uFEFF',
  'ñandú ÁÉÍÓÚ 🧉',
];

/** Any UTF-16 code unit, lone surrogates included. */
const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n));

/** Strings with control characters, lone surrogates, emoji, and now and then a huge one. */
export const nastyString = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: anyCodeUnit, maxLength: 40 }) },
  { weight: 2, arbitrary: fc.constantFrom(...SPECIAL_STRINGS) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: edgeDateTime },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('x', 'ñ', '\u0000', '9'), fc.integer({ min: 60, max: 200_000 }))
      .map(([c, n]) => c.repeat(n)),
  },
);

/** Numbers at the edges of every column: ints past int4, fractions past the stored precision, -0. */
export const extremeNumber = fc.oneof(
  fc.constantFrom(0, -0, 1, -1, 1e-9, 0.0001, 0.0004, 0.0005, 0.004, 0.005, 0.001, 2 ** 31 - 1, 2 ** 31, 2 ** 53 + 2, 1e15),
  fc.constantFrom(99_999_999_999.999, 99_999_999_999.9995, 999_999_999_999.99, 1e21, 1e308, -1e308, 5e-324),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** Number texts JavaScript cannot hold exactly (kept verbatim in the raw body). */
const RAW_NUMBERS = ['1e400', '-1e400', '123456789012345678901234567890', '-0', '1E-400', '0.1e1', '1.0', '2147483648'];

/** Marks a leaf whose JSON text is spliced in raw (numbers past double precision, deep nesting). */
const RAW = '\u0001raw\u0001';
const raw = (text: string) => `${RAW}${text}${RAW}`;

const deepNesting = fc
  .tuple(fc.integer({ min: 1, max: 6_000 }), fc.constantFrom('array', 'object'))
  .map(([depth, kind]) =>
    raw(kind === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
  );

export const ODD_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '',
  '\u0000',
  '\ud800',
  'company_id',
  'id',
  'événement',
];

/** Any bad value a field might receive. */
export const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: nastyString },
  { weight: 3, arbitrary: extremeNumber },
  { weight: 1, arbitrary: fc.constantFrom(...RAW_NUMBERS).map(raw) },
  { weight: 1, arbitrary: fc.constantFrom(true, false, null) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: deepNesting },
  {
    weight: 1,
    arbitrary: fc.constantFrom(ODD_KEYS[0]!, ODD_KEYS[1]!).map((k) => raw(`{"${k}":{"prototype":{"polluted":true}}}`)),
  },
);

type Path = (string | number)[];

/** Every path of a JSON value (objects and arrays included), the root excepted. */
function pathsOf(value: unknown, prefix: Path = []): Path[] {
  if (typeof value !== 'object' || value === null) return [];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return entries.flatMap(([k, v]) => [[...prefix, k], ...pathsOf(v, [...prefix, k])]);
}

type Mutation =
  | { kind: 'set'; path: number; value: unknown }
  /** Replaces a leaf with a bad value of its own kind: a string, a number or a date-time. */
  | { kind: 'typed'; path: number; text: string; number: unknown; dateTime: string }
  | { kind: 'delete'; path: number }
  | { kind: 'addKey'; path: number; key: string; value: unknown };

/** Applies mutations to a copy of a JSON value (paths are indexes into pathsOf of the original). */
function mutate(base: unknown, mutations: Mutation[]): unknown {
  const copy = structuredClone(base) as Record<string | number, unknown>;
  const paths = pathsOf(base);
  for (const m of mutations) {
    const path = paths[m.path % paths.length]!;
    const parent = path
      .slice(0, -1)
      .reduce<unknown>((node, k) => (node as Record<string | number, unknown> | undefined)?.[k], copy);
    if (typeof parent !== 'object' || parent === null) continue;
    const last = path.at(-1)!;
    const target = parent as Record<string | number, unknown>;
    if (m.kind === 'set') target[last] = m.value;
    else if (m.kind === 'typed') {
      const old = target[last];
      if (typeof old === 'number') target[last] = m.number;
      else if (typeof old === 'string') target[last] = /^\d{4}-\d\d-\d\dT/.test(old) ? m.dateTime : m.text;
      else target[last] = m.text;
    } else if (m.kind === 'delete') {
      if (Array.isArray(target)) target.splice(Number(last), 1);
      else delete target[last];
    } else {
      const node = target[last];
      if (typeof node === 'object' && node !== null && !Array.isArray(node)) {
        Object.defineProperty(node, m.key, { value: m.value, enumerable: true, writable: true, configurable: true });
      }
    }
  }
  return copy;
}

/** JSON text of a value, with raw leaves spliced in as they are. */
export function toJsonText(value: unknown): string {
  return JSON.stringify(value).replace(/"\\u0001raw\\u0001(.*?)\\u0001raw\\u0001"/g, (_m, inner: string) =>
    JSON.parse(`"${inner}"`),
  );
}

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('set' as const), path: fc.nat(), value: nastyValue }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('typed' as const),
      path: fc.nat(),
      text: nastyString,
      number: fc.oneof(extremeNumber, fc.constantFrom(...RAW_NUMBERS).map(raw)),
      dateTime: edgeDateTime,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), path: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('addKey' as const),
      path: fc.nat(),
      key: fc.oneof(fc.constantFrom(...ODD_KEYS), fc.string({ unit: anyCodeUnit, maxLength: 8 })),
      value: nastyValue,
    }),
  },
);

/**
 * Bodies built from a valid one: mostly one to three mutations of it (a field of the wrong type,
 * an extreme number, a control character, deep nesting, an odd key…), sometimes something else
 * altogether (any JSON, broken JSON, a byte order mark, non-UTF-8 bytes).
 */
export function bodiesFrom(base: unknown): fc.Arbitrary<string | Buffer> {
  const text = JSON.stringify(base);
  return fc.oneof(
    { weight: 12, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }).map((ms) => toJsonText(mutate(base, ms))) },
    { weight: 1, arbitrary: fc.constant(text) },
    { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v) ?? 'null') },
    { weight: 1, arbitrary: fc.nat({ max: text.length }).map((n) => text.slice(0, n)) },
    { weight: 1, arbitrary: fc.string({ unit: anyCodeUnit, maxLength: 60 }) },
    { weight: 1, arbitrary: fc.constantFrom(`\uFEFF${text}`, ` ${text} `, `${text}x`, `${text}${text}`, 'null', '[]', '""') },
    {
      weight: 1,
      arbitrary: fc
        .uint8Array({ maxLength: 64 })
        .map((bytes) => Buffer.concat([Buffer.from(text.slice(0, -2)), bytes, Buffer.from('}}')])),
    },
  );
}

/** Header values a client could send: visible ASCII and Latin-1 (anything else no HTTP client sends). */
export const headerText = fc.string({
  unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff })).map((n) => String.fromCharCode(n)),
  maxLength: 80,
});

export const freshKey = () => randomUUID();
