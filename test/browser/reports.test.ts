import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { sendEvent } from '../integration-helpers.ts';
import { launchChromium } from '../setup/browser.ts';
import { cutChartLabels, logIn, problemsOf, VIEWPORTS, watch, watchedContext } from './page-checks.ts';

const SHOTS = '/tmp/shots-reports';

/** Issue 30 on the screens: Inicio after login and a report, at 1366 and 390 px. */
describe('Inicio and Reportes (real browser)', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000', AUTH_LOGIN_LIMIT_PER_ACCOUNT: '1000' } });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function shop(name: string) {
    const company = await makeCompany(t.container, { name });
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const names = ['Yerba Playadito 1 kg', 'Azúcar Ledesma 1 kg', 'Fideos Matarazzo tirabuzón 500 g', 'Leche La Serenísima 1 l'];
    const products = [];
    for (const [n, productName] of names.entries()) {
      products.push(
        await makeProduct(t.container, company.id, {
          name: productName,
          basePrice: 1000 + n * 750,
          cost: '700',
          minStock: n === 3 ? '10' : null,
        }),
      );
    }
    // Today's sales at different hours, paid by different methods.
    const methods = ['efectivo', 'debito', 'qr', 'efectivo', 'transferencia', 'efectivo'];
    for (let n = 0; n < methods.length; n++) {
      const product = products[n % products.length]!;
      const at = new Date(Date.now() - n * 50 * 60_000);
      const key = company.integrationKey;
      const quantity = 1 + (n % 3);
      const price = Number(product.basePrice);
      const sale = {
        id: 100 + n,
        total: quantity * price,
        items: [{ product_id: product.id, quantity, price }],
        created_at: at.toISOString(),
      };
      expect((await sendEvent(t.app, key, { event: 'sales.created', data: { sale } })).statusCode).toBeLessThan(300);
      const paid = await sendEvent(t.app, key, {
        event: 'sales.paid',
        data: { sale: { id: 100 + n, payment_method: methods[n] } },
      });
      expect(paid.statusCode, paid.body).toBeLessThan(300);
    }
    return { company, admin };
  }

  it.each(Object.entries(VIEWPORTS))(
    'an admin lands on Inicio: today, charts with their tables, attention lists (%s)',
    async (name, viewport) => {
      const s = await shop(`Almacén Inicio ${name}`);
      const context = await watchedContext(browser, viewport);
      const page = watch(await context.newPage());
      await logIn(page, base, s.admin.email, s.admin.password);
      expect(new URL(page.url()).pathname).toBe('/inicio');
      await page.waitForSelector('#home-today');
      const summary = (
        await t.app.inject({
          method: 'GET',
          url: '/api/v1/reports/home',
          headers: { cookie: (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ') },
        })
      ).json();
      const todayText = await page.locator('#home-today .stat strong').first().textContent();
      expect((todayText ?? '').replace(/\s/g, ' ')).toContain(
        `$ ${summary.today.total.toLocaleString('es-AR', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`,
      );
      // Every chart has its figures as a table for screen readers.
      const figures = await page.locator('figure.chart').count();
      expect(figures).toBeGreaterThanOrEqual(3);
      expect(await page.locator('figure.chart table').count()).toBe(figures);
      expect(await page.locator('#home-low-stock').textContent()).toContain('Leche La Serenísima 1 l');
      // No label of the hours cut by the chart's edge; nor of the days on Reportes.
      expect(await cutChartLabels(page)).toEqual([]);
      await page.goto(`${base}/reportes`);
      await page.waitForSelector('figure.chart svg text');
      expect(await page.locator('figure.chart svg text').first().textContent()).toMatch(/^01\/\d\d$/);
      expect(await cutChartLabels(page)).toEqual([]);
      await page.goto(`${base}/inicio`);
      await page.waitForSelector('#home-today');
      await page.screenshot({ path: `${SHOTS}/inicio-${name}.png`, fullPage: true });
      const problems = await problemsOf(page);
      expect(problems).toEqual({ console: [], csp: [], errors: [], overflow: 0 });
      await context.close();
    },
  );

  /** 91 integration sales of today, each of one line: past 2^53 cents or thousandths in sum. */
  async function send91Sales(key: string, line: { product_id: number; quantity: number; price: number }, total: number) {
    const at = new Date().toISOString();
    for (let id = 1; id <= 91; id++) {
      const sale = { id, total, items: [line], created_at: at };
      const res = await sendEvent(t.app, key, { event: 'sales.created', data: { sale } });
      expect(res.statusCode, res.body).toBeLessThan(300);
    }
  }

  it.each(Object.entries(VIEWPORTS))(
    'Inicio and the day summary with sales past what cents hold exactly: whole pesos, no error, no overflow (%s)',
    async (name, viewport) => {
      const company = await makeCompany(t.container, { name: `Campo ${name}` });
      const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
      const land = await makeProduct(t.container, company.id, { name: 'Campo', basePrice: 1, cost: '1' });
      await send91Sales(
        company.integrationKey,
        { product_id: land.id, quantity: 1, price: 999_999_999_999.99 },
        999_999_999_999.99,
      );
      const context = await watchedContext(browser, viewport);
      const page = watch(await context.newPage());
      await logIn(page, base, admin.email, admin.password);
      await page.waitForSelector('#home-today');
      const today = (await page.locator('#home-today .stat strong').first().textContent()) ?? '';
      expect(today.replace(/\s/g, ' ')).toBe('$ 90.999.999.999.999');
      // Each figure stays inside its card (a card grows with its figure; money never wraps).
      const spilled = await page.$$eval(
        '#home-today .stat',
        (cards) => cards.filter((c) => c.scrollWidth > c.clientWidth).length,
      );
      expect(spilled).toBe(0);
      await page.screenshot({ path: `${SHOTS}/inicio-campo-${name}.png`, fullPage: true });
      expect(await problemsOf(page)).toEqual({ console: [], csp: [], errors: [], overflow: 0 });
      await context.close();
    },
  );

  it.each(Object.entries(VIEWPORTS))(
    'Reportes and Inicio with quantities past what thousandths hold exactly: whole units, no error, no overflow (%s)',
    async (name, viewport) => {
      const company = await makeCompany(t.container, { name: `Arenera ${name}` });
      const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
      const sand = await makeProduct(t.container, company.id, { name: 'Arena', basePrice: 0 });
      // 91 free lines of 99.999.999.999,999 units: past 2^53 thousandths in sum.
      await send91Sales(company.integrationKey, { product_id: sand.id, quantity: 99_999_999_999.999, price: 0 }, 0);
      const context = await watchedContext(browser, viewport);
      const page = watch(await context.newPage());
      await logIn(page, base, admin.email, admin.password);
      await page.waitForSelector('#home-today');
      await expect(page.getByText('Arena · 9.100.000.000.000').count()).resolves.toBeGreaterThan(0);
      await page.screenshot({ path: `${SHOTS}/inicio-arena-${name}.png`, fullPage: true });
      expect(await problemsOf(page)).toEqual({ console: [], csp: [], errors: [], overflow: 0 });
      await page.goto(`${base}/reportes?reporte=products`);
      await page.waitForSelector('#report-table tbody tr');
      const row = await page.locator('#report-table tbody tr:first-child td').allTextContents();
      expect(row.slice(1, 3)).toEqual(['Arena', '9.100.000.000.000']);
      await page.screenshot({ path: `${SHOTS}/reportes-arena-${name}.png`, fullPage: true });
      expect(await problemsOf(page)).toEqual({ console: [], csp: [], errors: [], overflow: 0 });
      await context.close();
    },
  );

  it.each(Object.entries(VIEWPORTS))(
    'Reportes: products sorted by a column, with chart, CSV link and no overflow (%s)',
    async (name, viewport) => {
      const s = await shop(`Almacén Reportes ${name}`);
      const context = await watchedContext(browser, viewport);
      const page = watch(await context.newPage());
      await logIn(page, base, s.admin.email, s.admin.password, '/reportes?reporte=products');
      await page.waitForSelector('#report-table tbody tr');
      const names = () => page.locator('#report-table tbody tr td:nth-child(2)').allInnerTexts();
      // Biggest sales first; a click on "Producto" sorts by name.
      await page.click('#report-table thead th:nth-child(2) button');
      const sorted = await names();
      expect(sorted).toEqual([...sorted].sort((a, b) => a.localeCompare(b, 'es')));
      expect(await page.locator('#report-table thead th:nth-child(2)').getAttribute('aria-sort')).toBe('ascending');
      expect(await page.locator('#report-table tfoot').textContent()).toContain('Total');
      expect(await page.locator('figure.chart table').count()).toBe(1);
      const csv = await page.locator('a[href*="/api/v1/reports/products.csv"]').getAttribute('href');
      const download = await context.request.get(`${base}${csv}`);
      expect(download.status()).toBe(200);
      expect((await download.text()).split('\r\n')[0]).toBe('\uFEFFCódigo;Producto;Cantidad;Tickets;Ventas;% de las ventas');
      await page.screenshot({ path: `${SHOTS}/reportes-${name}.png`, fullPage: true });
      const problems = await problemsOf(page);
      expect(problems).toEqual({ console: [], csp: [], errors: [], overflow: 0 });
      await page.emulateMedia({ media: 'print' });
      await page.screenshot({ path: `${SHOTS}/reportes-print-${name}.png`, fullPage: true });
      await context.close();
    },
  );

  it.each(Object.entries(VIEWPORTS))(
    'Libro IVA Ventas: the month, its two downloads and the totals, readable (%s)',
    async (name, viewport) => {
      const s = await shop(`Almacén Libro ${name}`);
      const context = await watchedContext(browser, viewport);
      const page = watch(await context.newPage());
      await logIn(page, base, s.admin.email, s.admin.password, '/libro-iva');
      await page.waitForSelector('#book-receipts');
      expect(await page.locator('a[href*="file=cbte"]').count()).toBe(1);
      expect(await page.locator('a[href*="file=alicuotas"]').count()).toBe(1);
      expect(await page.locator('#book-receipts').textContent()).toContain('No hay comprobantes con CAE en este mes.');
      // A month with no receipt shows no empty totals cards (on a phone, a bare title each).
      expect(await page.locator('#book-by-type, #book-by-rate').count()).toBe(0);
      await page.screenshot({ path: `${SHOTS}/libro-iva-${name}.png`, fullPage: true });
      expect(await problemsOf(page)).toEqual({ console: [], csp: [], errors: [], overflow: 0 });
      // On a phone the tables stack, one block per row: no column (IVA, Total) hidden off to the side.
      const sideways = await page.evaluate(
        () => Array.from(document.querySelectorAll('.table-wrap')).filter((w) => w.scrollWidth > w.clientWidth + 1).length,
      );
      expect(sideways).toBe(0);
      await context.close();
    },
  );
});
