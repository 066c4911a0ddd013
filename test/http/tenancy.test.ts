import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser, memberNoOf } from '../factories.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

/**
 * Issue 25, the tenancy suite. The routes come from the app's own route table: every `/api/v1` and
 * `/api/settings` route whose path names a record is called with company B's session and company A's
 * id, for reads and writes, and must answer 404 with no A data while every table keeps its row count.
 * A route whose path names no record must be listed below with the reason, or the suite fails.
 */

/** Path segment before `:param` → the table whose company-A id fills it. A new resource fails until added. */
const ID_SOURCE: Record<string, string> = {
  'api-tokens': 'api_tokens',
  'box-sessions': 'box_sessions',
  // A shift by the register's own id (client_id, a uuid).
  'offline-shifts': 'box_sessions',
  sales: 'sales',
  products: 'products',
  categories: 'categories',
  deposits: 'deposits',
  boxes: 'boxes',
  invoices: 'invoices',
  customers: 'customers',
  'invoice-attempts': 'invoice_attempts',
  members: 'memberships',
  invitations: 'invitations',
  webhooks: 'webhook_endpoints',
  deliveries: 'webhook_deliveries',
  blocks: 'caea_blocks',
  returns: 'sale_returns',
};

/** Routes without a record in the path: they act on the caller's own company, chosen by the session. */
const NO_RECORD_IN_PATH: Record<string, string> = {
  'GET /api/v1/me': 'the caller itself',
  'GET /api/v1/register': "the caller's company register state",
  'GET /api/v1/register/catalog': "the caller's company catalog",
  'GET /api/v1/register/settings':
    "the caller's company discount limit (discounts.test.ts: one company's limit never applies to another)",
  'PUT /api/v1/register/settings': "the caller's company discount limit (discounts.test.ts)",
  'GET /api/v1/fiscal': "the caller's company fiscal data",
  'PUT /api/v1/fiscal': "the caller's company fiscal data (cross-company CUIT: cuit-unavailable.test.ts)",
  'POST /api/v1/fiscal/csr': "the caller's company key pair",
  'POST /api/v1/fiscal/certificate': "the caller's company certificate",
  'POST /api/v1/fiscal/check': "the caller's company ARCA check",
  'GET /api/settings/integrations': "the caller's company keys",
  'POST /api/settings/integrations/key/reveal': "the caller's company key",
  'POST /api/settings/integrations/key/rotate': "the caller's company key",
  'POST /api/settings/integrations/scanner-token/rotate': "the caller's company scanner token",
  'GET /api/settings/audit': "the caller's company audit log",
  'GET /api/settings/scale-label': "the caller's company label settings",
  'PUT /api/settings/scale-label': "the caller's company label settings",
  'POST /api/settings/scale-label/preview': 'renders a preview, stores nothing',
  'GET /api/v1/sales/export.csv': "the caller's company sales",
  'GET /api/v1/sales/summary': "the caller's company sales",
  'GET /api/v1/products/export': "the caller's company products",
  'GET /api/v1/customers/export': "the caller's company customers",
  'GET /api/v1/reports/home': "the caller's company figures (reports.test.ts)",
  'GET /api/v1/reports/sales': "the caller's company; another company's deposit_id/box_id is 404 (reports.test.ts)",
  'GET /api/v1/reports/sales.csv': "the caller's company (reports.test.ts)",
  'GET /api/v1/reports/products': "the caller's company; another company's deposit_id/box_id is 404 (reports.test.ts)",
  'GET /api/v1/reports/products.csv': "the caller's company (reports.test.ts)",
  'GET /api/v1/reports/categories': "the caller's company; another company's deposit_id/box_id is 404 (reports.test.ts)",
  'GET /api/v1/reports/categories.csv': "the caller's company (reports.test.ts)",
  'GET /api/v1/reports/brands': "the caller's company; another company's deposit_id/box_id is 404 (reports.test.ts)",
  'GET /api/v1/reports/brands.csv': "the caller's company (reports.test.ts)",
  'GET /api/v1/reports/cashiers': "the caller's company; another company's deposit_id/box_id is 404 (reports.test.ts)",
  'GET /api/v1/reports/cashiers.csv': "the caller's company (reports.test.ts)",
  'GET /api/v1/reports/payments': "the caller's company; another company's deposit_id/box_id is 404 (reports.test.ts)",
  'GET /api/v1/reports/payments.csv': "the caller's company (reports.test.ts)",
  'GET /api/v1/reports/margins': "the caller's company; another company's deposit_id/box_id is 404 (reports.test.ts)",
  'GET /api/v1/reports/margins.csv': "the caller's company (reports.test.ts)",
  'GET /api/v1/reports/stock-valuation': "the caller's company; another company's deposit_id/box_id is 404 (reports.test.ts)",
  'GET /api/v1/reports/stock-valuation.csv': "the caller's company (reports.test.ts)",
  'GET /api/v1/reports/movements': "the caller's company; another company's deposit_id/box_id is 404 (reports.test.ts)",
  'GET /api/v1/reports/movements.csv': "the caller's company (reports.test.ts)",
  'GET /api/v1/fiscal/libro-iva-ventas': "the caller's company receipts (libro-iva.test.ts)",
  'GET /api/v1/fiscal/caea': "the caller's company CAEA and receipts to inform (caea.test.ts)",
  'POST /api/v1/fiscal/caea/request': "the caller's company CAEA",
  'POST /api/v1/fiscal/caea/inform': "the caller's company CAEA receipts",
};

