import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ean13 } from '../../src/lib/barcode.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';
import { forgetPairStats } from '../../src/modules/catalog/catalog.repo.ts';
import { sendEvent } from '../integration-helpers.ts';

describe('back office merchant API: products, categories, deposits, boxes, stock, price change', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000', AUTH_LOGIN_LIMIT_PER_ACCOUNT: '1000' } });
  });
  afterAll(() => t.close());

  async function shop(name = 'Almacén') {
    const company = await makeCompany(t.container, { name });
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const cashier = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    const asAdmin = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
    const asCashier = { cookie: (await login(t.app, cashier.email, cashier.password)).cookie, ...SAME_ORIGIN };
    const token = async (scope: 'read' | 'read-write') =>
      ({
        authorization: `Bearer ${(await t.app.inject({ method: 'POST', url: '/api/v1/api-tokens', headers: asAdmin, payload: { name: scope, scope } })).json().secret}`,
      }) as Record<string, string>;
    return { company, asAdmin, asCashier, readToken: await token('read'), rwToken: await token('read-write') };
  }

  const call = (method: string, url: string, headers: Record<string, string>, payload?: unknown) =>
    t.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

  const eventsOf = (companyId: number) =>
    t.container.db.query<{ event: string; payload: { data: Record<string, Record<string, unknown>> } }>(
      'SELECT event, payload FROM outbox_events WHERE company_id = $1 ORDER BY seq',
      [companyId],
    );

  it('creates a product with its back-office fields, validates the barcode and stores UPC-A as EAN-13, emitting product.upserted', async () => {
    const s = await shop();
    const category = (await call('POST', '/api/v1/categories', s.asAdmin, { name: 'Almacén seco' })).json().category;
    const upc = '036000291452'; // a valid UPC-A
    const res = await call('POST', '/api/v1/products', s.asAdmin, {
      name: 'Yerba mate suave 1 kg',
      sku: 'YER-1',
      barcode: upc,
      base_price: 4890.5,
      cost: 3100,
      iva_rate: '21',
      unit: 'unit',
      min_stock: 5,
      category_id: category.id,
      mark: 'Playadito',
      stock: 12,
    });
    expect(res.statusCode, res.body).toBe(201);
    const product = res.json().product;
    expect(product).toMatchObject({
      name: 'Yerba mate suave 1 kg',
      sku: 'YER-1',
      barcode: `0${upc}`,
      BC: `0${upc}`,
      base_price: 4890.5,
      cost: 3100,
      iva_rate: '21',
      unit: 'unit',
      min_stock: 5,
      stock: 12,
      category_id: category.id,
      enable: true,
    });
    const events = (await eventsOf(s.company.id)).map((e) => e.event);
    expect(events).toContain('product.upserted');
    expect(events).toContain('movement.created');
    const got = await call('GET', `/api/v1/products/${product.id}`, s.readToken);
    expect(got.json().product).toEqual(product);

    const bad = await call('POST', '/api/v1/products', s.asAdmin, { name: 'X', base_price: 1, barcode: '7790000000001' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().error).toContain('check digit');
    for (const body of [
      { name: 'X', base_price: -1 },
      { name: 'X', base_price: 'diez' },
      { name: '', base_price: 1 },
      { name: 'X', base_price: 1, iva_rate: '22' },
      { name: 'X', base_price: 1, unit: 'litro' },
      { name: 'X', base_price: 1, barcode: 'abc' },
      { name: 'X', base_price: 1, company_id: 2 },
      { base_price: 1 },
    ]) {
      const r = await call('POST', '/api/v1/products', s.asAdmin, body);
      expect(r.statusCode, JSON.stringify(body)).toBe(422);
      expect(r.json()).toHaveProperty('code');
    }
  });

  it('refuses a sku or barcode another product has (409 naming it) and changes nothing', async () => {
    const s = await shop();
    const code = ean13('779000000001');
    const first = (
      await call('POST', '/api/v1/products', s.asAdmin, { name: 'Primero', base_price: 10, sku: 'A1', barcode: code })
    ).json().product;
    const before = (await eventsOf(s.company.id)).length;
    const sameSku = await call('POST', '/api/v1/products', s.rwToken, { name: 'Otro', base_price: 10, sku: 'A1' });
    expect(sameSku.statusCode).toBe(409);
    expect(sameSku.json().error).toContain(`product ${first.id} (Primero)`);
    const second = (await call('POST', '/api/v1/products', s.asAdmin, { name: 'Segundo', base_price: 10 })).json().product;
    const sameCode = await call('PATCH', `/api/v1/products/${second.id}`, s.asAdmin, { barcode: code });
    expect(sameCode.statusCode).toBe(409);
    expect(sameCode.json().error).toContain('Primero');
    const both = await call('POST', '/api/v1/products', s.asAdmin, { name: 'Tercero', base_price: 10, sku: 'A1', barcode: code });
    expect(both.statusCode).toBe(409);
    expect(both.json().details.map((d: { path: string; product_id: number }) => [d.path, d.product_id])).toEqual([
      ['/sku', first.id],
      ['/barcode', first.id],
    ]);
    // Its own codes again are fine.
    expect((await call('PATCH', `/api/v1/products/${first.id}`, s.asAdmin, { sku: 'A1', barcode: code })).statusCode).toBe(200);
    expect((await eventsOf(s.company.id)).length).toBe(before + 2);
  });

  it('lists with q (accents and case ignored), filters, low stock and a cursor; disables instead of deleting', async () => {
    const s = await shop();
    await makeProduct(t.container, s.company.id, { name: 'Azúcar común 1 kg', sku: 'AZ-1', basePrice: 1200, mark: 'Ledesma' });
    await makeProduct(t.container, s.company.id, { name: 'Café molido', sku: 'CAF', basePrice: 5000, mark: 'La Virginia' });
    for (let i = 0; i < 5; i++) await makeProduct(t.container, s.company.id, { name: `Galletitas ${i}`, basePrice: 900 + i });
    const az = await call('GET', '/api/v1/products?q=AZUCAR', s.asCashier);
    expect(az.json().products.map((p: { name: string }) => p.name)).toEqual(['Azúcar común 1 kg']);
    expect((await call('GET', '/api/v1/products?q=caf', s.readToken)).json().products).toHaveLength(1);
    expect((await call('GET', '/api/v1/products?mark=ledesma', s.readToken)).json().products).toHaveLength(1);

    const page1 = (await call('GET', '/api/v1/products?q=galletitas&limit=3', s.readToken)).json();
    expect(page1.products).toHaveLength(3);
    expect(page1.meta.next_cursor).toEqual(expect.any(String));
    const page2 = (
      await call('GET', `/api/v1/products?q=galletitas&limit=3&cursor=${page1.meta.next_cursor}`, s.readToken)
    ).json();
    expect(page2.products).toHaveLength(2);
    expect(page2.meta.next_cursor).toBeNull();
    const ids = [...page1.products, ...page2.products].map((p: { id: number }) => p.id);
    expect(new Set(ids).size).toBe(5);

    const cafe = (await call('GET', '/api/v1/products?q=cafe', s.asAdmin)).json().products[0];
    const low = await call('PATCH', `/api/v1/products/${cafe.id}`, s.asAdmin, { min_stock: 3 });
    expect(low.json().product.min_stock).toBe(3);
    expect(
      (await call('GET', '/api/v1/products?low_stock=true', s.asAdmin)).json().products.map((p: { id: number }) => p.id),
    ).toEqual([cafe.id]);
    const off = await call('PATCH', `/api/v1/products/${cafe.id}`, s.asAdmin, { enable: false });
    expect(off.json().product.enable).toBe(false);
    expect((await call('GET', '/api/v1/products?enabled=false', s.asAdmin)).json().products).toHaveLength(1);
    // Products are never deleted: the address takes no DELETE (405, and Allow names what it takes).
    const deleted = await call('DELETE', `/api/v1/products/${cafe.id}`, s.asAdmin);
    expect(deleted.statusCode).toBe(405);
    expect(deleted.headers.allow).not.toContain('DELETE');
    expect((await call('GET', '/api/v1/products?cursor=%%%', s.asAdmin)).statusCode).toBe(422);
  });

  it('pages through two words as often together as the statistics promise, reading further in id order (denseWindow)', async () => {
    const s = await shop();
    const types = ['Galletitas', 'Yerba mate', 'Azúcar', 'Leche', 'Harina', 'Fideos'];
    const brands = ['Terrabusi', 'Playadito', 'Ledesma', 'La Serenísima', 'Blancaflor', 'Cocinero', 'Gallo', 'Magistral'];
    const nameOf = (n: number) => `${types[n % types.length]} ${brands[Math.floor(n / 7) % brands.length]} ${n}`;
    const count = 2400;
    await t.container.db.query(
      `INSERT INTO products (company_id, id, sku, name, base_price, stock)
       SELECT $1, n, 'GEN-' || n, ($2::text[])[1 + n % 6] || ' ' || ($3::text[])[1 + (n / 7) % 8] || ' ' || n, 100, 0
       FROM generate_series(1, $4::int) AS n`,
      [s.company.id, types, brands, count],
    );
    // With statistics: "galletitas terrabusi" is in one product of 48, and a page of 5 is expected
    // within about 600 rows, more than the default 240 (which finds 5, and asks the indexes).
    await t.container.db.query('ANALYZE products');
    forgetPairStats();
    const ids = Array.from({ length: count }, (_, k) => k + 1);
    const plain = (n: number) => nameOf(n).toLowerCase().normalize('NFD').replace(/\p{M}/gu, '');
    for (const q of ['galletitas terrabusi', 'TERRABUSI galletitas', 'yerba', 'azucar ledesma 1', 'leche blancaflor 99']) {
      const words = q.toLowerCase().split(' ');
      const expected = ids.filter((n) => words.every((w) => plain(n).includes(w) || `gen-${n}`.includes(w)));
      const seen: number[] = [];
      let cursor = '';
      for (let page = 0; page < 100; page++) {
        const res = (await call('GET', `/api/v1/products?q=${encodeURIComponent(q)}&limit=5${cursor}`, s.readToken)).json();
        seen.push(...res.products.map((p: { id: number }) => p.id));
        if (!res.meta.next_cursor) break;
        cursor = `&cursor=${res.meta.next_cursor}`;
      }
      expect(seen, q).toEqual(expected);
    }
  });

  it('finds words shorter than a trigram anywhere in the name, sku or barcode (the index of pairs answers as strpos did)', async () => {
    const s = await shop();
    const names = ['Harina 000 1 kg', 'Harina leudante 1,5 kg', 'Harina integral 500 g', 'Yerba x1kgy', 'Ñandú 2 l', 'Fideos'];
    const ids: Record<string, number> = {};
    for (const name of names) ids[name] = (await makeProduct(t.container, s.company.id, { name, basePrice: 100 })).id;
    ids['sku'] = (await makeProduct(t.container, s.company.id, { name: 'Arroz', sku: 'AR-KG', basePrice: 100 })).id;
    const found = async (q: string) =>
      (await call('GET', `/api/v1/products?q=${encodeURIComponent(q)}`, s.readToken))
        .json()
        .products.map((p: { id: number }) => p.id);
    const of = (...keys: string[]) => keys.map((k) => ids[k]);
    expect(await found('harina kg')).toEqual(of('Harina 000 1 kg', 'Harina leudante 1,5 kg'));
    expect(await found('HARINA 1 KG')).toEqual(of('Harina 000 1 kg', 'Harina leudante 1,5 kg'));
    // Inside a word, in the sku, and not the same two letters the other way round.
    expect(await found('kg')).toEqual(of('Harina 000 1 kg', 'Harina leudante 1,5 kg', 'Yerba x1kgy', 'sku'));
    expect(await found('gk')).toEqual([]);
    expect(await found('1,5')).toEqual(of('Harina leudante 1,5 kg'));
    expect(await found('x1')).toEqual(of('Yerba x1kgy'));
    // Accents and case ignored as for longer words; a pair across two words counts as in the text.
    expect(await found('ña 2')).toEqual(of('Ñandú 2 l'));
    expect(await found('2 l')).toEqual(of('Ñandú 2 l'));
    expect(await found('u 2')).toEqual(of('Ñandú 2 l'));
    // Paging through a short word keeps the id order.
    const first = (await call('GET', '/api/v1/products?q=kg&limit=2', s.readToken)).json();
    const rest = (await call('GET', `/api/v1/products?q=kg&limit=2&cursor=${first.meta.next_cursor}`, s.readToken)).json();
    expect([...first.products, ...rest.products].map((p: { id: number }) => p.id)).toEqual(
      of('Harina 000 1 kg', 'Harina leudante 1,5 kg', 'Yerba x1kgy', 'sku'),
    );
  });

  it('lets cashiers and read tokens read only; read-write tokens and admins write', async () => {
    const s = await shop();
    const body = { name: 'Fideos', base_price: 800 };
    expect((await call('POST', '/api/v1/products', s.asCashier, body)).statusCode).toBe(403);
    expect((await call('POST', '/api/v1/products', s.readToken, body)).statusCode).toBe(403);
    expect(
      (await call('POST', '/api/v1/movements', s.asCashier, { type: 'IN', product_id: 1, deposit_id: 1, amount: 1 })).statusCode,
    ).toBe(403);
    expect((await call('POST', '/api/v1/products/price-change', s.readToken, { percent: 10 })).statusCode).toBe(403);
    expect((await call('POST', '/api/v1/products', s.rwToken, body)).statusCode).toBe(201);
    expect((await call('GET', '/api/v1/stock', s.asCashier)).statusCode).toBe(200);
    expect((await call('GET', '/api/v1/products', {})).statusCode).toBe(401);
  });

  it("never shows or touches another company's products, categories, deposits, boxes or stock (404)", async () => {
    const a = await shop('A');
    const b = await shop('B');
    const product = (await call('POST', '/api/v1/products', a.asAdmin, { name: 'Solo de A', base_price: 1 })).json().product;
    const category = (await call('POST', '/api/v1/categories', a.asAdmin, { name: 'Cat A' })).json().category;
    expect((await call('GET', `/api/v1/products/${product.id}`, b.asAdmin)).statusCode).toBe(404);
    expect((await call('PATCH', `/api/v1/products/${product.id}`, b.rwToken, { name: 'robado' })).statusCode).toBe(404);
    expect((await call('GET', `/api/v1/products/${product.id}/movements`, b.asAdmin)).statusCode).toBe(404);
    expect((await call('PATCH', `/api/v1/categories/${category.id}`, b.asAdmin, { name: 'x' })).statusCode).toBe(404);
    expect((await call('GET', '/api/v1/products', b.asAdmin)).json().products).toEqual([]);
    expect((await call('GET', '/api/v1/categories', b.asAdmin)).json().categories).toEqual([]);
    const foreignCategory = await call('POST', '/api/v1/products', b.asAdmin, {
      name: 'x',
      base_price: 1,
      category_id: category.id,
    });
    expect(foreignCategory.statusCode).toBe(422);
    const bDeposits = (await call('GET', '/api/v1/deposits', b.asAdmin)).json().deposits;
    const aDeposit = (await call('POST', '/api/v1/deposits', a.asAdmin, { name: 'Depósito secreto' })).json().deposit;
    expect(bDeposits.some((d: { name: string }) => d.name === 'Depósito secreto')).toBe(false);
    expect((await call('PATCH', `/api/v1/deposits/${aDeposit.id}`, b.asAdmin, { name: 'x' })).statusCode).toBe(404);
    expect((await call('GET', `/api/v1/stock?deposit_id=${aDeposit.id}`, b.asAdmin)).statusCode).toBe(404);
    const move = await call('POST', '/api/v1/movements', b.asAdmin, {
      type: 'IN',
      product_id: product.id,
      deposit_id: 1,
      amount: 5,
    });
    // Named in the body: 422 with the field, as any unknown record in a body.
    expect([move.statusCode, move.json().code, move.json().details]).toEqual([
      422,
      'invalid_reference',
      [{ path: '/product_id', message: 'unknown product' }],
    ]);
    const own = (await call('POST', '/api/v1/products', b.asAdmin, { name: 'De B', base_price: 1 })).json().product;
    for (const field of ['deposit_id', 'to_deposit_id']) {
      const body = { type: 'TRANSFER', product_id: own.id, deposit_id: 1, to_deposit_id: 1, amount: 1, [field]: aDeposit.id };
      const res = await call('POST', '/api/v1/movements', b.asAdmin, body);
      expect([res.statusCode, res.json().code, res.json().details]).toEqual([
        422,
        'invalid_reference',
        [{ path: `/${field}`, message: 'unknown deposit' }],
      ]);
    }
    const [row] = await t.container.db.query<{ name: string }>('SELECT name FROM products WHERE company_id = $1 AND id = $2', [
      a.company.id,
      product.id,
    ]);
    expect(row?.name).toBe('Solo de A');
  });

  it('books stock through the ledger: receive, take out, transfer, and a count that sets the stock; with events', async () => {
    const s = await shop();
    const product = (await call('POST', '/api/v1/products', s.asAdmin, { name: 'Aceite', base_price: 2500, min_stock: 4 })).json()
      .product;
    const second = (await call('POST', '/api/v1/deposits', s.asAdmin, { name: 'Trastienda' })).json().deposit;
    const deposits = (await call('GET', '/api/v1/deposits', s.asAdmin)).json().deposits;
    const main = deposits.find((d: { is_default: boolean }) => d.is_default).id;
    const before = (await eventsOf(s.company.id)).length;
    const received = await call('POST', '/api/v1/movements', s.rwToken, {
      type: 'IN',
      product_id: product.id,
      deposit_id: main,
      amount: 10,
      reason: 'Remito 0001-00001234',
    });
    expect(received.statusCode, received.body).toBe(201);
    expect(received.json().movement).toMatchObject({ type: 'IN', amount: 10, reason: 'Remito 0001-00001234' });
    const events = (await eventsOf(s.company.id)).slice(before).map((e) => e.event);
    expect(events).toEqual(['movement.created', 'product.stock_updated']);

    await call('POST', '/api/v1/movements', s.asAdmin, { type: 'OUT', product_id: product.id, deposit_id: main, amount: 2 });
    await call('POST', '/api/v1/movements', s.asAdmin, {
      type: 'TRANSFER',
      product_id: product.id,
      deposit_id: main,
      to_deposit_id: second.id,
      amount: 3,
    });
    const count = await call('POST', '/api/v1/movements', s.asAdmin, {
      type: 'ADJUSTMENT',
      product_id: product.id,
      deposit_id: main,
      amount: 4,
    });
    expect(count.json().movement).toMatchObject({ type: 'ADJUSTMENT', amount: -1 });
    const levels = (await call('GET', `/api/v1/stock?q=aceite`, s.asCashier)).json().stock;
    expect(levels).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ product_id: product.id, deposit_id: main, stock: 4, min_stock: 4 }),
        expect.objectContaining({ product_id: product.id, deposit_id: second.id, stock: 3 }),
      ]),
    );
    expect((await call('GET', `/api/v1/products/${product.id}`, s.asAdmin)).json().product.stock).toBe(7);
    const low = (await call('GET', `/api/v1/stock?low_stock=true&deposit_id=${second.id}`, s.asAdmin)).json().stock;
    expect(low.map((l: { product_id: number }) => l.product_id)).toEqual([product.id]);
    const ledger = (await call('GET', `/api/v1/products/${product.id}/movements`, s.readToken)).json().movements;
    expect(ledger.map((m: { type: string }) => m.type)).toEqual(['ADJUSTMENT', 'TRANSFER', 'OUT', 'IN']);

    for (const body of [
      { type: 'IN', product_id: product.id, deposit_id: main, amount: 0 },
      { type: 'TRANSFER', product_id: product.id, deposit_id: main, amount: 1 },
      { type: 'GIFT', product_id: product.id, deposit_id: main, amount: 1 },
      { type: 'ADJUSTMENT', product_id: product.id, deposit_id: main, amount: 4 },
      { type: 'IN', product_id: product.id, deposit_id: main, amount: -3 },
    ]) {
      const r = await call('POST', '/api/v1/movements', s.asAdmin, body);
      expect(r.statusCode, JSON.stringify(body)).toBe(422);
    }
    expect((await call('GET', `/api/v1/products/${product.id}`, s.asAdmin)).json().product.stock).toBe(7);
  });

  it('refuses a TRANSFER without a destination or to the same deposit, and a destination on another type, naming /to_deposit_id', async () => {
    const s = await shop();
    const product = (await call('POST', '/api/v1/products', s.asAdmin, { name: 'Yerba 1 kg', base_price: 4200 })).json().product;
    const second = (await call('POST', '/api/v1/deposits', s.asAdmin, { name: 'Trastienda' })).json().deposit;
    const main = (await call('GET', '/api/v1/deposits', s.asAdmin))
      .json()
      .deposits.find((d: { is_default: boolean }) => d.is_default).id;
    await call('POST', '/api/v1/movements', s.asAdmin, { type: 'IN', product_id: product.id, deposit_id: main, amount: 5 });
    const before = (await eventsOf(s.company.id)).length;
    for (const body of [
      { type: 'TRANSFER', product_id: product.id, deposit_id: main, amount: 1 },
      { type: 'TRANSFER', product_id: product.id, deposit_id: main, to_deposit_id: main, amount: 1 },
      { type: 'IN', product_id: product.id, deposit_id: main, to_deposit_id: second.id, amount: 1 },
      { type: 'ADJUSTMENT', product_id: product.id, deposit_id: main, to_deposit_id: second.id, amount: 2 },
    ]) {
      const r = await call('POST', '/api/v1/movements', s.asAdmin, body);
      expect(r.statusCode, JSON.stringify(body)).toBe(422);
      expect(r.json(), JSON.stringify(body)).toMatchObject({
        code: 'validation_failed',
        details: [{ path: '/to_deposit_id', message: expect.any(String) }],
      });
    }
    expect((await eventsOf(s.company.id)).length).toBe(before);
    // A box of a deposit that is not the company's names the field too.
    for (const [method, url] of [
      ['POST', '/api/v1/boxes'],
      ['PATCH', '/api/v1/boxes/1'],
    ] as const) {
      const r = await call(method, url, s.asAdmin, { name: 'Caja 9', deposit_id: 999 });
      expect(r.json(), url).toMatchObject({ code: 'invalid_reference', details: [{ path: '/deposit_id' }] });
    }
    const levels = (await call('GET', '/api/v1/stock?q=yerba', s.asAdmin)).json().stock;
    expect(levels).toEqual([
      expect.objectContaining({ deposit_id: main, stock: 5 }),
      expect.objectContaining({ deposit_id: second.id, stock: 0 }),
    ]);
  });

  it('changes prices in bulk: a dry run shows the sample, applying is one audited transaction with one event per product', async () => {
    const s = await shop();
    const cat = (await call('POST', '/api/v1/categories', s.asAdmin, { name: 'Bebidas' })).json().category;
    const inCat = [];
    for (const [name, price] of [
      ['Gaseosa cola 2,25 l', 2345],
      ['Agua mineral 2 l', 1190],
    ] as const) {
      inCat.push(
        (await call('POST', '/api/v1/products', s.asAdmin, { name, base_price: price, category_id: cat.id })).json().product,
      );
    }
    await call('POST', '/api/v1/products', s.asAdmin, { name: 'Pan lactal', base_price: 2000 });
    const dry = await call('POST', '/api/v1/products/price-change', s.asAdmin, {
      percent: 12.5,
      filter: { category_id: cat.id },
      rounding: '10',
      dry_run: true,
    });
    expect(dry.json()).toEqual({
      matched: 2,
      changed: 2,
      applied: false,
      sample: [
        { id: inCat[0].id, name: 'Gaseosa cola 2,25 l', before: 2345, after: 2640 },
        { id: inCat[1].id, name: 'Agua mineral 2 l', before: 1190, after: 1340 },
      ],
    });
    expect((await call('GET', `/api/v1/products/${inCat[0].id}`, s.asAdmin)).json().product.base_price).toBe(2345);
    const before = (await eventsOf(s.company.id)).length;
    const applied = await call('POST', '/api/v1/products/price-change', s.rwToken, {
      percent: 12.5,
      filter: { category_id: cat.id },
      rounding: '10',
    });
    expect(applied.json()).toMatchObject({ matched: 2, changed: 2, applied: true });
    expect((await call('GET', `/api/v1/products/${inCat[0].id}`, s.asAdmin)).json().product.base_price).toBe(2640);
    const events = (await eventsOf(s.company.id)).slice(before);
    expect(events.map((e) => e.event)).toEqual(['product.upserted', 'product.upserted']);
    expect(events[0]!.payload.data['product']!['base_price']).toBe(2640);
    const audit = await t.container.db.query<{ action: string; actor_email: string }>(
      `SELECT action, actor_email FROM audit_log WHERE company_id = $1 AND action = 'catalog.price_change'`,
      [s.company.id],
    );
    expect(audit).toEqual([{ action: 'catalog.price_change', actor_email: 'token API «read-write»' }]);
    expect((await call('POST', '/api/v1/products/price-change', s.asAdmin, { percent: 0 })).statusCode).toBe(422);
  });

  it("the shop's own edits apply even after an integration stamped the product ahead of our clock", async () => {
    const s = await shop();
    const key = s.company.integrationKey;
    const id = (await call('POST', '/api/v1/products', s.asAdmin, { name: 'Fideos 500 g', base_price: 100 })).json().product.id;
    // An integrator whose clock runs a minute ahead (or a date far in the future): accepted, as the contract allows.
    const ahead = new Date(t.container.clock.now().getTime() + 60_000).toISOString();
    const event = {
      event: 'product.upserted',
      data: { product: { id, name: 'Fideos 500 g', base_price: 100, updated_at: ahead } },
    };
    expect((await sendEvent(t.app, key, event)).statusCode).toBe(200);

    const patched = await call('PATCH', `/api/v1/products/${id}`, s.asAdmin, { base_price: 200 });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().product.base_price).toBe(200);
    const raised = await call('POST', '/api/v1/products/price-change', s.asAdmin, { percent: 10, filter: { q: 'Fideos' } });
    expect(raised.json()).toMatchObject({ changed: 1, applied: true });
    const stored = (await call('GET', `/api/v1/products/${id}`, s.asAdmin)).json().product;
    expect(stored.base_price).toBe(220);
    // Stamped no earlier than the integration's version: its older events stay stale.
    expect(Date.parse(stored.updated_at)).toBeGreaterThanOrEqual(Date.parse(ahead));
    const older = {
      ...event,
      data: { product: { ...event.data.product, base_price: 1, updated_at: t.container.clock.now().toISOString() } },
    };
    expect((await sendEvent(t.app, key, older)).statusCode).toBe(200);
    expect((await call('GET', `/api/v1/products/${id}`, s.asAdmin)).json().product.base_price).toBe(220);
  });

  it('creates and renames categories, deposits and boxes; a box sells from a deposit of the company', async () => {
    const s = await shop();
    const boxes = (await call('GET', '/api/v1/boxes', s.asCashier)).json().boxes;
    expect(boxes.length).toBeGreaterThan(0);
    const deposit = (await call('POST', '/api/v1/deposits', s.asAdmin, { name: 'Sucursal Centro' })).json().deposit;
    const box = await call('POST', '/api/v1/boxes', s.asAdmin, { name: 'Caja Centro', deposit_id: deposit.id });
    expect(box.statusCode).toBe(201);
    expect(box.json().box).toMatchObject({ name: 'Caja Centro', deposit_id: deposit.id });
    const renamed = await call('PATCH', `/api/v1/boxes/${box.json().box.id}`, s.asAdmin, { name: 'Caja 2' });
    expect(renamed.json().box).toMatchObject({ name: 'Caja 2', deposit_id: deposit.id });
    expect((await call('POST', '/api/v1/boxes', s.asAdmin, { name: 'x', deposit_id: 999 })).statusCode).toBe(422);
    expect((await call('PATCH', `/api/v1/deposits/${deposit.id}`, s.asAdmin, { name: 'Centro' })).json().deposit.name).toBe(
      'Centro',
    );
    const cat = (await call('POST', '/api/v1/categories', s.asAdmin, { name: 'Limpieza' })).json().category;
    expect((await call('POST', '/api/v1/categories', s.asAdmin, { name: 'limpieza' })).statusCode).toBe(409);
    expect(
      (await call('PATCH', `/api/v1/categories/${cat.id}`, s.asAdmin, { name: 'Limpieza y perfumería' })).json().category.name,
    ).toBe('Limpieza y perfumería');
  });
});

