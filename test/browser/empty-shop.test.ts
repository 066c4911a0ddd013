import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeUser } from '../factories.ts';
import { launchChromium } from '../setup/browser.ts';
import { problemsOf, signedInPage, VIEWPORTS, watchedContext } from './page-checks.ts';

/** A shop the day it starts: no product yet. The screens say so, not "nothing matches your search". */
describe('a new shop with no products', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  let admin: { email: string; password: string };
  beforeAll(async () => {
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000' } });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
    const company = await makeCompany(t.container, { name: 'Kiosco Recién Abierto' });
    admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('Productos and Stock say there are no products yet, and only a search says nothing matches it', async () => {
    const context = await watchedContext(browser, VIEWPORTS.phone);
    const page = await signedInPage(context, base, admin, '/productos');
    await page.goto(`${base}/productos`);
    await page.waitForSelector('[data-no-products]');
    await expect(page.locator('[data-no-products]').textContent()).resolves.toBe(
      'No hay productos habilitados. Cargá el primero en «Nuevo producto» o importá una planilla.',
    );
    await page.selectOption('#filter-enabled', '');
    await page.waitForFunction(() =>
      document.querySelector('[data-no-products]')?.textContent?.startsWith('Todavía no cargaste'),
    );
    await page.fill('#search', 'yerba');
    await page.waitForFunction(
      () => document.querySelector('[data-no-products]')?.textContent === 'No hay productos con esa búsqueda.',
    );

    await page.goto(`${base}/stock`);
    await page.waitForSelector('[data-no-levels]');
    await expect(page.locator('[data-no-levels]').textContent()).resolves.toBe(
      'Todavía no hay productos: cargalos en Productos.',
    );
    await page.fill('#stock-search', 'yerba');
    await page.waitForFunction(
      () => document.querySelector('[data-no-levels]')?.textContent === 'No hay productos con esa búsqueda.',
    );
    expect(await problemsOf(page)).toEqual({ console: [], csp: [], errors: [], overflow: 0 });
    await context.close();
  });
});
