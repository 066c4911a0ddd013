import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { launchChromium } from '../setup/browser.ts';
import { logIn, problemsOf, VIEWPORTS, watch, watchedContext } from './page-checks.ts';

// Screenshots for a person to look at: SCREENSHOTS_DIR=/tmp/shots npx vitest run test/browser/pages.test.ts
const SHOTS = process.env['SCREENSHOTS_DIR'];

describe('every signed-in page, on a desktop and on a phone', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  const people: Record<'operator' | 'admin' | 'cashier', { email: string; password: string }> = {} as never;
  let companyId = 0;
  let invitationPath = '';
  beforeAll(async () => {
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000' } });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
    const company = await makeCompany(t.container, { name: 'Almacén y Forrajería «Los Hermanos Fernández Rodríguez»' });
    companyId = company.id;
    await makeCompany(t.container, { name: 'Kiosco Las Heras', cuit: '30-71234567-1' });
    await makeProduct(t.container, company.id, { name: 'Yerba mate suave 1 kg' });
    people.admin = await makeUser(t.container, {
      companyId: company.id,
      role: 'admin',
      email: 'duena.con.un.email.muy.largo@almacen-los-hermanos.example.com',
    });
    people.cashier = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    people.operator = await makeUser(t.container, { superadmin: true });
    const endpoint = await t.container.webhooks.endpoints.createEndpoint(
      { requestId: 'test', companyId, actor: { kind: 'cli' }, origin: { ip: null, userAgent: null, requestId: null } },
      { url: 'https://tienda.example.com/webhooks/mostrador/con/una/ruta/larguisima/que/no/entra', description: 'Tienda online' },
    );
    expect(endpoint.endpoint.id).toBeTruthy();
    const invited = await t.container.invitations.invite(
      { requestId: 'test', companyId, actor: { kind: 'cli' }, origin: { ip: null, userAgent: null, requestId: null } },
      { email: 'encargado.de.turno.tarde.con.email.largo@almacen-los-hermanos.example.com', role: 'cashier' },
    );
    invitationPath = `/invitacion${new URL(invited.link).hash}`;
    if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const PAGES: ['operator' | 'admin' | 'cashier', string, string][] = [
    ['admin', '/settings/integrations', 'Integraciones'],
    ['admin', '/productos', 'Productos'],
    ['admin', '/clientes', 'Clientes'],
    ['admin', '/clientes/nuevo', 'Nuevo cliente'],
    ['cashier', '/clientes', 'Esta sección no es para tu usuario'],
    ['admin', '/settings/api-tokens', 'Tokens de API'],
    ['operator', '/superadmin/instagram', 'Instagram'],
    ['operator', '/superadmin/whatsapp', 'WhatsApp'],
    ['admin', '/settings/people', 'Personas'],
    ['admin', '/settings/scanner', 'Escáner y balanzas'],
    ['admin', '/cuenta', 'Mi cuenta'],
    ['cashier', '/cuenta', 'Mi cuenta'],
    ['cashier', '/settings/integrations', 'Esta sección no es para tu usuario'],
    ['operator', '/superadmin/companies', 'Empresas'],
    ['operator', '/superadmin/companies/:company', 'Almacén y Forrajería'],
    ['operator', '/login', 'Ingresá a Mostrador'],
  ];

  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    it.each(PAGES)(`${size}: as %s, %s fits, has no console error and no CSP violation`, async (who, path, heading) => {
      const context = await watchedContext(browser, viewport);
      const page = watch(await context.newPage());
      await logIn(page, base, people[who].email, people[who].password);
      const url = path.replace(':company', String(companyId));
      await page.goto(`${base}${url}`);
      await page.waitForSelector('main h1');
      expect(await page.locator('main h1').first().textContent()).toContain(heading);
      // Open what unfolds, so it is measured too.
      if (path === '/settings/integrations' && who === 'admin') {
        await page.click('#reveal-key');
        await page.waitForSelector('#examples');
        await page.click('[data-webhook-action="deliveries"]');
        await page.waitForSelector('#delivery-rows');
      }
      if (SHOTS) await page.screenshot({ path: `${SHOTS}/${who}${url.replace(/\W+/g, '_')}-${size}.png`, fullPage: true });
      const found = await problemsOf(page);
      // The refused page is answered with 403 on purpose; Chromium logs any non-2xx document as an error.
      const expected = heading.startsWith('Esta sección')
        ? ['Failed to load resource: the server responded with a status of 403 (Forbidden)']
        : [];
      expect(found).toEqual({ console: expected, csp: [], errors: [], overflow: 0 });
      await context.close();
    });
  }

  it.each(Object.entries(VIEWPORTS))(
    'the invitation page fits a %s, both ways in, with no console error',
    async (size, viewport) => {
      const context = await watchedContext(browser, viewport);
      const page = watch(await context.newPage());
      await page.goto(`${base}${invitationPath}`);
      await page.waitForSelector('#new-account-form');
      expect(await page.locator('main h1').first().textContent()).toContain('Almacén y Forrajería');
      if (SHOTS) await page.screenshot({ path: `${SHOTS}/invitation-new-${size}.png`, fullPage: true });
      expect(await problemsOf(page)).toEqual({ console: [], csp: [], errors: [], overflow: 0 });
      await page.click('#mode-existing');
      await page.waitForSelector('#existing-account-form');
      expect(await problemsOf(page)).toEqual({ console: [], csp: [], errors: [], overflow: 0 });
      await context.close();
    },
  );

  it.each(Object.entries(VIEWPORTS))(
    'an address that does not exist, or a page address with a bad value, is a page in Spanish that fits a %s',
    async (size, viewport) => {
      const context = await watchedContext(browser, viewport);
      await logIn(await context.newPage(), base, people.admin.email, people.admin.password);
      for (const [url, status, heading] of [
        ['/ventas-de-la-semana-pasada-con-un-nombre-largo', 404, 'Página no encontrada'],
        ['/clientes/1/estado-de-cuenta?desde=el-lunes', 400, 'La dirección no es válida'],
      ] as const) {
        const page = watch(await context.newPage());
        const res = await page.goto(`${base}${url}`);
        expect(res?.status()).toBe(status);
        expect(await page.locator('main h1').textContent()).toBe(heading);
        await expect(page.locator('#error-page a[href="/"]').textContent()).resolves.toBe('Ir al inicio');
        if (SHOTS) await page.screenshot({ path: `${SHOTS}/error-${status}-${size}.png`, fullPage: true });
        // Chromium logs any non-2xx document as an error; nothing else may go wrong.
        expect(await problemsOf(page)).toEqual({
          console: [expect.stringContaining(`status of ${status}`)],
          csp: [],
          errors: [],
          overflow: 0,
        });
      }
      await context.close();
    },
  );

  it.each(Object.entries(VIEWPORTS))('the docs fit a %s too (tables scroll inside the page)', async (_size, viewport) => {
    const context = await watchedContext(browser, viewport);
    const page = watch(await context.newPage());
    for (const slug of ['', '/integraciones-eventos', '/integraciones', '/webhooks', '/precios', '/referencia-api', '/escaner']) {
      await page.goto(`${base}/docs${slug}`);
      const found = await problemsOf(page);
      expect([slug, found]).toEqual([slug, { console: [], csp: [], errors: [], overflow: 0 }]);
    }
    await context.close();
  });
});
