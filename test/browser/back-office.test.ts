import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { launchChromium } from '../setup/browser.ts';
import { logIn, problemsOf, VIEWPORTS, watch, watchedContext } from './page-checks.ts';

const SHOTS = '/tmp/shots-issue-13';

describe('back office screens (Productos, Tokens de API), in a real browser', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000' } });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function owner() {
    const company = await makeCompany(t.container, { name: 'Almacén Don Tito' });
    await makeProduct(t.container, company.id, { name: 'Yerba mate suave 1 kg', sku: 'YER-1', basePrice: 4890 });
    await makeProduct(t.container, company.id, { name: 'Azúcar común 1 kg', sku: 'AZU-1', basePrice: 1200 });
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    return { company, admin };
  }

  const priceOf = async (companyId: number, sku: string) =>
    Number(
      (
        await t.container.db.query<{ p: string }>(
          'SELECT base_price::text AS p FROM products WHERE company_id = $1 AND sku = $2',
          [companyId, sku],
        )
      )[0]!.p,
    );

  it.each(Object.entries(VIEWPORTS))(
    'an owner lands on Inicio, opens Productos, searches, edits a price inline, adds a product, raises prices with a preview and imports a spreadsheet (%s)',
    async (name, viewport) => {
      const { company, admin } = await owner();
      const context = await watchedContext(browser, viewport);
      const page = watch(await context.newPage());
      await logIn(page, base, admin.email, admin.password, '/');
      await page.waitForURL(`${base}/inicio`);
      await page.goto(`${base}/productos`);
      await page.waitForSelector('[data-product]');
      await expect(page.locator('[data-product]').count()).resolves.toBe(2);
      await page.fill('#search', 'AZUCAR');
      await page.waitForFunction(() => document.querySelectorAll('[data-product]').length === 1);

      // Inline price: type and Enter.
      const price = page.locator('[data-price]').first();
      await price.fill('1.350,50');
      await price.press('Enter');
      await page.waitForSelector('.price-cell :text("Guardado")');
      expect(await priceOf(company.id, 'AZU-1')).toBe(1350.5);

      // A new product with a mistyped barcode is refused with the reason, then added.
      await page.fill('#search', '');
      await page.fill('#np-name', 'Fideos tirabuzón 500 g');
      await page.fill('#np-price', '1.100');
      await page.fill('#np-sku', 'FID-1');
      await page.fill('#np-barcode', '7790000000001');
      await page.click('#new-product button[type=submit]');
      await page.waitForSelector('[data-new-problem]');
      await expect(page.locator('[data-new-problem]').textContent()).resolves.toContain('dígito verificador');
      await page.fill('#np-barcode', '');
      await page.click('#new-product button[type=submit]');
      await page.waitForFunction(() => document.querySelectorAll('[data-product]').length === 3);
      expect(await priceOf(company.id, 'FID-1')).toBe(1100);

      // A 10 % rise on everything, rounded to $ 10: preview first, then apply.
      await page.fill('#pc-percent', '10');
      await page.click('#price-change button[type=submit]');
      await page.waitForSelector('[data-price-preview]');
      await expect(page.locator('[data-price-preview]').textContent()).resolves.toContain('3 productos coinciden');
      expect(await priceOf(company.id, 'YER-1')).toBe(4890);
      await page.click('[data-apply-prices]');
      await page.waitForSelector('[data-price-preview] :text("Aplicado")');
      expect(await priceOf(company.id, 'YER-1')).toBe(5380);
      await page.waitForFunction(() =>
        Array.from(document.querySelectorAll<HTMLInputElement>('[data-price]')).some((input) => input.value === '5380'),
      );

      // A spreadsheet with one broken row: the review lists it, importing applies the rest.
      const csv = Buffer.from('sku;nombre;precio\nLEC-1;Leche entera 1 l;1.290,00\nMAL;Mal precio;abc\n', 'latin1');
      await page.setInputFiles('#import-file', { name: 'productos.csv', mimeType: 'text/csv', buffer: csv });
      await page.click('#import button:has-text("Revisar")');
      await page.waitForSelector('#import-errors');
      await expect(page.locator('#import-errors').textContent()).resolves.toContain('precio inválido');
      await page.screenshot({ path: `${SHOTS}/productos-${name}.png`, fullPage: true });
      await page.click('[data-import-apply]');
      await page.waitForSelector('[data-import-result] :text("Listo")');
      expect(await priceOf(company.id, 'LEC-1')).toBe(1290);
      const found = await problemsOf(page);
      // The one refused request is the mistyped barcode above (Chromium logs every 4xx answer).
      expect(found.console).toEqual([expect.stringContaining('status of 422')]);
      expect({ ...found, console: [] }).toEqual({ console: [], csp: [], errors: [], overflow: 0 });
      await context.close();
    },
  );

  it.each(Object.entries(VIEWPORTS))(
    'Productos puts its actions first; a weighed product starts with stock in a chosen deposit; the spreadsheet’s stock column adjusts the chosen deposit (%s)',
    async (name, viewport) => {
      const { company, admin } = await owner();
      await t.container.db.query('INSERT INTO deposits (company_id, id, name) VALUES ($1, 2, $2)', [company.id, 'Sucursal']);
      const context = await watchedContext(browser, viewport);
      const page = watch(await context.newPage());
      await logIn(page, base, admin.email, admin.password, '/productos');
      await page.waitForSelector('[data-product]');
      // The four actions come before the catalogue, inside the first screen even on a phone.
      const actions = await page.locator('.page-actions').boundingBox();
      const catalog = await page.locator('#catalog').boundingBox();
      expect(actions!.y).toBeLessThan(catalog!.y);
      for (const action of ['new', 'prices', 'import', 'export']) {
        const box = await page.locator(`[data-action="${action}"]`).boundingBox();
        expect(box!.y + box!.height, action).toBeLessThan(viewport.height);
      }
      await page.click('[data-action="new"]');
      await page.waitForURL(/#nuevo-producto$/);

      // A weighed product with 12,5 kg in Sucursal: one ADJUSTMENT there, none in the main deposit.
      await page.fill('#np-name', 'Pan francés');
      await page.fill('#np-price', '3.290');
      await page.selectOption('#np-unit', 'kg');
      await page.fill('#np-stock', '12,5');
      await page.waitForSelector('#np-deposit option:has-text("Sucursal")', { state: 'attached' });
      await page.selectOption('#np-deposit', '2');
      await page.click('#new-product button[type=submit]');
      await page.waitForSelector('.notice:has-text("Pan francés")');
      const [bread] = await t.container.db.query<{ id: number; unit: string; stock: string }>(
        "SELECT id, unit, stock::text AS stock FROM products WHERE company_id = $1 AND name = 'Pan francés'",
        [company.id],
      );
      expect(bread).toMatchObject({ unit: 'kg', stock: '12.500' });
      const levels = await t.container.db.query<{ deposit_id: number; quantity: string }>(
        'SELECT deposit_id, quantity::text AS quantity FROM stock_levels WHERE company_id = $1 AND product_id = $2 ORDER BY deposit_id',
        [company.id, bread!.id],
      );
      expect(levels).toEqual([{ deposit_id: 2, quantity: '12.500' }]);

      // The stock column of a spreadsheet, into Sucursal: the review counts the adjustment, importing books it.
      await page.selectOption('#import-deposit', '2');
      const csv = Buffer.from('sku;nombre;precio;stock\nYER-1;Yerba mate suave 1 kg;4890;30\n', 'utf8');
      await page.setInputFiles('#import-file', { name: 'stock.csv', mimeType: 'text/csv', buffer: csv });
      await page.click('#import button:has-text("Revisar")');
      await page.waitForSelector('[data-import-result]:has-text("1 con ajuste de stock")');
      await page.screenshot({ path: `${SHOTS}/productos-acciones-${name}.png`, fullPage: true });
      await page.click('[data-import-apply]');
      await page.waitForSelector('[data-import-result] :text("Listo")');
      const [yerba] = await t.container.db.query<{ quantity: string }>(
        `SELECT l.quantity::text AS quantity FROM stock_levels l JOIN products p ON p.company_id = l.company_id AND p.id = l.product_id
          WHERE l.company_id = $1 AND p.sku = 'YER-1' AND l.deposit_id = 2`,
        [company.id],
      );
      expect(yerba).toEqual({ quantity: '30.000' });
      expect(await problemsOf(page)).toEqual({ console: [], csp: [], errors: [], overflow: 0 });
      await context.close();
    },
  );

  it.each(Object.entries(VIEWPORTS))(
    'an owner opens a product from Productos and edits every field with the keyboard; the barcode is checked as it is typed (%s)',
    async (name, viewport) => {
      const { company, admin } = await owner();
      await t.container.db.query("INSERT INTO categories (company_id, id, name) VALUES ($1, 7, 'Almacén seco')", [company.id]);
      const context = await watchedContext(browser, viewport);
      const page = watch(await context.newPage());
      await logIn(page, base, admin.email, admin.password, '/productos');
      await page.fill('#search', 'azucar');
      await page.waitForFunction(() => document.querySelectorAll('[data-product]').length === 1);
      await page.click('[data-edit]');
      await page.waitForSelector('#product-form');
      expect(new URL(page.url()).pathname).toMatch(/^\/productos\/\d+$/);
      // The form opens on the name, with every field of the product.
      await page.waitForFunction(() => document.activeElement?.id === 'p-name');
      for (const id of [
        'p-name',
        'p-sku',
        'p-barcode',
        'p-price',
        'p-cost',
        'p-iva',
        'p-unit',
        'p-category',
        'p-mark',
        'p-min-stock',
        'p-enable',
      ]) {
        await expect(page.locator(`#${id}`).count()).resolves.toBe(1);
      }
      await expect(page.inputValue('#p-name')).resolves.toBe('Azúcar común 1 kg');
      await expect(page.inputValue('#p-price')).resolves.toBe('1200,00');

      // A mistyped EAN-13 is refused as it is typed (no request), naming the right check digit.
      const requests: string[] = [];
      page.on('request', (r) => {
        if (r.url().includes('/api/v1/products/')) requests.push(r.method());
      });
      await page.fill('#p-barcode', '7790000000001');
      await page.waitForSelector('[data-barcode-check="bad"]');
      await expect(page.locator('#p-barcode-check').textContent()).resolves.toContain('debería ser 3');
      await page.press('#p-barcode', 'Enter');
      expect(requests).toEqual([]);
      // A UPC-A is fine and will be stored as EAN-13.
      await page.fill('#p-barcode', '036000291452');
      await page.waitForSelector('[data-barcode-check="ok"]');
      await expect(page.locator('#p-barcode-check').textContent()).resolves.toContain('0036000291452');

      // Everything else by keyboard: Tab between fields, arrows in the selects, Space on the box, Enter saves.
      await page.fill('#p-sku', 'AZU-10');
      await page.focus('#p-price');
      await page.keyboard.press('ControlOrMeta+a');
      await page.keyboard.type('1.350,50');
      await page.keyboard.press('Tab');
      await page.keyboard.type('900');
      await page.keyboard.press('Tab');
      await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('p-iva');
      await page.keyboard.press('ArrowDown'); // 10,5 %
      await page.keyboard.press('Tab');
      await page.keyboard.press('ArrowDown'); // kilo
      await page.keyboard.press('Tab');
      await page.keyboard.press('ArrowDown'); // Almacén seco
      await page.keyboard.press('Tab');
      await page.keyboard.type('Ledesma');
      await page.keyboard.press('Tab');
      await page.keyboard.type('2,5');
      await page.keyboard.press('Tab');
      await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('p-enable');
      await page.keyboard.press('Space');
      await page.focus('#p-mark');
      await page.keyboard.press('Enter');
      await page.waitForSelector('.notice-ok');
      await expect(page.locator('.notice-ok').textContent()).resolves.toContain('Guardado');
      const [row] = await t.container.db.query<Record<string, string | number | boolean | null>>(
        `SELECT sku, bc, name, base_price::text AS price, cost::text AS cost, iva_rate, unit, category_id, mark,
          min_stock::text AS min_stock, enable FROM products WHERE company_id = $1 AND sku = 'AZU-10'`,
        [company.id],
      );
      expect(row).toEqual({
        sku: 'AZU-10',
        bc: '0036000291452',
        name: 'Azúcar común 1 kg',
        price: '1350.50',
        cost: '900.00',
        iva_rate: '10.5',
        unit: 'kg',
        category_id: 7,
        mark: 'Ledesma',
        min_stock: '2.500',
        enable: false,
      });
      await page.screenshot({ path: `${SHOTS}/producto-${name}.png`, fullPage: true });
      expect(await problemsOf(page)).toEqual({ console: [], csp: [], errors: [], overflow: 0 });

      // Saving again without changes writes nothing; an unknown id is a page that says so.
      await page.click('#product-form button[type=submit]');
      await page.waitForSelector('.notice-info');
      const missing = await page.goto(`${base}/productos/999999`);
      expect(missing?.status()).toBe(404);
      await page.waitForSelector('[data-not-found]');
      await context.close();
    },
  );

  it('an owner receives goods, transfers to another deposit and adjusts after a count on Stock (phone)', async () => {
    const { company, admin } = await owner();
    await t.container.db.query("INSERT INTO deposits (company_id, id, name) VALUES ($1, 99, 'Trastienda')", [company.id]);
    const context = await watchedContext(browser, VIEWPORTS.phone);
    const page = watch(await context.newPage());
    await logIn(page, base, admin.email, admin.password, '/stock');
    await page.fill('#stock-search', 'yerba');
    await page.waitForFunction(() => document.querySelectorAll('[data-level]').length === 1);
    const level = async (deposit: number) =>
      Number(
        (
          await t.container.db.query<{ q: string }>(
            "SELECT coalesce((SELECT quantity::text FROM stock_levels WHERE company_id = $1 AND deposit_id = $2 AND product_id = (SELECT id FROM products WHERE company_id = $1 AND sku = 'YER-1')), '0') AS q",
            [company.id, deposit],
          )
        )[0]!.q,
      );
    const main = Number(
      (
        await t.container.db.query<{ id: number }>('SELECT id FROM deposits WHERE company_id = $1 AND is_default', [company.id])
      )[0]!.id,
    );
    const before = await level(main);

    const move = async (type: string, amount: string, extra?: () => Promise<unknown>) => {
      await page.click('[data-level] button:has-text("Mover")');
      await page.selectOption('#move-type', type);
      await page.fill('#move-amount', amount);
      await extra?.();
      await page.click('#movement button[type=submit]');
      await page.waitForSelector('#movement', { state: 'detached' });
    };
    await move('IN', '24', () => page.fill('#move-reason', 'Remito 0001-00001234'));
    expect(await level(main)).toBe(before + 24);
    await move('TRANSFER', '4', () => page.selectOption('#move-target', '99'));
    expect(await level(99)).toBe(4);
    await move('ADJUSTMENT', '15');
    expect(await level(main)).toBe(15);
    await page.waitForFunction(() => document.querySelector('[data-level] td:nth-child(2)')?.textContent === '15');
    await page.screenshot({ path: `${SHOTS}/stock-phone.png`, fullPage: true });
    expect(await problemsOf(page)).toEqual({ console: [], csp: [], errors: [], overflow: 0 });
    await context.close();
  });

  it('an owner adds a deposit, points a box at it and renames a category (phone)', async () => {
    const { company, admin } = await owner();
    const context = await watchedContext(browser, VIEWPORTS.phone);
    const page = watch(await context.newPage());
    await logIn(page, base, admin.email, admin.password, '/depositos');
    await page.fill('#new-deposit', 'Sucursal Centro');
    await page.click('#add-deposit');
    await page.waitForSelector(':text("Depósito agregado")');
    const deposit = Number(
      (
        await t.container.db.query<{ id: number }>("SELECT id FROM deposits WHERE company_id = $1 AND name = 'Sucursal Centro'", [
          company.id,
        ])
      )[0]!.id,
    );
    const box = Number(
      (
        await t.container.db.query<{ id: number }>('SELECT id FROM boxes WHERE company_id = $1 ORDER BY id LIMIT 1', [company.id])
      )[0]!.id,
    );
    await page.selectOption(`#box-deposit-${box}`, String(deposit));
    await page.waitForSelector(':text("vende desde otro depósito")');
    const [row] = await t.container.db.query<{ deposit_id: number }>(
      'SELECT deposit_id FROM boxes WHERE company_id = $1 AND id = $2',
      [company.id, box],
    );
    expect(Number(row!.deposit_id)).toBe(deposit);
    await page.fill('#new-category', 'Almacén');
    await page.click('#add-category');
    await page.waitForSelector(':text("Categoría agregada")');
    await page.screenshot({ path: `${SHOTS}/depositos-phone.png`, fullPage: true });
    expect(await problemsOf(page)).toEqual({ console: [], csp: [], errors: [], overflow: 0 });
    await context.close();
  });

  it('an owner creates an API token shown once, sees it listed without the secret, and revokes it', async () => {
    const { admin } = await owner();
    const context = await watchedContext(browser, VIEWPORTS.phone);
    const page = watch(await context.newPage());
    await logIn(page, base, admin.email, admin.password, '/settings/api-tokens');
    await page.fill('#token-name', 'Tienda online');
    await page.selectOption('#token-scope', 'read');
    await page.click('#token-form button[type=submit]');
    await page.waitForSelector('#token-secret');
    const secret = (await page.locator('#token-secret').textContent())!;
    expect(secret).toMatch(/^mos_api_/);
    const me = await fetch(`${base}/api/v1/me`, { headers: { authorization: `Bearer ${secret}` } });
    expect(me.status).toBe(200);
    await expect(page.locator('#tokens').textContent()).resolves.toContain('Solo lectura');
    await page.screenshot({ path: `${SHOTS}/tokens-phone.png`, fullPage: true });
    await page.reload();
    expect(await page.content()).not.toContain(secret);
    await page.click('[data-token] button:has-text("Revocar")');
    await page.click('dialog button:has-text("Revocar")');
    await page.waitForSelector('[data-token] :text("Revocado")');
    expect((await fetch(`${base}/api/v1/me`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(401);
    expect(await problemsOf(page)).toEqual({ console: [], csp: [], errors: [], overflow: 0 });
    await context.close();
  });
});
