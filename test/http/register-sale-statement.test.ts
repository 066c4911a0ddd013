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

  // Two connections are needed to hold the products' lock under the sales: PostgreSQL only.
  describe.skipIf(!process.env['TEST_DATABASE_URL'])('sales that wait together are written together', () => {
    /** Holds the products' rows from another connection until `release`: every sale's statement waits on them. */
    async function holdProducts(companyId: number) {
      const holder = new pg.Client({ connectionString: t.database.url! });
      await holder.connect();
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM products WHERE company_id = $1 ORDER BY id FOR UPDATE', [companyId]);
      let released: Promise<void> | null = null;
      return {
        release: () => {
          released ??= holder.query('COMMIT').then(() => holder.end());
          return released;
        },
      };
    }

    /** Backends of this database whose sale statement waits on a lock. */
    const waiting = async () =>
      (
        await t.container.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'WITH %'`,
        )
      )[0]!.n;

    /** How many sale numbers the company has handed out. */
    const numbersTaken = async (companyId: number) =>
      (
        await t.container.db.query<{ n: number }>(
          `SELECT coalesce(max(next_id) - 1, 0)::int AS n FROM company_id_counters WHERE company_id = $1 AND kind = 'sales'`,
          [companyId],
        )
      )[0]!.n;

    async function boxesOf(s: Awaited<ReturnType<typeof shop>>, count: number) {
      const ids = [1];
      for (let n = 2; n <= count; n++) {
        const box = await call('POST', '/api/v1/boxes', s.asAdmin, { name: `Caja ${n}` });
        expect(box.statusCode, box.body).toBe(201);
        const id = box.json().box.id as number;
        const opened = await call('POST', '/api/v1/box-sessions', s.asAdmin, { box_id: id, opening_cash: 0 });
        expect(opened.statusCode, opened.body).toBe(201);
        ids.push(id);
      }
      return ids;
    }

    const sell = (s: Awaited<ReturnType<typeof shop>>, boxId: number, quantity: number) =>
      Promise.resolve(
        call(
          'POST',
          '/api/v1/sales',
          { ...s.asAdmin, 'x-idempotency-key': randomUUID() },
          { box_id: boxId, items: [{ product_id: s.yerba.id, quantity }], payments: [{ method: 'efectivo', amount: 50_000 }] },
        ),
      );

    /** The stock figures of the product's events, in the order they were stored: each starts where the last ended. */
    async function stockChain(companyId: number) {
      const rows = await t.container.db.query<{ previous: number; current: number }>(
        `SELECT (payload->'data'->'product'->>'previous_stock')::float8 AS previous,
           (payload->'data'->'product'->>'current_stock')::float8 AS current
         FROM outbox_events WHERE company_id = $1 AND event = 'product.stock_updated' ORDER BY created_at, id`,
        [companyId],
      );
      return rows;
    }

    /**
     * Six sales of one shop, each from its own box, with `quantities`: the first takes the company's
     * one writing slot and waits on the products' lock; the other five are checked and numbered
     * meanwhile on its other slot, and wait for the write. `meanwhile` runs before the lock is
     * released. The answers, in order.
     */
    async function sixBehindALock(
      s: Awaited<ReturnType<typeof shop>>,
      quantities: number[],
      meanwhile?: (boxes: number[]) => Promise<void>,
    ) {
      const boxes = await boxesOf(s, 6);
      const lock = await holdProducts(s.company.id);
      try {
        const first = sell(s, boxes[0]!, quantities[0]!);
        await expect.poll(waiting, { timeout: 15_000 }).toBe(1);
        const queued = [1, 2, 3, 4, 5].map((n) => sell(s, boxes[n]!, quantities[n]!));
        await expect.poll(() => numbersTaken(s.company.id), { timeout: 15_000 }).toBe(6);
        // Still one statement waiting: the five wait for the company's writing slot, not on the lock.
        expect(await waiting()).toBe(1);
        await meanwhile?.(boxes);
        await lock.release();
        const answers = await Promise.all([first, ...queued]);
        return { answers, statuses: answers.map((a) => a.statusCode), bodies: answers.map((a) => a.body).join('\n') };
      } finally {
        await lock.release();
      }
    }

    it('five sales queued behind a locked product share one statement; the stock events chain in order', async () => {
      const s = await shop();
      const { answers, statuses, bodies } = await sixBehindALock(s, [1, 2, 3, 4, 5, 6]);
      expect(statuses, bodies).toEqual([201, 201, 201, 201, 201, 201]);
      const ids = answers.map((a) => a.json().sale.id as number);
      // The five queued sales were committed by one transaction.
      const [{ n: transactions }] = (await t.container.db.query<{ n: number }>(
        'SELECT count(DISTINCT xmin::text)::int AS n FROM sales WHERE company_id = $1 AND id = ANY($2::int[])',
        [s.company.id, ids.slice(1)],
      )) as [{ n: number }];
      expect(transactions).toBe(1);
      const chain = await stockChain(s.company.id);
      // The product's own stock (0 → 50), then one event per sale.
      expect(chain).toHaveLength(7);
      expect(chain[0]).toEqual({ previous: 0, current: 50 });
      for (let n = 1; n < chain.length; n++) expect(chain[n]!.previous).toBe(chain[n - 1]!.current);
      expect(chain.at(-1)!.current).toBe(50 - 21);
      expect(await counts(s.company.id)).toEqual({ sales: 6, created: 6, stock: '29.000' });
      await expectBooksClean(t.container, s.company.id);
    });

    it("one company's sales waiting on a lock hold up no other company's sale", async () => {
      const held = await shop();
      const other = await shop();
      const boxes = await boxesOf(held, 2);
      const lock = await holdProducts(held.company.id);
      try {
        const stuck = boxes.map((box) => sell(held, box, 1));
        // Both numbered: one waits on the lock, the other for its company's writing slot.
        await expect.poll(() => numbersTaken(held.company.id), { timeout: 15_000 }).toBe(2);
        const sold = await sell(other, 1, 2);
        expect(sold.statusCode, sold.body).toBe(201);
        expect(await counts(other.company.id)).toEqual({ sales: 1, created: 1, stock: '48.000' });
        expect(await counts(held.company.id)).toMatchObject({ sales: 0 });
        await lock.release();
        expect((await Promise.all(stuck)).map((a) => a.statusCode)).toEqual([201, 201]);
      } finally {
        await lock.release();
      }
      await expectBooksClean(t.container, held.company.id);
      await expectBooksClean(t.container, other.company.id);
    });

    it('a queued sale whose shift closed fails alone: the others it waited with are written, each answered', async () => {
      const s = await shop();
      const { answers, statuses, bodies } = await sixBehindALock(s, [1, 1, 1, 1, 1, 1], async (boxes) => {
        // The fourth box's shift is closed while its sale waits to be written.
        const session = (await call('GET', `/api/v1/box-sessions?box_id=${boxes[3]}&status=open`, s.asAdmin)).json().sessions[0]
          .session.id as number;
        const closed = await call('POST', `/api/v1/box-sessions/${session}/close`, s.asAdmin, { counted: { efectivo: 0 } });
        expect(closed.statusCode, closed.body).toBe(200);
      });
      expect(statuses, bodies).toEqual([201, 201, 201, 422, 201, 201]);
      expect(answers[3]!.json().code).toBe('no_open_session');
      expect(await counts(s.company.id)).toEqual({ sales: 5, created: 5, stock: '45.000' });
      const chain = await stockChain(s.company.id);
      for (let n = 1; n < chain.length; n++) expect(chain[n]!.previous).toBe(chain[n - 1]!.current);
      await expectBooksClean(t.container, s.company.id);
    });
  });
});
