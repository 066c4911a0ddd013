import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/modules/demo/demo.service.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeUser } from '../factories.ts';
import { tableCounter } from '../fuzz/fuzz.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

// Issue 26: the spreadsheet round trip is the identity, encodings are decoded with a real table or
// refused naming the line, and a file that is not text is refused naming what it is.

describe('spreadsheet encodings and round trip (issue 26)', () => {
  let t: TestApp;
  let counts: () => Promise<Record<string, number>>;
  beforeAll(async () => {
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000' } });
    counts = await tableCounter(t.container.db);
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
  const names = async (headers: Record<string, string>) =>
    ((await t.app.inject({ url: '/api/v1/products?limit=200', headers })).json().products as { name: string }[]).map(
      (p) => p.name,
    );
  const events = async (companyId: number) =>
    (
      await t.container.db.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox_events WHERE company_id = $1', [companyId])
    )[0]!.n;

  async function refusedFile(headers: Record<string, string>, body: Buffer, message: RegExp) {
    const before = await counts();
    const res = await upload(headers, body);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json()).toMatchObject({ code: 'validation_failed', error: expect.stringMatching(message) });
    expect(await counts()).toEqual(before);
  }

  it('decodes Windows-1252 with its real table: 0x80 €, 0x93 “, 0x94 ”, 0x96 –, 0x85 …', async () => {
    const o = await owner();
    const bytes = Buffer.concat([
      Buffer.from('nombre;precio\n'),
      Buffer.from([0x93, 0x41, 0x94, 0x20, 0x96, 0x20, 0x80, 0x20, 0x85, 0x20, 0xd1, 0x61, 0x6e, 0x64, 0xfa]),
      Buffer.from(';10\n'),
    ]);
    const res = await upload(o.headers, bytes);
    expect(res.json()).toMatchObject({ created: 1, encoding: 'windows-1252', errors: [] });
    expect(await names(o.headers)).toEqual(['“A” – € … Ñandú']);
  });

  it('reads UTF-16 with its BOM, little and big endian', async () => {
    const o = await owner();
    const text = 'nombre;precio\nÑandú 🧉;10\n';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    expect((await upload(o.headers, le)).json()).toMatchObject({ created: 1, encoding: 'utf-16le', errors: [] });
    const be = Buffer.from(le);
    be.swap16();
    expect((await upload(o.headers, be)).json()).toMatchObject({ created: 0, unchanged: 1, encoding: 'utf-16be' });
    expect(await names(o.headers)).toEqual(['Ñandú 🧉']);
  });

  it('refuses a UTF-8 file with one Windows-1252 line, naming that line', async () => {
    const o = await owner();
    const mixed = Buffer.concat([
      Buffer.from('nombre;precio\nÑandú;10\nPan;5\n', 'utf8'),
      Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x3b, 0x33, 0x0a]), // Café;3 in Windows-1252
    ]);
    await refusedFile(o.headers, mixed, /line 4/);
  });

  it('refuses a file with a byte Windows-1252 leaves undefined, naming the line', async () => {
    const o = await owner();
    await refusedFile(
      o.headers,
      Buffer.concat([Buffer.from('nombre;precio\nA;1\n'), Buffer.from([0x41, 0x81, 0x3b, 0x31])]),
      /line 3/,
    );
  });

  it('refuses what is not text, naming what it looks like', async () => {
    const o = await owner();
    await refusedFile(o.headers, Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00]), /Excel workbook/);
    await refusedFile(
      o.headers,
      Buffer.concat([Buffer.from('nombre;precio\n'), Buffer.from([0x00, 0x01, 0xff, 0x10, 0x00])]),
      /binary.*line 2/,
    );
    await refusedFile(o.headers, Buffer.from('nombre;precio\nA\u0000B;1\n'), /binary data in utf-8 \(line 2\)/);
  });

  it('export → import of a catalogue of hostile names changes nothing and emits no event', async () => {
    const o = await owner();
    const hostile = [
      "=cmd|' /C calc'!A0",
      '+1',
      '-2',
      '@SUM(1)',
      '"quoted; semicolon"',
      "'=already quoted",
      "'plain apostrophe",
      'Ñandú con acentos: áéíóú ü',
      'Mate 🧉 y emoji 👩‍👩‍👧',
    ];
    for (const [i, name] of hostile.entries()) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/products',
        headers: o.headers,
        payload: {
          name,
          sku: i % 2 === 0 ? name.slice(0, 40) : undefined,
          base_price: 10 + i,
          description: `línea 1\r\nlínea 2; "con comillas"\n=${name}`,
          mark: i === 0 ? '=HYPERLINK("x")' : undefined,
        },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    const before = await events(o.company.id);
    const exported = await t.app.inject({ url: '/api/v1/products/export', headers: o.headers });
    const again = await upload(o.headers, exported.rawPayload);
    expect(again.json()).toMatchObject({ created: 0, updated: 0, unchanged: hostile.length, errors: [] });
    expect(await events(o.company.id)).toBe(before);
    expect((await names(o.headers)).sort()).toEqual([...hostile].sort());
  });

  it('export → import of products sharing a name and without codes creates nothing, twice over (the id column)', async () => {
    const o = await owner();
    const shared = ['Pan', 'Pan', 'pan', "=cmd|' /C calc'!A0", "=cmd|' /C calc'!A0", 'Ñandú; "x"', 'Ñandú; "x"'];
    for (const [i, name] of shared.entries()) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/products',
        headers: o.headers,
        payload: { name, base_price: 100 + i },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    const before = await events(o.company.id);
    for (let round = 0; round < 2; round++) {
      const exported = await t.app.inject({ url: '/api/v1/products/export', headers: o.headers });
      expect(exported.body.split('\r\n')[0]).toBe(
        '\uFEFFid;sku;codigo;nombre;descripcion;precio;costo;iva;categoria;marca;activo;stock_minimo;unidad;stock',
      );
      const again = await upload(o.headers, exported.rawPayload);
      expect(again.json()).toMatchObject({ created: 0, updated: 0, unchanged: shared.length, errors: [] });
    }
    expect(await events(o.company.id)).toBe(before);
    expect((await names(o.headers)).sort()).toEqual([...shared].sort());
  });

  it("the id column matches only this company's products; unidad reads unidad or kg and exports back", async () => {
    const a = await owner();
    const b = await owner();
    const made = await t.app.inject({
      method: 'POST',
      url: '/api/v1/products',
      headers: b.headers,
      payload: { name: 'Secreto de B', base_price: 50 },
    });
    const bId = made.json().product?.id ?? made.json().id;
    expect(typeof bId).toBe('number');
    const before = await events(b.company.id);
    const res = await upload(a.headers, `id;nombre;precio;unidad\n${bId};Queso cremoso;9000;por kg\n;Pan lactal;2500;unidad\n`);
    expect(res.json()).toMatchObject({ created: 2, updated: 0, errors: [] });
    expect(await events(b.company.id)).toBe(before);
    expect(await names(b.headers)).toEqual(['Secreto de B']);
    const exported = (await t.app.inject({ url: '/api/v1/products/export', headers: a.headers })).body;
    expect(exported).toMatch(/;Queso cremoso;.*;kg;0,000\r\n/);
    expect(exported).toMatch(/;Pan lactal;.*;unidad;0,000\r\n/);
    const bad = await upload(a.headers, 'id;nombre;precio;unidad\nx;Algo;1;litro\n');
    expect(bad.json()).toMatchObject({ created: 0, updated: 0 });
    expect(bad.json().errors.map((e: { column: string }) => e.column)).toEqual(['id', 'unidad']);
    const twice = await upload(a.headers, `${exported.replace(/^\uFEFF/, '')}${exported.split('\r\n')[1]}\r\n`);
    expect(twice.json().errors).toMatchObject([
      { column: 'id', message: expect.stringMatching(/^repite el id \d+ de la línea 2$/) },
    ]);
  });

  it('export → import of the demo catalogue changes nothing and emits no event', async () => {
    const demo = await seedDemo(t.container);
    const admin = demo.logins.find((l) => l.role === 'admin')!;
    const headers = { cookie: (await login(t.app, admin.email, admin.password!)).cookie, ...SAME_ORIGIN };
    const before = await events(demo.companyId);
    const exported = await t.app.inject({ url: '/api/v1/products/export', headers });
    const again = await upload(headers, exported.rawPayload);
    expect(again.json()).toMatchObject({ created: 0, updated: 0, unchanged: demo.products, errors: [] });
    expect(await events(demo.companyId)).toBe(before);
  }, 240_000); // seeding the demo (its sales included) takes a while on a loaded machine
  it('opening stock goes to the chosen deposit; the stock column adjusts one deposit, shows in the dry run and round-trips', async () => {
    const { company, headers } = await owner();
    const json = { ...headers, 'content-type': 'application/json' };
    const second = (
      await t.app.inject({ method: 'POST', url: '/api/v1/deposits', headers: json, payload: { name: 'Trastienda' } })
    ).json().deposit.id as number;
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v1/products',
      headers: json,
      payload: { name: 'Queso cremoso', base_price: 9000, unit: 'kg', stock: 2.5, deposit_id: second },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().product.id as number;
    const moves = async () =>
      (
        await t.container.db.query<{ deposit_id: number; amount: string; reason: string }>(
          'SELECT deposit_id, amount::text AS amount, reason FROM movements WHERE company_id = $1 ORDER BY id',
          [company.id],
        )
      ).map((m) => ({ ...m, amount: Number(m.amount) }));
    expect(await moves()).toEqual([{ deposit_id: second, amount: 2.5, reason: 'stock inicial' }]);
    const foreign = await t.app.inject({
      method: 'POST',
      url: '/api/v1/products',
      headers: json,
      payload: { name: 'Otro', base_price: 1, stock: 1, deposit_id: 999_999 },
    });
    expect([foreign.statusCode, foreign.json().code, foreign.json().details]).toEqual([
      422,
      'invalid_reference',
      [{ path: '/deposit_id', message: 'unknown deposit' }],
    ]);

    const exported = (await t.app.inject({ url: `/api/v1/products/export?deposit_id=${second}`, headers })).body;
    expect(exported).toMatch(/;Queso cremoso;.*;kg;2,500\r\n/);
    const before = await events(company.id);
    const same = await t.app.inject({
      method: 'POST',
      url: `/api/v1/products/import?deposit_id=${second}`,
      headers: { ...headers, 'content-type': 'text/csv' },
      payload: exported,
    });
    expect(same.json()).toMatchObject({ created: 0, updated: 0, stock_adjusted: 0, deposit_id: second });
    expect(await events(company.id)).toBe(before);
    expect(await moves()).toHaveLength(1);

    const file = `id;nombre;precio;stock\n${id};Queso cremoso;9000;4\n`;
    const dry = await t.app.inject({
      method: 'POST',
      url: `/api/v1/products/import?dry_run=true&deposit_id=${second}`,
      headers: { ...headers, 'content-type': 'text/csv' },
      payload: file,
    });
    expect(dry.json()).toMatchObject({ dry_run: true, updated: 1, unchanged: 0, stock_adjusted: 1 });
    expect(await moves()).toHaveLength(1);
    const applied = await t.app.inject({
      method: 'POST',
      url: `/api/v1/products/import?deposit_id=${second}`,
      headers: { ...headers, 'content-type': 'text/csv' },
      payload: file,
    });
    expect(applied.json()).toMatchObject({ updated: 1, stock_adjusted: 1 });
    expect((await moves()).at(-1)).toEqual({ deposit_id: second, amount: 1.5, reason: 'importación de planilla' });
    const bad = await upload(headers, 'nombre;precio;stock\nPan;10;mucho\n', true);
    expect(bad.json().errors).toEqual([{ line: 2, column: 'stock', message: 'stock inválido: "mucho" (por ejemplo 12 o 2,5)' }]);
  });
});
