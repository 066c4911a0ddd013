import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BooksApp,
  checkOf,
  closeBox,
  failing,
  type Headers,
  makeShop,
  openBox,
  type Shop,
  startBooksApp,
  verifyBooks,
} from '../books/books-shop.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';
import { checkIdentities, read } from '../invoicing/printout-reader.ts';

/**
 * Issue 29, discounts at the register: per line and per sale, % or amount, with a reason; cashiers
 * up to the owner's limit (default 10 %), beyond it an admin approves on the spot with their email
 * and password (audited); the invoices of a discounted sale pass the fake ARCA and their printouts
 * add up; `books verify` stays clean.
 */
describe('register discounts (/api/v1/sales, /api/v1/register/settings)', () => {
  let b: BooksApp;
  beforeAll(async () => {
    b = await startBooksApp();
  }, 120_000);
  afterAll(() => b.close());

  const sell = (headers: Headers, body: Record<string, unknown>, key = randomUUID()) =>
    b.call('POST', '/api/v1/sales', { ...headers, 'x-idempotency-key': key }, { box_id: 1, ...body });

  async function audits(companyId: number, action: string) {
    return b.t.container.db.query<{ actor_email: string | null; details: Record<string, unknown> }>(
      'SELECT actor_email, details FROM audit_log WHERE company_id = $1 AND action = $2 ORDER BY id',
      [companyId, action],
    );
  }

  /** Admins sell in a shift of their own (issue 29): box 2, opened by the admin. */
  async function openAdminBox(s: { companyId: number; asAdmin: Headers }) {
    await b.t.container.db.query(`INSERT INTO boxes (company_id, id, name) VALUES ($1, 2, 'Caja 2')`, [s.companyId]);
    const res = await b.call('POST', '/api/v1/box-sessions', s.asAdmin, { box_id: 2, opening_cash: 0 });
    expect(res.statusCode, res.body).toBe(201);
  }

  async function saleCount(companyId: number) {
    const [row] = await b.t.container.db.query<{ n: number }>('SELECT count(*)::int AS n FROM sales WHERE company_id = $1', [
      companyId,
    ]);
    return row!.n;
  }

  async function admin(s: Shop) {
    return makeUser(b.t.container, { companyId: s.companyId, role: 'admin' });
  }

  it('within the limit a cashier discounts a line (%) and the sale (amount); lines net of discount add up; invoices A and B pass ARCA', async () => {
    const s = await makeShop(b);
    const session = await openBox(b, s);
    const { p21, p105, exempt } = s.products;
    const res = await sell(s.asCashier, {
      items: [
        // Yerba 3 × 3917.36 = 11752.08; 10 % off = 1175.21 → 10576.87
        { product_id: p21, quantity: 3, discount: { percent: 10, reason: 'Cliente frecuente' } },
        { product_id: p105, quantity: 2 },
        { product_id: exempt, quantity: 1 },
      ],
      discount: { amount: 500, reason: 'Redondeo' },
      payments: [{ method: 'debito', amount: 17287.87 }],
    });
    expect(res.statusCode, res.body).toBe(201);
    const sale = res.json().sale;
    // 10576.87 + 2211 + 5000 = 17787.87 − 500 = 17287.87
    expect(sale.total).toBe(17287.87);
    expect(sale.status).toBe('paid');
    expect(sale.discount).toBe(1675.21);
    expect(sale.sale_discount).toBe(500);
    expect(sale.discount_reason).toBe('Redondeo');
    expect(sale.discount_approved_by).toBeNull();
    expect(sale.items[0]).toMatchObject({ price: 3917.36, discount: 1175.21, discount_reason: 'Cliente frecuente' });
    const cents = (n: number) => Math.round(n * 100);
    const shares = sale.items.reduce((sum: number, i: { sale_discount: number }) => sum + cents(i.sale_discount), 0);
    expect(shares).toBe(50_000);
    for (const i of sale.items) {
      expect(cents(i.price * i.quantity)).toBe(cents(i.subtotal) + cents(i.discount) + cents(i.sale_discount));
    }
    expect(sale.items.reduce((sum: number, i: { subtotal: number }) => sum + cents(i.subtotal), 0)).toBe(cents(sale.total));
    // The stored sale reads the same.
    const read1 = (await b.call('GET', `/api/v1/sales/${sale.id}`, s.asCashier)).json().sale;
    expect(read1.items).toEqual(sale.items);
    expect(read1.discount).toBe(1675.21);
    const [audit] = await audits(s.companyId, 'sale.discounted');
    expect(audit!.details).toMatchObject({ sale_id: sale.id, discount: 1675.21, limit_percent: 10, approved_by: null });

    // Factura B: printed lines are what each line charged, net of its discounts.
    const invB = await b.call('POST', `/api/v1/sales/${sale.id}/invoice`, s.asCashier, {});
    expect(invB.statusCode, invB.body).toBe(201);
    const b1 = invB.json().invoice;
    expect(b1.total).toBe(17287.87);
    for (const formato of ['', '?formato=ticket']) {
      const page = await b.call('GET', `/facturas/${b1.id}${formato}`, s.asCashier);
      checkIdentities(page.body, 'B', (await b.call('GET', `/api/v1/invoices/${b1.id}`, s.asAdmin)).json().invoice);
      expect(page.body).toContain('Bonificación');
    }

    // Factura A of another discounted sale: net per rate and IVA as ARCA checks them.
    const okA = await sell(s.asCashier, {
      items: [
        { product_id: p21, quantity: 2, discount: { amount: 333.33, reason: 'Promo' } },
        { product_id: p105, quantity: 1 },
      ],
      discount: { percent: 5, reason: 'Mayorista' },
    });
    expect(okA.statusCode, okA.body).toBe(201);
    const pending = okA.json().sale;
    // (7834.72 − 333.33 + 1105.50) × 0.95 = 8606.89 × 0.95 → 430.34 off → 8176.55
    expect(pending.total).toBe(8176.55);
    const pay = await b.call('POST', `/api/v1/sales/${pending.id}/pay`, s.asCashier, {
      payments: [{ method: 'transferencia', amount: 8176.55 }],
    });
    expect(pay.statusCode, pay.body).toBe(200);
    const invA = await b.call('POST', `/api/v1/sales/${pending.id}/invoice`, s.asCashier, {
      buyer: { doc_type: 'cuit', doc_number: '30-50001091-2', iva_condition: 1, name: 'Distribuidora Sur S.A.' },
    });
    expect(invA.statusCode, invA.body).toBe(201);
    const a = (await b.call('GET', `/api/v1/invoices/${invA.json().invoice.id}`, s.asAdmin)).json().invoice;
    expect(a.type).toBe('A');
    expect(a.total).toBe(8176.55);
    expect(cents(a.net) + cents(a.iva) + cents(a.exempt ?? 0)).toBe(cents(a.total));
    for (const formato of ['', '?formato=ticket']) {
      const page = await b.call('GET', `/facturas/${a.id}${formato}`, s.asCashier);
      checkIdentities(page.body, 'A', a);
      expect(read(page.body).lines.length).toBeGreaterThanOrEqual(2);
    }
    await closeBox(b, s, session);
    expect((await verifyBooks(b, s.companyId)).code).toBe(0);
  }, 120_000);

  it('beyond the limit a cashier needs an admin: none → 403, wrong password or a cashier → 403 audited, an admin → sold and audited', async () => {
    const s = await makeShop(b);
    await openBox(b, s);
    const boss = await admin(s);
    const otherCashier = await makeUser(b.t.container, { companyId: s.companyId, role: 'cashier' });
    const stranger = await makeUser(b.t.container, { companyId: (await makeCompany(b.t.container)).id, role: 'admin' });
    const body = {
      items: [{ product_id: s.products.p21, quantity: 1, discount: { percent: 15, reason: 'Producto golpeado' } }],
      payments: [{ method: 'efectivo', amount: 5000 }],
    };
    const before = await saleCount(s.companyId);

    const none = await sell(s.asCashier, body);
    expect(none.statusCode).toBe(403);
    expect(none.json().code).toBe('discount_needs_approval');

    for (const approval of [
      { email: boss.email, password: 'not the password' },
      { email: otherCashier.email, password: otherCashier.password },
      { email: stranger.email, password: stranger.password },
      { email: stranger.email, password: 'not the password' },
      { email: 'nobody@example.com', password: 'whatever' },
    ]) {
      const refused = await sell(s.asCashier, { ...body, discount_approval: approval });
      expect(refused.statusCode, refused.body).toBe(403);
      expect(refused.json().code).toBe('approval_refused');
    }
    expect(await saleCount(s.companyId)).toBe(before);
    const failed = await audits(s.companyId, 'sale.discount_approval_failed');
    // Another company's admin and an unknown email read the same: this company's log learns nothing about
    // them (not that the account exists, not whether the password was right).
    expect(failed.map((f) => f.details['reason'])).toEqual([
      'wrong_password',
      'not_admin',
      'not_member',
      'not_member',
      'not_member',
    ]);
    expect(JSON.stringify(failed)).not.toContain('not the password');

    // A sale over the limit in total (10 % on a line and 10 % on the sale: 19 %) also needs one.
    const stacked = await sell(s.asCashier, {
      items: [{ product_id: s.products.p105, quantity: 1, discount: { percent: 10, reason: 'Promo' } }],
      discount: { percent: 10, reason: 'Promo' },
    });
    expect(stacked.json().code).toBe('discount_needs_approval');

    const key = randomUUID();
    const approved = await sell(s.asCashier, { ...body, discount_approval: { email: boss.email, password: boss.password } }, key);
    expect(approved.statusCode, approved.body).toBe(201);
    const sale = approved.json().sale;
    expect(sale.discount_approved_by).toBe(boss.email);
    expect(sale.total).toBe(3329.76); // 3917.36 − 587.60
    const [audit] = await audits(s.companyId, 'sale.discount_approved');
    expect(audit!.details).toMatchObject({ sale_id: sale.id, approved_by: boss.email, percent: 15, limit_percent: 10 });
    // A retry of the same request, even without the approval, answers the same sale.
    const replay = await sell(s.asCashier, body, key);
    expect(replay.statusCode).toBe(200);
    expect(replay.json().sale.id).toBe(sale.id);

    // books verify notices a sale discount whose reason went missing.
    expect((await verifyBooks(b, s.companyId)).code).toBe(0);
    // Admins sell in a shift of their own (issue 29): box 2.
    await openAdminBox(s);
    const stacked2 = await sell(s.asAdmin, {
      box_id: 2,
      items: [{ product_id: s.products.p105, quantity: 1 }],
      discount: { percent: 20, reason: 'Promo' },
    });
    expect(stacked2.statusCode, stacked2.body).toBe(201);
    const broken = stacked2.json().sale.id;
    await b.t.container.db.query('UPDATE register_sales SET discount_reason = NULL WHERE company_id = $1 AND sale_id = $2', [
      s.companyId,
      broken,
    ]);
    const { code, report } = await verifyBooks(b, s.companyId);
    expect(code).toBe(1);
    expect(failing(report)).toEqual(['sale_discounts']);
    expect(checkOf(report, 'sale_discounts').detail.rows).toEqual([
      { sale_id: broken, problem: 'sale_reason', found_cents: 22_110 },
    ]);
    await b.t.container.db.query("UPDATE register_sales SET discount_reason = 'Promo' WHERE company_id = $1 AND sale_id = $2", [
      s.companyId,
      broken,
    ]);

    // An admin selling gives any discount without asking anyone.
    const byAdmin = await sell(s.asAdmin, { ...body, box_id: 2 });
    expect(byAdmin.statusCode, byAdmin.body).toBe(201);
    expect(byAdmin.json().sale.discount_approved_by).toBeNull();
    expect((await verifyBooks(b, s.companyId)).code).toBe(0);
  }, 120_000);

  it('a sale whose lines add up past what an amount holds is refused even when its discounts bring it to $ 0', async () => {
    // Each line fits its column ($ 999.999.999.999,99), 91 of them do not fit one amount: the sale is
    // refused before any discount is worked out (past 2^53 cents they could not even be added up exactly).
    const s = await makeShop(b);
    await openAdminBox(s);
    const dear = await makeProduct(b.t.container, s.companyId, { name: 'Campo', basePrice: 999_999_999_999.99, stock: 100 });
    const items = Array.from({ length: 91 }, () => ({
      product_id: dear.id,
      quantity: 1,
      discount: { percent: 100, reason: 'Canje' },
    }));
    const before = await saleCount(s.companyId);
    const res = await sell(s.asAdmin, { box_id: 2, items, payments: [] });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json()).toMatchObject({ code: 'validation_failed', details: [{ path: '/items', message: 'amount_max' }] });
    expect(await saleCount(s.companyId)).toBe(before);
    expect(failing((await verifyBooks(b, s.companyId)).report)).toEqual([]);
  });

  it('malformed discounts are 422 and write nothing', async () => {
    const s = await makeShop(b);
    await openAdminBox(s);
    const before = await saleCount(s.companyId);
    const line = (discount: unknown) => ({ box_id: 2, items: [{ product_id: s.products.p105, quantity: 1, discount }] });
    for (const body of [
      line({ percent: 5, amount: 10, reason: 'x' }),
      line({ reason: 'x' }),
      line({ amount: 2000, reason: 'más que la línea' }),
      line({ percent: 5, reason: '   ' }),
      line({ percent: 5.555, reason: 'tres decimales' }),
      {
        box_id: 2,
        items: [{ product_id: s.products.p105, quantity: 1 }],
        discount: { amount: 1105.51, reason: 'más que la venta' },
      },
    ]) {
      const res = await sell(s.asAdmin, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.json().code).toBe('validation_failed');
    }
    expect(await saleCount(s.companyId)).toBe(before);
  }, 60_000);

  it("the owner sets the limit; cashiers cannot; one company's limit never applies to another", async () => {
    const s = await makeShop(b);
    const other = await makeShop(b);
    await openBox(b, s);
    expect((await b.call('GET', '/api/v1/register/settings', s.asCashier)).json()).toEqual({ discount_limit_percent: 10 });
    const byCashier = await b.call('PUT', '/api/v1/register/settings', s.asCashier, { discount_limit_percent: 50 });
    expect(byCashier.statusCode).toBe(403);
    const set = await b.call('PUT', '/api/v1/register/settings', other.asAdmin, { discount_limit_percent: 50 });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toEqual({ discount_limit_percent: 50 });
    expect((await audits(other.companyId, 'settings.discount_limit_changed'))[0]!.details).toEqual({ from: 10, to: 50 });

    // The other company's 50 % does not reach this one.
    const body = { items: [{ product_id: s.products.p105, quantity: 1, discount: { percent: 30, reason: 'Saldo' } }] };
    expect((await sell(s.asCashier, body)).json().code).toBe('discount_needs_approval');
    expect((await b.call('GET', '/api/v1/register/settings', s.asAdmin)).json()).toEqual({ discount_limit_percent: 10 });
    const state = (await b.call('GET', '/api/v1/register', s.asCashier)).json();
    expect(state).toMatchObject({ discount_limit_percent: 10, can_discount_freely: false });

    // Its own owner raising it lets the cashier give it.
    expect((await b.call('PUT', '/api/v1/register/settings', s.asAdmin, { discount_limit_percent: 30 })).statusCode).toBe(200);
    const sold = await sell(s.asCashier, body);
    expect(sold.statusCode, sold.body).toBe(201);
    expect(sold.json().sale.total).toBe(773.85); // 1105.50 − 331.65
    expect((await audits(s.companyId, 'sale.discounted')).length).toBe(1);
    expect(await audits(other.companyId, 'sale.discounted')).toEqual([]);
  }, 60_000);
});