describe('spreadsheet import and export (/api/v1/products/import, /export)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000' } });
  });
  afterAll(() => t.close());

  async function owner() {
    const company = await makeCompany(t.container);
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    return { company, headers: { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN } };
  }
  const upload = (headers: Record<string, string>, body: Buffer | string, dryRun = false) =>
    t.app.inject({
      method: 'POST',
      url: `/api/v1/products/import?dry_run=${dryRun}`,
      headers: { ...headers, 'content-type': 'text/csv' },
      payload: body,
    });
  const list = async (headers: Record<string, string>) =>
    (await t.app.inject({ url: '/api/v1/products?limit=200', headers })).json().products as Record<string, unknown>[];
  const events = async (companyId: number) =>
    (
      await t.container.db.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox_events WHERE company_id = $1', [companyId])
    )[0]!.n;

  /** Windows-1252 bytes of a string (what Excel's "CSV" writes in Argentina). */
  function win1252(text: string): Buffer {
    const map: Record<string, number> = { á: 0xe1, é: 0xe9, í: 0xed, ó: 0xf3, ú: 0xfa, ñ: 0xf1, Ñ: 0xd1, º: 0xba };
    return Buffer.from([...text].map((c) => map[c] ?? c.charCodeAt(0)));
  }

  it('refuses a price, cost or stock that would be stored as 0 (0,004 is no price), naming line and column', async () => {
    const o = await owner();
    const file = [
      'sku;nombre;precio;costo;stock;stock_minimo',
      'CER-1;Casi gratis;0,004;;;',
      'CER-2;Costo perdido;100;0,001;;',
      'CER-3;Stock perdido;100;;0,0004;',
      'CER-4;Mínimo perdido;100;;;0,0001',
      'CER-5;Un centavo;0,01;0;0,001;0',
    ].join('\r\n');
    const res = await upload(o.headers, file);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().errors).toEqual([
      { line: 2, column: 'precio', message: expect.stringContaining('queda en $ 0') },
      { line: 3, column: 'costo', message: expect.stringContaining('queda en $ 0') },
      { line: 4, column: 'stock', message: expect.stringContaining('queda en 0') },
      { line: 5, column: 'stock_minimo', message: expect.stringContaining('queda en 0') },
    ]);
    expect((await list(o.headers)).map((p) => [p['sku'], p['base_price'], p['cost'], p['stock'], p['min_stock']])).toEqual([
      ['CER-5', 0.01, 0, 0.001, 0],
    ]);
  });

  it("reads Excel's CSV (Windows-1252, ';', 1.234,56), creates categories by name, skips broken rows naming line and column", async () => {
    const o = await owner();
    const file = win1252(
      [
        'codigo;sku;nombre;precio;costo;iva;categoria;marca;activo;stock_minimo',
        `${ean13('779123400001')};ACE-1;Aceite de girasol 1,5 l;1.234,56;900;21;Almacén;Cocinero;si;6`,
        `;YER-1;Yerba mate suave ½ kg;2.890;;10,5;Almacén;Playadito;sí;`,
        `7791234000019;MAL-1;Código mal;100;;21;;;;`,
        `;PAN-1;Pan;abc;;21;;;;`,
        `;SIN-PRECIO;Sin precio;;;21;;;;`,
        `;LIM-1;Lavandina 1 l;1.050,00;;27;Limpieza;Ayudín;no;`,
      ].join('\r\n'),
    );
    const dry = await upload(o.headers, file, true);
    expect(dry.statusCode, dry.body).toBe(200);
    expect(dry.json()).toMatchObject({
      created: 3,
      updated: 0,
      unchanged: 0,
      dry_run: true,
      encoding: 'windows-1252',
      separator: ';',
    });
    expect(await list(o.headers)).toEqual([]);
    const before = await events(o.company.id);

    const res = await upload(o.headers, file);
    const body = res.json();
    expect(body).toMatchObject({ created: 3, updated: 0, unchanged: 0, dry_run: false });
    expect(body.errors).toEqual([
      { line: 4, column: 'codigo', message: expect.stringContaining('dígito verificador: el último debería ser 2') },
      { line: 5, column: 'precio', message: expect.stringContaining('precio inválido: "abc"') },
      { line: 6, column: 'precio', message: expect.stringContaining('falta el precio') },
    ]);
    const products = await list(o.headers);
    expect(products.map((p) => p['name'])).toEqual(['Aceite de girasol 1,5 l', 'Yerba mate suave ½ kg', 'Lavandina 1 l']);
    expect(products[0]).toMatchObject({
      base_price: 1234.56,
      cost: 900,
      iva_rate: '21',
      mark: 'Cocinero',
      min_stock: 6,
      enable: true,
    });
    expect(products[1]).toMatchObject({ base_price: 2890, iva_rate: '10.5', barcode: null });
    expect(products[2]).toMatchObject({ base_price: 1050, iva_rate: '27', enable: false });
    const categories = (await t.app.inject({ url: '/api/v1/categories', headers: o.headers })).json().categories;
    expect(categories.map((c: { name: string }) => c.name).sort()).toEqual(['Almacén', 'Limpieza']);
    expect(await events(o.company.id)).toBe(before + 3);
  });

  it("reads UTF-8 with BOM and ',' in English, matches by sku then barcode, and export → import changes nothing", async () => {
    const o = await owner();
    await upload(o.headers, `sku;nombre;precio\nA-1;Arroz;1000\n;Fideos;800\n`);
    const code = ean13('779555000001');
    const byCode = await t.app.inject({
      method: 'POST',
      url: '/api/v1/products',
      headers: o.headers,
      payload: { name: 'Galletitas', base_price: 500, barcode: code },
    });
    expect(byCode.statusCode).toBe(201);
    const english = `\uFEFFsku,barcode,name,price,enabled\nA-1,,Arroz largo fino,1100.50,true\n,${code},Galletitas dulces,"1,234.00",yes\n`;
    const res = await upload(o.headers, Buffer.from(english, 'utf8'));
    expect(res.json()).toMatchObject({ created: 0, updated: 2, unchanged: 0, encoding: 'utf-8', separator: ',', errors: [] });
    const products = await list(o.headers);
    expect(products.find((p) => p['sku'] === 'A-1')).toMatchObject({ name: 'Arroz largo fino', base_price: 1100.5 });
    expect(products.find((p) => p['barcode'] === code)).toMatchObject({ name: 'Galletitas dulces', base_price: 1234 });

    const exported = await t.app.inject({ url: '/api/v1/products/export', headers: o.headers });
    expect(exported.headers['content-type']).toContain('text/csv');
    expect(exported.body.startsWith('\uFEFFid;sku;codigo;nombre;descripcion;precio')).toBe(true);
    const before = await events(o.company.id);
    const again = await upload(o.headers, exported.rawPayload);
    expect(again.json()).toMatchObject({ created: 0, updated: 0, unchanged: 3, errors: [] });
    expect(await events(o.company.id)).toBe(before);
  });

  it('decides each row against the rows before it (matches, clashes, categories, names) and emits one event per product changed', async () => {
    const o = await owner();
    await upload(o.headers, `sku;nombre;precio;categoria\nOLD-1;Harina 000;700;Almacén\n;Sal fina;300;\nKEEP-1;Queso;900;\n`);
    const before = await events(o.company.id);
    const a = ean13('779100000001');
    const b = ean13('779100000002');
    const file = [
      'sku;codigo;nombre;precio;categoria',
      `NEW-1;${a};Azúcar 1 kg;1.000;almacén`, // created; the category matches Almacén ignoring case
      `;${a};Azúcar común 1 kg;;`, // the barcode of line 2 again: an error naming line 2 (issue 26)
      `NEW-2;${a};Otro;10;`, // the same
      `OLD-1;${b};Harina 0000;750;Panadería`, // an existing product: new barcode, new category
      `NEW-3;${b};Otra;20;`, // the barcode of line 5 again
      `;;sal FINA;350;`, // no codes: the only product of that name (case ignored)
      `KEEP-1;;Queso;900;`, // unchanged
      `KEEP-2;${b};Queso;900;`, // the barcode line 5 gave OLD-1 … and repeated in the file
    ].join('\n');
    const res = await upload(o.headers, file);
    expect(res.json()).toMatchObject({ created: 1, updated: 2, unchanged: 1 });
    expect(res.json().errors).toEqual([
      { line: 3, column: 'codigo', message: `repite el código ${a} de la línea 2` },
      { line: 4, column: 'codigo', message: `repite el código ${a} de la línea 2` },
      { line: 6, column: 'codigo', message: `repite el código ${b} de la línea 5` },
      { line: 9, column: 'codigo', message: `repite el código ${b} de la línea 5` },
    ]);
    const products = await list(o.headers);
    expect(products.map((p) => [p['sku'], p['barcode'], p['name'], p['base_price'], p['category_id']])).toEqual([
      ['OLD-1', b, 'Harina 0000', 750, 2],
      [null, null, 'sal FINA', 350, null],
      ['KEEP-1', null, 'Queso', 900, null],
      ['NEW-1', a, 'Azúcar 1 kg', 1000, 1],
    ]);
    const categories = (await t.app.inject({ url: '/api/v1/categories', headers: o.headers })).json().categories;
    expect(categories).toEqual([
      { id: 1, name: 'Almacén', products: 1 },
      { id: 2, name: 'Panadería', products: 1 },
    ]);
    // One product.upserted per product the file created or changed, with its state after the file,
    // in the order the file first touched them.
    const upserted = await t.container.db.query<{ name: string }>(
      `SELECT payload->'data'->'product'->>'name' AS name FROM outbox_events
        WHERE company_id = $1 AND event = 'product.upserted' ORDER BY seq OFFSET $2`,
      [o.company.id, before],
    );
    expect(upserted.map((e) => e.name)).toEqual(['Azúcar 1 kg', 'Harina 0000', 'sal FINA']);
  });

  it('refuses what is not a catalogue: empty file, unknown columns only, wrong content type', async () => {
    const o = await owner();
    expect((await upload(o.headers, '')).statusCode).toBe(422);
    expect((await upload(o.headers, 'foo;bar\n1;2\n')).statusCode).toBe(422);
    const json = await t.app.inject({ method: 'POST', url: '/api/v1/products/import', headers: o.headers, payload: { a: 1 } });
    expect([415, 422]).toContain(json.statusCode);
    expect(await list(o.headers)).toEqual([]);
  });
});
