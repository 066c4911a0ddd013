import { expectBooksClean } from '../books/books-shop.ts';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

/**
 * A cashier gives money back with an admin's approval on the spot (issue 29, "Mis ventas … start a
 * return"): returns and the cancel of a paid sale; and an exchange is one transaction.
 */
describe("a cashier's refund with an admin's approval; exchanges all or nothing", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000', AUTH_LOGIN_LIMIT_PER_ACCOUNT: '1000' } });
  });
  afterAll(() => t.close());

  type Headers = Record<string, string>;
  const call = (method: string, url: string, headers: Headers, payload?: unknown) =>
    t.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

  async function shop() {
    const company = await makeCompany(t.container);
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const cashier = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    const asAdmin = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
    const asCashier = { cookie: (await login(t.app, cashier.email, cashier.password)).cookie, ...SAME_ORIGIN };
    const pan = await makeProduct(t.container, company.id, { name: 'Pan', bc: '7790001000011', basePrice: 1000, stock: 50 });
    const yerba = await makeProduct(t.container, company.id, { name: 'Yerba', bc: '7790001000035', basePrice: 3200, stock: 50 });
    const opened = await call('POST', '/api/v1/box-sessions', asCashier, { box_id: 1, opening_cash: 10_000 });
    expect(opened.statusCode, opened.body).toBe(201);
    return { company, admin, cashier, asAdmin, asCashier, pan, yerba };
  }
  type Shop = Awaited<ReturnType<typeof shop>>;

  async function sell(s: Shop, items: { product_id: number; quantity: number }[]) {
    const total = items.reduce((sum, i) => sum + i.quantity * (i.product_id === s.pan.id ? 1000 : 3200), 0);
    const res = await call(
      'POST',
      '/api/v1/sales',
      { ...s.asCashier, 'x-idempotency-key': randomUUID() },
      { box_id: 1, items, payments: [{ method: 'efectivo', amount: total }] },
    );
    expect(res.statusCode, res.body).toBe(201);
    return res.json().sale as { id: number; total: number; items: { id: number; product_id: number }[] };
  }

  const giveBack = (headers: Headers, saleId: number, body: unknown, key: string = randomUUID()) =>
    call('POST', `/api/v1/sales/${saleId}/returns`, { ...headers, 'x-idempotency-key': key }, body);

  const audits = (companyId: number, action: string) =>
    t.container.db.query<{ actor_email: string | null; details: Record<string, unknown> }>(
      'SELECT actor_email, details FROM audit_log WHERE company_id = $1 AND action = $2 ORDER BY id',
      [companyId, action],
    );

  async function count(table: string, companyId: number) {
    const [row] = await t.container.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE company_id = $1`, [
      companyId,
    ]);
    return row!.n;
  }

  async function stockOf(companyId: number, productId: number) {
    const [row] = await t.container.db.query<{ quantity: string }>(
      'SELECT quantity::text FROM stock_levels WHERE company_id = $1 AND product_id = $2 AND deposit_id = 1',
      [companyId, productId],
    );
    return Number(row?.quantity ?? 0);
  }

  it('a cashier gives money back only with an admin approving: none → 403, wrong → 403 audited, right → 201 audited', async () => {
    const s = await shop();
    const sale = await sell(s, [
      { product_id: s.pan.id, quantity: 2 },
      { product_id: s.yerba.id, quantity: 1 },
    ]);
    const body = { lines: [{ item_id: sale.items[0]!.id, quantity: 1 }], refund: { method: 'efectivo' }, reason: 'vencido' };
    const key = randomUUID();

    // Without an approval: 403 with its own code, and nothing written.
    const none = await giveBack(s.asCashier, sale.id, body, key);
    expect(none.statusCode, none.body).toBe(403);
    expect(none.json().code).toBe('refund_needs_approval');
    expect(await count('sale_returns', s.company.id)).toBe(0);
    expect(await stockOf(s.company.id, s.pan.id)).toBe(48);
    expect(await audits(s.company.id, 'sale.returned')).toHaveLength(0);

    // A wrong password, or a cashier approving: 403 approval_refused, audited with its reason, nothing written.
    const wrong = await giveBack(
      s.asCashier,
      sale.id,
      { ...body, approval: { email: s.admin.email, password: 'wrong-pass' } },
      key,
    );
    expect(wrong.statusCode, wrong.body).toBe(403);
    expect(wrong.json().code).toBe('approval_refused');
    const byCashier = await giveBack(
      s.asCashier,
      sale.id,
      { ...body, approval: { email: s.cashier.email, password: s.cashier.password } },
      key,
    );
    expect(byCashier.json().code).toBe('approval_refused');
    const failed = await audits(s.company.id, 'sale.refund_approval_failed');
    expect(failed.map((a) => a.details['reason'])).toEqual(['wrong_password', 'not_admin']);
    expect(failed[0]!.details).toMatchObject({ approver_email: s.admin.email, what: 'refund', sale_id: sale.id });
    expect(JSON.stringify(failed)).not.toContain('wrong-pass');
    expect(await count('sale_returns', s.company.id)).toBe(0);

    // The admin's email and password: 201, the money leaves the cashier's shift, audited with who approved.
    const right = await giveBack(
      s.asCashier,
      sale.id,
      { ...body, approval: { email: s.admin.email, password: s.admin.password } },
      key,
    );
    expect(right.statusCode, right.body).toBe(201);
    expect(right.json().return).toMatchObject({ amount: 1000, refund: { store_credit: false, method: 'efectivo' } });
    const [approved] = await audits(s.company.id, 'sale.refund_approved');
    expect(approved).toMatchObject({
      actor_email: s.cashier.email,
      details: { sale_id: sale.id, return_id: 1, amount: 1000, method: 'efectivo', approved_by: s.admin.email },
    });
    expect(await stockOf(s.company.id, s.pan.id)).toBe(49);
    // A retry with the same key, without the approval (it is not part of the fingerprint): the same return.
    const again = await giveBack(s.asCashier, sale.id, body, key);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().return.id).toBe(1);
    expect(await count('sale_returns', s.company.id)).toBe(1);

    // Beyond what was sold: the cashier learns it before an admin is asked.
    const beyond = await giveBack(s.asCashier, sale.id, { ...body, lines: [{ item_id: sale.items[0]!.id, quantity: 5 }] });
    expect(beyond.json().code).toBe('return_exceeds_sold');

    // Store credit and exchanges stay open to cashiers; an admin needs no approval.
    const byAdmin = await giveBack(s.asAdmin, sale.id, { ...body, lines: [{ item_id: sale.items[1]!.id, quantity: 1 }] });
    expect(byAdmin.statusCode, byAdmin.body).toBe(201);
    expect(await audits(s.company.id, 'sale.refund_approved')).toHaveLength(1);
    await expectBooksClean(t.container, s.company.id);
  });

  it('a read-write token gives money back without an approval', async () => {
    const s = await shop();
    const sale = await sell(s, [{ product_id: s.pan.id, quantity: 1 }]);
    const created = await call('POST', '/api/v1/api-tokens', s.asAdmin, { name: 'pos', scope: 'read-write' });
    expect(created.statusCode, created.body).toBe(201);
    const token = { authorization: `Bearer ${created.json().secret}` };
    const res = await giveBack(token, sale.id, {
      lines: [{ item_id: sale.items[0]!.id, quantity: 1 }],
      refund: { method: 'efectivo' },
      reason: 'x',
    });
    expect(res.statusCode, res.body).toBe(201);
  });

  it('"Anular y devolver" by a cashier: none → 403 refund_needs_approval, wrong → approval_refused, right → cancelled and audited', async () => {
    const s = await shop();
    const sale = await sell(s, [{ product_id: s.yerba.id, quantity: 1 }]);
    const cancel = (body: Record<string, unknown>) => call('POST', `/api/v1/sales/${sale.id}/cancel`, s.asCashier, body);
    const none = await cancel({ reason: 'error de carga' });
    expect(none.statusCode, none.body).toBe(403);
    expect(none.json().code).toBe('refund_needs_approval');
    const wrong = await cancel({ reason: 'error de carga', approval: { email: s.admin.email, password: 'nope-nope' } });
    expect(wrong.json().code).toBe('approval_refused');
    expect(await audits(s.company.id, 'sale.refund_approval_failed')).toHaveLength(1);
    expect((await call('GET', `/api/v1/sales/${sale.id}`, s.asCashier)).json().sale.status).toBe('paid');
    expect(await stockOf(s.company.id, s.yerba.id)).toBe(49);
    const right = await cancel({ reason: 'error de carga', approval: { email: s.admin.email, password: s.admin.password } });
    expect(right.statusCode, right.body).toBe(200);
    expect(right.json().sale.status).toBe('cancelled');
    expect(await stockOf(s.company.id, s.yerba.id)).toBe(50);
    const [approved] = await audits(s.company.id, 'sale.refund_approved');
    expect(approved!.details).toMatchObject({ sale_id: sale.id, cancelled: true, amount: 3200, approved_by: s.admin.email });
    await expectBooksClean(t.container, s.company.id);
  });

  it("tenancy: another company's sale is 404 even with its own admin approving, and nothing is leaked", async () => {
    const a = await shop();
    const b = await shop();
    const sale = await sell(a, [{ product_id: a.pan.id, quantity: 1 }]);
    const approval = { email: b.admin.email, password: b.admin.password };
    const ret = await giveBack(b.asCashier, sale.id, {
      lines: [{ item_id: sale.items[0]!.id, quantity: 1 }],
      refund: { method: 'efectivo' },
      reason: 'x',
      approval,
    });
    expect(ret.statusCode).toBe(404);
    expect(ret.json().code).toBe('not_found');
    const without = await giveBack(b.asCashier, sale.id, {
      lines: [{ item_id: sale.items[0]!.id, quantity: 1 }],
      refund: { method: 'efectivo' },
      reason: 'x',
    });
    expect(without.json().code).toBe('not_found');
    const cancelled = await call('POST', `/api/v1/sales/${sale.id}/cancel`, b.asCashier, { reason: 'x', approval });
    expect(cancelled.statusCode).toBe(404);
    expect(cancelled.json().code).toBe('not_found');
    expect(cancelled.body).not.toContain('Pan');
    const exchanged = await call(
      'POST',
      `/api/v1/sales/${sale.id}/exchanges`,
      { ...b.asCashier, 'x-idempotency-key': randomUUID() },
      {
        box_id: 1,
        return_lines: [{ item_id: sale.items[0]!.id, quantity: 1 }],
        new_items: [{ product_id: b.pan.id, quantity: 1 }],
        reason: 'x',
      },
    );
    expect(exchanged.statusCode).toBe(404);
    expect(await count('sales', b.company.id)).toBe(0);
    expect((await call('GET', `/api/v1/sales/${sale.id}`, a.asCashier)).json().sale.status).toBe('paid');
    expect(await audits(b.company.id, 'sale.refund_approved')).toHaveLength(0);
  });

  it('an exchange is one transaction: a return of the last unit arriving while its new sale is made leaves no orphan sale', async () => {
    const s = await shop();
    const sale = await sell(s, [{ product_id: s.yerba.id, quantity: 1 }]);
    const before = await count('sales', s.company.id);
    // The other return is sent right after the exchange's new sale is made, before the exchange
    // records its return. If the sale was made in a transaction of its own (nothing holds the sold
    // sale) that return can finish first, so the test lets it; inside the exchange's transaction it
    // has to wait for the exchange's commit (awaiting it there would wait forever).
    const register = t.container.register as unknown as { createSale: (...args: unknown[]) => Promise<unknown> };
    const original = register.createSale;
    let racing: Promise<{ statusCode: number; body: string; json: () => { code?: string } }> | null = null;
    register.createSale = async (...args: unknown[]) => {
      const made = await original(...args);
      if (racing === null && String(args[1]).endsWith(':sale')) {
        racing = giveBack(s.asAdmin, sale.id, {
          lines: [{ item_id: sale.items[0]!.id, quantity: 1 }],
          refund: { method: 'efectivo' },
          reason: 'devolución',
        });
        if (!(args[3] as { tx?: unknown } | undefined)?.tx) await racing;
      }
      return made;
    };
    try {
      const ex = await call(
        'POST',
        `/api/v1/sales/${sale.id}/exchanges`,
        { ...s.asCashier, 'x-idempotency-key': randomUUID() },
        {
          box_id: 1,
          return_lines: [{ item_id: sale.items[0]!.id, quantity: 1 }],
          new_items: [{ product_id: s.pan.id, quantity: 2 }],
          reason: 'cambio',
        },
      );
      expect(racing).not.toBeNull();
      const rt = await racing!;
      // Exactly one of them takes the unit; the other is refused with nothing written.
      expect([ex.statusCode, rt.statusCode].sort(), `${ex.body} ${rt.body}`).toEqual([201, 422]);
      const after = await count('sales', s.company.id);
      if (ex.statusCode === 201) {
        expect(after).toBe(before + 1);
        expect(ex.json().exchange.return.exchange_sale_id).toBe(ex.json().exchange.sale.id);
      } else {
        expect(after).toBe(before);
      }
    } finally {
      register.createSale = original;
    }
    // Every sale made by an exchange is named by a return (no orphan), and the books close.
    const [orphans] = await t.container.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM register_sales r WHERE r.company_id = $1 AND r.idempotency_key LIKE '%:sale'
         AND NOT EXISTS (SELECT 1 FROM sale_returns x WHERE x.company_id = r.company_id AND x.exchange_sale_id = r.sale_id)`,
      [s.company.id],
    );
    expect(orphans!.n).toBe(0);
    await expectBooksClean(t.container, s.company.id);
  });

  it('an exchange racing a return of the same last unit: exactly one wins, in either order', async () => {
    const s = await shop();
    for (let round = 0; round < 4; round++) {
      const sale = await sell(s, [{ product_id: s.yerba.id, quantity: 1 }]);
      const before = await count('sales', s.company.id);
      const exchange = () =>
        call(
          'POST',
          `/api/v1/sales/${sale.id}/exchanges`,
          { ...s.asCashier, 'x-idempotency-key': randomUUID() },
          {
            box_id: 1,
            return_lines: [{ item_id: sale.items[0]!.id, quantity: 1 }],
            new_items: [{ product_id: s.pan.id, quantity: 2 }],
            reason: 'cambio',
          },
        );
      const ret = () =>
        giveBack(s.asAdmin, sale.id, {
          lines: [{ item_id: sale.items[0]!.id, quantity: 1 }],
          refund: { method: 'efectivo' },
          reason: 'devolución',
        });
      const [ex, rt] =
        round % 2 === 0
          ? await Promise.all([exchange(), ret()])
          : await Promise.all([ret(), exchange()]).then(([r, e]) => [e, r] as const);
      expect([ex.statusCode, rt.statusCode].sort(), `${ex.body} ${rt.body}`).toEqual([201, 422]);
      expect(await count('sales', s.company.id)).toBe(before + (ex.statusCode === 201 ? 1 : 0));
    }
    await expectBooksClean(t.container, s.company.id);
  });

  it('an exchange whose new sale is refused returns nothing (one transaction), and a retry with the same key works', async () => {
    const s = await shop();
    const sale = await sell(s, [{ product_id: s.yerba.id, quantity: 1 }]);
    const key = randomUUID();
    const body = (productId: number) => ({
      box_id: 1,
      return_lines: [{ item_id: sale.items[0]!.id, quantity: 1 }],
      new_items: [{ product_id: productId, quantity: 1 }],
      reason: 'cambio',
    });
    const before = await count('sales', s.company.id);
    const refused = await call(
      'POST',
      `/api/v1/sales/${sale.id}/exchanges`,
      { ...s.asCashier, 'x-idempotency-key': key },
      body(999_999),
    );
    expect(refused.statusCode, refused.body).toBeGreaterThanOrEqual(400);
    expect(await count('sale_returns', s.company.id)).toBe(0);
    expect(await count('sales', s.company.id)).toBe(before);
    expect(await stockOf(s.company.id, s.yerba.id)).toBe(49);
    const ok = await call(
      'POST',
      `/api/v1/sales/${sale.id}/exchanges`,
      { ...s.asCashier, 'x-idempotency-key': key },
      body(s.pan.id),
    );
    expect(ok.statusCode, ok.body).toBe(201);
    const again = await call(
      'POST',
      `/api/v1/sales/${sale.id}/exchanges`,
      { ...s.asCashier, 'x-idempotency-key': key },
      body(s.pan.id),
    );
    expect(again.statusCode).toBe(200);
    expect(again.json().exchange.sale.id).toBe(ok.json().exchange.sale.id);
    expect(await count('sales', s.company.id)).toBe(before + 1);
    await expectBooksClean(t.container, s.company.id);
  });
});