/** Collections: B lists its own company; listed here so B's answer is checked for A's marker. */
const COLLECTION_READS = [
  'GET /api/v1/api-tokens',
  'GET /api/v1/box-sessions',
  'GET /api/v1/sales',
  'GET /api/v1/products',
  'GET /api/v1/stock',
  'GET /api/v1/categories',
  'GET /api/v1/deposits',
  'GET /api/v1/boxes',
  'GET /api/v1/invoices',
  'GET /api/v1/customers',
  'GET /api/settings/members',
  'GET /api/settings/members/invitations',
  'GET /api/settings/integrations/webhooks',
  'GET /api/v1/accounts',
];

/** Creations in the caller's own company; ids of another company in their bodies are checked below. */
const COLLECTION_WRITES: Record<string, string> = {
  'POST /api/v1/api-tokens': 'creates in the caller company',
  'POST /api/v1/box-sessions': "body box_id: checked with A's box below",
  'POST /api/v1/sales': "body product_id: checked with A's product below",
  'POST /api/v1/products': 'creates in the caller company',
  'POST /api/v1/products/import': 'creates in the caller company',
  'POST /api/v1/customers': 'creates in the caller company (a document of A is free in B: customers.test.ts)',
  'POST /api/v1/customers/import': 'creates in the caller company',
  'POST /api/v1/products/price-change': "body product ids: checked with A's product below",
  'POST /api/v1/movements': "body product_id/deposit_id: checked with A's ids below",
  'POST /api/v1/categories': 'creates in the caller company',
  'POST /api/v1/deposits': 'creates in the caller company',
  'POST /api/v1/boxes': "body deposit_id: checked with A's deposit below",
  'POST /api/v1/caea/blocks': "body box_id: another company's box is 404 (caea.test.ts)",
  'POST /api/settings/members': 'invites into the caller company',
  'POST /api/settings/integrations/webhooks': 'creates in the caller company',
};

/** A valid body for each write naming a record, so B's answer is about the record, not the body. */
const BODIES: Record<string, unknown> = {
  'PATCH /api/settings/members/:userId': { role: 'admin' },
  'POST /api/settings/integrations/webhooks/:id/redeliver': { event_id: '1' },
  'POST /api/settings/integrations/webhooks/:id/retry-failed': { since: '2026-01-01T00:00:00Z' },
  'POST /api/v1/box-sessions/:id/close': { counted: { efectivo: 0 } },
  'POST /api/v1/box-sessions/:id/cash': { kind: 'out', amount: 1, reason: 'retiro' },
  'POST /api/v1/box-sessions/:id/handover': { counted: { efectivo: 0 }, opening_cash: 0 },
  'POST /api/v1/sales/:id/pay': { payments: [{ method: 'efectivo', amount: 1 }] },
  'POST /api/v1/sales/:id/cancel': { reason: 'prueba' },
  'POST /api/v1/sales/:id/returns': { lines: [{ item_id: 1, quantity: 1 }], refund: { method: 'efectivo' }, reason: 'prueba' },
  'POST /api/v1/sales/:id/exchanges': {
    box_id: 1,
    return_lines: [{ item_id: 1, quantity: 1 }],
    new_items: [{ product_id: 1, quantity: 1 }],
    reason: 'prueba',
  },
  'POST /api/v1/sales/:id/invoice/offline': { block_id: 1, number: 1, generated_at: '20260101120000', total: 1 },
  'POST /api/v1/customers/:id/payments': { amount: 1, method: 'efectivo' },
  'PATCH /api/v1/products/:id': { name: 'Cambiado por B' },
  'PATCH /api/v1/categories/:id': { name: 'Cambiada por B' },
  'PATCH /api/v1/deposits/:id': { name: 'Cambiado por B' },
  'PATCH /api/v1/boxes/:id': { name: 'Cambiada por B' },
  'PATCH /api/v1/customers/:id': { name: 'Cambiado por B' },
};

const MARKER = `tenant-a-${randomUUID().slice(0, 8)}`;
type Headers = Record<string, string>;

