import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ean13 } from '../../src/lib/barcode.ts';
import { englishWords } from '../../src/web/ui/english.ts';
import { PRODUCT_MESSAGES } from '../../src/web/ui/catalog.ts';
import { messageFor } from '../../src/web/ui/api.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeUser } from '../factories.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

// Issue 26: the catalogue's refusals carry the details a screen words in Spanish (the expected check
// digit, the other product's name and id, what a refused file is), and the import report is Spanish.

describe('catalogue refusals a screen words in Spanish (issue 26)', () => {
  let t: TestApp;
  let headers: Record<string, string>;
  beforeAll(async () => {
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000' } });
    const company = await makeCompany(t.container);
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    headers = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
  });
  afterAll(() => t.close());

  const create = (body: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/api/v1/products', headers, payload: body });

  it('a duplicate barcode names the other product; the form says it in Spanish', async () => {
    const barcode = ean13('779089500099');
    const first = await create({ name: 'Queso cremoso', base_price: 100, barcode });
    expect(first.statusCode).toBe(201);
    const created = first.json();
    const id = (created.id ?? created.product?.id) as number;
    expect(id).toEqual(expect.any(Number));
    const res = await create({ name: 'Otro', base_price: 100, barcode });
    expect(res.statusCode).toBe(409);
    const body = res.json();
    expect(body.details).toEqual([{ path: '/barcode', message: 'taken', product_id: id, product_name: 'Queso cremoso' }]);
    const text = messageFor(409, body, PRODUCT_MESSAGES);
    expect(text).toBe(`El código de barras ya lo usa «Queso cremoso» (producto ${id}).`);
  });

  it('a wrong check digit says which digit it should be', async () => {
    const good = ean13('779555000006');
    const wrong = `${good.slice(0, -1)}${(Number(good.at(-1)) + 1) % 10}`;
    const res = await create({ name: 'Pan', base_price: 10, barcode: wrong });
    expect(res.statusCode).toBe(422);
    expect(res.json().details).toEqual([{ path: '/barcode', message: 'wrong_check_digit', expected: good.at(-1) }]);
    const text = messageFor(422, res.json(), PRODUCT_MESSAGES);
    expect(text).toContain(`debería ser ${good.at(-1)}`);
    expect(englishWords(text)).toEqual([]);
  });

  it('the import report words a wrong check digit in Spanish, naming the digit', async () => {
    const good = ean13('779555000006');
    const wrong = `${good.slice(0, -1)}${(Number(good.at(-1)) + 1) % 10}`;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/products/import?dry_run=true',
      headers: { ...headers, 'content-type': 'text/csv' },
      payload: `nombre;precio;codigo\nFideos;10;${wrong}\n`,
    });
    expect(res.statusCode).toBe(200);
    const [error] = res.json().errors;
    expect(error.message).toContain(`el último debería ser ${good.at(-1)}`);
    expect(englishWords(error.message)).toEqual([]);
  });

  it('a file that is not text names what it is, worded in Spanish', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/products/import?dry_run=true',
      headers: { ...headers, 'content-type': 'text/csv' },
      payload: Buffer.from([0x50, 0x4b, 0x03, 0x04, 1, 2, 3]),
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().details).toEqual([{ path: '/body', message: 'not_text', found: 'xlsx' }]);
    const text = messageFor(422, res.json());
    expect(text).toContain('Excel');
    expect(englishWords(text)).toEqual([]);
  });
});
