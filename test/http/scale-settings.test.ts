import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ean13 } from '../../src/lib/barcode.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

describe('scale-label setting (admin JSON API and screen)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({
      env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000', AUTH_LOGIN_LIMIT_PER_ACCOUNT: '1000', SCANNER_RATE_LIMIT_PER_MINUTE: '0' },
    });
  });
  afterAll(() => t.close());

  async function shopWithAdmin(role: 'admin' | 'cashier' = 'admin') {
    const company = await makeCompany(t.container);
    await makeProduct(t.container, company.id, {
      id: 1,
      name: 'Queso cremoso La Paulina (por kg)',
      sku: '00107',
      basePrice: 11490,
    });
    const user = await makeUser(t.container, { companyId: company.id, role });
    const { cookie } = await login(t.app, user.email, user.password);
    return { company, user, headers: { cookie, ...SAME_ORIGIN } };
  }
  const call = (method: 'GET' | 'PUT' | 'POST', url: string, headers: Record<string, string>, payload?: object) =>
    t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  const scan = (token: string, query: string) =>
    t.app.inject({ url: `/api/public/scanner?token=${encodeURIComponent(token)}&query=${query}` });

  it('reads the Argentine default (whole pesos) with a sample label of the catalogue', async () => {
    const { headers } = await shopWithAdmin();
    const res = await call('GET', '/api/settings/scale-label', headers);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      enabled: true,
      layout: { pluDigits: 5, value: 'price', decimals: 0 },
      default: { decimals: 0 },
      problem: null,
      sample: '2000107057455',
    });
  });

  it('the default reads the issue label 2000107057455 as $ 5.745 of cheese', async () => {
    const { company } = await shopWithAdmin();
    const res = await scan(company.scannerToken, '2000107057455');
    expect(res.json()).toMatchObject({ product: { id: 1 }, label: { plu: '00107', price: 5745, amount: 5745 } });
  });

  it('previews any layout on a sample label without saving it', async () => {
    const { headers } = await shopWithAdmin();
    const layout = { prefixes: ['20'], pluDigits: 5 };
    const pesos = await call('POST', '/api/settings/scale-label/preview', headers, {
      ...layout,
      value: 'price',
      decimals: 0,
      code: '2000107057455',
    });
    expect(pesos.json()).toEqual({
      problem: null,
      plu: '00107',
      value: 'price',
      price: 5745,
      weight: null,
      product: { id: 1, name: 'Queso cremoso La Paulina (por kg)', base_price: 11490 },
      amount: 5745,
    });
    const grams = await call('POST', '/api/settings/scale-label/preview', headers, {
      ...layout,
      value: 'weight',
      decimals: 3,
      code: '2000107057455',
    });
    expect(grams.json()).toMatchObject({ value: 'weight', weight: 5.745, amount: 66010.05 });
    const broken = await call('POST', '/api/settings/scale-label/preview', headers, {
      ...layout,
      value: 'price',
      decimals: 0,
      code: '2000107057456',
    });
    expect(broken.json().problem).toContain('dígito de control');
    expect((await call('GET', '/api/settings/scale-label', headers)).json().layout.decimals).toBe(0);
  });

  it('saves a layout (audited), and the scanner uses it at once', async () => {
    const { company, user, headers } = await shopWithAdmin();
    const res = await call('PUT', '/api/settings/scale-label', headers, {
      enabled: true,
      prefixes: ['21', '20'],
      pluDigits: 5,
      value: 'price',
      decimals: 2,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ enabled: true, layout: { prefixes: ['20', '21'], decimals: 2 } });
    const code = ean13('210010701234');
    expect((await scan(company.scannerToken, code)).json()).toMatchObject({ label: { price: 12.34 } });
    const [audit] = await t.container.db.query<{ action: string; actor_email: string }>(
      "SELECT action, actor_email FROM audit_log WHERE company_id = $1 AND action = 'scale_label.updated'",
      [company.id],
    );
    expect(audit).toEqual({ action: 'scale_label.updated', actor_email: user.email });
    const off = await call('PUT', '/api/settings/scale-label', headers, { ...res.json().layout, enabled: false });
    expect(off.json().enabled).toBe(false);
    expect((await scan(company.scannerToken, code)).statusCode).toBe(404);
  });

  it.each([[{ prefixes: ['30'] }], [{ prefixes: [] }], [{ pluDigits: 7 }], [{ value: 'volume' }], [{ decimals: 4 }]])(
    'refuses %j with 422 and keeps the setting',
    async (patch) => {
      const { headers } = await shopWithAdmin();
      const body = { enabled: true, prefixes: ['20'], pluDigits: 5, value: 'price', decimals: 0, ...patch };
      const res = await call('PUT', '/api/settings/scale-label', headers, body);
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ code: 'validation_failed' });
      expect((await call('GET', '/api/settings/scale-label', headers)).json().layout.decimals).toBe(0);
    },
  );

  it('is for admins only, and each company sees its own setting', async () => {
    const { headers: cashier } = await shopWithAdmin('cashier');
    expect((await call('GET', '/api/settings/scale-label', cashier)).statusCode).toBe(403);
    expect((await t.app.inject({ url: '/api/settings/scale-label' })).statusCode).toBe(401);
    const a = await shopWithAdmin();
    const b = await shopWithAdmin();
    await call('PUT', '/api/settings/scale-label', a.headers, {
      enabled: true,
      prefixes: ['20'],
      pluDigits: 4,
      value: 'weight',
      decimals: 3,
    });
    expect((await call('GET', '/api/settings/scale-label', b.headers)).json().layout.pluDigits).toBe(5);
  });

  it('serves the settings screen on the app shell', async () => {
    const { headers } = await shopWithAdmin();
    const res = await call('GET', '/settings/scanner', headers);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Escáner y balanzas');
    expect(res.body).toContain('href="/settings/scanner"');
    expect(res.body).toContain('2000107057455');
  });
});
