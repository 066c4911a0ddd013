import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliOn } from '../cli/run-cli.ts';
import { isValidGtin } from '../../src/lib/barcode.ts';
import { normalizeCuit } from '../../src/lib/cuit.ts';
import { seedDemo, seedDemoIfEmpty } from '../../src/modules/demo/demo.service.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

describe('demo seed', () => {
  let t: TestApp;
  // The demo invoices against the built-in fake ARCA, which keeps its numbering under DATA_DIR.
  const dataDir = mkdtempSync(join(tmpdir(), 'mostrador-demo-'));
  beforeAll(async () => {
    t = await buildTestApp({ env: { ARCA_DEMO_FAKE: 'true', DATA_DIR: dataDir } });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('seeds a realistic company once on an empty database', async () => {
    const demo = await seedDemoIfEmpty(t.container);
    expect(demo).not.toBeNull();
    expect(await seedDemoIfEmpty(t.container)).toBeNull();
    const q = <T>(text: string) => t.container.db.query<T>(text, [demo!.companyId]);

    const products = await q<{ bc: string | null; name: string; base_price: string; mark: string | null }>(
      'SELECT bc, name, base_price, mark FROM products WHERE company_id = $1',
    );
    expect(products.length).toBeGreaterThanOrEqual(300);
    const barcodes = products.map((p) => p.bc).filter((bc): bc is string => bc !== null);
    expect(barcodes.length).toBeGreaterThan(250);
    expect(barcodes.every((bc) => bc.startsWith('779') && bc.length === 13 && isValidGtin(bc))).toBe(true);
    expect(new Set(barcodes).size).toBe(barcodes.length);
    expect(products.some((p) => /[áéíóúñü]/i.test(p.name))).toBe(true);
    expect(products.every((p) => Number(p.base_price) > 0)).toBe(true);
    expect(new Set(products.map((p) => p.mark)).size).toBeGreaterThan(50);

    const deposits = await q<{ deposit_id: number; n: number }>(
      'SELECT deposit_id, count(*)::int AS n FROM stock_levels WHERE company_id = $1 AND quantity > 0 GROUP BY deposit_id ORDER BY 1',
    );
    expect(deposits.map((d) => d.deposit_id)).toEqual([1, 2]);
    // products.stock is the sum of the deposits
    const mismatched = await q<{ n: number }>(
      `SELECT count(*)::int AS n FROM products p WHERE company_id = $1 AND stock <> coalesce(
         (SELECT sum(quantity) FROM stock_levels s WHERE s.company_id = p.company_id AND s.product_id = p.id), 0)`,
    );
    expect(mismatched[0]!.n).toBe(0);
    const boxes = await q<{ n: number }>('SELECT count(*)::int AS n FROM boxes WHERE company_id = $1');
    expect(boxes[0]!.n).toBe(2);
    const statuses = await q<{ status: string }>('SELECT DISTINCT status FROM sales WHERE company_id = $1 ORDER BY 1');
    expect(statuses.map((s) => s.status)).toEqual(['cancelled', 'paid', 'pending']);
    const invoices = await q<{ id: number; source: string; receipt_code: number; point_of_sale: number }>(
      'SELECT id, source, receipt_code, point_of_sale FROM invoices WHERE company_id = $1',
    );
    expect(invoices).toEqual([{ id: demo!.invoiceId, source: 'arca', receipt_code: 6, point_of_sale: 1 }]);

    expect(demo!.logins.map((l) => l.role)).toEqual(['superadmin', 'admin', 'cashier']);
    expect(demo!.logins.every((l) => l.password && l.password.length >= 10)).toBe(true);
    expect(demo!.banner).toContain(demo!.scannerToken);
    expect(demo!.banner).toContain(demo!.integrationKey);
    expect(demo!.banner).toContain('operador@mostrador.demo');
    expect(await t.container.companies.findCompanyIdByScannerToken(demo!.scannerToken)).toBe(demo!.companyId);
    // Seeding 300 products, their stock, sales and an invoice through the ARCA fake: ~20 s on PGlite
    // alone, much more on a loaded machine.
  }, 120_000);

  it('the demo invoice is issued through ARCA (the built-in fake) and prints like any other: Cód. 006, IVA contenido, QR, homologación; the books are clean', async () => {
    const [company] = await t.container.db.query<{ id: number }>('SELECT id FROM companies ORDER BY id LIMIT 1');
    const companyId = company!.id;
    const [invoice] = await t.container.db.query<{ id: number; sale_id: number; total: string; iva: string }>(
      'SELECT id, sale_id, total::text, iva::text FROM invoices WHERE company_id = $1',
      [companyId],
    );
    const admin = await t.container.users.createUser({
      email: 'demo-printout@example.com',
      password: 'una-clave-larga-de-prueba',
      membership: { companyId, role: 'admin' },
    });
    expect(admin).toBeTruthy();
    const { cookie } = await login(t.app, 'demo-printout@example.com', 'una-clave-larga-de-prueba');
    const headers = { cookie, ...SAME_ORIGIN };
    const api = (await t.app.inject({ method: 'GET', url: `/api/v1/invoices/${invoice!.id}`, headers })).json().invoice;
    expect(api).toMatchObject({
      type: 'B',
      point_of_sale: 1,
      receipt_code: 6,
      environment: 'homologacion',
      source: 'arca',
      sale_id: invoice!.sale_id,
    });
    expect(api.cae).toMatch(/^\d{14}$/);
    expect(api.qr_url).toMatch(/^https:\/\/www\.(afip|arca)\.gob\.ar\/fe\/qr\/\?p=/);
    // The fiscal settings have this point of sale.
    const setup = await t.container.invoicing.fiscal.get(companyId);
    expect(setup.points_of_sale.map((p) => p.number)).toContain(api.point_of_sale);
    // IVA contenido of a Factura B on 21 % goods: more than zero, and net + IVA = total.
    expect(Number(invoice!.iva)).toBeGreaterThan(0);
    expect(Math.round((api.net + api.iva + api.exempt) * 100)).toBe(Math.round(api.total * 100));

    for (const formato of ['', '?formato=ticket']) {
      const page = await t.app.inject({ method: 'GET', url: `/facturas/${invoice!.id}${formato}`, headers });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('Cód. 006');
      expect(page.body).not.toContain('Cód. 000');
      expect(page.body).toContain('B 0001-');
      expect(page.body).toContain('aria-label="Código QR de ARCA"');
      expect(page.body).toMatch(/<svg/);
      expect(page.body).toContain('HOMOLOGACIÓN: sin validez fiscal');
      expect(page.body).toMatch(/IVA Contenido<\/span> <strong id="iva-contenido">\$\s?[1-9]/);
    }

    const verify = await runCliOn(t.container, ['books', 'verify', '--company', String(companyId), '--json']);
    const report = JSON.parse(verify.out) as { ok: boolean; checks: { name: string; ok: boolean }[] };
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
    expect(verify.code).toBe(0);
  }, 120_000);

  it('seeds a second demo company on request without touching the first, with its own CUIT and invoice', async () => {
    const again = await seedDemo(t.container);
    expect(again.companyName).toMatch(/^Almacén Don Tito \d+$/);
    expect(again.logins.find((l) => l.role === 'superadmin')!.password).toBeNull();
    const cuits = await t.container.db.query<{ cuit: string }>('SELECT cuit FROM companies ORDER BY id');
    expect(cuits.every((c) => normalizeCuit(c.cuit) === c.cuit)).toBe(true);
    expect(new Set(cuits.map((c) => c.cuit)).size).toBe(cuits.length);
    expect(again.invoiceId).not.toBeNull();
    const verify = await runCliOn(t.container, ['books', 'verify', '--all', '--json']);
    expect(JSON.parse(verify.out)).toMatchObject({ ok: true });
  }, 120_000);

  it('without the built-in fake ARCA (a real ARCA configured), the demo sends nothing and has no invoice', async () => {
    const other = await buildTestApp({
      env: { ARCA_WSAA_URL: 'http://127.0.0.1:9/wsaa', ARCA_WSFE_URL: 'http://127.0.0.1:9/wsfe', DATA_DIR: dataDir },
    });
    try {
      const demo = await seedDemo(other.container);
      expect(demo.invoiceId).toBeNull();
      const [row] = await other.container.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM invoices WHERE company_id = $1',
        [demo.companyId],
      );
      expect(row!.n).toBe(0);
    } finally {
      await other.close();
    }
  }, 120_000);
});
