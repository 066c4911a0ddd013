import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { INTEGRATION_PATH } from '../integration-helpers.ts';
import { isPostgresRun } from '../setup/db.ts';
import { SAME_ORIGIN } from '../sessions.ts';
import {
  assertFuzz,
  edgeDateTime,
  expectHouseError,
  extremeNumber,
  FUZZ_TIMEOUT_MS,
  headerText,
  nastyString,
  nastyValue,
  printStats,
  statsFor,
  writeWatch,
} from './fuzz.ts';

/**
 * The other ways in under generated input: the scanner, polling, login and the docs. Never a 5xx,
 * a refusal is the house error body, and nothing is written (a failed login excepted: it is
 * audited on purpose, so a 401 may add its audit row).
 */
const BOUNDED_RUNS = 15;

/** Characters a query string or path may carry raw, `%` included (so broken escapes too). */
const urlChar = fc.constantFrom(
  ..."abcXYZ019-._~!$&'()*+,;=:@/?%[]".split(''),
  '%00',
  '%zz',
  '%E0%A4',
  '%F0%9F%A7%89',
  '%25',
  '%2F',
  '+',
);
const rawUrlText = fc.array(urlChar, { maxLength: 30 }).map((parts) => parts.join(''));

describe('fuzz: scanner, polling, login and docs', () => {
  let t: TestApp;
  let counts: () => Promise<Record<string, number>>;
  let scannerToken: string;
  let integrationKey: string;
  let user: { email: string; password: string };
  let invitationToken: string;

  beforeAll(async () => {
    t = await buildTestApp({
      env: {
        SCANNER_RATE_LIMIT_PER_MINUTE: '1000000',
        AUTH_LOGIN_LIMIT_PER_CLIENT: '10000',
        AUTH_LOGIN_LIMIT_PER_ACCOUNT: '1000',
      },
    });
    const company = await makeCompany(t.container);
    scannerToken = company.scannerToken;
    integrationKey = company.integrationKey;
    await makeProduct(t.container, company.id, { name: 'Yerba mate suave 1 kg', bc: '7790001000019' });
    user = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const invited = await t.container.invitations.invite(
      {
        requestId: 'fuzz',
        companyId: company.id,
        actor: { kind: 'cli' },
        origin: { ip: null, userAgent: null, requestId: null },
      },
      { email: user.email.replace('@', '+invited@'), role: 'cashier' },
    );
    invitationToken = new URL(invited.link).hash.slice(1);
    counts = await writeWatch(t.container.db);
  });
  afterAll(async () => {
    printStats(isPostgresRun() ? 'postgres' : 'pglite');
    await t.close();
  });

  /** Sends one request and checks the three rules; `mayWrite` names statuses allowed to write. */
  async function check(
    stats: ReturnType<typeof statsFor>,
    request: InjectOptions,
    options: { allowHtml?: boolean; mayWrite?: (status: number) => boolean } = {},
  ) {
    const before = await counts();
    const res = await t.app.inject(request);
    stats.requests++;
    if (res.statusCode >= 500) stats.serverErrors++;
    expect(res.statusCode, `${JSON.stringify(request)} → ${res.body.slice(0, 300)}`).toBeLessThan(500);
    if (res.statusCode >= 400) {
      stats.refused++;
      expectHouseError(res, options.allowHtml);
    } else stats.accepted++;
    if (res.statusCode >= 400 || !options.mayWrite) {
      const after = await counts();
      if (!options.mayWrite?.(res.statusCode) && JSON.stringify(after) !== JSON.stringify(before)) {
        stats.writesOnRefusal++;
        expect(after).toEqual(before);
      }
    }
    return res;
  }

  const queryValue = fc.oneof(nastyString, rawUrlText, extremeNumber.map(String), fc.constant(''));
  const encoded = (v: string) => {
    try {
      return encodeURIComponent(v);
    } catch {
      return escape(v);
    }
  };
  /** A query string: known names with generated values, encoded or raw, plus odd names. */
  const queryString = (names: string[], known: Record<string, fc.Arbitrary<string>>) =>
    fc
      .array(
        fc.oneof(
          {
            weight: 4,
            arbitrary: fc.constantFrom(...names).chain((n) => (known[n] ?? queryValue).map((v) => `${n}=${encoded(v)}`)),
          },
          { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...names), rawUrlText).map(([n, v]) => `${n}=${v}`) },
          { weight: 1, arbitrary: fc.tuple(rawUrlText, rawUrlText).map(([n, v]) => `${n}=${v}`) },
        ),
        { maxLength: 5 },
      )
      .map((pairs) => pairs.join('&'));

  it(
    'GET /api/public/scanner',
    async () => {
      const stats = statsFor('GET /api/public/scanner');
      const token = fc.oneof(fc.constant(scannerToken), fc.constant(`${scannerToken}%00`), queryValue);
      const query = fc.oneof(fc.constantFrom('7790001000019', 'yerba', 'Producto%00', '2012345012349'), queryValue);
      const qs = queryString(['token', 'query', 'companyId', 't%6Fken', 'token[]'], { token, query });
      await assertFuzz(
        fc.oneof(
          qs,
          fc.tuple(query, qs).map(([q, rest]) => `token=${scannerToken}&query=${encoded(q)}${rest ? `&${rest}` : ''}`),
        ),
        async (qs) => void (await check(stats, { method: 'GET', url: `/api/public/scanner?${qs}` })),
        BOUNDED_RUNS,
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'GET /api/integration/in (polling)',
    async () => {
      const stats = statsFor(`GET ${INTEGRATION_PATH}`);
      const since = fc.oneof(edgeDateTime, queryValue);
      const limit = fc.oneof(extremeNumber.map(String), queryValue);
      const authorization = fc.oneof(
        { weight: 6, arbitrary: fc.constant(`Bearer ${integrationKey}`) },
        { weight: 1, arbitrary: headerText },
      );
      await assertFuzz(
        fc.tuple(queryString(['since', 'limit'], { since, limit }), authorization),
        async ([qs, auth]) =>
          void (await check(stats, { method: 'GET', url: `${INTEGRATION_PATH}?${qs}`, headers: { authorization: auth } })),
        BOUNDED_RUNS,
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'POST /api/auth/login',
    async () => {
      const stats = statsFor('POST /api/auth/login');
      const field = fc.oneof(nastyValue, fc.constant(user.email), fc.constant(user.password));
      const body = fc.oneof(
        {
          weight: 4,
          arbitrary: fc.record({ email: field, password: field }, { requiredKeys: [] }).map((b) => JSON.stringify(b)),
        },
        { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? 'null') },
        { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
      );
      const contentType = fc.constantFrom(
        'application/json',
        'application/json',
        'text/plain',
        'application/x-www-form-urlencoded',
      );
      await assertFuzz(
        fc.tuple(body, contentType),
        async ([payload, type]) =>
          void (await check(
            stats,
            { method: 'POST', url: '/api/auth/login', headers: { ...SAME_ORIGIN, 'content-type': type }, payload },
            // A successful login stores its session and audit row; a failed one (401) its audit row.
            { mayWrite: (status) => status === 200 || status === 401 },
          )),
        BOUNDED_RUNS,
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it.each(['/api/invitations/view', '/api/invitations/accept-new'])(
    'POST %s',
    async (url) => {
      const stats = statsFor(`POST ${url}`);
      const token = fc.oneof(
        nastyValue,
        fc.constant(invitationToken),
        fc.constant(`${invitationToken}x`),
        fc.constant('mos_inv_'),
      );
      const field = fc.oneof(nastyValue, fc.constant('una-clave-larga'));
      const body = fc.oneof(
        {
          weight: 4,
          arbitrary: fc
            .record({ token, password: field, display_name: field }, { requiredKeys: [] })
            .map((b) => JSON.stringify(b)),
        },
        { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? 'null') },
        { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
      );
      await assertFuzz(
        body,
        async (payload) =>
          void (await check(
            stats,
            { method: 'POST', url, headers: { ...SAME_ORIGIN, 'content-type': 'application/json' }, payload },
            // Joining with the real token creates the account, its membership, session and audit rows (once).
            { mayWrite: (status) => status === 201 },
          )),
        BOUNDED_RUNS,
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'GET /docs/…',
    async () => {
      const stats = statsFor('GET /docs/*');
      const path = fc.oneof(
        rawUrlText,
        fc.constantFrom(
          '',
          'index',
          'integraciones',
          'integraciones.md',
          'referencia-api',
          '%',
          '..%2F..%2Fetc%2Fpasswd',
          '../README.md',
        ),
        nastyString.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, ''))),
      );
      const accept = fc.constantFrom(
        undefined,
        'text/html',
        'text/markdown',
        'application/json',
        '*/*',
        'text/*;q=0.1, text/markdown',
      );
      await assertFuzz(
        fc.tuple(path, accept),
        async ([p, a]) =>
          void (await check(
            stats,
            { method: 'GET', url: `/docs/${p}`, headers: a === undefined ? {} : { accept: a } },
            { allowHtml: true },
          )),
        BOUNDED_RUNS,
      );
    },
    FUZZ_TIMEOUT_MS,
  );
});
