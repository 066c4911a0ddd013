import { expectBooksClean } from '../books/books-shop.ts';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { login, manualClock, SAME_ORIGIN } from '../sessions.ts';

const DAY_MS = 86_400_000;

/** Cuenta corriente (issue 28): sales on account, payments on account, statements, share links, books. */
describe('cuenta corriente (/api/v1/customers/:id/account, payments, statement; /api/v1/accounts)', () => {
  let t: TestApp;
  const clock = manualClock(new Date('2026-03-02T15:00:00Z'));
  beforeAll(async () => {
    t = await buildTestApp({
      env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000', AUTH_LOGIN_LIMIT_PER_ACCOUNT: '1000' },
      overrides: { clock },
    });
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
    // A read-write token acts as an admin and does not expire when the clock moves on.
    const created = await call('POST', '/api/v1/api-tokens', asAdmin, { name: `t-${randomUUID()}`, scope: 'read-write' });
    const asToken = { authorization: `Bearer ${created.json().secret}` } as Headers;
    const item = await makeProduct(t.container, company.id, { name: 'Bolsa de alimento', basePrice: 1000, stock: 500 });
    const session = await call('POST', '/api/v1/box-sessions', asToken, { box_id: 1, opening_cash: 1000 });
    expect(session.statusCode, session.body).toBe(201);
    return { company, asAdmin, asCashier, asToken, item, sessionId: session.json().session.id as number };
  }

  /** A customer row (the customers API is another branch's; its table is main's). */
  async function makeCustomer(
    companyId: number,
    c: {
      name?: string;
      account?: boolean;
      limit?: number | null;
      phone?: string | null;
      email?: string | null;
      enabled?: boolean;
    } = {},
  ) {
    const [row] = await t.container.db.query<{ id: number }>(
      `INSERT INTO customers (company_id, id, name, phone, email, account_enabled, credit_limit, enabled)
       VALUES ($1, take_company_ids($1, 'customers', 1), $2, $3, $4, $5, $6, $7) RETURNING id`,
      [
        companyId,
        c.name ?? `Cliente ${randomUUID().slice(0, 6)}`,
        c.phone ?? null,
        c.email ?? null,
        c.account ?? true,
        c.limit ?? null,
        c.enabled ?? true,
      ],
    );
    return row!.id;
  }

  type Shop = Awaited<ReturnType<typeof shop>>;
  /** A register sale of `units` × $ 1.000, `onAccount` of it on the customer's account and the rest in cash. */
  const sellOnAccount = (s: Shop, headers: Headers, customerId: number, units: number, onAccount = units * 1000, extra = {}) =>
    call(
      'POST',
      '/api/v1/sales',
      { ...headers, 'x-idempotency-key': randomUUID() },
      {
        box_id: 1,
        items: [{ product_id: s.item.id, quantity: units }],
        payments: [
          { method: 'cuenta_corriente', amount: onAccount },
          ...(onAccount < units * 1000 ? [{ method: 'efectivo', amount: units * 1000 - onAccount }] : []),
        ],
        customer: { id: customerId },
        ...extra,
      },
    );

  const pay = (headers: Headers, customerId: number, body: Record<string, unknown>, key = randomUUID()) =>
    call('POST', `/api/v1/customers/${customerId}/payments`, { ...headers, 'x-idempotency-key': key }, body);

  const account = async (headers: Headers, customerId: number) => {
    const res = await call('GET', `/api/v1/customers/${customerId}/account`, headers);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  const eventsOf = (companyId: number, event: string) =>
    t.container.db.query<{ payload: { data: { sale: { id: number } } } }>(
      'SELECT payload FROM outbox_events WHERE company_id = $1 AND event = $2 ORDER BY seq',
      [companyId, event],
    );

  it('sells on account up to the limit (pending, balance up); over it is 409 credit_limit_exceeded and changes nothing', async () => {
    const s = await shop();
    const customer = await makeCustomer(s.company.id, { limit: 3000 });
    const first = await sellOnAccount(s, s.asCashier, customer, 2);
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().sale).toMatchObject({ status: 'pending', customer_id: customer, payment_method: 'cuenta_corriente' });
    expect(first.json().sale.payments).toEqual([
      expect.objectContaining({ method: 'cuenta_corriente', amount: 2000, box_session_id: null }),
    ]);
    // Exactly at the limit: allowed.
    const atLimit = await sellOnAccount(s, s.asCashier, customer, 1);
    expect(atLimit.statusCode, atLimit.body).toBe(201);
    expect((await account(s.asCashier, customer)).account).toEqual({
      balance: 3000,
      credit_limit: 3000,
      available: 0,
      oldest_due_at: first.json().sale.created_at,
    });
    const over = await sellOnAccount(s, s.asCashier, customer, 1);
    expect(over.statusCode, over.body).toBe(409);
    expect(over.json().code).toBe('credit_limit_exceeded');
    // A cashier's override is no override.
    const cashierOverride = await sellOnAccount(s, s.asCashier, customer, 1, 1000, { override_credit_limit: true });
    expect(cashierOverride.json().code).toBe('credit_limit_exceeded');
    expect((await account(s.asCashier, customer)).account.balance).toBe(3000);
    // Part cash, part on account: only the account part counts against the limit.
    const mixed = await sellOnAccount(s, s.asCashier, customer, 3, 0.01, {});
    expect(mixed.statusCode).toBe(409);
    await expectBooksClean(t.container, s.company.id);
  });

  it('an admin overrides the limit, and the override is audited', async () => {
    const s = await shop();
    const customer = await makeCustomer(s.company.id, { limit: 1000 });
    const res = await sellOnAccount(s, s.asAdmin, customer, 2, 2000, { override_credit_limit: true });
    expect(res.statusCode, res.body).toBe(201);
    const audit = await t.container.db.query<{ details: Record<string, unknown> }>(
      `SELECT details FROM audit_log WHERE company_id = $1 AND action = 'account.credit_limit_overridden'`,
      [s.company.id],
    );
    expect(audit).toEqual([
      { details: { customer_id: customer, sale_id: res.json().sale.id, amount: 2000, balance: 0, credit_limit: 1000 } },
    ]);
    expect((await account(s.asAdmin, customer)).account).toMatchObject({ balance: 2000, available: 0 });
    await expectBooksClean(t.container, s.company.id);
  });

  it('refuses a sale on account to a customer without an account, a disabled one, or one not wholly paid', async () => {
    const s = await shop();
    const noAccount = await makeCustomer(s.company.id, { account: false });
    const disabled = await makeCustomer(s.company.id, { enabled: false });
    expect((await sellOnAccount(s, s.asCashier, noAccount, 1)).json().code).toBe('invalid_state');
    expect((await sellOnAccount(s, s.asCashier, disabled, 1)).json().code).toBe('invalid_state');
    const ok = await makeCustomer(s.company.id);
    const short = await call(
      'POST',
      '/api/v1/sales',
      { ...s.asCashier, 'x-idempotency-key': randomUUID() },
      {
        box_id: 1,
        items: [{ product_id: s.item.id, quantity: 2 }],
        payments: [{ method: 'cuenta_corriente', amount: 500 }],
        customer: { id: ok },
      },
    );
    expect(short.statusCode).toBe(422);
    const sales = await t.container.db.query('SELECT id FROM sales WHERE company_id = $1', [s.company.id]);
    expect(sales).toEqual([]);
  });

  it('allocates payments to the oldest open sales first, partly, and paid sales emit sales.paid exactly once', async () => {
    const s = await shop();
    const customer = await makeCustomer(s.company.id);
    const a = (await sellOnAccount(s, s.asToken, customer, 1)).json().sale;
    clock.advance(60_000);
    const b = (await sellOnAccount(s, s.asToken, customer, 2)).json().sale;
    clock.advance(60_000);
    const c = (await sellOnAccount(s, s.asToken, customer, 3, 1500)).json().sale; // 1.500 cash, 1.500 on account

    const first = await pay(s.asCashier, customer, {
      amount: 1800,
      method: 'efectivo',
      session_id: s.sessionId,
      note: 'Pago parcial',
    });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().payment).toMatchObject({
      customer_id: customer,
      amount: 1800,
      method: 'efectivo',
      box_session_id: s.sessionId,
      note: 'Pago parcial',
      allocations: [
        { sale_id: a.id, amount: 1000 },
        { sale_id: b.id, amount: 800 },
      ],
      unallocated: 0,
    });
    expect(first.json().account.balance).toBe(2700);
    let view = await account(s.asCashier, customer);
    expect(view.open_sales.map((o: { sale_id: number; open: number; paid: number }) => [o.sale_id, o.paid, o.open])).toEqual([
      [b.id, 800, 1200],
      [c.id, 0, 1500],
    ]);
    const sale = async (id: number) => (await call('GET', `/api/v1/sales/${id}`, s.asToken)).json().sale;
    expect((await sale(a.id)).status).toBe('paid');
    expect((await sale(b.id)).status).toBe('pending');

    // Covers b and c, and 300 more: saldo a favor.
    const second = await pay(s.asToken, customer, { amount: 3000, method: 'transferencia', reference: 'op 123' });
    expect(second.statusCode, second.body).toBe(201);
    expect(second.json().payment.allocations).toEqual([
      { sale_id: b.id, amount: 1200 },
      { sale_id: c.id, amount: 1500 },
    ]);
    expect(second.json().payment.unallocated).toBe(300);
    expect(second.json().account.balance).toBe(-300);
    expect((await sale(c.id)).status).toBe('paid');

    // The credit covers the next sale on account at once: created and paid.
    const d = await sellOnAccount(s, s.asToken, customer, 1, 300, {});
    expect(d.statusCode, d.body).toBe(201);
    // 300 of it on account (the credit covers it at once), 700 in cash: paid as it is made.
    expect(d.json().sale.status).toBe('paid');
    view = await account(s.asToken, customer);
    expect(view.account.balance).toBe(0);
    expect(view.open_sales).toEqual([]);

    const paid = (await eventsOf(s.company.id, 'sales.paid')).map((e) => e.payload.data.sale.id).sort((x, y) => x - y);
    expect(paid).toEqual([a.id, b.id, c.id, d.json().sale.id].sort((x, y) => x - y));
    await expectBooksClean(t.container, s.company.id);
  });

  it('a payment received at the register counts in the shift and the day summary; the close report adds up', async () => {
    const s = await shop();
    const customer = await makeCustomer(s.company.id);
    await sellOnAccount(s, s.asToken, customer, 2);
    const res = await pay(s.asCashier, customer, { amount: 500, method: 'efectivo', session_id: s.sessionId });
    expect(res.statusCode, res.body).toBe(201);
    const report = (await call('GET', `/api/v1/box-sessions/${s.sessionId}`, s.asToken)).json();
    expect(report.expected.efectivo).toBe(1500);
    expect(report.expected.cuenta_corriente).toBeUndefined();
    const summary = (await call('GET', '/api/v1/sales/summary?date=2026-03-02', s.asToken)).json();
    expect(summary.date).toBe('2026-03-02');
    expect(summary.account_payments).toEqual([{ method: 'efectivo', amount: 500, count: 1 }]);
    expect(summary.by_method).toEqual(
      expect.arrayContaining([expect.objectContaining({ method: 'cuenta_corriente', amount: 2000 })]),
    );
    // The payments report reads the day the same way: the part on account is under its method, not
    // counted again as unpaid, so collected + unpaid is the day's total.
    const payments = (await call('GET', '/api/v1/reports/payments?from=2026-03-02&to=2026-03-02', s.asToken)).json();
    expect(payments.totals).toEqual({ amount: summary.total - summary.pending, pending: summary.pending });
    expect(summary.pending).toBe(0);
    const closed = await call('POST', `/api/v1/box-sessions/${s.sessionId}/close`, s.asToken, { counted: { efectivo: 1500 } });
    expect(closed.statusCode, closed.body).toBe(200);
    expect(closed.json().difference).toEqual({ efectivo: 0 });
    await expectBooksClean(t.container, s.company.id);
  });

  it('a payment on account is idempotent by key; another body with the same key is 409; a closed or foreign session is refused', async () => {
    const s = await shop();
    const customer = await makeCustomer(s.company.id);
    const key = randomUUID();
    const body = { amount: 700, method: 'efectivo' };
    const first = await pay(s.asToken, customer, body, key);
    expect(first.statusCode).toBe(201);
    const replay = await pay(s.asToken, customer, body, key);
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['idempotent-replay']).toBe('true');
    expect(replay.json().payment.id).toBe(first.json().payment.id);
    expect((await pay(s.asToken, customer, { ...body, amount: 701 }, key)).statusCode).toBe(409);
    expect((await account(s.asToken, customer)).account.balance).toBe(-700);
    const bad = await pay(s.asToken, customer, { amount: 10, method: 'efectivo', session_id: 999_999 });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().code).toBe('no_open_session');
    expect((await pay(s.asToken, customer, { amount: 0, method: 'efectivo' })).statusCode).toBe(422);
    expect((await pay(s.asToken, customer, { amount: 10, method: 'cuenta_corriente' })).statusCode).toBe(422);
    await expectBooksClean(t.container, s.company.id);
  });

  it('cancelling a sale on account takes it off the balance and frees what covered it as credit', async () => {
    const s = await shop();
    const customer = await makeCustomer(s.company.id);
    const a = (await sellOnAccount(s, s.asToken, customer, 1)).json().sale;
    const b = (await sellOnAccount(s, s.asToken, customer, 2)).json().sale;
    await pay(s.asToken, customer, { amount: 1500, method: 'efectivo' });
    const cancel = await call('POST', `/api/v1/sales/${a.id}/cancel`, s.asToken, { reason: 'Devolvió la mercadería' });
    expect(cancel.statusCode, cancel.body).toBe(200);
    const view = await account(s.asToken, customer);
    // 3.000 sold, 1.000 cancelled, 1.500 paid: 500 owed, on b (the freed 1.000 went to it).
    expect(view.account.balance).toBe(500);
    expect(view.open_sales).toEqual([expect.objectContaining({ sale_id: b.id, paid: 1500, open: 500 })]);
    const statement = (await call('GET', `/api/v1/customers/${customer}/statement`, s.asToken)).json();
    expect(statement.movements.map((m: { kind: string; amount: number }) => [m.kind, m.amount])).toEqual([
      ['sale', 1000],
      ['sale', 2000],
      ['payment', -1500],
      ['credit_note', -1000],
    ]);
    await expectBooksClean(t.container, s.company.id);
  });

  it('a sale partly on account reads on the statement with its total beside the part on account', async () => {
    const s = await shop();
    const customer = await makeCustomer(s.company.id);
    const sale = (await sellOnAccount(s, s.asToken, customer, 3, 1200)).json().sale;
    await call('POST', `/api/v1/sales/${sale.id}/cancel`, s.asToken, { reason: 'error' });
    const statement = (await call('GET', `/api/v1/customers/${customer}/statement`, s.asToken)).json();
    expect(statement.movements.map((m: { amount: number; description: string }) => [m.amount, m.description])).toEqual([
      [1200, `Venta N.º ${sale.id} · total $\u00a03.000,00, a cuenta $\u00a01.200,00`],
      [-1200, `Anulación de la venta N.º ${sale.id} · total $\u00a03.000,00, a cuenta $\u00a01.200,00`],
    ]);
    await expectBooksClean(t.container, s.company.id);
  });

  it('the statement has the opening balance, movements with running balance, closing balance and aging buckets', async () => {
    const s = await shop();
    const customer = await makeCustomer(s.company.id, { name: 'Kiosco El Trébol' });
    clock.set(new Date('2026-04-01T15:00:00Z'));
    const old = (await sellOnAccount(s, s.asToken, customer, 4)).json().sale; // 4.000, 2026-04-01
    clock.set(new Date('2026-05-20T15:00:00Z'));
    await sellOnAccount(s, s.asToken, customer, 2); // 2.000, 2026-05-20
    clock.set(new Date('2026-06-10T15:00:00Z'));
    await pay(s.asToken, customer, { amount: 1000, method: 'efectivo' }); // covers part of the oldest
    clock.set(new Date('2026-07-05T15:00:00Z'));
    await sellOnAccount(s, s.asToken, customer, 1); // 1.000, 2026-07-05
    clock.set(new Date('2026-07-10T15:00:00Z'));

    const res = await call('GET', `/api/v1/customers/${customer}/statement?from=2026-05-01&to=2026-07-10`, s.asToken);
    expect(res.statusCode, res.body).toBe(200);
    const st = res.json();
    expect(st).toMatchObject({ from: '2026-05-01', to: '2026-07-10', opening_balance: 4000, closing_balance: 6000 });
    expect(st.movements.map((m: { kind: string; amount: number; balance: number }) => [m.kind, m.amount, m.balance])).toEqual([
      ['sale', 2000, 6000],
      ['payment', -1000, 5000],
      ['sale', 1000, 6000],
    ]);
    expect(st.movements[0].description).toMatch(/^Venta N\.º \d+$/);
    // Today 2026-07-10: the oldest sale is 100 days old (3.000 left), the next 51 days, the last 5.
    expect(st.aging).toEqual({ days_0_30: 1000, days_31_60: 2000, days_61_90: 0, days_over_90: 3000, total: 6000 });
    expect(st.account.oldest_due_at).toBe(old.created_at);
    // A closing balance before everything is 0; from after to is refused.
    const empty = (await call('GET', `/api/v1/customers/${customer}/statement?from=2026-01-01&to=2026-03-31`, s.asToken)).json();
    expect(empty).toMatchObject({ opening_balance: 0, movements: [], closing_balance: 0 });
    // The last day a date can be: everything, never a 500 (the day after it is year 10000).
    const all = await call('GET', `/api/v1/customers/${customer}/statement?from=2026-05-01&to=9999-12-31`, s.asToken);
    expect(all.statusCode, all.body).toBe(200);
    expect(all.json()).toMatchObject({ to: '9999-12-31', opening_balance: 4000, closing_balance: 6000 });
    expect(all.json().movements).toHaveLength(3);
    expect(
      (await call('GET', `/api/v1/customers/${customer}/statement?from=2026-07-10&to=2026-07-01`, s.asToken)).statusCode,
    ).toBe(422);

    // Cuentas corrientes: customers who owe, oldest debt first.
    const other = await makeCustomer(s.company.id, { name: 'Almacén Nuevo' });
    await sellOnAccount(s, s.asToken, other, 1);
    const list = (await call('GET', '/api/v1/accounts', s.asToken)).json();
    expect(list.accounts.map((a: { customer: { id: number }; balance: number }) => [a.customer.id, a.balance])).toEqual([
      [customer, 6000],
      [other, 1000],
    ]);
    expect(list).toMatchObject({ total_owed: 7000, count: 2 });
    await expectBooksClean(t.container, s.company.id);
    clock.set(new Date('2026-03-02T15:00:00Z'));
  });

  it('prints the statement for a member, and shares it: works without login, reveals nothing else, expires; a wrong token is 404', async () => {
    clock.set(new Date('2026-03-02T15:00:00Z'));
    const s = await shop();
    const customer = await makeCustomer(s.company.id, {
      name: 'Ferretería Las Heras',
      phone: '+5491143215678',
      email: 'lh@example.com',
    });
    const stranger = await makeCustomer(s.company.id, { name: 'Otro Cliente Secreto' });
    await sellOnAccount(s, s.asToken, customer, 2);
    await sellOnAccount(s, s.asToken, stranger, 1);

    const printed = await call('GET', `/clientes/${customer}/estado-de-cuenta`, s.asCashier);
    expect(printed.statusCode).toBe(200);
    expect(printed.body).toContain('Ferretería Las Heras');
    expect(printed.body).toContain('$\u00a02.000,00');
    expect(printed.body).not.toContain('Otro Cliente Secreto');

    const shared = await call('POST', `/api/v1/customers/${customer}/statement/share`, s.asCashier);
    expect(shared.statusCode, shared.body).toBe(201);
    const link = shared.json();
    expect(link.whatsapp_url).toMatch(/^https:\/\/wa\.me\/5491143215678\?text=/);
    expect(decodeURIComponent(link.whatsapp_url)).toContain(link.url);
    expect(link.mailto_url).toMatch(/^mailto:lh%40example\.com\?subject=/);
    const path = new URL(link.url).pathname;
    const audited = await t.container.db.query<{ details: Record<string, unknown> }>(
      `SELECT details FROM audit_log WHERE company_id = $1 AND action = 'account.statement_shared'`,
      [s.company.id],
    );
    expect(audited).toEqual([{ details: { customer_id: customer, expires_at: link.expires_at } }]);
    expect(path).toMatch(/^\/estado-de-cuenta\/[A-Za-z0-9_-]{43}$/);

    const anonymous = await call('GET', path, {});
    expect(anonymous.statusCode).toBe(200);
    expect(anonymous.headers['referrer-policy']).toBe('no-referrer');
    expect(anonymous.body).toContain('Ferretería Las Heras');
    expect(anonymous.body).not.toContain('Otro Cliente Secreto');
    expect(anonymous.body).not.toContain('/clientes/');
    // Only the hash is stored.
    const token = path.split('/').at(-1)!;
    const stored = await t.container.db.query<{ token_sha256: string }>('SELECT token_sha256 FROM statement_links');
    expect(stored.some((r) => r.token_sha256.includes(token))).toBe(false);

    const wrong = await call('GET', `/estado-de-cuenta/${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`, {});
    expect(wrong.statusCode).toBe(404);
    expect(wrong.body).not.toContain('Ferretería');
    expect((await call('GET', '/estado-de-cuenta/short', {})).statusCode).toBe(404);

    clock.advance(8 * DAY_MS);
    const expired = await call('GET', path, {});
    expect(expired.statusCode).toBe(404);
    expect(expired.body).not.toContain('Ferretería');
    clock.set(new Date('2026-03-02T15:00:00Z'));
  });

  it('the debtors list adds up balances past what cents hold exactly (91 accounts at the most one holds): a number, not a 500', async () => {
    // Each balance stops at its column's limit (the second such sale is 409), but 91 of them add up
    // past 2^53 cents (about $ 90.071.992.547.409,91), the cents a JSON number holds exactly.
    const s = await shop();
    const most = 999_999_999_999; // the most a payment at the register takes
    const dear = await makeProduct(t.container, s.company.id, { name: 'Campo', basePrice: most, stock: 100 });
    for (let n = 0; n < 91; n++) {
      const customer = await makeCustomer(s.company.id);
      const sold = await call(
        'POST',
        '/api/v1/sales',
        { ...s.asToken, 'x-idempotency-key': randomUUID() },
        {
          box_id: 1,
          items: [{ product_id: dear.id, quantity: 1 }],
          payments: [{ method: 'cuenta_corriente', amount: most }],
          customer: { id: customer },
        },
      );
      expect(sold.statusCode, sold.body).toBe(201);
    }
    const res = await call('GET', '/api/v1/accounts?limit=5', s.asAdmin);
    expect(res.statusCode, res.body).toBe(200);
    const list = res.json();
    // $ 90.999.999.999.909: past 2^53 cents, exact here in pesos (the nearest double, as every other sum that far).
    expect(list).toMatchObject({ count: 91, total_owed: 91 * most });
    expect(list.accounts).toHaveLength(5);
    expect(list.accounts[0].balance).toBe(most);
    const page = await call('GET', '/cuentas-corrientes', { ...s.asAdmin, accept: 'text/html' });
    expect(page.statusCode).toBe(200);
    await expectBooksClean(t.container, s.company.id);
  }, 120_000);

  it('concurrent payments and sales on one account settle once each: the books stay clean', async () => {
    const s = await shop();
    const customer = await makeCustomer(s.company.id, { limit: 100_000 });
    await Promise.all([
      ...[1, 2, 3].map((units) => sellOnAccount(s, s.asToken, customer, units)),
      ...[700, 800, 900, 1000].map((amount) => pay(s.asToken, customer, { amount, method: 'efectivo' })),
    ]);
    // 6.000 sold on account, 3.400 paid.
    expect((await account(s.asToken, customer)).account.balance).toBe(2600);
    await expectBooksClean(t.container, s.company.id);
  });

  it("another company's customer is 404 everywhere: account, payments, statement, share, printout and as a sale's customer", async () => {
    const mine = await shop();
    const theirs = await shop();
    // The other company's customers have ids this company never used.
    await makeCustomer(theirs.company.id);
    await makeCustomer(theirs.company.id);
    const foreign = await makeCustomer(theirs.company.id, { name: 'Cliente Ajeno' });
    const h = mine.asToken;
    for (const [method, url, body] of [
      ['GET', `/api/v1/customers/${foreign}/account`, undefined],
      ['GET', `/api/v1/customers/${foreign}/statement`, undefined],
      ['POST', `/api/v1/customers/${foreign}/statement/share`, undefined],
    ] as const) {
      const res = await call(method, url, h, body);
      expect(res.statusCode, url).toBe(404);
      // details[].path points where the request named it: the route's /id.
      expect(res.json()).toMatchObject({ code: 'customer_not_found', details: [{ path: '/id' }] });
    }
    const payment = await pay(h, foreign, { amount: 10, method: 'efectivo' });
    expect(payment.statusCode).toBe(404);
    expect(payment.json()).toMatchObject({ code: 'customer_not_found', details: [{ path: '/id' }] });
    const sale = await sellOnAccount(mine, h, foreign, 1);
    expect(sale.statusCode).toBe(404);
    expect(sale.json()).toMatchObject({ code: 'customer_not_found', details: [{ path: '/customer/id' }] });
    const cashSale = await call(
      'POST',
      '/api/v1/sales',
      { ...h, 'x-idempotency-key': randomUUID() },
      {
        box_id: 1,
        items: [{ product_id: mine.item.id, quantity: 1 }],
        payments: [{ method: 'efectivo', amount: 1000 }],
        customer: { id: foreign },
      },
    );
    expect(cashSale.statusCode).toBe(404);
    const printed = await call('GET', `/clientes/${foreign}/estado-de-cuenta`, mine.asAdmin);
    expect(printed.statusCode).toBe(404);
    expect(printed.body).not.toContain('Cliente Ajeno');
    const list = (await call('GET', '/api/v1/accounts', h)).json();
    expect(list.accounts).toEqual([]);
    // Nothing was written for either company.
    expect(await t.container.db.query('SELECT 1 FROM account_payments WHERE company_id = $1', [theirs.company.id])).toEqual([]);
    await expectBooksClean(t.container, mine.company.id);
    await expectBooksClean(t.container, theirs.company.id);
  });
});
