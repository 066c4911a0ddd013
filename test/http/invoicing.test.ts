import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSelfSignedCertificate, generateKeyPair } from '../../src/modules/arca/certs.ts';
import type { FakeArca } from '../../src/modules/arca/fake/fake-arca.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { buildArcaTestApp } from '../arca-app.ts';
import { cliCtx } from '../../src/http/request-context.ts';
import { cuitCheckDigit } from '../../src/lib/cuit.ts';
import { seedDemo } from '../../src/modules/demo/demo.service.ts';
import { MAX_RECORD_ID } from '../../src/db/ids.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { sendEvent } from '../integration-helpers.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

const SERVICE_CUIT = '20111111112';
const CUITS = [
  '30712345671',
  '20123456786',
  '27222222225',
  '30500010912',
  '33693450239',
  '30999999995',
  '20333333334',
  '30710000004',
];

/** Electronic invoicing against the fake ARCA: setup, classes, thresholds, rejections, lost answers, concurrency, credit notes. */
describe('invoicing with ARCA (/api/v1/fiscal, /api/v1/sales/:id/invoice)', () => {
  let t: TestApp;
  let fake: FakeArca;
  let cuitIndex = 0;
  beforeAll(async () => {
    // Pauses of 100, 300, 600 and 1,200 ms (2.2 s in all), not the helper's 10 to 120 ms: the
    // slow-answer test needs them to outlast an answer that arrives a second after the timeout.
    // The product's own (250 ms to 3 s, 5.5 s in all) would only make the failing tests wait longer.
    ({ t, fake } = await buildArcaTestApp({ timeoutMs: 1500, env: { ARCA_RECOVERY_PAUSE_MS: '100' } }));
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });
  // Controls left over by a failed test must not leak into the next one.
  beforeEach(() => fake.control.clearQueue());

  type Headers = Record<string, string>;
  const call = (method: string, url: string, headers: Headers, payload?: unknown) =>
    t.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

  async function shop(options: { iva?: 'responsable_inscripto' | 'monotributo' | 'exento'; setup?: boolean } = {}) {
    const cuit = CUITS[cuitIndex++ % CUITS.length]!;
    const company = await makeCompany(t.container);
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const cashier = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    const asAdmin = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
    const asCashier = { cookie: (await login(t.app, cashier.email, cashier.password)).cookie, ...SAME_ORIGIN };
    // Each company its own CUIT: the fake numbers per CUIT, so companies do not share series.
    const uniqueCuit = freeCuit(cuit);
    if (options.setup !== false) {
      const res = await call('PUT', '/api/v1/fiscal', asAdmin, {
        cuit: uniqueCuit,
        iva_condition: options.iva ?? 'responsable_inscripto',
        legal_name: 'Almacén Prueba S.R.L.',
        address: 'Av. Siempreviva 742',
        gross_income: '901-000000-1',
        activity_start: '2020-01-02',
        auth_mode: 'delegation',
        environment: 'homologacion',
        points_of_sale: [1, 2],
        default_point_of_sale: 1,
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().ready).toBe(true);
    }
    const p21 = await makeProduct(t.container, company.id, { name: 'Yerba', bc: '7790001000011', basePrice: 1210, stock: 1000 });
    const p105 = await makeProduct(t.container, company.id, { name: 'Pan', bc: '7790001000028', basePrice: 1105, stock: 1000 });
    const exempt = await makeProduct(t.container, company.id, {
      name: 'Libro',
      bc: '7790001000035',
      basePrice: 5000,
      stock: 1000,
    });
    await t.container.db.query(`UPDATE products SET iva_rate = '10.5' WHERE company_id = $1 AND id = $2`, [company.id, p105.id]);
    await t.container.db.query(`UPDATE products SET iva_rate = 'exento' WHERE company_id = $1 AND id = $2`, [
      company.id,
      exempt.id,
    ]);
    const session = await call('POST', '/api/v1/box-sessions', asCashier, { box_id: 1, opening_cash: 0 });
    expect(session.statusCode, session.body).toBe(201);
    const sell = async (
      items: { product_id: number; quantity: number; price?: number }[],
      headers: Headers = asCashier,
      boxId = 1,
    ) => {
      const res = await call(
        'POST',
        '/api/v1/sales',
        { ...headers, 'x-idempotency-key': randomUUID() },
        { box_id: boxId, items, payments: [] },
      );
      expect(res.statusCode, res.body).toBe(201);
      return res.json().sale as { id: number; total: number };
    };
    return { company, cuit: uniqueCuit, admin, asAdmin, asCashier, p21, p105, exempt, sell };
  }

  /** A valid CUIT not yet used by another company of this test run (prefix varied by a counter). */
  const used = new Set<string>();
  function freeCuit(seed: string): string {
    for (let n = 0; n < 10_000; n++) {
      const body = `${seed.slice(0, 2)}${String((Number(seed.slice(2, 10)) + n * 7919) % 100_000_000).padStart(8, '0')}`;
      const check = cuitCheckDigit(body);
      if (check < 0) continue;
      const cuit = `${body}${check}`;
      if (!used.has(cuit)) {
        used.add(cuit);
        return cuit;
      }
    }
    throw new Error('no CUIT left');
  }

  const issue = (headers: Headers, saleId: number, body: unknown = {}) =>
    call('POST', `/api/v1/sales/${saleId}/invoice`, headers, body);

  async function outboxInvoices(companyId: number) {
    return t.container.db.query<{ payload: { data: { invoice: Record<string, unknown> } } }>(
      `SELECT payload FROM outbox_events WHERE company_id = $1 AND event = 'invoice.issued' ORDER BY seq`,
      [companyId],
    );
  }

  it('the fiscal setup says what is missing, is for admins with a session, and checks the connection step by step', async () => {
    const s = await shop({ setup: false });
    const fresh = await call('GET', '/api/v1/fiscal', s.asCashier);
    expect(fresh.statusCode).toBe(200);
    expect(fresh.json()).toMatchObject({ ready: false, service_cuit: SERVICE_CUIT, auth_mode: 'delegation' });
    expect(fresh.json().missing.join(' ')).toMatch(/CUIT/);
    expect(fresh.body).not.toMatch(/PRIVATE KEY/);

    expect((await call('PUT', '/api/v1/fiscal', s.asCashier, { iva_condition: 'monotributo' })).statusCode).toBe(403);
    const bad = await call('PUT', '/api/v1/fiscal', s.asAdmin, { cuit: '30-71234567-2' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().code).toBe('validation_failed');
    const badPoint = await call('PUT', '/api/v1/fiscal', s.asAdmin, {
      cuit: s.cuit,
      points_of_sale: [1],
      default_point_of_sale: 9,
    });
    expect(badPoint.statusCode).toBe(422);
    expect((await call('GET', '/api/v1/fiscal', s.asAdmin)).json().cuit).toBeNull();
    const wrongType = await call('PUT', '/api/v1/fiscal', s.asAdmin, { environment: 'prod' });
    expect(wrongType.statusCode).toBe(422);

    const ok = await call('PUT', '/api/v1/fiscal', s.asAdmin, {
      cuit: s.cuit,
      iva_condition: 'responsable_inscripto',
      points_of_sale: [7],
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ cuit: s.cuit, default_point_of_sale: 7, ready: true });

    const check = await call('POST', '/api/v1/fiscal/check', s.asAdmin);
    expect(check.statusCode, check.body).toBe(200);
    expect(check.json().ok).toBe(true);
    expect(check.json().steps.map((x: { step: string }) => x.step)).toEqual(['FEDummy', 'login', 'puntos de venta']);
    // ARCA's web-service points of sale replace the typed ones.
    const after = (await call('GET', '/api/v1/fiscal', s.asAdmin)).json();
    expect(after.points_of_sale.map((p: { number: number }) => p.number)).toEqual([1, 2]);
    expect(after.default_point_of_sale).toBe(1);

    fake.control.setPointsOfSale(s.cuit, []);
    const none = (await call('POST', '/api/v1/fiscal/check', s.asAdmin)).json();
    expect(none.ok).toBe(false);
    expect(none.steps.at(-1).message).toMatch(/no tiene puntos de venta web service/);
    fake.control.setPointsOfSale(s.cuit, [1, 2]);
    await call('POST', '/api/v1/fiscal/check', s.asAdmin);
  });

  it('own certificate: the CSR is generated here with the key sealed; a certificate must match its key, the CUIT and be in date', async () => {
    const s = await shop();
    const csr = await call('POST', '/api/v1/fiscal/csr', s.asAdmin, {});
    expect(csr.statusCode, csr.body).toBe(200);
    expect(csr.json().csr).toContain('-----BEGIN CERTIFICATE REQUEST-----');
    const [row] = await t.container.db.query<{ pending_key_sealed: string }>(
      'SELECT pending_key_sealed FROM company_fiscal WHERE company_id = $1',
      [s.company.id],
    );
    expect(row!.pending_key_sealed).toMatch(/^v1\./);
    expect(row!.pending_key_sealed).not.toContain('PRIVATE KEY');
    expect((await call('GET', '/api/v1/fiscal', s.asAdmin)).json().pending_csr).toContain('CERTIFICATE REQUEST');
    expect((await call('POST', '/api/v1/fiscal/csr', s.asCashier, {})).statusCode).toBe(403);

    const other = generateKeyPair();
    const wrongKeyCert = createSelfSignedCertificate({
      keyPem: other.keyPem,
      cuit: s.cuit,
      organization: 'X',
      commonName: 'x',
      days: 30,
    });
    const mismatch = await call('POST', '/api/v1/fiscal/certificate', s.asAdmin, { certificate: wrongKeyCert });
    expect(mismatch.statusCode).toBe(422);
    expect(mismatch.json().error).toMatch(/does not belong/);
    // The screens word each refusal by its detail's reason (src/web/ui/messages.ts).
    const reasonOf = (res: { json(): { details?: { reason?: string }[] } }) => res.json().details?.[0]?.reason;
    expect(reasonOf(mismatch)).toBe('key_mismatch');
    const foreign = createSelfSignedCertificate({
      keyPem: other.keyPem,
      cuit: '33999999999',
      organization: 'X',
      commonName: 'x',
      days: 30,
    });
    const foreignRes = await call('POST', '/api/v1/fiscal/certificate', s.asAdmin, {
      certificate: foreign,
      private_key: other.keyPem,
    });
    expect(foreignRes.json().error).toMatch(/not the company/);
    expect(reasonOf(foreignRes)).toBe('certificate_other_cuit');
    const expired = createSelfSignedCertificate({
      keyPem: other.keyPem,
      cuit: s.cuit,
      organization: 'X',
      commonName: 'x',
      days: 1,
      notBefore: new Date(Date.now() - 5 * 86_400_000),
    });
    const expiredRes = await call('POST', '/api/v1/fiscal/certificate', s.asAdmin, {
      certificate: expired,
      private_key: other.keyPem,
    });
    expect(expiredRes.json().error).toMatch(/expired/);
    expect(reasonOf(expiredRes)).toBe('certificate_expired');
    const notPem = await call('POST', '/api/v1/fiscal/certificate', s.asAdmin, { certificate: 'hola' });
    expect(notPem.statusCode).toBe(422);
    expect(reasonOf(notPem)).toBe('not_a_certificate');

    const ok = await call('POST', '/api/v1/fiscal/certificate', s.asAdmin, {
      certificate: wrongKeyCert,
      private_key: other.keyPem,
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ auth_mode: 'own_certificate', ready: true, certificate: { cuit: s.cuit } });
    expect(ok.body).not.toContain('PRIVATE KEY');
    const check = (await call('POST', '/api/v1/fiscal/check', s.asAdmin)).json();
    expect(check.ok, JSON.stringify(check)).toBe(true);
    const invoice = await issue(s.asCashier, (await s.sell([{ product_id: s.p21.id, quantity: 1 }])).id);
    expect(invoice.statusCode, invoice.body).toBe(201);
  });

  it('a B invoice to a final consumer: CAE, number 1 then 2, invoice.issued in the contract shape, printouts with QR and RG 5614', async () => {
    const s = await shop();
    const sale = await s.sell([
      { product_id: s.p21.id, quantity: 2 },
      { product_id: s.p105.id, quantity: 1 },
    ]);
    const res = await issue(s.asCashier, sale.id);
    expect(res.statusCode, res.body).toBe(201);
    const invoice = res.json().invoice;
    expect(invoice).toMatchObject({
      type: 'B',
      kind: 'invoice',
      point_of_sale: 1,
      number: 1,
      receipt: 'B 0001-00000001',
      receipt_code: 6,
      total: 3525,
      net: 3000,
      iva: 525,
      exempt: 0,
      issuer_cuit: s.cuit,
      buyer: { doc_type: 99, doc_number: '0', iva_condition: 5 },
    });
    expect(invoice.cae).toMatch(/^\d{14}$/);
    expect(invoice.iva_lines).toEqual([
      { id: 4, rate: '10.5', base: 1000, amount: 105 },
      { id: 5, rate: '21', base: 2000, amount: 420 },
    ]);
    const stored = fake.control.receipts().find((r) => r.cuit === s.cuit && r.type === 6 && r.number === 1);
    expect(stored?.cae).toBe(invoice.cae);

    const again = await issue(s.asCashier, sale.id);
    expect(again.statusCode).toBe(200);
    expect(again.json().invoice.id).toBe(invoice.id);

    const events = await outboxInvoices(s.company.id);
    expect(events).toHaveLength(1);
    expect(Object.keys(events[0]!.payload.data.invoice).sort()).toEqual(
      ['cae', 'cae_expiration', 'company_id', 'id', 'issued_at', 'number', 'point_of_sale', 'sale_id', 'total', 'type'].sort(),
    );
    expect(events[0]!.payload.data.invoice).toMatchObject({
      type: 'B',
      number: 1,
      sale_id: sale.id,
      cae: invoice.cae,
      total: 3525,
    });

    const second = await issue(s.asCashier, (await s.sell([{ product_id: s.p21.id, quantity: 1 }])).id);
    expect(second.json().invoice.number).toBe(2);

    const a4 = await call('GET', `/facturas/${invoice.id}`, s.asCashier);
    expect(a4.statusCode).toBe(200);
    expect(a4.body).toContain(invoice.cae);
    expect(a4.body).toContain('<svg');
    expect(a4.body).toContain('Régimen de Transparencia Fiscal al Consumidor (Ley 27.743)');
    expect(a4.body).toContain('$\u00a0525,00');
    expect(a4.body).toContain('Almacén Prueba S.R.L.');
    const ticket = await call('GET', `/facturas/${invoice.id}?formato=ticket`, s.asCashier);
    expect(ticket.body).toContain('fiscal-ticket');
    expect(invoice.qr_url).toMatch(/^https:\/\/www\.afip\.gob\.ar\/fe\/qr\/\?p=/);
  });

  it('an A invoice to a Responsable Inscripto itemises IVA; exempt lines go apart; a C invoice from a monotributista has no IVA', async () => {
    const s = await shop();
    const sale = await s.sell([
      { product_id: s.p21.id, quantity: 1 },
      { product_id: s.exempt.id, quantity: 1 },
    ]);
    const a = await issue(s.asCashier, sale.id, {
      buyer: { doc_type: 'cuit', doc_number: '30-50001091-2', iva_condition: 1, name: 'Distribuidora Sur S.A.' },
    });
    expect(a.statusCode, a.body).toBe(201);
    expect(a.json().invoice).toMatchObject({
      type: 'A',
      receipt_code: 1,
      number: 1,
      net: 1000,
      iva: 210,
      exempt: 5000,
      total: 6210,
      buyer: { doc_type: 80, doc_number: '30500010912', iva_condition: 1, name: 'Distribuidora Sur S.A.' },
    });
    const printed = await call('GET', `/facturas/${a.json().invoice.id}`, s.asAdmin);
    expect(printed.body).toContain('Importe neto gravado');
    expect(printed.body).not.toContain('Transparencia Fiscal');

    const mono = await shop({ iva: 'monotributo' });
    const c = await issue(mono.asCashier, (await mono.sell([{ product_id: mono.p21.id, quantity: 1 }])).id);
    expect(c.statusCode, c.body).toBe(201);
    expect(c.json().invoice).toMatchObject({ type: 'C', receipt_code: 11, net: 1210, iva: 0, iva_lines: [], total: 1210 });
  });

  it('from $ 10.000.000 a final consumer must be identified (RG 5700); with a DNI it is invoiced', async () => {
    const s = await shop();
    // The admin sells (another price) in a shift of their own, at a second box (issue 29).
    await t.container.db.query(`INSERT INTO boxes (company_id, id, name) VALUES ($1, 2, 'Caja 2')`, [s.company.id]);
    expect((await call('POST', '/api/v1/box-sessions', s.asAdmin, { box_id: 2, opening_cash: 0 })).statusCode).toBe(201);
    const big = await s.sell([{ product_id: s.p21.id, quantity: 1, price: 10_000_000 }], s.asAdmin, 2);
    const refused = await issue(s.asCashier, big.id);
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toMatchObject({ code: 'validation_failed' });
    expect(refused.json().details).toEqual([{ path: '/buyer', message: 'buyer_identification_required' }]);
    expect(fake.control.lastAuthorized(s.cuit, 1, 6)).toBe(0);
    const ok = await issue(s.asCashier, big.id, { buyer: { doc_type: 'dni', doc_number: '30.123.456', name: 'Juan Pérez' } });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().invoice).toMatchObject({ type: 'B', buyer: { doc_type: 96, doc_number: '30123456' } });
    const under = await s.sell([{ product_id: s.p21.id, quantity: 1, price: 9_999_999.99 }], s.asAdmin, 2);
    expect((await issue(s.asCashier, under.id)).statusCode).toBe(201);
  });

  it.each([10242, 10243, 10246, 10048] as const)(
    'ARCA rejection %i is stored with its code, explained in Spanish, and does not use up the number',
    async (code) => {
      const s = await shop();
      const sale = await s.sell([{ product_id: s.p21.id, quantity: 1 }]);
      fake.control.rejectNext(code);
      const res = await issue(s.asCashier, sale.id);
      expect(res.statusCode).toBe(422);
      expect(res.json().code).toBe('arca_rejected');
      expect(res.json().details[0].path).toBe(`/arca/${code}`);
      expect(res.json().details[0].message).toMatch(/[áéíóúñ]|comprador|total/i);
      const state = (await call('GET', `/api/v1/sales/${sale.id}/invoices`, s.asCashier)).json();
      expect(state.invoices).toEqual([]);
      expect(state.attempts).toEqual([expect.objectContaining({ status: 'rejected', number: 1 })]);
      expect(state.attempts[0].observations.concat(state.attempts[0].errors)[0]).toMatchObject({ code });
      const retried = await issue(s.asCashier, sale.id);
      expect(retried.statusCode, retried.body).toBe(201);
      expect(retried.json().invoice.number).toBe(1);
    },
  );

  it('a numbering 10016 is settled with ARCA and the receipt is authorised with the right number', async () => {
    const s = await shop();
    fake.control.rejectNext(10016);
    const res = await issue(s.asCashier, (await s.sell([{ product_id: s.p21.id, quantity: 1 }])).id);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().invoice.number).toBe(1);
  });

  it('the CAE granted and the connection dropped: the invoice ends approved with ARCA’s CAE and the next one gets the next number', async () => {
    const s = await shop();
    const sale = await s.sell([{ product_id: s.p21.id, quantity: 1 }]);
    fake.control.dropAfterGrant();
    const res = await issue(s.asCashier, sale.id);
    expect(res.statusCode, res.body).toBe(201);
    const granted = fake.control.receipts().filter((r) => r.cuit === s.cuit && r.type === 6);
    expect(granted).toHaveLength(1);
    expect(res.json().invoice).toMatchObject({ number: 1, cae: granted[0]!.cae });
    const next = await issue(s.asCashier, (await s.sell([{ product_id: s.p21.id, quantity: 1 }])).id);
    expect(next.json().invoice.number).toBe(2);
    expect(fake.control.lastAuthorized(s.cuit, 1, 6)).toBe(2);
  });

  it('an answer slower than the timeout, a transient HTTP 500: settled, one receipt each, no gap', async () => {
    const s = await shop();
    fake.control.delayNext(2500, 'FECAESolicitar');
    const slow = await issue(s.asCashier, (await s.sell([{ product_id: s.p21.id, quantity: 1 }])).id);
    expect(slow.statusCode, slow.body).toBe(201);
    expect(slow.json().invoice.number).toBe(1);
    fake.control.failNext(500, 'FECAESolicitar');
    const failed = await issue(s.asCashier, (await s.sell([{ product_id: s.p21.id, quantity: 1 }])).id);
    expect(failed.statusCode, failed.body).toBe(201);
    expect(failed.json().invoice.number).toBe(2);
    expect(
      fake.control
        .receipts()
        .filter((r) => r.cuit === s.cuit)
        .map((r) => r.number),
    ).toEqual([1, 2]);
  });

  it('ARCA unreachable: the receipt stays pending (504), blocks the series, and is settled before the next one', async () => {
    const s = await shop();
    expect((await issue(s.asCashier, (await s.sell([{ product_id: s.p21.id, quantity: 1 }])).id)).json().invoice.number).toBe(1);
    const stuck = await s.sell([{ product_id: s.p21.id, quantity: 1 }]);
    // The send and every re-send fail (five in all); ARCA's numbering answers: still 1.
    for (let i = 0; i < 5; i++) fake.control.failNext(503, 'FECAESolicitar');
    const res = await issue(s.asCashier, stuck.id);
    expect(res.statusCode, res.body).toBe(504);
    expect(res.json().code).toBe('upstream_timeout');
    const pending = (await call('GET', `/api/v1/sales/${stuck.id}/invoices`, s.asCashier)).json().attempts;
    expect(pending).toEqual([expect.objectContaining({ status: 'pending', number: 2, tries: 5 })]);
    expect(fake.control.lastAuthorized(s.cuit, 1, 6)).toBe(1);
    // The next sale's invoice first settles the pending one (ARCA never got it: sent again as 2).
    const next = await issue(s.asCashier, (await s.sell([{ product_id: s.p21.id, quantity: 1 }])).id);
    expect(next.statusCode, next.body).toBe(201);
    expect(next.json().invoice.number).toBe(3);
    const settled = (await call('GET', `/api/v1/sales/${stuck.id}/invoices`, s.asCashier)).json();
    expect(settled.invoices[0]).toMatchObject({ number: 2 });
    expect(settled.attempts[0].status).toBe('approved');
    expect(
      fake.control
        .receipts()
        .filter((r) => r.cuit === s.cuit)
        .map((r) => r.number),
    ).toEqual([1, 2, 3]);
  });

  it('the background job settles a pending receipt left by a lost answer', async () => {
    const s = await shop();
    const sale = await s.sell([{ product_id: s.p21.id, quantity: 1 }]);
    for (let i = 0; i < 5; i++) fake.control.failNext(503, 'FECAESolicitar');
    expect((await issue(s.asCashier, sale.id)).statusCode).toBe(504);
    // Not yet a minute old: left alone.
    expect(await t.container.invoicing.invoicing.settleStale()).toBe(0);
    await t.container.db.query(`UPDATE invoice_attempts SET updated_at = now() - interval '2 minutes' WHERE company_id = $1`, [
      s.company.id,
    ]);
    expect(await t.container.invoicing.invoicing.settleStale()).toBe(1);
    const state = (await call('GET', `/api/v1/sales/${sale.id}/invoices`, s.asCashier)).json();
    expect(state.attempts).toEqual([expect.objectContaining({ status: 'approved', number: 1 })]);
    expect(state.invoices[0].cae).toBe(fake.control.receipts().find((r) => r.cuit === s.cuit)!.cae);
  });

  it('20 concurrent invoice requests on one point of sale get consecutive numbers, no gaps, no duplicates', async () => {
    const s = await shop();
    const sales = [];
    for (let i = 0; i < 20; i++) sales.push(await s.sell([{ product_id: s.p21.id, quantity: 1 }]));
    const results = await Promise.all(sales.map((sale) => issue(s.asCashier, sale.id)));
    for (const r of results) expect(r.statusCode, r.body).toBe(201);
    const numbers = results.map((r) => r.json().invoice.number as number).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(new Set(results.map((r) => r.json().invoice.sale_id)).size).toBe(20);
    expect(
      fake.control
        .receipts()
        .filter((r) => r.cuit === s.cuit)
        .map((r) => r.number)
        .sort((a, b) => a - b),
    ).toEqual(numbers);
    // The same sale twice at once: one invoice.
    const sale = await s.sell([{ product_id: s.p21.id, quantity: 1 }]);
    const twice = await Promise.all([issue(s.asCashier, sale.id), issue(s.asCashier, sale.id)]);
    expect(twice.map((r) => r.statusCode).sort()).toEqual([200, 201]);
    expect(twice[0]!.json().invoice.id).toBe(twice[1]!.json().invoice.id);
  });

  it('after invoice.issued with id 2147483647 own invoices keep small consecutive ids; a used id is a 422 naming the invoice', async () => {
    const s = await shop();
    const line = [{ product_id: s.p21.id, quantity: 1 }];
    const first = await issue(s.asCashier, (await s.sell(line)).id);
    expect(first.statusCode, first.body).toBe(201);
    const firstId = first.json().invoice.id as number;
    const external = (extra: Record<string, unknown>) => ({
      event: 'invoice.issued',
      data: {
        invoice: {
          type: 'B',
          point_of_sale: 9,
          number: 77,
          cae: '74123456789012',
          cae_expiration: '2030-01-01T00:00:00-03:00',
          total: 1210,
          ...extra,
        },
      },
    });
    const sent = await sendEvent(
      t.app,
      s.company.integrationKey,
      external({ id: MAX_RECORD_ID, sale_id: (await s.sell(line)).id }),
    );
    expect(sent.json()).toEqual({ status: 'ok' });
    const second = await issue(s.asCashier, (await s.sell(line)).id);
    expect(second.statusCode, second.body).toBe(201);
    expect(second.json().invoice).toMatchObject({ id: firstId + 1, number: 2 });

    const clash = await sendEvent(
      t.app,
      s.company.integrationKey,
      external({ id: firstId, number: 78, sale_id: (await s.sell(line)).id }),
    );
    expect(clash.statusCode).toBe(422);
    expect(clash.json()).toMatchObject({
      code: 'invalid_state',
      error: expect.stringContaining(`invoice ${firstId} already exists`),
    });
    const ids = await t.container.db.query<{ id: number }>('SELECT id FROM invoices WHERE company_id = $1 ORDER BY id', [
      s.company.id,
    ]);
    expect(ids.map((r) => Number(r.id))).toEqual([firstId, firstId + 1, MAX_RECORD_ID]);
  });

  it('a credit note for a cancelled invoiced sale: same class, associated invoice, its own numbering', async () => {
    const s = await shop();
    const sale = await s.sell([{ product_id: s.p21.id, quantity: 2 }]);
    const invoice = (await issue(s.asCashier, sale.id)).json().invoice;
    const early = await call('POST', `/api/v1/invoices/${invoice.id}/credit-note`, s.asAdmin);
    expect(early.statusCode).toBe(422);
    const cancel = await call('POST', `/api/v1/sales/${sale.id}/cancel`, s.asAdmin, { reason: 'devolución' });
    expect(cancel.statusCode, cancel.body).toBe(200);
    expect((await issue(s.asCashier, sale.id)).statusCode).toBe(200); // the invoice it has
    expect((await call('POST', `/api/v1/invoices/${invoice.id}/credit-note`, s.asCashier)).statusCode).toBe(403);
    // The cancel issued the credit note in the same request (issue 29): asking again answers it.
    const nc = await call('POST', `/api/v1/invoices/${invoice.id}/credit-note`, s.asAdmin);
    expect(nc.statusCode, nc.body).toBe(200);
    expect(nc.json().invoice).toMatchObject({
      type: 'NC B',
      kind: 'credit_note',
      receipt_code: 8,
      number: 1,
      total: 2420,
      associated_invoice_id: invoice.id,
      sale_id: sale.id,
    });
    const again = await call('POST', `/api/v1/invoices/${invoice.id}/credit-note`, s.asAdmin);
    expect(again.statusCode).toBe(200);
    expect(fake.control.receipts().filter((r) => r.cuit === s.cuit && r.type === 8)).toHaveLength(1);
    const printed = await call('GET', `/facturas/${nc.json().invoice.id}`, s.asAdmin);
    expect(printed.body).toContain('NOTA DE CRÉDITO');
    expect(printed.body).toContain(`Factura ${invoice.receipt}`);
    const events = await outboxInvoices(s.company.id);
    expect(events.map((e) => e.payload.data.invoice['type'])).toEqual(['B', 'NC B']);
  });

  it('another company’s sale, invoice and printout are not found; a sale with nothing to invoice is refused', async () => {
    const a = await shop();
    const b = await shop();
    const saleA = await a.sell([{ product_id: a.p21.id, quantity: 1 }]);
    const invoiceA = (await issue(a.asCashier, saleA.id)).json().invoice;
    expect((await issue(b.asAdmin, saleA.id + 1000)).statusCode).toBe(404);
    // b's own sale with that id may exist: what matters is that a's invoice never shows there.
    const seen = await call('GET', `/api/v1/invoices/${invoiceA.id}`, b.asAdmin);
    if (seen.statusCode === 200) expect(seen.json().invoice.issuer_cuit).not.toBe(a.cuit);
    else expect(seen.statusCode).toBe(404);
    const list = (await call('GET', '/api/v1/invoices', b.asAdmin)).json().invoices;
    expect(list.every((i: { company_id: number }) => i.company_id === b.company.id)).toBe(true);
    const printed = await call('GET', `/facturas/${invoiceA.id + 1000}`, b.asAdmin);
    expect(printed.statusCode).toBe(404);
    expect((await issue(a.asCashier, 999_999)).statusCode).toBe(404);
    expect((await call('POST', '/api/v1/sales/abc/invoice', a.asCashier, {})).statusCode).toBe(400);
    expect((await issue(a.asCashier, saleA.id, { buyer: { doc_type: 'pasaporte' } })).statusCode).toBe(422);
    const noSetup = await shop({ setup: false });
    const refused = await issue(noSetup.asCashier, (await noSetup.sell([{ product_id: noSetup.p21.id, quantity: 1 }])).id);
    expect(refused.statusCode).toBe(422);
    expect(refused.json().code).toBe('fiscal_setup_incomplete');
  });
});

