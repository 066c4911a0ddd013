import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../setup/browser.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeUser } from '../factories.ts';

describe('people and access in a real browser', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  beforeAll(async () => {
    t = await buildTestApp();
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function logIn(page: Page, email: string, password: string) {
    await page.fill('#email', email);
    await page.fill('#password', password);
    await page.click('#login-form button[type=submit]');
  }

  it('a superadmin logs in, sees the companies page, creates a company and logs out', async () => {
    const company = await makeCompany(t.container, { name: 'Panadería La Espiga' });
    const operator = await makeUser(t.container, { superadmin: true });
    const context = await browser.newContext();
    const page = await context.newPage();

    await page.goto(`${base}/superadmin/companies`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await expect(page.locator('h1').textContent()).resolves.toBe('Ingresá a Mostrador');

    await logIn(page, operator.email, 'not-the-password');
    await page.waitForSelector('#login-message:has-text("no son correctos")');

    await logIn(page, operator.email, operator.password);
    await page.waitForURL(`${base}/superadmin/companies`);
    await expect(page.locator('h1').textContent()).resolves.toBe('Empresas');
    await expect(page.locator(`tr[data-company-id="${company.id}"] td`).first().textContent()).resolves.toBe(
      'Panadería La Espiga',
    );

    await page.fill('#name', 'Verdulería Los Andes');
    await page.click('#create-form button[type=submit]');
    await page.waitForSelector('#create-result:not([hidden])');
    const key = await page.locator('#new-key').textContent();
    expect(key).toMatch(/^mos_int_/);
    expect(await t.container.companies.findCompanyIdByIntegrationKey(key!)).not.toBeNull();

    await page.click('[data-logout]');
    await page.waitForURL(`${base}/login`);
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === 'mostrador_session')).toBeUndefined();
    await page.goto(`${base}/superadmin/companies`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await context.close();
  });

  it('a cashier logs in and is sent away from /superadmin', async () => {
    const company = await makeCompany(t.container);
    const cashier = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/login?next=${encodeURIComponent('/superadmin/companies')}`);
    await logIn(page, cashier.email, cashier.password);
    // Refused by /superadmin, sent to `/`, which sends a cashier on to the docs (no POS page yet).
    await page.waitForURL((url) => url.pathname !== '/login');
    expect(new URL(page.url()).pathname).toBe('/docs');
    await page.goto(`${base}/superadmin`);
    expect(new URL(page.url()).pathname).toBe('/docs');
    const session = (await context.cookies()).find((c) => c.name === 'mostrador_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    await context.close();
  });

  it('a company admin reveals the integration key with ready examples', async () => {
    const company = await makeCompany(t.container);
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/settings/integrations`);
    await logIn(page, admin.email, admin.password);
    await page.waitForURL(`${base}/settings/integrations`);
    await expect(page.locator('#integration-key').textContent()).resolves.toContain('••••');
    await page.click('#reveal-key');
    await page.waitForSelector('#examples:not([hidden])');
    await expect(page.locator('#integration-key').textContent()).resolves.toBe(company.integrationKey);
    await expect(page.locator('#ex-curl').textContent()).resolves.toContain(`x-signature: `);
    await page.waitForSelector('#audit-rows td:has-text("Clave de integración mostrada")');
    await context.close();
  });
});
