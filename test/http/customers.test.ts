import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeUser } from '../factories.ts';
import { tableCounter } from '../fuzz/fuzz.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

// Issue 28: the merchant CRM. Customers are created, searched, changed and disabled (never deleted);
// documents, phones and emails are checked and stored normalised; a document is unique per company and
// type; another company's customers are invisible everywhere; the spreadsheet round trip is the identity.

const TREBOL = {
  name: 'Kiosco El Trébol',
  document_type: 'cuit',
  document: '30-71234567-1',
  iva_condition: 1,
  address: { street: 'Av. Rivadavia 5200', city: 'CABA', province: 'Ciudad Autónoma de Buenos Aires', postal_code: 'C1424' },
  phone: '011 15 4321-5678',
  email: ' Compras@Trebol.com.ar ',
  account_enabled: true,
  credit_limit: 300000,
};

describe('customers: the merchant CRM (issue 28)', () => {
  let t: TestApp;
  let counts: () => Promise<Record<string, number>>;
  beforeAll(async () => {
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000', AUTH_LOGIN_LIMIT_PER_ACCOUNT: '1000' } });
    counts = await tableCounter(t.container.db);
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
  const create = (headers: Record<string, string>, payload: unknown) => call('POST', '/api/v1/customers', headers, payload);
  const search = async (headers: Record<string, string>, query: string) => {
    const res = await call('GET', `/api/v1/customers?${query}`, headers);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { customers: { id: number; name: string }[]; meta: { next_cursor: string | null } };
  };

  it('creates a customer with its document, condition, address and contact stored normalised, and reads it back', async () => {
    const s = await shop();
    const res = await create(s.asAdmin, TREBOL);
    expect(res.statusCode, res.body).toBe(201);
    const customer = res.json().customer;
    expect(customer).toEqual({
      id: expect.any(Number),
      name: 'Kiosco El Trébol',
      document_type: 'cuit',
      document: '30712345671',
      iva_condition: 1,
      address: TREBOL.address,
      email: 'compras@trebol.com.ar',
      phone: '+5491143215678',
      notes: null,
      account_enabled: true,
      credit_limit: 300000,
      enabled: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const read = await call('GET', `/api/v1/customers/${customer.id}`, s.readToken);
    expect(read.statusCode).toBe(200);
    expect(read.json().customer).toEqual(customer);

    // A customer with only a name is a Consumidor Final with nothing else.
    const plain = (await create(s.asCashier, { name: '  Juan Pérez ' })).json().customer;
    expect(plain).toMatchObject({
      name: 'Juan Pérez',
      document_type: null,
      document: null,
      iva_condition: 5,
      credit_limit: null,
    });
    expect(plain.id).toBe(customer.id + 1);
  });

  it('changes any subset of fields, clears the document with its type, and disables instead of deleting', async () => {
    const s = await shop();
    const { id } = (await create(s.asAdmin, TREBOL)).json().customer;
    const patched = await call('PATCH', `/api/v1/customers/${id}`, s.asAdmin, {
      address: { city: 'Buenos Aires' },
      notes: 'Paga los viernes',
      credit_limit: null,
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().customer).toMatchObject({
      address: { ...TREBOL.address, city: 'Buenos Aires' },
      notes: 'Paga los viernes',
      credit_limit: null,
      document: '30712345671',
    });
    // A Responsable Inscripto keeps its CUIT: clearing it alone is refused; with the condition it is not.
    expect((await call('PATCH', `/api/v1/customers/${id}`, s.asAdmin, { document: null })).json()).toMatchObject({
      code: 'validation_failed',
      details: [{ path: '/document_type', message: 'cuit_required' }],
    });
    const cleared = await call('PATCH', `/api/v1/customers/${id}`, s.asAdmin, { document: null, iva_condition: 5 });
    expect(cleared.json().customer).toMatchObject({ document: null, document_type: null, iva_condition: 5 });

    const disabled = await call('PATCH', `/api/v1/customers/${id}`, s.asAdmin, { enabled: false });
    expect(disabled.json().customer.enabled).toBe(false);
    expect((await call('GET', `/api/v1/customers/${id}`, s.asAdmin)).statusCode).toBe(200);
    expect((await search(s.asAdmin, 'enabled=true')).customers).toEqual([]);
    expect((await search(s.asAdmin, 'enabled=false')).customers.map((c) => c.id)).toEqual([id]);
  });

  it.each([
    [
      { document_type: 'cuit', document: '30-71234567-2' },
      { path: '/document', message: 'wrong_check_digit', expected: '1' },
    ],
    [
      { document_type: 'cuil', document: '2012345678' },
      { path: '/document', message: 'wrong_length' },
    ],
    [
      { document_type: 'dni', document: '123456' },
      { path: '/document', message: 'not_a_dni' },
    ],
    [
      { document_type: 'pasaporte', document: 'AB?12' },
      { path: '/document', message: 'not_a_passport' },
    ],
    [{ document: '20123456786' }, { path: '/document_type', message: 'required' }],
    [{ document_type: 'dni' }, { path: '/document', message: 'required' }],
    [{ phone: '4321-5678' }, { path: '/phone', message: 'not_a_phone' }],
    [{ phone: 'llamame' }, { path: '/phone', message: 'not_a_phone' }],
    [{ email: 'compras@' }, { path: '/email', message: 'not_an_email' }],
    [{ iva_condition: 3 }, { path: '/iva_condition', message: 'unknown_condition' }],
    [{ iva_condition: 1 }, { path: '/document_type', message: 'cuit_required' }],
    [
      { iva_condition: 6, document_type: 'dni', document: '28456789' },
      { path: '/document_type', message: 'cuit_required' },
    ],
  ])('refuses %j with 422 naming the field, and stores nothing', async (fields, detail) => {
    const s = await shop();
    const before = await counts();
    const res = await create(s.asAdmin, { name: 'Cliente', ...fields });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json()).toMatchObject({ code: 'validation_failed', details: [detail] });
    expect(await counts()).toEqual(before);
  });

  it('refuses a document another customer of the company has, naming that customer; another company may have it', async () => {
    const s = await shop();
    const first = (await create(s.asAdmin, TREBOL)).json().customer;
    const before = await counts();
    const again = await create(s.asAdmin, { name: 'Otro', document_type: 'cuit', document: '30712345671' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({
      code: 'customer_document_taken',
      details: [{ path: '/document', message: 'taken', customer_id: first.id, customer_name: 'Kiosco El Trébol' }],
    });
    expect(await counts()).toEqual(before);
    // The same number as a CUIL is another document; taking the CUIT by a change is refused too.
    const other = (await create(s.asAdmin, { name: 'Otro', document_type: 'dni', document: '28456789' })).json().customer;
    const taken = await call('PATCH', `/api/v1/customers/${other.id}`, s.asAdmin, {
      document_type: 'cuit',
      document: '30712345671',
    });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().details[0].customer_id).toBe(first.id);
    // Changing a customer keeps its own document.
    expect((await call('PATCH', `/api/v1/customers/${first.id}`, s.asAdmin, { name: 'El Trébol' })).statusCode).toBe(200);

    const elsewhere = await shop('Otra empresa');
    const theirs = await create(elsewhere.asAdmin, { name: 'Su cliente', document_type: 'cuit', document: '30712345671' });
    expect(theirs.statusCode, theirs.body).toBe(201);
  });

  it("keeps another company's customers invisible: 404 on read and change, absent from lists and searches", async () => {
    const mine = await shop('Mía');
    const theirs = await shop('Ajena');
    const secret = (
      await create(theirs.asAdmin, { ...TREBOL, name: 'Cliente Secreto', email: 'secreto@ajena.com', phone: '11 5555 0101' })
    ).json().customer;
    for (const headers of [mine.asAdmin, mine.rwToken]) {
      const read = await call('GET', `/api/v1/customers/${secret.id}`, headers);
      expect(read.statusCode).toBe(404);
      expect(read.body).not.toContain('Secreto');
      const before = await counts();
      const change = await call('PATCH', `/api/v1/customers/${secret.id}`, headers, { name: 'Robado' });
      expect(change.statusCode).toBe(404);
      expect(await counts()).toEqual(before);
    }
    for (const q of ['secreto', 'secreto@ajena.com', '30712345671', '1155550101']) {
      expect((await search(mine.asAdmin, `q=${encodeURIComponent(q)}`)).customers).toEqual([]);
    }
    // Their document and email are free here, and taking them reveals nothing about the other company.
    const same = await create(mine.asAdmin, {
      name: 'Mío',
      document_type: 'cuit',
      document: '30712345671',
      email: 'secreto@ajena.com',
    });
    expect(same.statusCode).toBe(201);
    expect(same.body).not.toContain('Secreto');
    const exported = await call('GET', '/api/v1/customers/export', mine.asAdmin);
    expect(exported.body).not.toContain('Secreto');
    expect((await call('GET', `/api/v1/customers/${secret.id}`, theirs.asAdmin)).json().customer.name).toBe('Cliente Secreto');
  });

  it('searches name without accents or case, document as typed, phone digits and email, page by page', async () => {
    const s = await shop();
    await create(s.asAdmin, TREBOL);
    await create(s.asAdmin, { name: 'José Núñez', document_type: 'dni', document: '28.456.789', phone: '+54 9 351 123-4567' });
    await create(s.asAdmin, { name: 'Ñandú Distribuidora', email: 'ventas@nandu.com' });
    const names = async (q: string) => (await search(s.asAdmin, `q=${encodeURIComponent(q)}`)).customers.map((c) => c.name);
    expect(await names('trebol')).toEqual(['Kiosco El Trébol']);
    expect(await names('TRÉBOL kiosco')).toEqual(['Kiosco El Trébol']);
    expect(await names('nunez jose')).toEqual(['José Núñez']);
    expect(await names('nandu')).toEqual(['Ñandú Distribuidora']);
    expect(await names('30-71234567-1')).toEqual(['Kiosco El Trébol']);
    expect(await names('28456789')).toEqual(['José Núñez']);
    expect(await names('4321-5678')).toEqual(['Kiosco El Trébol']);
    expect(await names('351 1234567')).toEqual(['José Núñez']);
    expect(await names('ventas@nandu')).toEqual(['Ñandú Distribuidora']);
    expect(await names('nadie')).toEqual([]);

    const first = await search(s.asAdmin, 'limit=2');
    expect(first.customers.map((c) => c.name)).toEqual(['José Núñez', 'Kiosco El Trébol']);
    const rest = await search(s.asAdmin, `limit=2&cursor=${first.meta.next_cursor}`);
    expect(rest.customers.map((c) => c.name)).toEqual(['Ñandú Distribuidora']);
    expect(rest.meta.next_cursor).toBeNull();
    expect((await call('GET', '/api/v1/customers?cursor=nope', s.asAdmin)).statusCode).toBe(422);
  });

  it('lets cashiers read and create (quick-create) but not change; read-only tokens only read', async () => {
    const s = await shop();
    const made = await create(s.asCashier, { name: 'Cliente de mostrador', document_type: 'dni', document: '30111222' });
    expect(made.statusCode, made.body).toBe(201);
    const { id } = made.json().customer;
    expect((await call('GET', `/api/v1/customers/${id}`, s.asCashier)).statusCode).toBe(200);
    expect((await call('PATCH', `/api/v1/customers/${id}`, s.asCashier, { name: 'Otro' })).statusCode).toBe(403);
    expect((await call('GET', '/api/v1/customers/export', s.asCashier)).statusCode).toBe(403);
    expect((await create(s.readToken, { name: 'No' })).statusCode).toBe(403);
    expect((await call('GET', '/api/v1/customers', s.readToken)).statusCode).toBe(200);
    expect((await create(s.rwToken, { name: 'Sí' })).statusCode).toBe(201);
    expect((await call('PATCH', `/api/v1/customers/${id}`, s.rwToken, { notes: 'ok' })).statusCode).toBe(200);
    expect((await call('GET', '/api/v1/customers', {})).statusCode).toBe(401);
  });

  describe('spreadsheets', () => {
    const upload = (headers: Record<string, string>, body: Buffer | string, dryRun = false) =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/customers/import?dry_run=${dryRun}`,
        headers: { ...headers, 'content-type': 'text/csv' },
        payload: body,
      });

    it('exports what the import reads back unchanged, formula-like cells included', async () => {
      const s = await shop();
      await create(s.asAdmin, { ...TREBOL, notes: '=HYPERLINK("http://x";"y")' });
      await create(s.asAdmin, {
        name: '@Juan; "el del kiosco"',
        phone: '11 4444 5555',
        credit_limit: 1234.5,
        account_enabled: true,
      });
      await create(s.asAdmin, { name: 'Pasajera', document_type: 'pasaporte', document: 'aab123456', iva_condition: 9 });
      const exported = await call('GET', '/api/v1/customers/export', s.asAdmin);
      expect(exported.statusCode).toBe(200);
      expect(exported.headers['content-type']).toMatch(/^text\/csv/);
      const text = exported.body;
      expect(text.startsWith('\uFEFFid;nombre;tipo_documento;documento;condicion_iva;')).toBe(true);
      expect(text).toContain("'+5491143215678");
      expect(text).toContain(`"'=HYPERLINK(""http://x"";""y"")"`);
      expect(text).toContain('1234,50');
      expect(text).toContain('IVA Responsable Inscripto');

      const before = await counts();
      const back = await upload(s.asAdmin, text);
      expect(back.statusCode, back.body).toBe(200);
      expect(back.json()).toMatchObject({ created: 0, updated: 0, unchanged: 3, errors: [], encoding: 'utf-8', separator: ';' });
      expect((await call('GET', '/api/v1/customers/export', s.asAdmin)).body).toBe(text);
      const { audit_log: _audit, ...rest } = await counts();
      const { audit_log: _before, ...restBefore } = before;
      expect(rest).toEqual(restBefore);
    });

    it('refuses a credit limit that would be stored as $ 0 (0,001 is no limit of 0), naming line and column', async () => {
      const s = await shop();
      const res = await upload(s.asAdmin, ['nombre;limite_credito', 'Casi cero;0,001', 'Un centavo;0,01'].join('\r\n'));
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({
        created: 1,
        errors: [{ line: 2, column: 'limite_credito', message: expect.stringContaining('queda en $ 0') }],
      });
      const listed = (await call('GET', '/api/v1/customers', s.asAdmin)).json().customers;
      expect(listed.map((c: { name: string; credit_limit: number | null }) => [c.name, c.credit_limit])).toEqual([
        ['Un centavo', 0.01],
      ]);
    });

    it('imports a Windows-1252 file, matching by document, and reports bad rows by line and column', async () => {
      const s = await shop();
      const existing = (await create(s.asAdmin, TREBOL)).json().customer;
      const file = iconv.encode(
        [
          'Razón social;CUIT;Condición IVA;Teléfono;Límite de crédito;Color',
          'Kiosco El Trébol SRL;30-71234567-1;RI;;500.000,00;azul',
          'Ferretería Ñandú;20-12345678-5;Monotributo;;;rojo',
          'Almacén Güemes;27-28456789-2;Monotributo;0351 15 123-4567;;verde',
          'Sin teléfono;;Consumidor Final;hola;;',
          'Almacén Güemes bis;27284567892;Monotributo;;;',
        ].join('\r\n'),
        'win1252',
      );
      const dry = await upload(s.asAdmin, file, true);
      expect(dry.statusCode, dry.body).toBe(200);
      const report = dry.json();
      expect(report).toMatchObject({ created: 1, updated: 1, unchanged: 0, dry_run: true, encoding: 'windows-1252' });
      expect(report.ignored_columns).toEqual(['Color']);
      expect(report.errors).toEqual([
        { line: 3, column: 'CUIT', message: expect.stringContaining('el último debería ser 6') },
        { line: 5, column: 'Teléfono', message: expect.stringContaining('"hola"') },
        { line: 6, column: 'CUIT', message: expect.stringContaining('línea 4') },
      ]);
      expect((await search(s.asAdmin, 'q=guemes')).customers).toEqual([]);

      expect((await upload(s.asAdmin, file)).json()).toMatchObject({ created: 1, updated: 1, dry_run: false });
      const updated = (await call('GET', `/api/v1/customers/${existing.id}`, s.asAdmin)).json().customer;
      // A cell left empty in a column the file has clears that field, as in the catalogue's import.
      expect(updated).toMatchObject({ name: 'Kiosco El Trébol SRL', credit_limit: 500000, phone: null });
      const guemes = (await search(s.asAdmin, 'q=guemes')).customers;
      expect(guemes).toMatchObject([
        { name: 'Almacén Güemes', document_type: 'cuit', document: '27284567892', iva_condition: 6, phone: '+5493511234567' },
      ]);
    });

    it('refuses a file that is not a CSV, and a cashier', async () => {
      const s = await shop();
      const before = await counts();
      const xlsx = await upload(s.asAdmin, Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0]));
      expect(xlsx.statusCode).toBe(422);
      expect(xlsx.json().details[0]).toMatchObject({ message: 'not_text', found: 'xlsx' });
      expect((await upload(s.asAdmin, 'color;talle\nazul;M\n')).statusCode).toBe(422);
      expect((await upload(s.asCashier, 'nombre\nJuan\n')).statusCode).toBe(403);
      expect(await counts()).toEqual(before);
    });
  });
});
