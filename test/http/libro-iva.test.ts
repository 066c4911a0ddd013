import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeArca } from '../../src/modules/arca/fake/fake-arca.ts';
import { toCents } from '../../src/lib/money.ts';
import type { TestApp } from '../app.ts';
import { buildArcaTestApp } from '../arca-app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { sendEvent } from '../integration-helpers.ts';
import { parseBookFile } from '../reports/libro-iva-layout.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

const _SERVICE_CUIT = '20111111112';

/** Issue 30: the Libro IVA Digital — ventas files, read back by the layout, and totals that equal the receipts. */
describe('Libro IVA Digital — ventas (/api/v1/fiscal/libro-iva-ventas)', () => {
  let t: TestApp;
  let fake: FakeArca;
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

  async function shop(cuit: string) {
    const company = await makeCompany(t.container);
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const asAdmin = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
    const setup = await call('PUT', '/api/v1/fiscal', asAdmin, {
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
    expect(setup.statusCode, setup.body).toBe(200);
    const p21 = await makeProduct(t.container, company.id, { name: 'Yerba', basePrice: 1210, stock: 100 });
    const p105 = await makeProduct(t.container, company.id, { name: 'Pan', basePrice: 1105, stock: 100, ivaRate: '10.5' });
    const exempt = await makeProduct(t.container, company.id, { name: 'Libro', basePrice: 5000, stock: 100, ivaRate: 'exento' });
    expect((await call('POST', '/api/v1/box-sessions', asAdmin, { box_id: 1, opening_cash: 0 })).statusCode).toBe(201);
    const sell = async (items: { product_id: number; quantity: number }[]) => {
      const res = await call(
        'POST',
        '/api/v1/sales',
        { ...asAdmin, 'x-idempotency-key': randomUUID() },
        { box_id: 1, items, payments: [] },
      );
      expect(res.statusCode, res.body).toBe(201);
      return res.json().sale as { id: number };
    };
    const issue = async (saleId: number, body: unknown = {}) => {
      const res = await call('POST', `/api/v1/sales/${saleId}/invoice`, asAdmin, body);
      expect(res.statusCode, res.body).toBeLessThan(300);
      return res.json().invoice as { id: number; issue_date: string };
    };
    return { company, asAdmin, p21, p105, exempt, sell, issue };
  }

  it('writes every receipt with CAE in the layout, and the totals rebuilt from the files equal the receipts', async () => {
    const s = await shop('30712345671');
    const b = await s.issue(
      (
        await s.sell([
          { product_id: s.p21.id, quantity: 2 },
          { product_id: s.p105.id, quantity: 1 },
        ])
      ).id,
    );
    await s.issue((await s.sell([{ product_id: s.exempt.id, quantity: 1 }])).id);
    const aSale = await s.sell([
      { product_id: s.p21.id, quantity: 1 },
      { product_id: s.exempt.id, quantity: 1 },
    ]);
    const a = await s.issue(aSale.id, {
      buyer: { doc_type: 'cuit', doc_number: '30-50001091-2', iva_condition: 1, name: 'Distribuidora Ñandú S.A.' },
    });
    // A credit note for the A invoice: the sale is cancelled first.
    expect((await call('POST', `/api/v1/sales/${aSale.id}/cancel`, s.asAdmin, { reason: 'devolución' })).statusCode).toBe(200);
    // The cancel issued it in the same request (issue 29): asking again answers it.
    const nc = await call('POST', `/api/v1/invoices/${a.id}/credit-note`, s.asAdmin);
    expect(nc.statusCode, nc.body).toBe(200);
    // A receipt another system issued (invoice.issued) for a sale received through the integration.
    const key = s.company.integrationKey;
    const created = await sendEvent(t.app, key, {
      event: 'sales.created',
      data: { sale: { id: 9001, total: 2420, items: [{ product_id: s.p21.id, quantity: 2, price: 1210 }] } },
    });
    expect(created.statusCode, created.body).toBeLessThan(300);
    const received = await sendEvent(t.app, key, {
      event: 'invoice.issued',
      data: {
        invoice: {
          id: 9001,
          sale_id: 9001,
          type: 'B',
          point_of_sale: 7,
          number: 15,
          cae: '12345678901234',
          cae_expiration: '2099-01-01T00:00:00Z',
          total: 2420,
          issued_at: new Date().toISOString(),
        },
      },
    });
    expect(received.statusCode, received.body).toBeLessThan(300);

    const period = b.issue_date.slice(0, 7).replace('-', '');
    const cbteRes = await call('GET', `/api/v1/fiscal/libro-iva-ventas?period=${period}&file=cbte`, s.asAdmin);
    expect(cbteRes.statusCode, cbteRes.body).toBe(200);
    expect(cbteRes.headers['content-type']).toBe('text/plain; charset=ISO-8859-1');
    expect(cbteRes.headers['content-disposition']).toContain(`LIBRO_IVA_DIGITAL_VENTAS_CBTE_${period}.txt`);
    const cbte = parseBookFile(cbteRes.rawPayload, 'cbte');
    const alicuotas = parseBookFile(
      (await call('GET', `/api/v1/fiscal/libro-iva-ventas?period=${period}&file=alicuotas`, s.asAdmin)).rawPayload,
      'alicuotas',
    );
    // The name keeps its Ñ as one Latin-1 byte.
    expect(cbteRes.rawPayload.includes(Buffer.from('Ñandú', 'latin1'))).toBe(true);

    const rows = await t.container.db.query<{
      receipt_code: number | null;
      type: string;
      point_of_sale: number;
      number: string;
      total: string;
    }>(
      'SELECT receipt_code, type, point_of_sale, number::text AS number, total::text AS total FROM invoices WHERE company_id = $1',
      [s.company.id],
    );
    expect(cbte).toHaveLength(rows.length);
    expect(cbte.map((c) => [c['tipo'], c['punto_de_venta'], Number(c['numero'])]).sort()).toEqual(
      rows.map((r) => [r.receipt_code ?? 6, r.point_of_sale, Number(r.number)]).sort(),
    );
    for (const c of cbte) {
      const key = `${c['tipo']}-${c['punto_de_venta']}-${c['numero']}`;
      const lines = alicuotas.filter((l) => `${l['tipo']}-${l['punto_de_venta']}-${l['numero']}` === key);
      // Field 19 is the number of rate lines; the total is the sum of the parts.
      expect(lines.length, key).toBe(c['cantidad_alicuotas']);
      const parts = lines.reduce((sum, l) => sum + Number(l['neto_gravado']) + Number(l['impuesto']), 0);
      expect(parts + Number(c['exento']) + Number(c['no_gravado']), key).toBe(c['total']);
      for (const l of lines) {
        const rate = { 3: 0, 4: 105, 5: 210, 6: 270, 8: 50, 9: 25 }[Number(l['alicuota'])]!;
        expect(Math.abs(Number(l['impuesto']) - Math.round((Number(l['neto_gravado']) * rate) / 1000)), key).toBeLessThanOrEqual(
          1,
        );
      }
    }
    // The sum of the files' totals is the sum of the receipts (credit notes too: positive, their type subtracts).
    expect(cbte.reduce((sum, c) => sum + Number(c['total']), 0)).toBe(rows.reduce((sum, r) => sum + toCents(r.total), 0));

    // The readable book: per type and per rate, the sums of its receipts and of the files.
    const book = (await call('GET', `/api/v1/fiscal/libro-iva-ventas?period=${period}`, s.asAdmin)).json();
    expect(book.skipped).toEqual([]);
    expect(book.by_type.map((x: { code: number; count: number }) => [x.code, x.count])).toEqual([
      [1, 1],
      [3, 1],
      [6, 3],
    ]);
    for (const rate of book.by_rate) {
      const lines = alicuotas.filter((l) => Number(l['alicuota']) === rate.id);
      const credit = (l: Record<string, string | number>) => l['tipo'] === 3 || l['tipo'] === 8;
      const sum = (f: (l: Record<string, string | number>) => boolean, k: string) =>
        lines.filter(f).reduce((s2, l) => s2 + Number(l[k]), 0);
      expect(toCents(rate.base)).toBe(sum((l) => !credit(l), 'neto_gravado'));
      expect(toCents(rate.iva)).toBe(sum((l) => !credit(l), 'impuesto'));
      expect(toCents(rate.credit_iva)).toBe(sum(credit, 'impuesto'));
    }
    const bookTotal = book.receipts.reduce((sum: number, r: { total: number }) => sum + toCents(r.total), 0);
    expect(book.by_type.reduce((sum: number, x: { total: number }) => sum + toCents(x.total), 0)).toBe(bookTotal);
  });

  it("a received receipt whose sale's lines add up past 2^53 cents is skipped, not a 500", async () => {
    // Each line fits its column ($ 999.999.999.999,99), and the integration takes a total apart from
    // its lines: 91 such lines add up, per rate, past the cents a double holds exactly.
    const s = await shop('30716549875');
    const key = s.company.integrationKey;
    const items = Array.from({ length: 91 }, () => ({ product_id: s.p21.id, quantity: 1, price: 999_999_999_999.99 }));
    const created = await sendEvent(t.app, key, {
      event: 'sales.created',
      data: { sale: { id: 9101, total: 1210, items, created_at: '2026-03-10T12:00:00-03:00' } },
    });
    expect(created.statusCode, created.body).toBeLessThan(300);
    const received = await sendEvent(t.app, key, {
      event: 'invoice.issued',
      data: {
        invoice: {
          id: 9101,
          sale_id: 9101,
          type: 'B',
          point_of_sale: 7,
          number: 16,
          cae: '12345678901234',
          cae_expiration: '2099-01-01T00:00:00Z',
          total: 1210,
          issued_at: '2026-03-10T15:00:00Z',
        },
      },
    });
    expect(received.statusCode, received.body).toBeLessThan(300);
    const book = await call('GET', '/api/v1/fiscal/libro-iva-ventas?period=202603', s.asAdmin);
    expect(book.statusCode, book.body).toBe(200);
    expect(book.json()).toMatchObject({
      receipts: [],
      skipped: [{ receipt: expect.stringContaining('00016'), reason: expect.stringContaining('do not add up') }],
    });
    for (const file of ['cbte', 'alicuotas']) {
      const res = await call('GET', `/api/v1/fiscal/libro-iva-ventas?period=202603&file=${file}`, s.asAdmin);
      expect(res.statusCode, `${file}: ${res.body}`).toBe(200);
      expect(res.rawPayload.length).toBe(0);
    }
  });

  it('refuses a period that is not a month, and shows a company only its own receipts', async () => {
    const s = await shop('30500010912');
    const other = await shop('33693450239');
    const invoice = await s.issue((await s.sell([{ product_id: s.p21.id, quantity: 1 }])).id);
    const period = invoice.issue_date.slice(0, 7).replace('-', '');
    expect((await call('GET', '/api/v1/fiscal/libro-iva-ventas?period=2026-03', s.asAdmin)).statusCode).toBe(400);
    const bad = await call('GET', '/api/v1/fiscal/libro-iva-ventas?period=202613', s.asAdmin);
    expect(bad.statusCode).toBe(422);
    expect(bad.json().code).toBe('validation_failed');
    const theirs = (await call('GET', `/api/v1/fiscal/libro-iva-ventas?period=${period}`, other.asAdmin)).json();
    expect(theirs.receipts).toEqual([]);
    const file = await call('GET', `/api/v1/fiscal/libro-iva-ventas?period=${period}&file=cbte`, other.asAdmin);
    expect(file.rawPayload.length).toBe(0);
    expect((await call('GET', '/api/v1/fiscal/libro-iva-ventas?period=201001', s.asAdmin)).json().receipts).toEqual([]);
  });

  it('answers the months at the edges of the calendar: year 9999 and years below 1000 (were a 500), and refuses year 0000', async () => {
    const s = await shop('30711111111');
    for (const [period, from, to] of [
      ['999912', '9999-12-01', '9999-12-31'],
      ['036812', '0368-12-01', '0368-12-31'],
      ['009912', '0099-12-01', '0099-12-31'],
      ['000102', '0001-02-01', '0001-02-28'],
      ['040002', '0400-02-01', '0400-02-29'],
    ]) {
      const res = await call('GET', `/api/v1/fiscal/libro-iva-ventas?period=${period}`, s.asAdmin);
      expect(res.statusCode, `${period}: ${res.body}`).toBe(200);
      expect(res.json()).toMatchObject({ period, from, to, receipts: [] });
      const file = await call('GET', `/api/v1/fiscal/libro-iva-ventas?period=${period}&file=alicuotas`, s.asAdmin);
      expect(file.statusCode, `${period}: ${file.body}`).toBe(200);
    }
    for (const period of ['000001', '000012']) {
      const res = await call('GET', `/api/v1/fiscal/libro-iva-ventas?period=${period}`, s.asAdmin);
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json()).toMatchObject({ code: 'validation_failed', details: [{ path: '/period' }] });
    }
  });
});