describe('company B never reaches company A (every /api/v1 and settings route)', () => {
  let t: TestApp;
  let asA: Headers;
  let asB: Headers;
  let companyA: number;
  let companyB: number;
  const idOf: Record<string, string> = {};
  const aHas = new Set<string>();
  let linkOfA = '';
  let adminB: { email: string; password: string };
  let cashierA: { email: string; password: string };

  const call = (method: string, url: string, headers: Headers, payload?: unknown) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: { ...headers, 'x-idempotency-key': randomUUID() },
      ...(payload !== undefined ? { payload: payload as object } : {}),
    });

  async function rowCounts(): Promise<Record<string, number>> {
    const tables = await t.container.db.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name",
    );
    const counts: Record<string, number> = {};
    for (const { table_name } of tables) {
      const [row] = await t.container.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM "${table_name}"`);
      counts[table_name] = Number(row?.n);
    }
    return counts;
  }

  /**
   * Every table holds the rows it held `before`. Logins leave session and rate-limit rows (and the
   * tables in `alsoWritten`); every other table, the audit log included, must not move.
   */
  async function expectRowsUnchanged(before: Record<string, number>, alsoWritten: string[] = []) {
    const after = await rowCounts();
    for (const volatile of ['sessions', 'rate_limit_windows', ...alsoWritten]) {
      delete before[volatile];
      delete after[volatile];
    }
    expect(after).toEqual(before);
  }

  beforeAll(async () => {
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000', AUTH_LOGIN_LIMIT_PER_ACCOUNT: '1000' } });
    const a = await makeCompany(t.container);
    const b = await makeCompany(t.container);
    companyA = a.id;
    companyB = b.id;
    const adminA = await makeUser(t.container, { companyId: a.id, role: 'admin' });
    adminB = await makeUser(t.container, { companyId: b.id, role: 'admin' });
    cashierA = await makeUser(t.container, { companyId: a.id, role: 'cashier' });
    asA = { cookie: (await login(t.app, adminA.email, adminA.password)).cookie, ...SAME_ORIGIN };
    asB = { cookie: (await login(t.app, adminB.email, adminB.password)).cookie, ...SAME_ORIGIN };
    // Company A gets more of every record than B, so A's highest ids are ids B does not have.
    for (let i = 0; i < 3; i++) {
      const made = await call('POST', '/api/v1/categories', asA, { name: `${MARKER} cat ${i}` });
      expect(made.statusCode, made.body).toBe(201);
      const dep = await call('POST', '/api/v1/deposits', asA, { name: `${MARKER} dep ${i}` });
      expect(dep.statusCode, dep.body).toBe(201);
      const box = await call('POST', '/api/v1/boxes', asA, { name: `${MARKER} caja ${i}`, deposit_id: dep.json().deposit.id });
      expect(box.statusCode, box.body).toBe(201);
      await makeProduct(t.container, a.id, { name: `${MARKER} prod ${i}`, basePrice: 100, stock: 10 });
      const customer = await call('POST', '/api/v1/customers', asA, {
        name: `${MARKER} cliente ${i}`,
        email: `c${i}@${MARKER}.com`,
      });
      expect(customer.statusCode, customer.body).toBe(201);
      const token = await call('POST', '/api/v1/api-tokens', asA, { name: `${MARKER}-${i}`, scope: 'read' });
      expect(token.statusCode, token.body).toBe(201);
      // A customer with a cuenta corriente (the customers API is another branch's: a row).
      await t.container.db.query(
        `INSERT INTO customers (company_id, id, name, account_enabled) VALUES ($1, take_company_ids($1, 'customers', 1), $2, true)`,
        [a.id, `${MARKER} cliente ${i}`],
      );
    }
    const invited = await call('POST', '/api/settings/members', asA, { email: `${MARKER}@example.com`, role: 'admin' });
    expect(invited.statusCode, invited.body).toBe(201);
    linkOfA = invited.json().link;
    const session = await call('POST', '/api/v1/box-sessions', asA, { box_id: 1, opening_cash: 1000, client_id: randomUUID() });
    expect(session.statusCode, session.body).toBe(201);
    const [product] = await t.container.db.query<{ id: number }>('SELECT max(id) AS id FROM products WHERE company_id = $1', [
      a.id,
    ]);
    const sale = await call('POST', '/api/v1/sales', asA, {
      box_id: 1,
      items: [{ product_id: product?.id, quantity: 1 }],
      payments: [{ method: 'efectivo', amount: 100 }],
    });
    expect(sale.statusCode, sale.body).toBe(201);
    // A return of A's sale (its credit-note route names it).
    const returned = await call('POST', `/api/v1/sales/${sale.json().sale.id}/returns`, asA, {
      lines: [{ item_id: sale.json().sale.items[0].id, quantity: 1 }],
      refund: { method: 'efectivo' },
      reason: `${MARKER} devolución`,
    });
    expect(returned.statusCode, returned.body).toBe(201);
    for (const [segment, table] of Object.entries(ID_SOURCE)) {
      const column = table === 'memberships' ? 'member_no' : segment === 'offline-shifts' ? 'client_id' : 'id';
      const last = async (companyId: number) =>
        (
          await t.container.db.query<{ id: string }>(
            `SELECT ${column}::text AS id FROM ${table} WHERE company_id = $1 AND ${column} IS NOT NULL ORDER BY ${column} DESC LIMIT 1`,
            [companyId],
          )
        )[0]?.id;
      const [aId, bId] = [await last(a.id), await last(b.id)];
      const numeric = (v: string | undefined) => v === undefined || /^\d+$/.test(v);
      // Without a row in A, an id B does not have: B must still get 404.
      if (aId !== undefined && aId !== bId && (!numeric(aId) || Number(aId) > Number(bId ?? 0))) {
        idOf[segment] = aId;
        aHas.add(segment);
      } else
        idOf[segment] = numeric(aId) && numeric(bId) ? String(Math.max(Number(aId ?? 0), Number(bId ?? 0)) + 1) : randomUUID();
    }
  });
  afterAll(() => t.close());

  function apiRoutes() {
    return t.app
      .routeSurfaces()
      .filter((r) => r.method !== 'HEAD' && (r.url.startsWith('/api/v1/') || r.url.startsWith('/api/settings/')))
      .map((r) => ({ method: r.method, url: r.url, key: `${r.method} ${r.url}` }));
  }

  function fill(url: string): string {
    const parts = url.split('/');
    return parts
      .map((part, i) => {
        if (!part.startsWith(':')) return part;
        const id = idOf[parts[i - 1] ?? ''];
        if (id === undefined) throw new Error(`no id source for ${url} (${parts[i - 1]}): add it to ID_SOURCE`);
        return id;
      })
      .join('/');
  }

  it('every route is covered by a record check or listed with a reason', () => {
    const uncovered = apiRoutes().filter(
      (r) =>
        !r.url.includes(':') &&
        !(r.key in NO_RECORD_IN_PATH) &&
        !COLLECTION_READS.includes(r.key) &&
        !(r.key in COLLECTION_WRITES),
    );
    expect(uncovered.map((r) => r.key)).toEqual([]);
    for (const r of apiRoutes().filter((x) => x.url.includes(':'))) expect(() => fill(r.url)).not.toThrow();
    expect(apiRoutes().filter((r) => r.url.includes(':')).length).toBeGreaterThan(20);
  });

  it("answers 404 to B for every route naming A's record, read and write, and changes nothing", async () => {
    const before = await rowCounts();
    const routes = apiRoutes().filter((r) => r.url.includes(':'));
    const wrong: string[] = [];
    for (const r of routes) {
      const url = fill(r.url);
      // Sanity: A itself reaches its record on reads, so B's 404 is about the company, not the id.
      if (r.method === 'GET') {
        const own = await call('GET', url, asA);
        const segments = r.url.split('/');
        const named = segments.filter((_p, i) => (segments[i + 1] ?? '').startsWith(':')).every((p) => aHas.has(p));
        if (named && own.statusCode === 404) {
          wrong.push(`${r.key}: A itself got 404 on ${url}`);
        }
      }
      const res = await call(r.method, url, asB, r.method === 'GET' || r.method === 'DELETE' ? undefined : (BODIES[r.key] ?? {}));
      if (res.statusCode !== 404) wrong.push(`${r.key} → ${res.statusCode} ${res.body.slice(0, 120)}`);
      else {
        expect(res.json()).toHaveProperty('code');
        if (res.body.includes(MARKER)) wrong.push(`${r.key} leaked A data`);
      }
    }
    expect(wrong).toEqual([]);
    await expectRowsUnchanged(before);
  });

  it("B naming A's record in the path gets the very answer of an id that never existed (status, code and message), and changes nothing", async () => {
    const before = await rowCounts();
    const wrong: string[] = [];
    for (const r of apiRoutes().filter((x) => x.url.includes(':'))) {
      const parts = r.url.split('/');
      const named = parts.flatMap((p, i) => (p.startsWith(':') ? [i] : []));
      const ofA = fill(r.url).split('/');
      // A made-up id of the same kind: numeric where A's is a number, a fresh uuid otherwise.
      const never = [...ofA];
      for (const i of named) never[i] = /^\d+$/.test(ofA[i]!) ? '2000000000' : randomUUID();
      const body = r.method === 'GET' || r.method === 'DELETE' ? undefined : (BODIES[r.key] ?? {});
      const answer = async (segments: string[]) => {
        const res = await call(r.method, segments.join('/'), asB, body);
        const text = named.reduce((acc, i) => acc.replaceAll(segments[i]!, 'ID'), res.body);
        return `${res.statusCode} ${text}`;
      };
      const [a, n] = [await answer(ofA), await answer(never)];
      if (a !== n) wrong.push(`${r.key}: ${a.slice(0, 160)} ≠ ${n.slice(0, 160)}`);
    }
    expect(wrong).toEqual([]);
    await expectRowsUnchanged(before);
  });

  it("B's collections never show A's records", async () => {
    for (const key of COLLECTION_READS) {
      const [method, url] = key.split(' ') as [string, string];
      const res = await call(method, url, asB);
      expect(res.statusCode, `${key}: ${res.body}`).toBe(200);
      expect(res.body, key).not.toContain(MARKER);
    }
  });

  it("B's writes that carry A's ids in the body create nothing in A and name nothing of A", async () => {
    const ids = await t.container.db.query<{ product: number; deposit: number; box: number }>(
      `SELECT (SELECT max(id) FROM products WHERE company_id = $1) AS product,
              (SELECT max(id) FROM deposits WHERE company_id = $1) AS deposit,
              (SELECT max(id) FROM boxes WHERE company_id = $1) AS box`,
      [companyA],
    );
    const { product, deposit, box } = ids[0] as { product: number; deposit: number; box: number };
    const countsA = async () =>
      (
        await t.container.db.query<{ n: string }>(
          `SELECT (SELECT count(*) FROM movements WHERE company_id = $1) + (SELECT count(*) FROM sales WHERE company_id = $1)
                + (SELECT count(*) FROM boxes WHERE company_id = $1) + (SELECT count(*) FROM box_sessions WHERE company_id = $1) AS n`,
          [companyA],
        )
      )[0]?.n;
    const beforeA = await countsA();
    const attempts: Array<[string, string, unknown]> = [
      ['POST', '/api/v1/movements', { product_id: product, deposit_id: deposit, type: 'entrada', quantity: 5 }],
      ['POST', '/api/v1/boxes', { name: 'x', deposit_id: deposit }],
      ['POST', '/api/v1/box-sessions', { box_id: box, opening_cash: 0 }],
      ['POST', '/api/v1/sales', { box_id: 1, items: [{ product_id: product, quantity: 1 }], payments: [] }],
      ['POST', '/api/v1/products/price-change', { product_ids: [product], percent: 10 }],
    ];
    for (const [method, url, body] of attempts) {
      const res = await call(method, url, asB, body);
      expect(res.statusCode, `${url}: ${res.body}`).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, `${url}: ${res.body}`).toBeLessThan(500);
      expect(res.statusCode, `${url}: ${res.body}`).not.toBe(403);
      expect(res.body, url).not.toContain(MARKER);
    }
    expect(await countsA()).toBe(beforeA);
    expect(companyB).not.toBe(companyA);
  });

  it("B naming A's record in a query or body gets the very answer of a record that never existed", async () => {
    const [ids] = await t.container.db.query<Record<string, number>>(
      `SELECT (SELECT max(id) FROM products WHERE company_id = $1) AS product, (SELECT max(id) FROM deposits WHERE company_id = $1) AS deposit,
              (SELECT max(id) FROM boxes WHERE company_id = $1) AS box, (SELECT max(id) FROM categories WHERE company_id = $1) AS category,
              (SELECT max(id) FROM customers WHERE company_id = $1) AS customer, (SELECT max(id) FROM box_sessions WHERE company_id = $1) AS session`,
      [companyA],
    );
    const of = ids as Record<string, number>;
    const NEVER = 2_000_000_000;
    const cases: Array<[string, string, string, (id: number) => unknown]> = [
      ['stock', 'GET', '/api/v1/stock?deposit_id=ID', () => undefined],
      ['products export', 'GET', '/api/v1/products/export?deposit_id=ID', () => undefined],
      ['report by deposit', 'GET', '/api/v1/reports/sales?deposit_id=ID', () => undefined],
      ['report by box', 'GET', '/api/v1/reports/sales?box_id=ID', () => undefined],
      ['sales by customer', 'GET', '/api/v1/sales?customer_id=ID', () => undefined],
      ['sessions by box', 'GET', '/api/v1/box-sessions?box_id=ID', () => undefined],
      ['products by category', 'GET', '/api/v1/products?category_id=ID', () => undefined],
      ['invoices by customer', 'GET', '/api/v1/invoices?customer_id=ID', () => undefined],
      ['product category', 'POST', '/api/v1/products', (id) => ({ name: 'p', base_price: 1, category_id: id })],
      ['product deposit', 'POST', '/api/v1/products', (id) => ({ name: 'p', base_price: 1, stock: 1, deposit_id: id })],
      ['box deposit', 'POST', '/api/v1/boxes', (id) => ({ name: 'x', deposit_id: id })],
      ['session box', 'POST', '/api/v1/box-sessions', (id) => ({ box_id: id, opening_cash: 0 })],
      ['sale box', 'POST', '/api/v1/sales', (id) => ({ box_id: id, items: [{ product_id: 1, quantity: 1 }], payments: [] })],
      ['sale customer', 'POST', '/api/v1/sales', (id) => ({ box_id: 1, items: [], payments: [], customer: { id } })],
      [
        'price change category',
        'POST',
        '/api/v1/products/price-change',
        (id) => ({ percent: 10, filter: { category_id: id }, dry_run: true }),
      ],
    ];
    const source: Record<string, string> = {
      stock: 'deposit',
      'products export': 'deposit',
      'report by deposit': 'deposit',
      'report by box': 'box',
      'sales by customer': 'customer',
      'sessions by box': 'box',
      'products by category': 'category',
      'invoices by customer': 'customer',
      'product category': 'category',
      'product deposit': 'deposit',
      'box deposit': 'deposit',
      'session box': 'box',
      'sale box': 'box',
      'sale customer': 'customer',
      'price change category': 'category',
    };
    const answer = async (method: string, url: string, body: (id: number) => unknown, id: number) => {
      const res = await call(method, url.replace('ID', String(id)), asB, body(id));
      return `${res.statusCode} ${res.body.replaceAll(String(id), 'ID')}`;
    };
    const wrong: string[] = [];
    for (const [name, method, url, body] of cases) {
      const id = of[source[name]!]!;
      expect(id, name).toBeGreaterThan(1);
      const [ofA, never] = [await answer(method, url, body, id), await answer(method, url, body, NEVER)];
      if (ofA !== never) wrong.push(`${name}: ${ofA.slice(0, 160)} ≠ ${never.slice(0, 160)}`);
      if (ofA.includes(MARKER)) wrong.push(`${name} leaked A data`);
    }
    expect(wrong).toEqual([]);
  });

  it("with B's read-write API token, every /api/v1 route naming A's record is 404 (403 where tokens are refused) and changes nothing", async () => {
    const made = await call('POST', '/api/v1/api-tokens', asB, { name: 'tenancy-b', scope: 'read-write' });
    expect(made.statusCode, made.body).toBe(201);
    const bearer = { authorization: `Bearer ${made.json().secret}` };
    const before = await rowCounts();
    const wrong: string[] = [];
    let checked = 0;
    for (const r of apiRoutes().filter((x) => x.url.startsWith('/api/v1/'))) {
      const url = r.url.includes(':') ? fill(r.url) : r.url;
      const body = r.method === 'GET' || r.method === 'DELETE' ? undefined : (BODIES[r.key] ?? {});
      if (!r.url.includes(':') && r.method !== 'GET') continue; // creations in B's own company: the session loop covers their bodies
      const res = await call(r.method, url, bearer, body);
      checked++;
      if (res.body.includes(MARKER)) wrong.push(`${r.key} leaked A data`);
      if (r.url.includes(':') && ![403, 404].includes(res.statusCode))
        wrong.push(`${r.key} → ${res.statusCode} ${res.body.slice(0, 120)}`);
      if (res.statusCode === 403 && res.json().code !== 'forbidden') wrong.push(`${r.key} → 403 ${res.json().code}`);
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(30);
    await expectRowsUnchanged(before, ['api_tokens']);
  });

  it("B cannot accept or decline A's invitation even holding its link; A's people do not change", async () => {
    const token = new URL(linkOfA).hash.slice(1);
    const people = async () =>
      (
        await t.container.db.query<{ n: string }>('SELECT count(*)::text AS n FROM memberships WHERE company_id = $1', [companyA])
      )[0]?.n;
    const before = await people();
    for (const what of ['accept', 'decline']) {
      const res = await call('POST', `/api/invitations/${what}`, asB, { token });
      expect([what, res.statusCode, res.json().code]).toEqual([what, 403, 'invitation_wrong_account']);
    }
    const asNew = await call('POST', '/api/invitations/accept-new', SAME_ORIGIN, { token, password: 'una-clave-larga' });
    expect(asNew.statusCode, asNew.body).toBe(201);
    // Accepted by the invited email only: B's admin is not in A, and A's pending list no longer shows it.
    expect(Number(await people())).toBe(Number(before) + 1);
    const mine = await login(t.app, adminB.email, adminB.password);
    const me = (await t.app.inject({ url: '/api/auth/me', headers: { cookie: mine.cookie } })).json();
    expect(me.companies.map((c: { id: number }) => c.id)).toEqual([companyB]);
  });

  it('every operator route refuses the people of a company (admin and cashier), read and write, and changes nothing', async () => {
    const asCashierA = { cookie: (await login(t.app, cashierA.email, cashierA.password)).cookie, ...SAME_ORIGIN };
    const before = await rowCounts();
    const routes = t.app
      .routeSurfaces()
      .filter((r) => r.method !== 'HEAD' && r.url.startsWith('/api/superadmin/'))
      .map((r) => ({ method: r.method.split(',')[0]!, key: `${r.method} ${r.url}`, url: r.url }));
    expect(routes.length).toBeGreaterThan(15);
    const wrong: string[] = [];
    for (const r of routes) {
      const url = r.url
        .replace(':companyId', String(companyA))
        .replace(/:[A-Za-z]+/g, '1')
        .replace('*', 'anything');
      for (const [who, headers] of [
        ['admin of B', asB],
        ['admin of A', asA],
        ['cashier of A', asCashierA],
      ] as const) {
        const res = await call(r.method === 'ALL' ? 'POST' : r.method, url, headers, r.method === 'GET' ? undefined : {});
        if (res.statusCode !== 403 || res.json().code !== 'forbidden') wrong.push(`${who}: ${r.key} → ${res.statusCode}`);
        if (res.body.includes(MARKER)) wrong.push(`${who}: ${r.key} leaked A data`);
      }
    }
    expect(wrong).toEqual([]);
    await expectRowsUnchanged(before);
  });
});

describe("a company's numbering tells nothing of another company's activity", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000', AUTH_LOGIN_LIMIT_PER_ACCOUNT: '1000' } });
  });
  afterAll(() => t.close());

  /** Companies A and B, each with a signed-in admin. */
  async function twoCompanies() {
    const a = await makeCompany(t.container);
    const b = await makeCompany(t.container);
    const adminA = await makeUser(t.container, { companyId: a.id, role: 'admin' });
    const adminB = await makeUser(t.container, { companyId: b.id, role: 'admin' });
    const asA = { cookie: (await login(t.app, adminA.email, adminA.password)).cookie, ...SAME_ORIGIN };
    const asB = { cookie: (await login(t.app, adminB.email, adminB.password)).cookie, ...SAME_ORIGIN };
    return { a, b, asA, asB };
  }

  /** A read token made by the admin signed in with `headers` (each is an audited action too). */
  async function make(headers: Headers, name: string) {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/api-tokens', headers, payload: { name, scope: 'read' } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { token: { id: number }; secret: string };
  }

  it("API token ids are the company's own: another company's tokens leave no gap, and a use is recorded on the right company's token", async () => {
    const { a, b, asA, asB } = await twoCompanies();
    const first = await make(asA, 'a-1');
    for (let i = 0; i < 3; i++) await make(asB, `b-${i}`);
    const second = await make(asA, 'a-2');
    // Company A sees 1 then 2, whatever B did in between.
    expect([first.token.id, second.token.id]).toEqual([1, 2]);
    const listed = (await t.app.inject({ url: '/api/v1/api-tokens', headers: asB })).json();
    expect(listed.tokens.map((x: { id: number }) => x.id).sort()).toEqual([1, 2, 3]);

    // A's token 1 used: A's token 1 records the use, B's token 1 does not.
    const me = await t.app.inject({ url: '/api/v1/me', headers: { authorization: `Bearer ${first.secret}` } });
    expect(me.statusCode, me.body).toBe(200);
    expect(me.json().company.id).toBe(a.id);
    expect(me.json().token.id).toBe(1);
    const used = await t.container.db.query<{ company_id: number; used: boolean }>(
      'SELECT company_id, last_used_at IS NOT NULL AS used FROM api_tokens WHERE id = 1 ORDER BY company_id',
    );
    expect(used.map((r) => [Number(r.company_id), r.used])).toEqual([
      [a.id, true],
      [b.id, false],
    ]);
    // Revoking B's token 1 leaves A's token 1 working.
    const revoked = await t.app.inject({ method: 'POST', url: '/api/v1/api-tokens/1/revoke', headers: asB });
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect((await t.app.inject({ url: '/api/v1/me', headers: { authorization: `Bearer ${first.secret}` } })).statusCode).toBe(
      200,
    );
  });

  it("people are numbered per company: B's people leave no gap in A's people, register, shifts, /me or activity, and B naming A's number reaches only B's own person", async () => {
    const { a, b, asA, asB } = await twoCompanies();
    const call = (method: string, url: string, headers: Headers, payload?: Record<string, unknown>) =>
      t.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload } : {}) });
    // A adds a person, B adds three, A adds one more (by invitation, the way people join).
    const ana = await makeUser(t.container, { companyId: a.id, role: 'cashier' });
    const ofB = [];
    for (let i = 0; i < 3; i++) ofB.push(await makeUser(t.container, { companyId: b.id, role: 'cashier' }));
    const invited = await call('POST', '/api/settings/members', asA, {
      email: `beto-${randomUUID()}@example.com`,
      role: 'cashier',
    });
    expect(invited.statusCode, invited.body).toBe(201);
    const email = invited.json().invitation.email as string;
    const joined = await call('POST', '/api/invitations/accept-new', SAME_ORIGIN, {
      token: new URL(invited.json().link).hash.slice(1),
      password: 'una-clave-larga',
    });
    expect(joined.statusCode, joined.body).toBe(201);
    const asBeto = { cookie: (await login(t.app, email, 'una-clave-larga')).cookie, ...SAME_ORIGIN };

    // A's people are 1, 2, 3: no gap for B's three.
    const people = async (headers: Headers) =>
      (await call('GET', '/api/settings/members', headers)).json().members as { user_id: number; email: string }[];
    const ofA = await people(asA);
    expect(ofA.map((m) => m.user_id).sort()).toEqual([1, 2, 3]);
    const beto = ofA.find((m) => m.email === email)!.user_id;
    expect(beto).toBe(3);
    expect((await people(asB)).map((m) => m.user_id).sort()).toEqual([1, 2, 3, 4]);

    // Who am I, the register, the shift and its filter: the same number 3.
    expect((await call('GET', '/api/v1/me', asBeto)).json().user.id).toBe(3);
    expect((await call('GET', '/api/auth/me', asBeto)).json().user.id).toBe(3);
    const opened = await call('POST', '/api/v1/box-sessions', asBeto, { box_id: 1, opening_cash: 100 });
    expect(opened.statusCode, opened.body).toBe(201);
    expect(opened.json().session.user_id).toBe(3);
    const state = (await call('GET', '/api/v1/register', asBeto)).json();
    expect(state.user_id).toBe(3);
    expect(state.boxes.find((x: { id: number }) => x.id === 1).open_session_user_id).toBe(3);
    const shifts = async (headers: Headers, query = '') =>
      (
        (await call('GET', `/api/v1/box-sessions?limit=50${query}`, headers)).json().sessions as {
          session: { id: number; user_id: number };
        }[]
      ).map((x) => [x.session.id, x.session.user_id]);
    expect(await shifts(asA)).toEqual([[opened.json().session.id, 3]]);
    expect(await shifts(asA, '&user_id=3')).toEqual([[opened.json().session.id, 3]]);
    expect(await shifts(asA, '&user_id=2')).toEqual([]);

    // A turns Ana's access off by her number; the activity names Ana and Beto by A's numbers.
    const off = await call('POST', `/api/settings/members/${ana.memberNo}/disable`, asA);
    expect([off.statusCode, off.json().member.user_id]).toEqual([200, 2]);
    const activity = (await call('GET', '/api/settings/audit?limit=50', asA)).json().entries as {
      action: string;
      details: { user_id?: unknown };
    }[];
    const named = activity.filter((e) => 'user_id' in e.details).map((e) => [e.action, e.details.user_id]);
    expect(named.sort()).toEqual([
      ['invitation.accepted', 3],
      ['member.disabled', 2],
    ]);

    // B naming 3 reaches B's own third person, never Beto; a number B never gave is the very 404 of a made-up one.
    const thirdOfB = ofB[1]!;
    expect(thirdOfB.memberNo).toBe(3);
    const bOff = await call('POST', '/api/settings/members/3/disable', asB);
    expect([bOff.statusCode, bOff.json().member.email]).toEqual([200, thirdOfB.email]);
    expect((await people(asA)).find((m) => m.user_id === 3)).toMatchObject({ email, disabled_at: null });
    const unknown = await call('POST', '/api/settings/members/5/disable', asB);
    const madeUp = await call('POST', '/api/settings/members/999999/disable', asB);
    expect([unknown.statusCode, unknown.json().code]).toEqual([madeUp.statusCode, madeUp.json().code]);
    expect(unknown.statusCode).toBe(404);
    expect(await shifts(asB, '&user_id=3')).toEqual([]);
    expect(await shifts(asB)).toEqual([]);
    const bActivity = JSON.stringify((await call('GET', '/api/settings/audit?limit=50', asB)).json());
    expect(bActivity).not.toContain(email);
  });

  it('people who join at once get distinct numbers, and a number is never given again', async () => {
    const c = await makeCompany(t.container);
    const joined = await Promise.all(
      Array.from({ length: 6 }, () => makeUser(t.container, { companyId: c.id, role: 'cashier' })),
    );
    expect(joined.map((p) => p.memberNo).sort((x, y) => Number(x) - Number(y))).toEqual([1, 2, 3, 4, 5, 6]);
    // Even if the membership of the last number were gone, the next person gets a new number.
    const last = joined.find((p) => p.memberNo === 6)!;
    await t.container.db.query('DELETE FROM memberships WHERE company_id = $1 AND user_id = $2', [c.id, last.id]);
    const next = await makeUser(t.container, { companyId: c.id, role: 'cashier' });
    expect(next.memberNo).toBe(7);
    // An upsert of an existing membership (a role change from the command line) keeps its number.
    const first = joined.find((p) => p.memberNo === 1)!;
    await t.container.users.addMembership(first.id, c.id, 'admin');
    expect(await memberNoOf(t.container, c.id, first.id)).toBe(1);
    expect((await makeUser(t.container, { companyId: c.id })).memberNo).toBe(8);
  });

  it('the activity list shows no number of the shared audit log: its ids and its `before` cursor say nothing of another company', async () => {
    const { a, asA, asB } = await twoCompanies();
    await make(asA, 'a-1');
    for (let i = 0; i < 3; i++) await make(asB, `b-${i}`);
    await make(asA, 'a-2');
    await make(asA, 'a-3');
    const logIds = (companyId: number) =>
      t.container.db.query<{ id: string }>('SELECT id::text AS id FROM audit_log WHERE company_id = $1 ORDER BY id DESC', [
        companyId,
      ]);
    const globalA = (await logIds(a.id)).map((r) => r.id);
    expect(globalA).toHaveLength(3);

    const list = async (headers: Headers, query: string) => t.app.inject({ url: `/api/settings/audit?${query}`, headers });
    const all = await list(asA, 'limit=50');
    expect(all.statusCode, all.body).toBe(200);
    const ids: unknown[] = all.json().entries.map((e: { id: unknown }) => e.id);
    expect(ids).toHaveLength(3);
    // None is the shared number (nor holds it): two neighbours' gap would count B's entries.
    for (const id of ids) {
      expect(typeof id).toBe('string');
      expect(globalA).not.toContain(String(id));
      expect(String(id)).not.toMatch(/^\d+$/);
    }
    // The same entry keeps its id (a stable key), and `before` pages with it.
    expect((await list(asA, 'limit=50')).json().entries.map((e: { id: unknown }) => e.id)).toEqual(ids);
    const page = await list(asA, `limit=50&before=${ids[0]}`);
    expect(page.statusCode, page.body).toBe(200);
    expect(page.json().entries.map((e: { id: unknown }) => e.id)).toEqual(ids.slice(1));

    // A's cursor in B is the same refusal as a made-up one, and shows nothing of A.
    const bWithA = await list(asB, `limit=50&before=${ids[0]}`);
    const bWithJunk = await list(asB, `limit=50&before=${'A'.repeat(22)}`);
    expect([bWithA.statusCode, bWithA.json()]).toEqual([bWithJunk.statusCode, bWithJunk.json()]);
    expect(bWithA.statusCode).toBe(400);
    expect(bWithA.json().code).toBe('bad_request');
  });
});
