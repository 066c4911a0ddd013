import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { companies } from '../../src/db/schema/index.ts';
import { ean13 } from '../../src/lib/barcode.ts';
import { SCANNER_CACHE_TTL_MS } from '../../src/modules/scanner/scanner.service.ts';
import { buildTestApp, captureLogs, type TestApp } from '../app.ts';
import { makeCompany, makeProduct } from '../factories.ts';

type Company = Awaited<ReturnType<typeof makeCompany>>;

function scan(t: TestApp, params: Record<string, string | number>, headers: Record<string, string> = {}) {
  const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
  return t.app.inject({ method: 'GET', url: `/api/public/scanner?${query}`, headers });
}

describe('GET /api/public/scanner', () => {
  let t: TestApp;
  let shop: Company;
  let other: Company;
  const logs = captureLogs();

  beforeAll(async () => {
    t = await buildTestApp({ overrides: { logger: logs.logger } });
    shop = await makeCompany(t.container, { name: 'Almacén Don Aurelio' });
    other = await makeCompany(t.container, { name: 'Otro comercio' });
    const c = t.container;
    await makeProduct(c, shop.id, {
      id: 1,
      name: 'Yerba mate suave 1 kg',
      bc: '7790001000019',
      sku: 'YER-1',
      basePrice: '4250.50',
      mark: 'Don Aurelio',
    });
    await makeProduct(c, shop.id, { id: 2, name: 'Yerba mate suave 500 g', bc: '7790001000026', basePrice: 2300 });
    await makeProduct(c, shop.id, { id: 3, name: 'Yerba mate barbacuá 1 kg', basePrice: 5100 });
    await makeProduct(c, shop.id, { id: 4, name: 'Café molido Río Dorado 250 g', sku: '77900010000330', basePrice: 3999.99 });
    await makeProduct(c, shop.id, { id: 5, name: 'Azúcar común 1 kg', bc: '7790001000040', basePrice: 1200, enable: false });
    await makeProduct(c, shop.id, { id: 6, name: 'Queso cremoso por kg', sku: '123', basePrice: 8900 });
    await makeProduct(c, shop.id, { id: 7, name: 'Gaseosa cola 2,25 L', bc: '036000291452', basePrice: 2100 });
    await makeProduct(c, other.id, { id: 1, name: 'Harina 000 1 kg', bc: '7790002000018', basePrice: 900 });
  });
  afterAll(() => t.close());

  it('finds a product by barcode with the contract shape, no cache and open CORS', async () => {
    const res = await scan(t, { token: shop.scannerToken, query: '7790001000019' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      product: {
        id: 1,
        name: 'Yerba mate suave 1 kg',
        description: '',
        BC: '7790001000019',
        base_price: 4250.5,
        photo: null,
        mark: 'Don Aurelio',
        category_id: null,
        enable: true,
      },
      matchType: 'barcode',
      alternatives: [],
    });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it('falls back to the sku when no barcode matches, and accepts the matching companyId', async () => {
    const res = await scan(t, { token: shop.scannerToken, query: '77900010000330', companyId: shop.id });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ product: { id: 4, base_price: 3999.99 }, matchType: 'barcode' });
  });

  it('finds a UPC-A product by its EAN-13 spelling', async () => {
    const res = await scan(t, { token: shop.scannerToken, query: '0036000291452' });
    expect(res.json()).toMatchObject({ product: { id: 7 }, matchType: 'barcode' });
  });

  it('matches a misspelled name without accents and lists up to 5 alternatives, best first', async () => {
    const res = await scan(t, { token: shop.scannerToken, query: 'YERVA mate suabe 1 kg' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.matchType).toBe('name');
    expect(body.product.id).toBe(1);
    expect(body.alternatives.map((p: { id: number }) => p.id)).toEqual([2, 3]);
    expect(body.alternatives[0]).toHaveProperty('base_price', 2300);
  });

  it('is accent- and case-insensitive both ways', async () => {
    const res = await scan(t, { token: shop.scannerToken, query: 'cafe MOLIDO rio dorado' });
    expect(res.json()).toMatchObject({ product: { id: 4 }, matchType: 'name' });
  });

  it('never shows a disabled product, by barcode or by name', async () => {
    expect((await scan(t, { token: shop.scannerToken, query: '7790001000040' })).statusCode).toBe(404);
    const byName = await scan(t, { token: shop.scannerToken, query: 'azucar comun' });
    expect(byName.statusCode).toBe(404);
  });

  it('answers 404 product_not_found when nothing matches', async () => {
    const res = await scan(t, { token: shop.scannerToken, query: 'zzqqxx' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'no product matches "zzqqxx"', code: 'product_not_found' });
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  it.each([
    [{ query: '7790001000019' }, "query parameter 'token' is required"],
    [{ token: 'x' }, "query parameter 'query' is required"],
    [{ token: 'x', query: '   ' }, "query parameter 'query' is required"],
    [{}, "query parameter 'token' and 'query' are required"],
  ])('answers 400 naming the missing parameter (%j)', async (params, message) => {
    const res = await scan(t, params);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: message, code: 'missing_parameter' });
  });

  it('answers 400 naming a required parameter given twice (?query=a&query=b), instead of calling it missing', async () => {
    for (const url of [
      `/api/public/scanner?token=${shop.scannerToken}&query=yerba&query=pan`,
      `/api/public/scanner?token=${shop.scannerToken}&token=${shop.scannerToken}&query=yerba`,
    ]) {
      const res = await t.app.inject({ url });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({
        code: 'bad_request',
        error: expect.stringMatching(/'(query|token)' must be given once/),
      });
    }
  });

  it('answers 400 naming a companyId given twice, instead of calling two integers "not an integer"', async () => {
    const res = await t.app.inject({
      url: `/api/public/scanner?token=${shop.scannerToken}&query=yerba&companyId=${shop.id}&companyId=${shop.id}`,
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toEqual({
      error: "query parameter 'companyId' must be given once",
      code: 'bad_request',
      details: [{ path: '/companyId', message: 'must be given once' }],
    });
  });

  it('answers 400 for a companyId that is not a positive integer', async () => {
    const res = await scan(t, { token: shop.scannerToken, query: 'yerba', companyId: 'abc' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'bad_request' });
  });

  it('answers 401 for a token that does not exist', async () => {
    const res = await scan(t, { token: 'mos_scn_not-a-real-token', query: 'yerba' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'invalid scanner token', code: 'unauthenticated' });
  });

  it('answers 401 for a token longer than any token (an invalid token), and 400 when the query is wrong too', async () => {
    const long = `mos_scn_${'x'.repeat(300)}`;
    const res = await scan(t, { token: long, query: 'yerba' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'invalid scanner token', code: 'unauthenticated' });
    const both = await scan(t, { token: long, query: 'y'.repeat(201) });
    expect(both.statusCode).toBe(400);
    expect(both.json().details).toEqual([{ path: '/query', message: expect.any(String) }]);
  });

  it('answers 401 for a valid token sent with spaces around it (the token is compared as sent)', async () => {
    for (const token of [` ${shop.scannerToken}`, `${shop.scannerToken} `]) {
      const res = await scan(t, { token, query: '7790001000019' });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: 'invalid scanner token', code: 'unauthenticated' });
    }
  });

  it("answers 401 for another company's token with this companyId", async () => {
    const res = await scan(t, { token: other.scannerToken, query: '7790001000019', companyId: shop.id });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 'unauthenticated' });
  });

  it("never shows another company's products", async () => {
    const barcode = await scan(t, { token: shop.scannerToken, query: '7790002000018' });
    expect(barcode.statusCode).toBe(404);
    const name = await scan(t, { token: other.scannerToken, query: 'yerba mate' });
    expect(name.statusCode).toBe(404);
    const own = await scan(t, { token: other.scannerToken, query: '7790002000018' });
    expect(own.json()).toMatchObject({ product: { name: 'Harina 000 1 kg' } });
  });

  it('keeps the scanner token out of the logs', async () => {
    await scan(t, { token: shop.scannerToken, query: '7790001000019' });
    await t.app.inject({ method: 'GET', url: `/scanner?token=${shop.scannerToken}` });
    const joined = logs.lines.join('\n');
    expect(joined).toContain('/api/public/scanner?token=[Redacted]');
    expect(joined).not.toContain(shop.scannerToken);
  });

  it('serves the kiosk page for a valid token, 400 without one and 401 for a wrong one, never cached', async () => {
    const ok = await t.app.inject({ method: 'GET', url: `/scanner?token=${shop.scannerToken}` });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(ok.headers['referrer-policy']).toBe('no-referrer');
    expect(ok.headers['cache-control']).toBe('no-store');
    expect(ok.headers['content-security-policy']).toContain("script-src 'self'");
    expect(ok.body).toContain('Almacén Don Aurelio');
    expect(ok.body).not.toContain(shop.scannerToken);
    const missing = await t.app.inject({ method: 'GET', url: '/scanner' });
    expect(missing.statusCode).toBe(400);
    expect(missing.body).toContain('Falta el token del escáner');
    const wrong = await t.app.inject({ method: 'GET', url: '/scanner?token=mos_scn_wrong' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('Escáner no autorizado');
    // Its files come from the hashed asset paths every page uses; the old addresses redirect there.
    const src = /<script src="(\/assets\/kiosk-[0-9a-f]{12}\.js)" defer>/.exec(ok.body)?.[1];
    expect(src).toBeDefined();
    const script = await t.app.inject({ method: 'GET', url: src! });
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const old = await t.app.inject({ method: 'GET', url: '/scanner/kiosk.js' });
    expect([old.statusCode, old.headers.location]).toEqual([301, src]);
  });

  it('answers a CORS preflight', async () => {
    const res = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/public/scanner',
      headers: { origin: 'https://kiosco.example' },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-methods']).toContain('GET');
  });
});

describe('scale labels and cached answers', () => {
  let t: TestApp;
  let shop: Company;
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };
  const pastTheCache = () => {
    offsetMs += SCANNER_CACHE_TTL_MS + 1000;
  };

  const setLayout = (companyId: number, scaleLabel: unknown) =>
    t.container.db.orm.update(companies).set({ settings: { scaleLabel } }).where(eq(companies.id, companyId));

  beforeAll(async () => {
    t = await buildTestApp({ overrides: { clock } });
    shop = await makeCompany(t.container);
    await makeProduct(t.container, shop.id, { id: 1, name: 'Queso cremoso por kg', sku: '123', basePrice: 8900 });
    await makeProduct(t.container, shop.id, { id: 2, name: 'Jamón cocido por kg', sku: '0042', basePrice: '15990.90' });
  });
  afterAll(() => t.close());

  it('decodes the default layout (2x + PLU 5 + price in whole pesos 5) and answers the product with its label', async () => {
    const code = ean13('200012301234'); // PLU 00123, $ 1.234
    const res = await scan(t, { token: shop.scannerToken, query: code });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      product: expect.objectContaining({ id: 1, base_price: 8900 }),
      matchType: 'barcode',
      alternatives: [],
      label: { code, plu: '00123', value: 'price', price: 1234, weight: null, amount: 1234 },
    });
  });

  it('refuses a label whose check digit is wrong', async () => {
    const code = ean13('200012301234');
    const broken = code.slice(0, 12) + ((Number(code[12]) + 1) % 10);
    const res = await scan(t, { token: shop.scannerToken, query: broken });
    expect(res.statusCode).toBe(404);
  });

  it('decodes a weight layout from the company settings and computes the amount', async () => {
    await setLayout(shop.id, { prefixes: ['21'], pluDigits: 4, value: 'weight', decimals: 3 });
    pastTheCache();
    const code = ean13('210042001532'); // PLU 0042, 1.532 kg
    const res = await scan(t, { token: shop.scannerToken, query: code });
    expect(res.json()).toMatchObject({
      product: { id: 2 },
      label: { plu: '0042', value: 'weight', price: null, weight: 1.532, amount: 24498.06 },
    });
    // Prefix 20 is not a scale label under this layout.
    expect((await scan(t, { token: shop.scannerToken, query: ean13('200012301234') })).statusCode).toBe(404);
  });

  it('leaves codes alone when scale labels are turned off', async () => {
    await setLayout(shop.id, false);
    pastTheCache();
    expect((await scan(t, { token: shop.scannerToken, query: ean13('210042001532') })).statusCode).toBe(404);
  });

  it('stops accepting a replaced token once the cache expires, and accepts the new one at once', async () => {
    const old = shop.scannerToken;
    expect((await scan(t, { token: old, query: 'queso' })).statusCode).toBe(200);
    const { scannerToken } = await t.container.companies.rotateSecrets(shop.id, { integration: false, scanner: true });
    expect((await scan(t, { token: scannerToken!, query: 'queso' })).statusCode).toBe(200);
    pastTheCache();
    expect((await scan(t, { token: old, query: 'queso' })).statusCode).toBe(401);
  });
});