describe('discount approvals are rate-limited like logins', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_ACCOUNT: '2', AUTH_LOGIN_LIMIT_PER_CLIENT: '1000' } });
  });
  afterAll(() => t.close());

  it('after the limit of wrong passwords for an approver the register answers 429, even with the right one, and nothing is sold', async () => {
    const company = await makeCompany(t.container);
    const boss = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const cashier = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    const product = await makeProduct(t.container, company.id, { name: 'Fernet 750', basePrice: 12_000, stock: 10 });
    const headers = { cookie: (await login(t.app, cashier.email, cashier.password)).cookie, ...SAME_ORIGIN };
    const post = (url: string, payload: object, extra: Record<string, string> = {}) =>
      t.app.inject({ method: 'POST', url, headers: { ...headers, ...extra }, payload });
    expect((await post('/api/v1/box-sessions', { box_id: 1, opening_cash: 0 })).statusCode).toBe(201);
    const sale = (password: string) =>
      post(
        '/api/v1/sales',
        {
          box_id: 1,
          items: [{ product_id: product.id, quantity: 1, discount: { percent: 50, reason: 'Vencido mañana' } }],
          discount_approval: { email: boss.email, password },
        },
        { 'x-idempotency-key': randomUUID() },
      );
    expect((await sale('mal 1')).json().code).toBe('approval_refused');
    expect((await sale('mal 2')).json().code).toBe('approval_refused');
    const limited = await sale(boss.password);
    expect(limited.statusCode).toBe(429);
    expect(limited.json().code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    const [row] = await t.container.db.query<{ n: number }>('SELECT count(*)::int AS n FROM sales WHERE company_id = $1', [
      company.id,
    ]);
    expect(row!.n).toBe(0);
    // Logging in is counted apart: the admin still signs in.
    expect((await login(t.app, boss.email, boss.password)).cookie).toBeTruthy();
  }, 60_000);
});