describe('the demo company invoices out of the box (built-in fake ARCA)', () => {
  it('seeds a ready fiscal setup and gets a CAE from the in-process fake', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mostrador-demo-arca-'));
    const t = await buildTestApp({ env: { ARCA_DEMO_FAKE: 'true', DATA_DIR: dataDir } });
    try {
      const demo = await seedDemo(t.container);
      const setup = await t.container.invoicing.fiscal.get(demo.companyId);
      expect(setup).toMatchObject({
        ready: true,
        auth_mode: 'delegation',
        environment: 'homologacion',
        service_cuit: '20111111112',
      });
      const [sale] = await t.container.db.query<{ id: number }>(
        `SELECT s.id FROM sales s WHERE s.company_id = $1 AND s.status <> 'cancelled'
           AND NOT EXISTS (SELECT 1 FROM invoices i WHERE i.company_id = s.company_id AND i.sale_id = s.id)
           AND EXISTS (SELECT 1 FROM sale_items it WHERE it.company_id = s.company_id AND it.sale_id = s.id) ORDER BY s.id LIMIT 1`,
        [demo.companyId],
      );
      const { invoice, created } = await t.container.invoicing.invoicing.issue(cliCtx(demo.companyId), sale!.id, {});
      expect(created).toBe(true);
      // The demo's own invoice took number 1 of the series, issued the same way at the seed.
      expect(demo.invoiceId).not.toBeNull();
      const seeded = await t.container.invoicing.invoicing.get(cliCtx(demo.companyId), demo.invoiceId!);
      expect(seeded).toMatchObject({ type: 'B', point_of_sale: 1, number: 1, receipt_code: 6 });
      expect(invoice).toMatchObject({ type: 'B', point_of_sale: 1, number: 2, environment: 'homologacion' });
      expect(invoice.cae).toMatch(/^\d{14}$/);
      expect((await t.container.invoicing.fiscal.check(cliCtx(demo.companyId))).ok).toBe(true);
    } finally {
      await t.close();
    }
  }, 120_000);
});