describe('scanner rate limit and internal errors', () => {
  it('answers 429 with Retry-After past the per-token, per-client limit', async () => {
    const t = await buildTestApp({ env: { SCANNER_RATE_LIMIT_PER_MINUTE: '2', TRUST_PROXY: 'true' } });
    try {
      const shop = await makeCompany(t.container);
      await makeProduct(t.container, shop.id, { name: 'Fideos tallarines 500 g' });
      const from = (ip: string) => scan(t, { token: shop.scannerToken, query: 'fideos' }, { 'x-forwarded-for': ip });
      expect((await from('10.0.0.1')).statusCode).toBe(200);
      expect((await from('10.0.0.1')).statusCode).toBe(200);
      const limited = await from('10.0.0.1');
      expect(limited.statusCode).toBe(429);
      expect(limited.json()).toMatchObject({ code: 'rate_limited' });
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(limited.headers['access-control-allow-origin']).toBe('*');
      expect((await from('10.0.0.2')).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('answers 500 with a generic body when the database fails', async () => {
    const t = await buildTestApp();
    try {
      const shop = await makeCompany(t.container);
      await t.container.db.query('ALTER TABLE products RENAME TO products_gone');
      const res = await scan(t, { token: shop.scannerToken, query: 'fideos' });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ error: 'internal error', code: 'internal' });
    } finally {
      await t.close();
    }
  });
});

describe('codes are codes, and the name index follows the catalogue', () => {
  let t: TestApp;
  let shop: Company;
  let other: Company;

  beforeAll(async () => {
    t = await buildTestApp({ env: { SCANNER_RATE_LIMIT_PER_MINUTE: '0' } });
    shop = await makeCompany(t.container);
    other = await makeCompany(t.container);
    await makeProduct(t.container, shop.id, { id: 1, name: 'Maní salado Pehuamar 120 g', sku: 'GOL-0001', bc: '7790001000019' });
    await makeProduct(t.container, shop.id, { id: 2, name: 'Harina de trigo 0000 Pureza 1 kg', sku: 'ALM-0002' });
    await makeProduct(t.container, shop.id, { id: 3, name: 'Queso cremoso La Paulina (por kg)', sku: '00107' });
    await makeProduct(t.container, shop.id, { id: 4, name: 'Papa negra (por kg)', sku: '110' });
    await makeProduct(t.container, other.id, { id: 1, name: 'Fideos tirabuzón Lucchetti 500 g' });
  });
  afterAll(() => t.close());

  it.each(['1234', '0000', '120', '00'])('answers 404 for the digits %s that are no code, never a fuzzy name', async (query) => {
    const res = await scan(t, { token: shop.scannerToken, query });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'product_not_found' });
  });

  it('finds a PLU typed as printed, without its zeros or padded', async () => {
    for (const [query, id] of [
      ['00107', 3],
      ['107', 3],
      ['00110', 4],
      ['110', 4],
    ] as const) {
      const res = await scan(t, { token: shop.scannerToken, query });
      expect(res.json(), query).toMatchObject({ product: { id }, matchType: 'barcode', alternatives: [] });
    }
  });

  it('sees a new, renamed or disabled product on the very next lookup', async () => {
    expect((await scan(t, { token: shop.scannerToken, query: 'yerba playadito' })).statusCode).toBe(404);
    await makeProduct(t.container, shop.id, { id: 5, name: 'Yerba mate suave Playadito 1 kg' });
    expect((await scan(t, { token: shop.scannerToken, query: 'yerba playadito' })).json()).toMatchObject({ product: { id: 5 } });
    await makeProduct(t.container, shop.id, { id: 5, name: 'Yerba mate suave Unión 1 kg' });
    expect((await scan(t, { token: shop.scannerToken, query: 'yerba playadito' })).json()).toMatchObject({
      product: { id: 5, name: 'Yerba mate suave Unión 1 kg' },
    });
    expect((await scan(t, { token: shop.scannerToken, query: 'union yerba' })).json()).toMatchObject({ product: { id: 5 } });
    await makeProduct(t.container, shop.id, { id: 5, name: 'Yerba mate suave Unión 1 kg', enable: false });
    expect((await scan(t, { token: shop.scannerToken, query: 'union yerba' })).statusCode).toBe(404);
  });

  /** Every company's catalogue version, by company id. */
  const versions = async () =>
    Object.fromEntries(
      (
        await t.container.db.query<{ company_id: number; version: string }>('SELECT company_id, version FROM catalogue_versions')
      ).map((row) => [row.company_id, Number(row.version)]),
    );

  it('bumps only the company whose catalogue changed, and not for a price or stock change', async () => {
    const before = await versions();
    await t.container.db.query('UPDATE products SET base_price = base_price + 1, stock = stock + 1 WHERE company_id = $1', [
      shop.id,
    ]);
    expect(await versions()).toEqual(before);
    // Naming the columns with their own values changes nothing either.
    await t.container.db.query('UPDATE products SET name = name, mark = mark, enable = enable WHERE company_id = $1', [shop.id]);
    expect(await versions()).toEqual(before);
    await t.container.db.query("UPDATE products SET name = name || ' x' WHERE company_id = $1 AND id = 1", [shop.id]);
    const after = await versions();
    expect(after[shop.id]).toBe(before[shop.id]! + 1);
    expect(after[other.id]).toBe(before[other.id]);
  });

  it('bumps once per transaction however many products it renames, and again in the next one', async () => {
    const version = async () => (await versions())[shop.id]!;
    const start = await version();
    // One statement over every product of the company (an import's rename).
    await t.container.db.query("UPDATE products SET mark = coalesce(mark, '') || 'm' WHERE company_id = $1", [shop.id]);
    expect(await version()).toBe(start + 1);
    // Two statements in one transaction, then a rename in a transaction of its own: each transaction
    // bumps (what a transaction remembers as bumped is gone when it ends).
    await t.container.db.orm.transaction(async (tx) => {
      await tx.execute(sql`UPDATE products SET enable = NOT enable WHERE company_id = ${shop.id} AND id = 2`);
      await tx.execute(sql`UPDATE products SET enable = NOT enable WHERE company_id = ${shop.id} AND id = 2`);
    });
    expect(await version()).toBe(start + 2);
    for (let n = 1; n <= 3; n++) {
      await t.container.db.query("UPDATE products SET name = name || ' y' WHERE company_id = $1 AND id = 3", [shop.id]);
      expect(await version()).toBe(start + 2 + n);
    }
    // A rolled-back rename leaves neither its bump nor its memory: the next rename bumps.
    await t.container.db.orm
      .transaction(async (tx) => {
        await tx.execute(sql`UPDATE products SET name = name || ' z' WHERE company_id = ${shop.id} AND id = 4`);
        throw new Error('roll back');
      })
      .catch(() => {});
    expect(await version()).toBe(start + 5);
    await t.container.db.query("UPDATE products SET name = name || ' z' WHERE company_id = $1 AND id = 4", [shop.id]);
    expect(await version()).toBe(start + 6);
    // The renames are what the scanner finds.
    expect((await scan(t, { token: shop.scannerToken, query: 'papa negra z' })).json()).toMatchObject({ product: { id: 4 } });
  });

  it("never answers another company's names", async () => {
    expect((await scan(t, { token: shop.scannerToken, query: 'tirabuzon lucchetti' })).statusCode).toBe(404);
    expect((await scan(t, { token: other.scannerToken, query: 'tirabuzon lucchetti' })).json()).toMatchObject({
      product: { id: 1 },
    });
  });
});
