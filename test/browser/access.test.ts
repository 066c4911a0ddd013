import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeUser } from '../factories.ts';
import { launchChromium } from '../setup/browser.ts';

describe('people and access in a real browser', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  beforeAll(async () => {
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000' } });
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
  const text = (page: Page, selector: string) => page.locator(selector).first().textContent();

  it('a superadmin logs in, creates a company that shows at once, opens it, adds its owner and logs out', async () => {
    const company = await makeCompany(t.container, { name: 'Panadería La Espiga' });
    const operator = await makeUser(t.container, { superadmin: true });
    const context = await browser.newContext();
    const page = await context.newPage();

    await page.goto(`${base}/superadmin/companies`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await expect(text(page, 'h1')).resolves.toBe('Ingresá a Mostrador');

    await logIn(page, operator.email, 'not-the-password');
    await page.waitForSelector('#login-message:has-text("no son correctos")');

    await logIn(page, operator.email, operator.password);
    await page.waitForURL(`${base}/superadmin/companies`);
    await expect(text(page, 'main h1')).resolves.toBe('Empresas');
    await expect(text(page, `tr[data-company-id="${company.id}"] td`)).resolves.toBe('Panadería La Espiga');

    await page.fill('#name', 'Verdulería Los Andes');
    await page.click('#create-form button[type=submit]');
    await page.waitForSelector('#create-result');
    const key = await text(page, '#new-key');
    expect(key).toMatch(/^mos_int_/);
    const createdId = await t.container.companies.findCompanyIdByIntegrationKey(key!);
    expect(createdId).not.toBeNull();
    // No "refresh the list": the new company is the first row already.
    await expect(text(page, '#companies tbody tr td')).resolves.toBe('Verdulería Los Andes');

    await page.click('#new-company-link');
    await page.waitForURL(`${base}/superadmin/companies/${createdId}`);
    await expect(text(page, 'main h1')).resolves.toBe('Verdulería Los Andes');
    await page.fill('#member-email', 'duena@losandes.example.com');
    await page.selectOption('#member-role', 'admin');
    await page.click('#member-form button[type=submit]');
    await page.waitForSelector('#temporary-password-value');
    const temporary = (await text(page, '#temporary-password-value'))!;
    await page.waitForSelector('#member-rows td:has-text("duena@losandes.example.com")');

    await page.click('[data-logout]');
    await page.waitForURL(`${base}/login`);
    expect((await context.cookies()).find((c) => c.name === 'mostrador_session')).toBeUndefined();

    // The new owner logs in with the temporary password and lands on their company's products.
    await logIn(page, 'duena@losandes.example.com', temporary);
    await page.waitForURL(`${base}/productos`);
    await expect(text(page, '.shell-header .company')).resolves.toBe('Verdulería Los Andes');
    await context.close();
  });

  it('a cashier lands on the register, is sent away from operator pages, and /login says who is signed in', async () => {
    const company = await makeCompany(t.container, { name: 'Almacén Don Tito' });
    const cashier = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/login?next=${encodeURIComponent('/superadmin/companies')}`);
    await logIn(page, cashier.email, cashier.password);
    // Refused by /superadmin, sent to `/`, which sends a cashier to the register (never a dead end).
    await page.waitForURL(`${base}/caja`);
    await expect(page.locator('.shell-nav a').allTextContents()).resolves.toEqual(['Caja', 'Mi cuenta', 'Ayuda']);
    await page.goto(`${base}/superadmin`);
    expect(new URL(page.url()).pathname).toBe('/caja');
    const session = (await context.cookies()).find((c) => c.name === 'mostrador_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax' });

    await page.goto(`${base}/login`);
    await page.waitForSelector('#signed-in');
    await expect(text(page, '#signed-in')).resolves.toContain(cashier.email);
    await expect(page.locator('#continue').getAttribute('href')).resolves.toBe('/caja');
    await page.click('#switch-account');
    await page.waitForSelector('#login-form');
    expect((await context.cookies()).find((c) => c.name === 'mostrador_session')).toBeUndefined();
    await context.close();
  });

  it('a company admin shows and hides the integration key, and the activity log names it', async () => {
    const company = await makeCompany(t.container);
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/settings/integrations`);
    await logIn(page, admin.email, admin.password);
    await page.waitForURL(`${base}/settings/integrations`);
    await expect(text(page, '#integration-key')).resolves.toContain('••••');
    await page.click('#reveal-key');
    await page.waitForSelector('#examples');
    await expect(text(page, '#integration-key')).resolves.toBe(company.integrationKey);
    await expect(text(page, '#reveal-key')).resolves.toBe('Ocultar');
    await expect(text(page, '#ex-curl')).resolves.toContain('x-signature: ');
    await page.waitForSelector('#audit-rows td:has-text("Clave de integración mostrada")');
    await page.click('#reveal-key');
    await expect(text(page, '#reveal-key')).resolves.toBe('Mostrar');
    await expect(text(page, '#integration-key')).resolves.toContain('••••');
    expect(await page.locator('#examples').count()).toBe(0);
    await context.close();
  });

  it('a company admin adds a cashier who logs in with the temporary password, then takes the access away', async () => {
    const company = await makeCompany(t.container, { name: 'Librería Sur' });
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/settings/people`);
    await logIn(page, admin.email, admin.password);
    await page.waitForURL(`${base}/settings/people`);
    await page.fill('#member-email', 'cajero@libreriasur.example.com');
    await page.fill('#member-name', 'Tomás');
    await page.click('#member-form button[type=submit]');
    await page.waitForSelector('#temporary-password-value');
    const temporary = (await text(page, '#temporary-password-value'))!;
    expect(
      (
        await t.container.auth.login(
          {
            requestId: 't',
            companyId: null,
            actor: { kind: 'anonymous' },
            origin: { ip: '127.0.0.9', userAgent: null, requestId: null },
          },
          { email: 'cajero@libreriasur.example.com', password: temporary },
        )
      ).token,
    ).toBeTruthy();

    const row = page.locator('tr', { hasText: 'cajero@libreriasur.example.com' });
    page.on('dialog', () => {
      throw new Error('a native dialog was opened; the page must use its own');
    });
    await row.locator('[data-member-action="disable"]').click();
    await page.click('dialog [data-confirm]');
    await page.waitForSelector('#members-message:has-text("ya no entra a esta empresa")');
    await expect(row.locator('.badge').textContent()).resolves.toContain('Sin acceso');
    await context.close();
  });
});
