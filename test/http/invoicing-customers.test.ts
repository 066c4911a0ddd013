import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeArca } from '../../src/modules/arca/fake/fake-arca.ts';
import type { TestApp } from '../app.ts';
import { buildArcaTestApp } from '../arca-app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { tableCounter } from '../fuzz/fuzz.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

const _SERVICE_CUIT = '20111111112';
const ISSUERS = ['30712345671', '20123456786', '27284567892', '30500000003'];

// Issue 28: a receipt issued to a customer of the company takes its document, IVA condition, name and
// address; the class follows ARCA's rules; another company's customer is a 404; the customer's
// receipts and sales are listed by customer.
describe('invoicing from a customer (POST /api/v1/sales/:id/invoice with customer_id)', () => {
  let t: TestApp;
  let fake: FakeArca;
  let issuer = 0;
  beforeAll(async () => {
    ({ t, fake } = await buildArcaTestApp());
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  type Headers = Record<string, string>;
  const call = (method: string, url: string, headers: Headers, payload?: unknown) =>
    t.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

  async function shop() {
    const cuit = ISSUERS[issuer++]!;
    const company = await makeCompany(t.container);
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const headers = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
    const fiscal = await call('PUT', '/api/v1/fiscal', headers, {
      cuit,
      iva_condition: 'responsable_inscripto',
      legal_name: 'Almacén Prueba S.R.L.',
      address: 'Av. Siempreviva 742',
      gross_income: '901-000000-1',
      activity_start: '2020-01-02',
      auth_mode: 'delegation',
      environment: 'homologacion',
      points_of_sale: [1],
      default_point_of_sale: 1,
    });
    expect(fiscal.statusCode, fiscal.body).toBe(200);
    const product = await makeProduct(t.container, company.id, { name: 'Yerba', basePrice: 1210, stock: 100 });
    expect((await call('POST', '/api/v1/box-sessions', headers, { box_id: 1, opening_cash: 0 })).statusCode).toBe(201);
    const sell = async (customer?: { id: number; name: string }) => {
      const res = await call(
        'POST',
        '/api/v1/sales',
        { ...headers, 'x-idempotency-key': randomUUID() },
        {
          box_id: 1,
          items: [{ product_id: product.id, quantity: 1 }],
          payments: [],
          ...(customer ? { customer: { id: customer.id, name: customer.name } } : {}),
        },
      );
      expect(res.statusCode, res.body).toBe(201);
      return res.json().sale as { id: number };
    };
    const customer = async (body: Record<string, unknown>) => {
      const res = await call('POST', '/api/v1/customers', headers, body);
      expect(res.statusCode, res.body).toBe(201);
      return res.json().customer as { id: number; name: string };
    };
    return { company, cuit, headers, sell, customer };
  }

  it('issues a Factura A to a Responsable Inscripto customer with its CUIT, condition, name and printed address', async () => {
    const s = await shop();
    const trebol = await s.customer({
      name: 'Kiosco El Trébol',
      document_type: 'cuit',
      document: '30-50000000-3',
      iva_condition: 1,
      address: { street: 'Av. Rivadavia 5200', city: 'CABA', postal_code: 'C1424' },
    });
    const sale = await s.sell(trebol);
    const res = await call('POST', `/api/v1/sales/${sale.id}/invoice`, s.headers, { customer_id: trebol.id });
    expect(res.statusCode, res.body).toBe(201);
    const invoice = res.json().invoice;
    expect(invoice).toMatchObject({
      type: 'A',
      customer_id: trebol.id,
      buyer: {
        doc_type: 80,
        doc_number: '30500000003',
        iva_condition: 1,
        name: 'Kiosco El Trébol',
        address: 'Av. Rivadavia 5200, CABA (C1424)',
      },
    });
    const sent = fake.control.receipts().find((r) => r.cuit === s.cuit)!;
    expect(sent).toMatchObject({ type: 1, docType: 80, docNumber: '30500000003' });

    // The customer moves: the receipt keeps the address it was printed with.
    await call('PATCH', `/api/v1/customers/${trebol.id}`, s.headers, { address: { street: 'Otra calle 1' } });
    const again = await call('GET', `/api/v1/invoices/${invoice.id}`, s.headers);
    expect(again.json().invoice.buyer.address).toBe('Av. Rivadavia 5200, CABA (C1424)');
    const printed = await call('GET', `/facturas/${invoice.id}`, s.headers);
    expect(printed.body).toContain('Domicilio: Av. Rivadavia 5200, CABA (C1424)');

    // The customer's receipts and sales, and nobody else's.
    const listed = await call('GET', `/api/v1/invoices?customer_id=${trebol.id}`, s.headers);
    expect(listed.json().invoices.map((i: { id: number }) => i.id)).toEqual([invoice.id]);
    const sales = await call('GET', `/api/v1/sales?customer_id=${trebol.id}`, s.headers);
    expect(sales.json().sales.map((x: { id: number }) => x.id)).toEqual([sale.id]);
  });

  it("without customer_id or buyer, the receipt goes to the sale's own customer; a buyer given still wins", async () => {
    const s = await shop();
    const trebol = await s.customer({ name: 'Kiosco Sur', document_type: 'cuit', document: '30-50000000-3', iva_condition: 1 });
    const first = await call('POST', `/api/v1/sales/${(await s.sell(trebol)).id}/invoice`, s.headers, {});
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().invoice).toMatchObject({
      type: 'A',
      customer_id: trebol.id,
      buyer: { doc_type: 80, doc_number: '30500000003' },
    });
    const anonymous = await call('POST', `/api/v1/sales/${(await s.sell(trebol)).id}/invoice`, s.headers, {
      buyer: { iva_condition: 5 },
    });
    expect(anonymous.statusCode, anonymous.body).toBe(201);
    expect(anonymous.json().invoice).toMatchObject({ type: 'B', customer_id: null, buyer: { doc_type: 99 } });
  });

  it('gives a Factura B to customers a Factura A cannot go to: DNI, Consumidor Final, passport (unidentified)', async () => {
    const s = await shop();
    const dni = await s.customer({ name: 'María González', document_type: 'dni', document: '28.456.789' });
    const tourist = await s.customer({ name: 'Tourist', document_type: 'pasaporte', document: 'AAB123456', iva_condition: 9 });
    const first = await call('POST', `/api/v1/sales/${(await s.sell()).id}/invoice`, s.headers, { customer_id: dni.id });
    expect(first.json().invoice).toMatchObject({ type: 'B', buyer: { doc_type: 96, doc_number: '28456789', iva_condition: 5 } });
    const second = await call('POST', `/api/v1/sales/${(await s.sell()).id}/invoice`, s.headers, { customer_id: tourist.id });
    expect(second.json().invoice).toMatchObject({ type: 'B', buyer: { doc_type: 99, iva_condition: 9, name: 'Tourist' } });
  });

  it("refuses another company's customer as not found, and customer_id together with buyer, changing nothing", async () => {
    const mine = await shop();
    const theirs = await shop();
    const secret = await theirs.customer({ name: 'Secreto', document_type: 'cuit', document: '30-50000000-3', iva_condition: 1 });
    const sale = await mine.sell();
    const counts = await tableCounter(t.container.db);
    const before = await counts();
    const foreign = await call('POST', `/api/v1/sales/${sale.id}/invoice`, mine.headers, { customer_id: secret.id });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.body).not.toContain('Secreto');
    const both = await call('POST', `/api/v1/sales/${sale.id}/invoice`, mine.headers, {
      customer_id: secret.id,
      buyer: { iva_condition: 5 },
    });
    expect(both.statusCode).toBe(422);
    expect(await counts()).toEqual(before);
    expect((await call('GET', `/api/v1/invoices?customer_id=${secret.id}`, mine.headers)).json().invoices).toEqual([]);
  });
});
