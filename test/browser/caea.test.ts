import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeArca } from '../../src/modules/arca/fake/fake-arca.ts';
import type { TestApp } from '../app.ts';
import { cuitCheckDigit } from '../../src/lib/cuit.ts';
import { buildArcaTestApp } from '../arca-app.ts';
import { runCliOn } from '../cli/run-cli.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';
import { launchChromium } from '../setup/browser.ts';

const SHOTS = '/tmp/shots-issue-32';
const CUIT = '30712345671';

/** Issue 32's moonshot in a real browser: the register invoices under CAEA with no connection, and syncs once when back. */
describe('the register invoices offline under CAEA', { timeout: 120_000 }, () => {
  let t: TestApp;
  let fake: FakeArca;
  let browser: Browser;
  let base: string;
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    ({ t, fake } = await buildArcaTestApp());
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await fake?.close();
  });

  async function scanAndPay(page: Page, code: string) {
    await page.keyboard.type(code);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelectorAll('#register-lines tr[data-line]').length === 1);
    await page.keyboard.press('F4');
    await page.waitForSelector('#pay-amount');
    await page.keyboard.press('Enter');
  }

  /**
   * A company set up for CAEA on point of sale 5 (its CAEA of the fortnight requested), and its
   * cashier's register open in a real browser, up to the shift's first screen.
   */
  async function registerWithCaea(shop: {
    name: string;
    cuit: string;
    legalName: string;
    address: string;
    product: { name: string; bc: string; basePrice: number; stock: number };
  }) {
    const company = await makeCompany(t.container, { name: shop.name });
    const cashier = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    await makeProduct(t.container, company.id, shop.product);
    const asAdmin = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
    fake.control.setCaeaPointsOfSale(shop.cuit, [5]);
    const put = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/fiscal',
      headers: asAdmin,
      payload: {
        cuit: shop.cuit,
        iva_condition: 'responsable_inscripto',
        legal_name: shop.legalName,
        address: shop.address,
        points_of_sale: [1],
        default_point_of_sale: 1,
        caea_enabled: true,
        caea_point_of_sale: 5,
      },
    });
    expect(put.statusCode, put.body).toBe(200);
    const caea = await t.app.inject({ method: 'POST', url: '/api/v1/fiscal/caea/request', headers: asAdmin });
    expect(caea.statusCode, caea.body).toBe(200);
    const code = caea.json().current.caea as string;

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    page.setDefaultTimeout(20_000);
    await page.goto(`${base}/login?next=%2Fcaja`);
    await page.fill('#email', cashier.email);
    await page.fill('#password', cashier.password);
    await page.click('#login-form button[type=submit]');
    await page.waitForURL(`${base}/caja`);
    await page.fill('#open-cash', '1000');
    await page.click('.register-open button[type=submit]');
    return { company, admin, code, context, page, errors };
  }

  it('three Factura B printed offline with the CAEA, sent once when back, informed once each; books verify clean', async () => {
    const { company, admin, code, context, page, errors } = await registerWithCaea({
      name: 'Almacén Sin Internet',
      cuit: CUIT,
      legalName: 'Almacén Sin Internet S.R.L.',
      address: 'Ruta 40 km 3',
      product: { name: 'Yerba Playadito 1 kg', bc: '7790387000011', basePrice: 3200, stock: 40 },
    });
    await page.waitForSelector('#register-input');
    await page.waitForSelector('.register-head :text("productos")');
    // Online, the box reserves its CAEA numbers; the page is kept for a reload without connection.
    await page.waitForSelector('#caea-ready');
    await page.waitForFunction(async () => !!(await caches.match('/caja')) && !!navigator.serviceWorker.controller);
    const blocks = await t.container.db.query<{ first_number: string; last_number: string }>(
      `SELECT first_number::text, last_number::text FROM caea_blocks WHERE company_id = $1 AND status = 'open' AND receipt_code = 6`,
      [company.id],
    );
    expect(blocks).toEqual([{ first_number: '1', last_number: '50' }]);

    await context.setOffline(true);
    for (const n of [1, 2, 3]) {
      await page.waitForFunction(() => document.activeElement?.id === 'register-input');
      await scanAndPay(page, '7790387000011');
      await page.waitForSelector('#ticket-invoice');
      await expect(page.locator('#ticket-invoice').textContent()).resolves.toContain(
        `FACTURA B N.º 0005-${String(n).padStart(8, '0')}`,
      );
      await expect(page.locator('#ticket-caea').textContent()).resolves.toBe(code);
      await page.waitForSelector('#ticket-invoice .ticket-qr svg');
      await expect(page.locator('#ticket').textContent()).resolves.not.toContain('no válido como factura');
      if (n === 1) {
        await page.emulateMedia({ media: 'print' });
        await page.screenshot({ path: `${SHOTS}/01-offline-factura-b-print.png`, fullPage: true });
        await page.emulateMedia({ media: 'screen' });
        await page.screenshot({ path: `${SHOTS}/02-offline-factura-b.png`, fullPage: true });
      }
      await page.click('#ticket-new');
    }
    await expect(page.locator('#register-offline').textContent()).resolves.toContain('Ventas sin enviar: 3');
    expect(await t.container.db.query('SELECT 1 FROM invoices WHERE company_id = $1', [company.id])).toHaveLength(0);

    await context.setOffline(false);
    await page.waitForFunction(() => !document.querySelector('#register-offline'), undefined, { timeout: 30_000 });
    const invoices = await t.container.db.query<{
      sale_id: number;
      number: string;
      emission: string;
      point_of_sale: number;
      type: string;
      cae: string;
    }>(`SELECT sale_id, number::text, emission, point_of_sale, type, cae FROM invoices WHERE company_id = $1 ORDER BY number`, [
      company.id,
    ]);
    expect(invoices).toEqual([
      { sale_id: 1, number: '1', emission: 'caea', point_of_sale: 5, type: 'B', cae: code },
      { sale_id: 2, number: '2', emission: 'caea', point_of_sale: 5, type: 'B', cae: code },
      { sale_id: 3, number: '3', emission: 'caea', point_of_sale: 5, type: 'B', cae: code },
    ]);
    // Back online with everything sent, the box gives its block back and holds a fresh one after them.
    await expect
      .poll(async () =>
        (
          await t.container.db.query<{ first_number: string; status: string }>(
            `SELECT first_number::text, status FROM caea_blocks WHERE company_id = $1 AND receipt_code = 6 ORDER BY id`,
            [company.id],
          )
        ).map((b) => `${b.first_number}:${b.status}`),
      )
      .toEqual(['1:returned', '4:open']);

    // Informed once each.
    const first = await t.container.invoicing.caea.informAll(company.id);
    expect(first).toEqual({ informed: 3, failed: 0 });
    const again = await t.container.invoicing.caea.informAll(company.id);
    expect(again).toEqual({ informed: 0, failed: 0 });
    const atArca = fake.control.receipts().filter((r) => r.cuit === CUIT && r.pointOfSale === 5);
    expect(atArca.map((r) => [r.number, r.emission, r.cae])).toEqual([
      [1, 'CAEA', code],
      [2, 'CAEA', code],
      [3, 'CAEA', code],
    ]);
    const { code: exit, out } = await runCliOn(t.container, ['books', 'verify', '--company', String(company.id), '--json']);
    expect(JSON.parse(out).checks.filter((c: { ok: boolean }) => !c.ok)).toEqual([]);
    expect(exit).toBe(0);
    // The A4 printout of a synced one carries the CAEA.
    await page.goto(`${base}/facturas/1`);
    await expect(page.locator('#cae').textContent()).resolves.toBe(code);
    await page.screenshot({ path: `${SHOTS}/03-printout-caea.png`, fullPage: true });
    expect(errors).toEqual([]);
    await context.close();

    // The owner's fiscal screen: this and the next CAEA, nothing left to inform; on a phone too.
    for (const viewport of [
      { width: 1366, height: 900 },
      { width: 390, height: 844 },
    ]) {
      const owner = await browser.newContext({ viewport });
      const screen = await owner.newPage();
      screen.setDefaultTimeout(20_000);
      await screen.goto(`${base}/login?next=%2Fsettings%2Ffacturacion`);
      await screen.fill('#email', admin.email);
      await screen.fill('#password', admin.password);
      await screen.click('#login-form button[type=submit]');
      await screen.waitForSelector('#caea-fortnights');
      await expect(screen.locator('#caea-fortnights').textContent()).resolves.toContain(code);
      await screen.waitForSelector('#caea-none');
      expect(await screen.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await screen.locator('#caea').screenshot({ path: `${SHOTS}/04-fiscal-caea-${viewport.width}.png` });
      await owner.close();
    }
  });

  /** The register's own IndexedDB (store.ts): read or write one key of its `kv` store. */
  const kv = (page: Page, key: string, value?: unknown) =>
    page.evaluate(
      async ({ key, value, write }) => {
        const name = (await indexedDB.databases()).map((d) => d.name).find((n) => n?.startsWith('mostrador-caja-'))!;
        const db = await new Promise<IDBDatabase>((resolve, reject) => {
          const open = indexedDB.open(name, 1);
          open.onsuccess = () => resolve(open.result);
          open.onerror = () => reject(open.error);
        });
        const store = db.transaction('kv', write ? 'readwrite' : 'readonly').objectStore('kv');
        const req = write ? store.put(value, key) : store.get(key);
        const result = await new Promise((resolve, reject) => {
          req.onsuccess = () => resolve(req.result);
          req.onerror = () => reject(req.error);
        });
        db.close();
        return result;
      },
      { key, value, write: value !== undefined },
    );

  it('an unused block of an ended fortnight is swapped for the new CAEA; offline, a sale from $ 10.000.000 gets no unidentified Factura B', async () => {
    const body = '3071000042';
    const cuit = `${body}${cuitCheckDigit(body)}`;
    const { company, code, context, page, errors } = await registerWithCaea({
      name: 'Corralón Grande',
      cuit,
      legalName: 'Corralón Grande S.A.',
      address: 'Ruta 5 km 10',
      product: { name: 'Tractor', bc: '7790387000028', basePrice: 10_000_000, stock: 5 },
    });
    await page.waitForSelector('#register-input');
    await page.waitForSelector('#caea-ready');
    await page.waitForFunction(async () => !!(await caches.match('/caja')) && !!navigator.serviceWorker.controller);

    // The box kept the block of a fortnight that has ended, without using it (no outage then).
    const [past] = await t.container.db.query<{ id: number }>(
      `INSERT INTO caea_codes (company_id, issuer_cuit, environment, period, fortnight, caea, valid_from, valid_to, inform_by)
       VALUES ($1, $2, 'homologacion', 202001, 1, '41234567890123', '2020-01-01', '2020-01-15', '2099-01-01') RETURNING id`,
      [company.id, cuit],
    );
    await t.container.db.query(`UPDATE caea_blocks SET caea_id = $2 WHERE company_id = $1 AND status = 'open'`, [
      company.id,
      past!.id,
    ]);
    const stale = (await kv(page, 'caea')) as { caea: Record<string, string> };
    await kv(page, 'caea', {
      ...stale,
      caea: { code: '41234567890123', valid_from: '2020-01-01', valid_to: '2020-01-15' },
    });
    const blocksOf = () =>
      t.container.db.query<{ caea_id: number; status: string }>(
        `SELECT caea_id, status FROM caea_blocks WHERE company_id = $1 AND receipt_code = 6 ORDER BY id`,
        [company.id],
      );
    const [current] = await t.container.db.query<{ id: number }>(
      'SELECT id FROM caea_codes WHERE company_id = $1 AND caea = $2',
      [company.id, code],
    );
    // Online again with the shift open: the box gives the old block back and holds one of the new CAEA.
    await page.reload();
    await page.waitForSelector('#register-input');
    await expect
      .poll(async () => (await blocksOf()).map((b) => `${b.caea_id}:${b.status}`), { timeout: 15_000 })
      .toEqual([`${past!.id}:returned`, `${current!.id}:open`]);
    await expect
      .poll(async () => ((await kv(page, 'caea')) as { caea: { code: string } } | null)?.caea.code, { timeout: 15_000 })
      .toBe(code);
    const held = (await kv(page, 'caea')) as {
      blocks: { id: number; first: number; receipt_code: number }[];
      next: Record<string, number>;
    };
    const factB = held.blocks.find((b) => b.receipt_code === 6)!;

    // Offline, $ 10.000.000 to an unidentified consumer: the ticket is not a Factura, no number is taken, the cashier is told.
    await page.waitForSelector('.register-head :text("productos")');
    await context.setOffline(true);
    await page.waitForFunction(() => document.activeElement?.id === 'register-input');
    await scanAndPay(page, '7790387000028');
    await page.waitForSelector('#ticket');
    await expect(page.locator('#ticket').textContent()).resolves.toContain('no válido como factura');
    expect(await page.locator('#ticket-invoice').count()).toBe(0);
    await expect(page.locator('#ticket-needs-buyer').textContent()).resolves.toContain('RG 5700');
    expect(((await kv(page, 'caea')) as typeof held).next[String(factB.id)] ?? factB.first).toBe(factB.first);

    // Back online the sale arrives without a receipt: it is invoiced there, with the buyer's document.
    await page.click('#ticket-new');
    await context.setOffline(false);
    await page.waitForFunction(() => !document.querySelector('#register-offline'), undefined, { timeout: 30_000 });
    expect(await t.container.db.query('SELECT 1 FROM sales WHERE company_id = $1', [company.id])).toHaveLength(1);
    expect(await t.container.db.query('SELECT 1 FROM invoices WHERE company_id = $1', [company.id])).toHaveLength(0);
    expect(errors).toEqual([]);
    await context.close();
  });
});
