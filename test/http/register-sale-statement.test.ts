import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { expectBooksClean } from '../books/books-shop.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

/**
 * A register sale is one statement committed on its own (issue 33): its guards are the key's
 * unique index and the session it holds open. These are the races that used to be settled by a
 * transaction, an advisory lock and a second read of the session.
 */
describe('a register sale is one statement', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  type Headers = Record<string, string>;
  const call = (method: string, url: string, headers: Headers, payload?: unknown) =>
    t.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

  async function shop() {
    const company = await makeCompany(t.container);
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const asAdmin = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
    const yerba = await makeProduct(t.container, company.id, { name: 'Yerba 1kg', basePrice: 3200, stock: 50 });
    const opened = await call('POST', '/api/v1/box-sessions', asAdmin, { box_id: 1, opening_cash: 1000 });
    expect(opened.statusCode, opened.body).toBe(201);
    return { company, asAdmin, yerba, sessionId: opened.json().session.id as number };
  }

  const counts = async (companyId: number) => {
    const [row] = await t.container.db.query<{ sales: number; created: number; stock: string }>(
      `SELECT (SELECT count(*)::int FROM sales WHERE company_id = $1) AS sales,
         (SELECT count(*)::int FROM outbox_events WHERE company_id = $1 AND event = 'sales.created') AS created,
         (SELECT stock::text FROM products WHERE company_id = $1 ORDER BY id LIMIT 1) AS stock`,
      [companyId],
    );
    return row!;
  };

  it('ten requests with the same key at once make one sale, and every one answers it', async () => {
    const s = await shop();
    const key = randomUUID();
    const body = {
      box_id: 1,
      items: [{ product_id: s.yerba.id, quantity: 2 }],
      payments: [{ method: 'efectivo', amount: 10_000 }],
    };
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => call('POST', '/api/v1/sales', { ...s.asAdmin, 'x-idempotency-key': key }, body)),
    );
    const statuses = answers.map((a) => a.statusCode).sort();
    expect(statuses, answers.map((a) => a.body).join('\n')).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(answers.map((a) => a.json().sale.id)).size).toBe(1);
    expect(await counts(s.company.id)).toEqual({ sales: 1, created: 1, stock: '48.000' });
    // Another body with the key is still refused.
    const other = await call(
      'POST',
      '/api/v1/sales',
      { ...s.asAdmin, 'x-idempotency-key': key },
      { ...body, items: [{ product_id: s.yerba.id, quantity: 1 }] },
    );
    expect(other.statusCode).toBe(409);
    await expectBooksClean(t.container, s.company.id);
  });

  // Two connections are needed to hold the shift's close open under the sale: PostgreSQL only.
  it.skipIf(!process.env['TEST_DATABASE_URL'])(
    'a sale whose shift closes while its statement waits writes nothing and answers no_open_session',
    async () => {
      const s = await shop();
      const before = await counts(s.company.id);
      const closer = new pg.Client({ connectionString: t.database.url! });
      await closer.connect();
      try {
        // A close in progress: the session row is updated and not yet committed.
        await closer.query('BEGIN');
        await closer.query(
          `UPDATE box_sessions SET status = 'closed', closed_at = now(), closed_by = 'test' WHERE company_id = $1 AND id = $2`,
          [s.company.id, s.sessionId],
        );
        // (inject sends nothing until it is awaited: Promise.resolve starts it.)
        const sale = Promise.resolve(
          call(
            'POST',
            '/api/v1/sales',
            { ...s.asAdmin, 'x-idempotency-key': randomUUID() },
            { box_id: 1, items: [{ product_id: s.yerba.id, quantity: 1 }], payments: [{ method: 'efectivo', amount: 5000 }] },
          ),
        );
        // The sale has read the session as open (the close is not committed) and its statement now waits on the
        // row: the only backend of this database waiting on a lock.
        await expect
          .poll(
            // (Asked on the pool: inside the closer's transaction the activity view would not change.)
            async () =>
              (
                await t.container.db.query<{ n: number }>(
                  `SELECT count(*)::int AS n FROM pg_stat_activity
                    WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'WITH %'`,
                )
              )[0]!.n,
            { timeout: 15_000 },
          )
          .toBe(1);
        await closer.query('COMMIT');
        const res = await sale;
        expect(res.statusCode, res.body).toBe(422);
        expect(res.json().code).toBe('no_open_session');
        expect(await counts(s.company.id)).toEqual(before);
      } finally {
        await closer.end();
      }
    },
  );
});
