import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { fortnightOf, nextFortnight } from '../../src/modules/arca/caea-period.ts';
import type { FakeArca } from '../../src/modules/arca/fake/fake-arca.ts';
import { arcaDate } from '../../src/modules/arca/time.ts';
import { cuitCheckDigit } from '../../src/lib/cuit.ts';
import type { TestApp } from '../app.ts';
import { buildArcaTestApp } from '../arca-app.ts';
import { runCliOn } from '../cli/run-cli.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

const _SERVICE_CUIT = '20111111112';
const CAEA_POS = 5;
/** The registers' own CAEA point of sale, when a test gives the shop one. */
const REGISTER_POS = 6;

/** CAEA contingency against the fake ARCA (issue 32): obtaining, contingency issuing, offline blocks, informing. */
describe('CAEA contingency (/api/v1/fiscal/caea, /api/v1/caea/blocks, contingency issuing)', () => {
  let t: TestApp;
  let fake: FakeArca;
  let seed = 0;
  beforeAll(async () => {
    ({ t, fake } = await buildArcaTestApp({ timeoutMs: 800 }));
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });
  beforeEach(() => fake.control.clearQueue());

  type Headers = Record<string, string>;
  const call = (method: string, url: string, headers: Headers, payload?: unknown) =>
    t.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

  function freshCuit(): string {
    for (;;) {
      const body = `30${String(71_000_000 + 7919 * ++seed).padStart(8, '0')}`;
      const check = cuitCheckDigit(body);
      if (check >= 0) return `${body}${check}`;
    }
  }

  /** A Responsable Inscripto shop on CAE points of sale 1 and 2, CAEA on (point of sale 5) with this fortnight's CAEA. */
  async function shop(options: { caea?: boolean; obtain?: boolean; registerPoint?: boolean } = {}) {
    const cuit = freshCuit();
    const company = await makeCompany(t.container);
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const cashier = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    const asAdmin = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
    const asCashier = { cookie: (await login(t.app, cashier.email, cashier.password)).cookie, ...SAME_ORIGIN };
    fake.control.setCaeaPointsOfSale(cuit, options.registerPoint ? [CAEA_POS, REGISTER_POS] : [CAEA_POS]);
    const res = await call('PUT', '/api/v1/fiscal', asAdmin, {
      cuit,
      iva_condition: 'responsable_inscripto',
      legal_name: 'Almacén Contingencia S.R.L.',
      address: 'Calle 1',
      auth_mode: 'delegation',
      environment: 'homologacion',
      points_of_sale: [1, 2],
      default_point_of_sale: 1,
      ...(options.caea === false ? {} : { caea_enabled: true, caea_point_of_sale: CAEA_POS }),
      ...(options.registerPoint ? { caea_register_point_of_sale: REGISTER_POS } : {}),
    });
    expect(res.statusCode, res.body).toBe(200);
    if (options.caea !== false && options.obtain !== false) {
      const got = await call('POST', '/api/v1/fiscal/caea/request', asAdmin);
      expect(got.statusCode, got.body).toBe(200);
      expect(got.json().current.caea).toMatch(/^\d{14}$/);
    }
    const product = await makeProduct(t.container, company.id, {
      name: 'Yerba',
      bc: `779${String(seed).padStart(10, '0')}`,
      basePrice: 1210,
      stock: 10_000,
    });
    const session = await call('POST', '/api/v1/box-sessions', asCashier, { box_id: 1, opening_cash: 0 });
    expect(session.statusCode, session.body).toBe(201);
    /** A sale of `quantity` units, left pending, or paid in cash (a paid sale can have returns). */
    const sell = async (quantity = 1, paid = false) => {
      const r = await call(
        'POST',
        '/api/v1/sales',
        { ...asCashier, 'x-idempotency-key': randomUUID() },
        {
          box_id: 1,
          items: [{ product_id: product.id, quantity }],
          payments: paid ? [{ method: 'efectivo', amount: 1210 * quantity }] : [],
        },
      );
      expect(r.statusCode, r.body).toBe(201);
      return r.json().sale as { id: number; total: number };
    };
    return { company, cuit, asAdmin, asCashier, sell };
  }

  const issue = (h: Headers, saleId: number) => call('POST', `/api/v1/sales/${saleId}/invoice`, h, {});

  async function books(companyId: number) {
    const { code, out } = await runCliOn(t.container, ['books', 'verify', '--company', String(companyId), '--json']);
    const report = JSON.parse(out) as { ok: boolean; checks: { name: string; ok: boolean; detail: unknown }[] };
    return { code, report, failing: report.checks.filter((c) => !c.ok).map((c) => `${c.name} ${JSON.stringify(c.detail)}`) };
  }

  const iso = (yyyymmdd: string) => `${yyyymmdd.slice(0, 4)}-${yyyymmdd.slice(4, 6)}-${yyyymmdd.slice(6, 8)}`;
  const qrOf = (url: string) => JSON.parse(Buffer.from(new URL(url).searchParams.get('p')!, 'base64').toString('utf8'));

  it('obtains this and (inside its window) the next fortnight CAEA, recovers one already granted with FECAEAConsultar, and the job covers every CAEA company', async () => {
    const s = await shop({ obtain: false });
    const before = (await call('GET', '/api/v1/fiscal/caea', s.asCashier)).json();
    expect(before).toMatchObject({ enabled: true, point_of_sale: CAEA_POS, current: { caea: null } });
    expect(before.alerts).toContain('missing_current');

    // The first answer is lost: FECAEASolicitar granted it, the job's call timed out; the retry gets 15008 and asks.
    const today = arcaDate(new Date());
    const cur = fortnightOf(today);
    fake.control.delayNext(1500, 'FECAEASolicitar');
    const r = await t.container.invoicing.caea.obtainAll();
    expect(r.companies).toBeGreaterThanOrEqual(1);
    await vi.waitFor(
      () =>
        expect(fake.control.caeas().some((c) => c.cuit === s.cuit && c.period === cur.period && c.order === cur.order)).toBe(
          true,
        ),
      { timeout: 5000 },
    );
    const consultsBefore = fake.stats.requests['FECAEAConsultar'] ?? 0;
    await t.container.invoicing.caea.obtainAll();
    expect(fake.stats.requests['FECAEAConsultar'] ?? 0).toBeGreaterThan(consultsBefore);
    const status = (await call('GET', '/api/v1/fiscal/caea', s.asCashier)).json();
    const granted = fake.control.caeas().filter((c) => c.cuit === s.cuit);
    expect(status.current).toMatchObject({
      period: cur.period,
      fortnight: cur.order,
      caea: granted.find((g) => g.period === cur.period && g.order === cur.order)!.caea,
    });
    // The next fortnight's window opens 5 days before it starts.
    const next = nextFortnight(cur);
    const opens = status.next.request_from.replaceAll('-', '');
    if (today >= opens)
      expect(status.next.caea).toBe(granted.find((g) => g.period === next.period && g.order === next.order)!.caea);
    else expect(status.next.caea).toBeNull();
    expect(status.alerts).not.toContain('missing_current');
    // Each fortnight was granted once, whatever the retries.
    expect(new Set(granted.map((g) => `${g.period}/${g.order}`)).size).toBe(granted.length);

    // ARCA's window: a fortnight months ahead is refused (15006), a bad Orden too (15005).
    const session = await t.container.invoicing.arca.session(
      (await t.container.invoicing.fiscal.ready(s.company.id)).credentials,
    );
    const auth = await session.auth();
    await expect(session.wsfe.caea(auth, { period: cur.period + 100, order: 1, consult: false })).rejects.toThrow(/15006/);
    await expect(session.wsfe.caea(auth, { period: cur.period, order: 3 as 1, consult: false })).rejects.toThrow(/15005/);
    expect(await session.wsfe.caea(auth, { period: cur.period + 100, order: 1, consult: true })).toBeNull();
  });

  it('the CAEA series continues after what ARCA already has on the CAEA point of sale (another system used it this fortnight)', async () => {
    const s = await shop({ obtain: false });
    const today = arcaDate(new Date());
    const f = fortnightOf(today);
    const code = `5${String(Date.now()).slice(-13)}`;
    fake.control.grantCaea(s.cuit, f.period, f.order, code);
    const session = await t.container.invoicing.arca.session(
      (await t.container.invoicing.fiscal.ready(s.company.id)).credentials,
    );
    const auth = await session.auth();
    for (const number of [1, 2]) {
      const informed = await session.wsfe.caeaInform(
        auth,
        {
          pointOfSale: CAEA_POS,
          type: 6,
          concept: 1,
          docType: 99,
          docNumber: '0',
          number,
          date: today,
          total: '121.00',
          untaxed: '0.00',
          net: '100.00',
          exempt: '0.00',
          otherTaxes: '0.00',
          iva: '21.00',
          currency: 'PES',
          currencyRate: '1',
          receiverIvaConditionId: 5,
          ivaLines: [{ id: 5, base: '100.00', amount: '21.00' }],
        },
        { caea: code, generatedAt: `${today}120000` },
      );
      expect(informed.result).toBe('A');
    }
    // FECAEASolicitar answers 15008 (granted to this CUIT already): FECAEAConsultar recovers it.
    const got = await call('POST', '/api/v1/fiscal/caea/request', s.asAdmin);
    expect(got.json().current.caea).toBe(code);
    fake.control.startOutage('http', ['FECAESolicitar']);
    const invoice = (await issue(s.asCashier, (await s.sell()).id)).json().invoice;
    expect(invoice).toMatchObject({ emission: 'caea', point_of_sale: CAEA_POS, number: 3 });
    fake.control.endOutage();
    expect(await t.container.invoicing.caea.informAll(s.company.id)).toEqual({ informed: 1, failed: 0 });
  });

  it('a company without a CAEA point of sale at ARCA gets no CAEA (15003) and the screen keeps alerting', async () => {
    const s = await shop({ obtain: false });
    fake.control.setCaeaPointsOfSale(s.cuit, []);
    await t.container.invoicing.caea.obtainAll();
    const status = (await call('GET', '/api/v1/fiscal/caea', s.asAdmin)).json();
    expect(status.current.caea).toBeNull();
    expect(status.alerts).toContain('missing_current');
    // Settings: CAEA needs its point of sale, and it cannot be a CAE one.
    const noPoint = await call('PUT', '/api/v1/fiscal', s.asAdmin, { caea_point_of_sale: null });
    expect(noPoint.statusCode).toBe(422);
    const same = await call('PUT', '/api/v1/fiscal', s.asAdmin, { caea_point_of_sale: 1 });
    expect(same.statusCode).toBe(422);
    expect(same.json().details[0].path).toBe('/caea_point_of_sale');
  });

  it('CAE gets no answer → the receipt is issued under CAEA: next number of the CAEA series, printout with CAEA and vigencia, QR tipoCodAut "A"; then informed once', async () => {
    const s = await shop();
    const first = await issue(s.asCashier, (await s.sell()).id);
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().invoice).toMatchObject({ emission: 'cae', point_of_sale: 1 });

    fake.control.startOutage('http', ['FECAESolicitar']);
    const sale = await s.sell(2);
    const res = await issue(s.asCashier, sale.id);
    expect(res.statusCode, res.body).toBe(201);
    const invoice = res.json().invoice;
    const caea = (await call('GET', '/api/v1/fiscal/caea', s.asAdmin)).json().current;
    expect(invoice).toMatchObject({
      emission: 'caea',
      type: 'B',
      point_of_sale: CAEA_POS,
      number: 1,
      cae: caea.caea,
      total: sale.total,
    });
    expect(invoice.caea).toMatchObject({
      code: caea.caea,
      valid_to: caea.valid_to,
      inform_status: 'pending',
      inform_by: caea.inform_by,
    });
    expect(invoice.caea.generated_at).toMatch(/^\d{14}$/);
    const qr = qrOf(invoice.qr_url);
    expect(qr).toMatchObject({ tipoCodAut: 'A', codAut: Number(caea.caea), ptoVta: CAEA_POS, tipoCmp: 6, nroCmp: 1 });
    const printed = await call('GET', `/facturas/${invoice.id}`, s.asCashier);
    expect(printed.statusCode).toBe(200);
    expect(printed.body).toContain('CAEA N°');
    expect(printed.body).toContain(caea.caea);
    expect(printed.body).toMatch(/Vigencia del CAEA hasta/);
    // The same request again answers the same receipt.
    const again = await issue(s.asCashier, sale.id);
    expect(again.statusCode).toBe(200);
    expect(again.json().invoice.id).toBe(invoice.id);

    // ARCA back: the CAE attempt that never got an answer is settled (ARCA never took it), then the CAEA receipt is informed.
    fake.control.endOutage();
    t.container.invoicing.caea.leaveContingency(s.company.id);
    const attempts = (await call('GET', `/api/v1/sales/${sale.id}/invoices`, s.asAdmin)).json().attempts;
    expect(attempts).toHaveLength(1);
    const settled = await call('POST', `/api/v1/invoice-attempts/${attempts[0].id}/retry`, s.asAdmin);
    expect(settled.json()).toMatchObject({ status: 'rejected' });
    expect(settled.json().last_error).toMatch(/superseded by CAEA/);
    expect((await call('GET', `/api/v1/sales/${sale.id}/invoices`, s.asAdmin)).json().invoices).toHaveLength(1);

    const cliStatus = await runCliOn(t.container, ['caea', 'status', '--company', String(s.company.id)]);
    expect(cliStatus.code).toBe(0);
    expect(cliStatus.out).toContain('Pendientes de informar: 1');
    expect(cliStatus.out).toContain(caea.caea);
    const informed = await call('POST', '/api/v1/fiscal/caea/inform', s.asAdmin);
    expect(informed.statusCode, informed.body).toBe(200);
    expect(informed.json()).toMatchObject({ informed: 1, failed: 0 });
    expect(informed.json().status.to_inform).toEqual([]);
    const atArca = fake.control.receipts().filter((r) => r.cuit === s.cuit && r.pointOfSale === CAEA_POS);
    expect(atArca).toMatchObject([{ number: 1, emission: 'CAEA', cae: caea.caea, total: invoice.total.toFixed(2) }]);
    // Informing again sends nothing.
    const before = fake.stats.requests['FECAEARegInformativo'] ?? 0;
    await call('POST', '/api/v1/fiscal/caea/inform', s.asAdmin);
    expect(fake.stats.requests['FECAEARegInformativo'] ?? 0).toBe(before);
    expect((await call('GET', `/api/v1/invoices/${invoice.id}`, s.asAdmin)).json().invoice.caea.inform_status).toBe('informed');

    // The next sale goes back to CAE on point of sale 1, its number right after the first.
    const back = await issue(s.asCashier, (await s.sell()).id);
    expect(back.json().invoice).toMatchObject({ emission: 'cae', point_of_sale: 1, number: first.json().invoice.number + 1 });
    const verify = await books(s.company.id);
    expect(verify.failing).toEqual([]);
  });

  it('ARCA granted the CAE but nobody heard it: the CAEA receipt stands, the CAE is recorded when ARCA answers, and the owner is told to cancel one', async () => {
    const s = await shop();
    const sale = await s.sell();
    // The CAE request is granted late and its connection dropped; meanwhile ARCA stops answering.
    fake.control.delayNext(400, 'FECAESolicitar');
    fake.control.dropAfterGrant();
    const before = fake.stats.requests['FECAESolicitar'] ?? 0;
    const pending = issue(s.asCashier, sale.id);
    await vi.waitFor(() => expect(fake.stats.requests['FECAESolicitar'] ?? 0).toBeGreaterThan(before), { timeout: 5000 });
    fake.control.startOutage('http', ['FECAESolicitar', 'FECompUltimoAutorizado', 'FECompConsultar']);
    const res = await pending;
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().invoice).toMatchObject({ emission: 'caea', number: 1 });
    fake.control.endOutage();
    t.container.invoicing.caea.leaveContingency(s.company.id);
    const [attempt] = (await call('GET', `/api/v1/sales/${sale.id}/invoices`, s.asAdmin)).json().attempts;
    const settled = await call('POST', `/api/v1/invoice-attempts/${attempt.id}/retry`, s.asAdmin);
    expect(settled.json()).toMatchObject({ status: 'approved' });
    const invoices = (await call('GET', `/api/v1/sales/${sale.id}/invoices`, s.asAdmin)).json().invoices;
    expect(invoices.map((i: { emission: string }) => i.emission).sort()).toEqual(['cae', 'caea']);
    const audit = await t.container.db.query<{ details: { caea_invoice_id: number } }>(
      `SELECT details FROM audit_log WHERE company_id = $1 AND action = 'invoice.contingency_duplicate'`,
      [s.company.id],
    );
    expect(audit).toHaveLength(1);
    expect(audit[0]!.details.caea_invoice_id).toBe(res.json().invoice.id);
    const status = (await call('GET', '/api/v1/fiscal/caea', s.asAdmin)).json();
    expect(status.alerts).toContain('contingency_duplicate');
    expect(status.duplicates).toEqual([
      { sale_id: sale.id, cae_invoice_id: settled.json().invoice_id, caea_invoice_id: res.json().invoice.id },
    ]);
  });

  it('20 concurrent receipts during an outage are consecutive CAEA numbers; transport errors and dropped connections count as no answer', async () => {
    const s = await shop();
    fake.control.startOutage('reset', ['FECAESolicitar', 'FECompUltimoAutorizado', 'FECompConsultar']);
    const sales = [];
    for (let n = 0; n < 20; n++) sales.push(await s.sell());
    const answers = await Promise.all(sales.map((sale) => issue(s.asCashier, sale.id)));
    for (const a of answers) expect(a.statusCode, a.body).toBe(201);
    const numbers = answers.map((a) => a.json().invoice.number).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(new Set(answers.map((a) => a.json().invoice.point_of_sale))).toEqual(new Set([CAEA_POS]));
    const status = (await call('GET', '/api/v1/fiscal/caea', s.asAdmin)).json();
    expect(status.in_contingency).toBe(true);
    expect(status.to_inform).toHaveLength(20);

    // Informing waits for ARCA, then goes in number order, each once.
    fake.control.startOutage('reset', ['FECAEARegInformativo']);
    const down = await t.container.invoicing.caea.informAll(s.company.id);
    expect(down.informed).toBe(0);
    fake.control.endOutage();
    const up = await t.container.invoicing.caea.informAll(s.company.id);
    expect(up).toEqual({ informed: 20, failed: 0 });
    const atArca = fake.control
      .receipts()
      .filter((r) => r.cuit === s.cuit && r.pointOfSale === CAEA_POS)
      .map((r) => r.number);
    expect(atArca).toEqual(numbers);
    expect((await books(s.company.id)).failing).toEqual([]);
  });

  it('informing retries: a lost answer is recovered by FECompConsultar (703), never informed twice', async () => {
    const s = await shop();
    fake.control.startOutage('http', ['FECAESolicitar']);
    const a = (await issue(s.asCashier, (await s.sell()).id)).json().invoice;
    const b = (await issue(s.asCashier, (await s.sell()).id)).json().invoice;
    expect([a.number, b.number]).toEqual([1, 2]);
    fake.control.endOutage();
    // ARCA takes the first one but the answer never arrives.
    fake.control.delayNext(1500, 'FECAEARegInformativo');
    const lost = await t.container.invoicing.caea.informAll(s.company.id);
    expect(lost).toEqual({ informed: 0, failed: 1 });
    await vi.waitFor(
      () => expect(fake.control.receipts().filter((r) => r.cuit === s.cuit && r.pointOfSale === CAEA_POS)).toHaveLength(1),
      { timeout: 5000 },
    );
    const pending = (await call('GET', '/api/v1/fiscal/caea', s.asAdmin)).json().to_inform;
    expect(pending.map((p: { tries: number }) => p.tries)).toEqual([1, 0]);
    expect(pending[0].last_error).toMatch(/timeout|no answer/);
    const again = await t.container.invoicing.caea.informAll(s.company.id);
    expect(again).toEqual({ informed: 2, failed: 0 });
    const atArca = fake.control.receipts().filter((r) => r.cuit === s.cuit && r.pointOfSale === CAEA_POS);
    expect(atArca.map((r) => r.number)).toEqual([1, 2]);
    expect((await books(s.company.id)).failing).toEqual([]);
  });

  it('past the deadline (FchTopeInf) ARCA refuses the receipt, the owner sees it, and books verify reports it', async () => {
    const s = await shop({ obtain: false });
    // This fortnight's CAEA, granted with a deadline that already passed.
    const f = fortnightOf(arcaDate(new Date()));
    const code = `3${String(Date.now()).slice(-13)}`;
    const granted = fake.control.grantCaea(s.cuit, f.period, f.order, code, '20000101');
    await t.container.db.query(
      `INSERT INTO caea_codes (company_id, issuer_cuit, environment, period, fortnight, caea, valid_from, valid_to, inform_by)
       VALUES ($1, $2, 'homologacion', $3, $4, $5, $6, $7, '2000-01-01')`,
      [s.company.id, s.cuit, f.period, f.order, code, iso(granted.from), iso(granted.to)],
    );
    fake.control.startOutage('http', ['FECAESolicitar']);
    const inv = (await issue(s.asCashier, (await s.sell()).id)).json().invoice;
    expect(inv).toMatchObject({ emission: 'caea', cae: code });
    fake.control.endOutage();
    const r = await t.container.invoicing.caea.informAll(s.company.id);
    expect(r).toEqual({ informed: 0, failed: 1 });
    const status = (await call('GET', '/api/v1/fiscal/caea', s.asAdmin)).json();
    expect(status.alerts).toEqual(expect.arrayContaining(['inform_overdue', 'inform_rejected']));
    expect(status.to_inform[0]).toMatchObject({ status: 'rejected', inform_by: '2000-01-01' });
    expect(status.to_inform[0].last_error).toMatch(/^1499 /);
    const v = await books(s.company.id);
    expect(v.code).not.toBe(0);
    expect(v.failing.join(' ')).toMatch(/^caea_informed/);
  });

  it('sin movimiento: a CAEA whose fortnight ended with nothing issued on the CAEA point of sale is informed once', async () => {
    const s = await shop({ obtain: false });
    // A past fortnight's CAEA ARCA granted (the fake is told so), nothing issued under it.
    const code = `4${String(Date.now()).slice(-13)}`;
    const past = fake.control.grantCaea(s.cuit, 202001, 1, code);
    await t.container.db.query(
      `INSERT INTO caea_codes (company_id, issuer_cuit, environment, period, fortnight, caea, valid_from, valid_to, inform_by)
       VALUES ($1, $2, 'homologacion', 202001, 1, $3, '2020-01-01', '2020-01-15', '2099-01-01')`,
      [s.company.id, s.cuit, past.caea],
    );
    const n = await t.container.invoicing.caea.informNoMovement();
    expect(n).toBeGreaterThanOrEqual(1);
    expect(fake.control.noMovement().filter((m) => m.cuit === s.cuit)).toMatchObject([{ caea: code, pointOfSale: CAEA_POS }]);
    const before = fake.stats.requests['FECAEASinMovimientoInformar'] ?? 0;
    await t.container.invoicing.caea.informNoMovement();
    expect(fake.stats.requests['FECAEASinMovimientoInformar'] ?? 0).toBe(before);
    expect((await books(s.company.id)).failing).toEqual([]);
  });

  it('sin movimiento: a block a box never used does not hold back an ended fortnight once its last day to inform is near', async () => {
    const s = await shop({ obtain: false });
    const today = new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10);
    const inDays = (n: number) => new Date(Date.parse(`${today}T12:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
    // Two past fortnights, nothing issued under either; box 1 kept an unused block of each.
    const held: { caea: string; block: number }[] = [];
    for (const [order, informBy] of [
      [1, inDays(2)],
      [2, inDays(20)],
    ] as const) {
      const code = `5${order}${String(Date.now()).slice(-12)}`;
      fake.control.grantCaea(s.cuit, 202002, order, code);
      const [k] = await t.container.db.query<{ id: number }>(
        `INSERT INTO caea_codes (company_id, issuer_cuit, environment, period, fortnight, caea, valid_from, valid_to, inform_by)
         VALUES ($1, $2, 'homologacion', 202002, $3, $4, '2020-02-01', '2020-02-15', $5) RETURNING id`,
        [s.company.id, s.cuit, order, code, informBy],
      );
      const [b] = await t.container.db.query<{ id: number }>(
        `INSERT INTO caea_blocks (company_id, id, box_id, caea_id, issuer_cuit, environment, point_of_sale, receipt_code,
           first_number, last_number, created_by)
         VALUES ($1, take_company_ids($1, 'caea_blocks', 1), 1, $2, $3, 'homologacion', $4, $5, 1, 50, 'test') RETURNING id`,
        [s.company.id, k!.id, s.cuit, CAEA_POS, order === 1 ? 6 : 1],
      );
      held.push({ caea: code, block: b!.id });
    }
    await t.container.invoicing.caea.informNoMovement();
    // Two days before its deadline the first block is released and its fortnight informed; the
    // second still waits for a box that may bring receipts it printed offline.
    expect(fake.control.noMovement().filter((m) => m.cuit === s.cuit)).toMatchObject([
      { caea: held[0]!.caea, pointOfSale: CAEA_POS },
    ]);
    const blocks = await t.container.db.query<{ id: number; status: string }>(
      'SELECT id, status FROM caea_blocks WHERE company_id = $1 ORDER BY id',
      [s.company.id],
    );
    expect(blocks).toEqual([
      { id: held[0]!.block, status: 'returned' },
      { id: held[1]!.block, status: 'open' },
    ]);
    expect((await books(s.company.id)).failing).toEqual([]);
  });

  it('after switching to producción, the homologación CAEA receipts and fortnights are shown as stale and never sent', async () => {
    const s = await shop();
    fake.control.startOutage('http', ['FECAESolicitar']);
    const invoice = (await issue(s.asCashier, (await s.sell()).id)).json().invoice;
    expect(invoice).toMatchObject({ emission: 'caea', point_of_sale: CAEA_POS });
    fake.control.endOutage();
    t.container.invoicing.caea.leaveContingency(s.company.id);
    // A homologación fortnight that ended with nothing issued.
    const past = fake.control.grantCaea(s.cuit, 202003, 1, `6${String(Date.now()).slice(-13)}`);
    await t.container.db.query(
      `INSERT INTO caea_codes (company_id, issuer_cuit, environment, period, fortnight, caea, valid_from, valid_to, inform_by)
       VALUES ($1, $2, 'homologacion', 202003, 1, $3, '2020-03-01', '2020-03-15', '2099-01-01')`,
      [s.company.id, s.cuit, past.caea],
    );
    const switched = await call('PUT', '/api/v1/fiscal', s.asAdmin, {
      cuit: s.cuit,
      iva_condition: 'responsable_inscripto',
      legal_name: 'Almacén Contingencia S.R.L.',
      address: 'Calle 1',
      auth_mode: 'delegation',
      environment: 'produccion',
      points_of_sale: [1, 2],
      default_point_of_sale: 1,
      caea_enabled: true,
      caea_point_of_sale: CAEA_POS,
    });
    expect(switched.statusCode, switched.body).toBe(200);
    const sent = fake.stats.requests['FECAEARegInformativo'] ?? 0;
    expect(await t.container.invoicing.caea.informAll(s.company.id)).toEqual({ informed: 0, failed: 0 });
    await t.container.invoicing.caea.informNoMovement();
    expect(fake.stats.requests['FECAEARegInformativo'] ?? 0).toBe(sent);
    expect(fake.control.noMovement().filter((m) => m.cuit === s.cuit)).toEqual([]);
    const status = (await call('GET', '/api/v1/fiscal/caea', s.asAdmin)).json();
    expect(status.alerts).toContain('inform_stale');
    expect(status.alerts).not.toContain('inform_rejected');
    expect(status.to_inform).toMatchObject([{ invoice_id: invoice.id, status: 'pending', tries: 0, stale: true }]);
  });

  it('two boxes offline hold disjoint blocks: each records its own receipts once, never the other box numbers; returned numbers are reused without gaps', async () => {
    const s = await shop();
    await t.container.db.query(`INSERT INTO boxes (company_id, id, name) VALUES ($1, 2, 'Caja 2')`, [s.company.id]);
    const one = await call('POST', '/api/v1/caea/blocks', s.asCashier, { box_id: 1, size: 3 });
    const two = await call('POST', '/api/v1/caea/blocks', s.asCashier, { box_id: 2, size: 3 });
    expect(one.statusCode, one.body).toBe(200);
    const bOne = one.json().blocks.find((b: { receipt_code: number }) => b.receipt_code === 6);
    const bTwo = two.json().blocks.find((b: { receipt_code: number }) => b.receipt_code === 6);
    expect([bOne.first, bOne.last, bTwo.first, bTwo.last]).toEqual([1, 3, 4, 6]);
    expect(one.json().caea.code).toMatch(/^\d{14}$/);
    // Asking again gives the same open block.
    expect((await call('POST', '/api/v1/caea/blocks', s.asCashier, { box_id: 1, size: 3 })).json().blocks[1].id).toBe(bOne.id);

    const stamp = `${arcaDate(new Date())}101500`;
    const offline = async (block: { id: number }, number: number) => {
      const sale = await s.sell();
      return call('POST', `/api/v1/sales/${sale.id}/invoice/offline`, s.asCashier, {
        block_id: block.id,
        number,
        generated_at: stamp,
        total: sale.total,
      });
    };
    const a1 = await offline(bOne, 1);
    expect(a1.statusCode, a1.body).toBe(201);
    expect(a1.json().invoice).toMatchObject({ emission: 'caea', point_of_sale: CAEA_POS, number: 1, type: 'B' });
    expect(a1.json().invoice.caea.generated_at).toBe(stamp);
    expect((await offline(bOne, 2)).statusCode).toBe(201);
    expect((await offline(bTwo, 4)).statusCode).toBe(201);
    // Box 1 cannot use box 2's numbers, nor a number already used.
    const foreign = await offline(bOne, 4);
    expect(foreign.statusCode).toBe(422);
    expect(foreign.json().code).toBe('validation_failed');
    const used = await offline(bTwo, 4);
    expect(used.statusCode).toBe(409);
    // A sync repeated answers the same receipt.
    const saleOfA1 = a1.json().invoice.sale_id;
    const repeat = await call('POST', `/api/v1/sales/${saleOfA1}/invoice/offline`, s.asCashier, {
      block_id: bOne.id,
      number: 1,
      generated_at: stamp,
      total: a1.json().invoice.total,
    });
    expect(repeat.statusCode).toBe(200);
    expect(repeat.json().invoice.id).toBe(a1.json().invoice.id);
    // Server contingency meanwhile takes numbers after the blocks.
    fake.control.startOutage('http', ['FECAESolicitar']);
    const server = (await issue(s.asCashier, (await s.sell()).id)).json().invoice;
    expect(server.number).toBe(7);
    // Box 1 is back: 3 is free again and the next receipt takes it; box 2 still holds 5 and 6.
    const returned = await call('POST', `/api/v1/caea/blocks/${bOne.id}/return`, s.asCashier);
    expect(returned.json().block).toMatchObject({ status: 'returned', used: [1, 2] });
    expect((await offline(bOne, 3)).statusCode).toBe(422);
    const refill = (await issue(s.asCashier, (await s.sell()).id)).json().invoice;
    expect(refill.number).toBe(3);
    expect((await offline(bTwo, 5)).statusCode).toBe(201);
    expect((await offline(bTwo, 6)).statusCode).toBe(201);
    await call('POST', `/api/v1/caea/blocks/${bTwo.id}/return`, s.asCashier);
    fake.control.endOutage();
    const inform = await t.container.invoicing.caea.informAll(s.company.id);
    expect(inform).toEqual({ informed: 7, failed: 0 });
    const atArca = fake.control.receipts().filter((r) => r.cuit === s.cuit && r.pointOfSale === CAEA_POS && r.type === 6);
    expect(atArca.map((r) => r.number)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect((await books(s.company.id)).failing).toEqual([]);
  });

  it("a register point of sale of its own: a box's block never holds back what the server issues and informs; each point gets its own sin movimiento", async () => {
    const s = await shop({ registerPoint: true });
    const setup = await call('GET', '/api/v1/fiscal', s.asAdmin);
    expect(setup.json()).toMatchObject({ caea_point_of_sale: CAEA_POS, caea_register_point_of_sale: REGISTER_POS });
    expect((await call('GET', '/api/v1/fiscal/caea', s.asAdmin)).json()).toMatchObject({
      point_of_sale: CAEA_POS,
      register_point_of_sale: REGISTER_POS,
    });
    // The box holds 1–3 of its own point; it prints one receipt offline and keeps 2 and 3.
    const blocks = await call('POST', '/api/v1/caea/blocks', s.asCashier, { box_id: 1, size: 3 });
    expect(blocks.statusCode, blocks.body).toBe(200);
    const block = blocks.json().blocks.find((b: { receipt_code: number }) => b.receipt_code === 6);
    expect(block).toMatchObject({ point_of_sale: REGISTER_POS, first: 1, last: 3 });
    const sale = await s.sell();
    const offline = await call('POST', `/api/v1/sales/${sale.id}/invoice/offline`, s.asCashier, {
      block_id: block.id,
      number: 1,
      generated_at: `${arcaDate(new Date())}101500`,
      total: sale.total,
    });
    expect(offline.statusCode, offline.body).toBe(201);
    expect(offline.json().invoice).toMatchObject({ emission: 'caea', point_of_sale: REGISTER_POS, number: 1 });
    // ARCA does not answer: the server's receipts take 1 and 2 of the CAEA point, not 4 and 5.
    fake.control.startOutage('http', ['FECAESolicitar']);
    const first = (await issue(s.asCashier, (await s.sell()).id)).json().invoice;
    const second = (await issue(s.asCashier, (await s.sell()).id)).json().invoice;
    fake.control.endOutage();
    expect([first, second].map((i) => [i.emission, i.point_of_sale, i.number])).toEqual([
      ['caea', CAEA_POS, 1],
      ['caea', CAEA_POS, 2],
    ]);
    // Everything issued is informed while the box still holds 2 and 3: no receipt waits (703).
    expect(await t.container.invoicing.caea.informAll(s.company.id)).toEqual({ informed: 3, failed: 0 });
    const atArca = fake.control.receipts().filter((r) => r.cuit === s.cuit && r.type === 6);
    expect(atArca.map((r) => [r.pointOfSale, r.number]).sort()).toEqual([
      [CAEA_POS, 1],
      [CAEA_POS, 2],
      [REGISTER_POS, 1],
    ]);
    expect((await books(s.company.id)).failing).toEqual([]);

    // An ended fortnight is informed "sin movimiento" on each point that issued nothing under it.
    const code = `6${String(Date.now()).slice(-13)}`;
    fake.control.grantCaea(s.cuit, 202003, 1, code);
    const [past] = await t.container.db.query<{ id: number }>(
      `INSERT INTO caea_codes (company_id, issuer_cuit, environment, period, fortnight, caea, valid_from, valid_to, inform_by)
       VALUES ($1, $2, 'homologacion', 202003, 1, $3, '2020-03-01', '2020-03-15', '2099-01-01') RETURNING id`,
      [s.company.id, s.cuit, code],
    );
    // The server's point issued one receipt under it: only the registers' point had no movement.
    await t.container.db.query('UPDATE invoices SET caea_id = $1 WHERE company_id = $2 AND id = $3', [
      past!.id,
      s.company.id,
      first.id,
    ]);
    await t.container.invoicing.caea.informNoMovement();
    expect(fake.control.noMovement().filter((m) => m.cuit === s.cuit)).toMatchObject([{ caea: code, pointOfSale: REGISTER_POS }]);
  });

  it("the registers' CAEA point of sale is another CAEA point: not the CAEA one, not a CAE one, never without the CAEA one", async () => {
    const s = await shop({ obtain: false });
    for (const [body, path] of [
      [{ caea_register_point_of_sale: CAEA_POS }, '/caea_register_point_of_sale'],
      [{ caea_register_point_of_sale: 1 }, '/caea_register_point_of_sale'],
      [
        { caea_enabled: false, caea_point_of_sale: null, caea_register_point_of_sale: REGISTER_POS },
        '/caea_register_point_of_sale',
      ],
    ] as const) {
      const res = await call('PUT', '/api/v1/fiscal', s.asAdmin, body);
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json()).toMatchObject({ code: 'validation_failed', details: [{ path }] });
    }
    // Refused changes changed nothing; a null clears a point set before.
    expect((await call('GET', '/api/v1/fiscal', s.asAdmin)).json()).toMatchObject({
      caea_point_of_sale: CAEA_POS,
      caea_register_point_of_sale: null,
    });
    const set = await call('PUT', '/api/v1/fiscal', s.asAdmin, { caea_register_point_of_sale: REGISTER_POS });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().caea_register_point_of_sale).toBe(REGISTER_POS);
    const cleared = await call('PUT', '/api/v1/fiscal', s.asAdmin, { caea_register_point_of_sale: null });
    expect(cleared.json().caea_register_point_of_sale).toBeNull();
  });

  it('a credit note during an outage is issued under CAEA too (NC B on the CAEA point of sale) and informed', async () => {
    const s = await shop();
    const sale = await s.sell(3);
    const inv = (await issue(s.asCashier, sale.id)).json().invoice;
    expect(inv.emission).toBe('cae');
    // Cancelling an invoiced sale issues its credit note in the same request (issue 29): with ARCA
    // down for CAE requests, that credit note goes out under the CAEA.
    fake.control.startOutage('http', ['FECAESolicitar']);
    const cancel = await call('POST', `/api/v1/sales/${sale.id}/cancel`, s.asAdmin, { reason: 'devolución' });
    expect(cancel.statusCode, cancel.body).toBe(200);
    const receipts = (await call('GET', `/api/v1/sales/${sale.id}/invoices`, s.asAdmin)).json().invoices;
    expect(receipts).toHaveLength(2);
    const nc = receipts[1];
    // Asking again answers the one already issued.
    const again = await call('POST', `/api/v1/invoices/${inv.id}/credit-note`, s.asAdmin);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().invoice.id).toBe(nc.id);
    expect(nc).toMatchObject({
      kind: 'credit_note',
      type: 'NC B',
      emission: 'caea',
      point_of_sale: CAEA_POS,
      number: 1,
      associated_invoice_id: inv.id,
    });
    expect(qrOf(nc.qr_url)).toMatchObject({ tipoCodAut: 'A', tipoCmp: 8 });
    fake.control.endOutage();
    expect(await t.container.invoicing.caea.informAll(s.company.id)).toEqual({ informed: 1, failed: 0 });
    expect(fake.control.receipts().filter((r) => r.cuit === s.cuit && r.type === 8)).toMatchObject([
      { emission: 'CAEA', pointOfSale: CAEA_POS },
    ]);
    // The credit note of a CAEA invoice, once ARCA answers: a CAE on point of sale 1, the CAEA receipt informed first.
    const other = await s.sell(2);
    fake.control.startOutage('http', ['FECAESolicitar']);
    const underCaea = (await issue(s.asCashier, other.id)).json().invoice;
    expect(underCaea).toMatchObject({ emission: 'caea', point_of_sale: CAEA_POS, number: 1 });
    fake.control.endOutage();
    t.container.invoicing.caea.leaveContingency(s.company.id);
    expect((await call('POST', `/api/v1/sales/${other.id}/cancel`, s.asAdmin, { reason: 'devolución' })).statusCode).toBe(200);
    // The cancel issued it (issue 29); asking for it answers the one issued.
    const ncOfCaea = await call('POST', `/api/v1/invoices/${underCaea.id}/credit-note`, s.asAdmin);
    expect(ncOfCaea.statusCode, ncOfCaea.body).toBe(200);
    expect(ncOfCaea.json().invoice).toMatchObject({
      emission: 'cae',
      type: 'NC B',
      point_of_sale: 1,
      associated_invoice_id: underCaea.id,
    });
    expect((await call('GET', `/api/v1/invoices/${underCaea.id}`, s.asAdmin)).json().invoice.caea.inform_status).toBe('informed');
    expect((await books(s.company.id)).failing).toEqual([]);
  });

  it("a return's credit note during an outage: its own CAE attempt is superseded by the CAEA note, settled by asking ARCA and never sent again", async () => {
    const s = await shop();
    const sale = await s.sell(3, true);
    const full = (await call('GET', `/api/v1/sales/${sale.id}`, s.asAdmin)).json().sale;
    const inv = (await issue(s.asCashier, sale.id)).json().invoice;
    expect(inv.emission).toBe('cae');
    fake.control.startOutage('http', ['FECAESolicitar']);
    const returned = await call(
      'POST',
      `/api/v1/sales/${sale.id}/returns`,
      { ...s.asAdmin, 'x-idempotency-key': randomUUID() },
      { lines: [{ item_id: full.items[0].id, quantity: 1 }], refund: { method: 'efectivo' }, reason: 'roto' },
    );
    expect(returned.statusCode, returned.body).toBe(201);
    const returnId = returned.json().return.id;
    const notes = () =>
      call('GET', `/api/v1/sales/${sale.id}/invoices`, s.asAdmin).then((r) =>
        r.json().invoices.filter((i: { kind: string }) => i.kind === 'credit_note'),
      );
    const [caeaNote] = await notes();
    expect(caeaNote).toMatchObject({ emission: 'caea', point_of_sale: CAEA_POS, total: 1210 });
    const [attempt] = (await call('GET', `/api/v1/sales/${sale.id}/invoices`, s.asAdmin))
      .json()
      .attempts.filter((a: { kind: string }) => a.kind === 'credit_note');
    expect(attempt).toMatchObject({ status: 'pending' });

    // ARCA back: the attempt ARCA never took is given up for the CAEA note, without sending it again.
    fake.control.endOutage();
    t.container.invoicing.caea.leaveContingency(s.company.id);
    const sent = fake.stats.requests['FECAESolicitar'] ?? 0;
    const settled = await call('POST', `/api/v1/invoice-attempts/${attempt.id}/retry`, s.asAdmin);
    expect(settled.json()).toMatchObject({ status: 'rejected' });
    expect(settled.json().last_error).toMatch(/superseded by CAEA/);
    expect(fake.stats.requests['FECAESolicitar'] ?? 0).toBe(sent);
    await t.container.invoicing.invoicing.settleCreditNotes();
    expect((await notes()).map((n: { id: number }) => n.id)).toEqual([caeaNote.id]);
    const [ret] = (await call('GET', `/api/v1/sales/${sale.id}/returns`, s.asAdmin)).json().returns;
    expect(ret).toMatchObject({ id: returnId, credit_note: { status: 'issued', invoice_id: caeaNote.id } });
    expect((await books(s.company.id)).failing).toEqual([]);

    // What the fallback used to leave: the same return credited again with a CAE on point of sale 1.
    const db = t.container.db;
    const columns = (
      await db.query<{ column_name: string }>(`SELECT column_name FROM information_schema.columns WHERE table_name = 'invoices'`)
    ).map((c) => c.column_name);
    const cae: Record<string, string> = {
      id: '(SELECT max(id) + 1 FROM invoices WHERE company_id = $1)',
      emission: `'cae'`,
      point_of_sale: '1',
      number: '1',
      caea_id: 'NULL',
      generated_at: 'NULL',
      caea_request: 'NULL',
      caea_block_id: 'NULL',
      inform_status: 'NULL',
      inform_by: 'NULL',
    };
    const [copy] = await db.query<{ id: number }>(
      `INSERT INTO invoices (${columns.join(', ')}) SELECT ${columns.map((c) => cae[c] ?? c).join(', ')}
         FROM invoices WHERE company_id = $1 AND id = $2 RETURNING id`,
      [s.company.id, caeaNote.id],
    );
    try {
      const { report } = await books(s.company.id);
      expect(report.checks.find((c) => c.name === 'invoice_matches_sale')).toMatchObject({
        ok: false,
        detail: {
          violations: 1,
          rows: [
            { invoice_id: copy!.id, sale_id: sale.id, problem: 'credited_twice', expected_cents: 121_000, found_cents: 242_000 },
          ],
        },
      });
    } finally {
      await db.query('DELETE FROM invoices WHERE company_id = $1 AND id = $2', [s.company.id, copy!.id]);
    }
  });

  it('two returns of a sale during an outage: each gets its own CAEA credit note', async () => {
    const s = await shop();
    const sale = await s.sell(3, true);
    const full = (await call('GET', `/api/v1/sales/${sale.id}`, s.asAdmin)).json().sale;
    expect((await issue(s.asCashier, sale.id)).json().invoice.emission).toBe('cae');
    fake.control.startOutage('http', ['FECAESolicitar']);
    const giveBack = async () => {
      const r = await call(
        'POST',
        `/api/v1/sales/${sale.id}/returns`,
        { ...s.asAdmin, 'x-idempotency-key': randomUUID() },
        { lines: [{ item_id: full.items[0].id, quantity: 1 }], refund: { method: 'efectivo' }, reason: 'roto' },
      );
      expect(r.statusCode, r.body).toBe(201);
      return r.json().return;
    };
    const first = await giveBack();
    const second = await giveBack();
    expect(first.credit_note).toMatchObject({ status: 'issued', number: 'NC B 0005-00000001' });
    expect(second.credit_note).toMatchObject({ status: 'issued', number: 'NC B 0005-00000002' });
    // Asking again for the second return's credit note answers its own.
    const again = await call('POST', `/api/v1/sales/${sale.id}/returns/${second.id}/credit-note`, s.asAdmin);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().return.credit_note).toMatchObject({ status: 'issued', invoice_id: second.credit_note.invoice_id });
    fake.control.endOutage();
    t.container.invoicing.caea.leaveContingency(s.company.id);
    const notes = (await call('GET', `/api/v1/sales/${sale.id}/invoices`, s.asAdmin))
      .json()
      .invoices.filter((i: { kind: string }) => i.kind === 'credit_note');
    expect(notes.map((n: { emission: string; total: number }) => [n.emission, n.total])).toEqual([
      ['caea', 1210],
      ['caea', 1210],
    ]);
    expect((await books(s.company.id)).failing).toEqual([]);
  });

  it('without CAEA the outage leaves the receipt pending as before (504), and nothing is issued under CAEA', async () => {
    const s = await shop({ caea: false });
    fake.control.startOutage('http', ['FECAESolicitar']);
    const res = await issue(s.asCashier, (await s.sell()).id);
    expect(res.statusCode).toBe(504);
    expect((await call('GET', '/api/v1/fiscal/caea', s.asAdmin)).json()).toMatchObject({ enabled: false, to_inform: [] });
    fake.control.endOutage();
  });

  it("tenancy: another company's blocks and sales are not found, and its CAEA and receipts are not shown", async () => {
    const a = await shop();
    const b = await shop();
    const blocks = (await call('POST', '/api/v1/caea/blocks', a.asCashier, { box_id: 1, size: 2 })).json().blocks;
    const ret = await call('POST', `/api/v1/caea/blocks/${blocks[0].id}/return`, b.asCashier);
    expect(ret.statusCode).toBe(404);
    expect(ret.body).not.toContain(a.cuit);
    const saleOfA = await a.sell();
    const foreignSale = await call('POST', `/api/v1/sales/${saleOfA.id}/invoice/offline`, b.asCashier, {
      block_id: blocks[0].id,
      number: blocks[0].first,
      generated_at: `${arcaDate(new Date())}120000`,
      total: saleOfA.total,
    });
    expect(foreignSale.statusCode).toBe(404);
    const saleOfB = await b.sell();
    const foreignBlock = await call('POST', `/api/v1/sales/${saleOfB.id}/invoice/offline`, b.asCashier, {
      block_id: blocks[1].id,
      number: blocks[1].first,
      generated_at: `${arcaDate(new Date())}120000`,
      total: saleOfB.total,
    });
    expect(foreignBlock.statusCode).toBe(404);
    // It names only the block the caller gave: nothing of the other company's block (its numbers).
    expect(foreignBlock.json()).toMatchObject({ code: 'not_found', error: `CAEA block ${blocks[1].id} not found` });
    const box = await call('POST', '/api/v1/caea/blocks', b.asCashier, { box_id: 99, size: 2 });
    expect(box.statusCode).toBe(404);
    const statusB = (await call('GET', '/api/v1/fiscal/caea', b.asAdmin)).json();
    const statusA = (await call('GET', '/api/v1/fiscal/caea', a.asAdmin)).json();
    expect(statusB.current.caea).not.toBe(statusA.current.caea);
    expect(statusB.to_inform).toEqual([]);
  });

  it("tenancy: block ids are the company's own, so another company's blocks leave no gap in them", async () => {
    const a = await shop();
    const b = await shop();
    const ids = async (s: Awaited<ReturnType<typeof shop>>) => {
      const res = await call('POST', '/api/v1/caea/blocks', s.asCashier, { box_id: 1, size: 2 });
      expect(res.statusCode, res.body).toBe(200);
      return res
        .json()
        .blocks.map((x: { id: number }) => x.id)
        .sort((x: number, y: number) => x - y);
    };
    const ofA = await ids(a);
    const ofB = await ids(b);
    expect(ofA.length).toBeGreaterThan(0);
    // B's first blocks are 1, 2…: nothing tells B that A took blocks before.
    expect(ofB).toEqual(ofA.map((_x: number, i: number) => i + 1));
    expect(ofA).toEqual(ofB);
    // Returning B's block 1 leaves A's block 1 open.
    expect((await call('POST', `/api/v1/caea/blocks/${ofB[0]}/return`, b.asCashier)).statusCode).toBe(200);
    const [row] = await t.container.db.query<{ status: string }>(
      'SELECT status FROM caea_blocks WHERE company_id = $1 AND id = $2',
      [a.company.id, ofA[0]],
    );
    expect(row?.status).toBe('open');
  });
});
