import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeUser } from '../factories.ts';
import { launchChromium } from '../setup/browser.ts';

const SHOTS = '/tmp/mostrador-shots/access';

describe('people and access in a real browser', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;
  beforeAll(async () => {
    t = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000' } });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
    mkdirSync(SHOTS, { recursive: true });
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
  /** The link the screen showed, on this test server (the link names PUBLIC_BASE_URL). */
  async function shownLink(page: Page): Promise<string> {
    await page.waitForSelector('#invitation-link-value');
    const link = new URL((await text(page, '#invitation-link-value'))!);
    expect(link.pathname).toBe('/invitacion');
    expect(link.hash).toMatch(/^#mos_inv_/);
    return `${base}${link.pathname}${link.hash}`;
  }
  async function setPassword(page: Page, name: string, password: string) {
    await page.waitForSelector('#new-account-form');
    await page.fill('#new-name', name);
    await page.fill('#new-password', password);
    await page.fill('#new-password-again', password);
    await page.click('#new-account-form button[type=submit]');
  }

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
    const link = await shownLink(page);
    await page.waitForSelector('#invitation-rows li:has-text("duena@losandes.example.com")');

    await page.click('[data-logout]');
    await page.waitForURL(`${base}/login`);
    expect((await context.cookies()).find((c) => c.name === 'mostrador_session')).toBeUndefined();

    // The new owner opens the link, sets a password and lands on their company's Inicio.
    await page.goto(link);
    await expect(text(page, '#invitation-title')).resolves.toBe('Te invitaron a Verdulería Los Andes');
    await setPassword(page, 'Marta', 'la-clave-de-marta');
    await page.waitForURL(`${base}/inicio`);
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
    await expect(page.locator('.shell-nav a').allTextContents()).resolves.toEqual(['Caja', 'Mis ventas', 'Mi cuenta', 'Ayuda']);
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

  it('a company admin invites a cashier, who opens the link elsewhere, sets a password and lands on the register', async () => {
    const company = await makeCompany(t.container, { name: 'Librería Sur' });
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const context = await browser.newContext();
    const page = await context.newPage();
    page.on('dialog', () => {
      throw new Error('a native dialog was opened; the page must use its own');
    });
    await page.goto(`${base}/settings/people`);
    await logIn(page, admin.email, admin.password);
    await page.waitForURL(`${base}/settings/people`);
    await page.fill('#member-email', 'cajero@libreriasur.example.com');
    await page.click('#member-form button[type=submit]');
    const link = await shownLink(page);
    await page.waitForSelector('#members-message:has-text("Pasale el enlace")');
    await page.waitForSelector('#invitation-rows li:has-text("cajero@libreriasur.example.com")');
    // Not a member yet: only the pending list names the email.
    expect(await page.locator('#member-rows td:has-text("cajero@libreriasur.example.com")').count()).toBe(0);
    for (const width of [1366, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await page.screenshot({ path: `${SHOTS}/people-invited-${width}.png`, fullPage: true });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect([width, overflow]).toEqual([width, 0]);
    }

    // The invitee, on another device: the link, a name and a password, and they are in.
    const elsewhere = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const phone = await elsewhere.newPage();
    await phone.goto(link);
    await expect(text(phone, '#invitation-summary')).resolves.toContain('cajero@libreriasur.example.com');
    await phone.screenshot({ path: `${SHOTS}/invitation-new-390.png`, fullPage: true });
    await phone.fill('#new-password', 'una-clave-larga');
    await phone.fill('#new-password-again', 'otra-clave-larga');
    await phone.click('#new-account-form button[type=submit]');
    await phone.waitForSelector('#new-account-message:has-text("no coinciden")');
    await setPassword(phone, 'Tomás', 'una-clave-larga');
    await phone.waitForURL(`${base}/caja`);
    await expect(text(phone, '.shell-header .company')).resolves.toBe('Librería Sur');
    await expect(text(phone, '#shell-user')).resolves.toBe('Tomás');

    // The same link a second time: a clear page, nothing else.
    const third = await (await browser.newContext()).newPage();
    await third.goto(link);
    await expect(text(third, '#invitation-title')).resolves.toBe('La invitación ya se usó');
    await third.setViewportSize({ width: 1366, height: 700 });
    await third.screenshot({ path: `${SHOTS}/invitation-used-1366.png` });
    await third.context().close();
    await elsewhere.close();

    // Back on the admin's screen: the person is in the list, and their access can be taken away.
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.reload();
    await page.waitForSelector('#no-invitations');
    const row = page.locator('#member-rows tr', { hasText: 'cajero@libreriasur.example.com' });
    await row.locator('[data-member-action="disable"]').click();
    await page.click('dialog [data-confirm]');
    await page.waitForSelector('#members-message:has-text("ya no entra a esta empresa")');
    await expect(row.locator('.badge').textContent()).resolves.toContain('Sin acceso');
    await context.close();
  });

  it('an existing account accepts with its own password; a revoked link says so', async () => {
    const company = await makeCompany(t.container, { name: 'Ferretería Norte' });
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const other = await makeCompany(t.container, { name: 'Bazar Centro' });
    const person = await makeUser(t.container, { companyId: other.id, role: 'cashier' });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/settings/people`);
    await logIn(page, admin.email, admin.password);
    await page.waitForURL(`${base}/settings/people`);
    await page.fill('#member-email', person.email);
    await page.selectOption('#member-role', 'admin');
    await page.click('#member-form button[type=submit]');
    const link = await shownLink(page);
    // Inviting another email and revoking it: its link stops working.
    await page.fill('#member-email', 'se-arrepintio@example.com');
    await page.click('#member-form button[type=submit]');
    await page.waitForSelector('#members-message:has-text("invitamos a se-arrepintio@example.com")');
    const revokedLink = await shownLink(page);
    expect(revokedLink).not.toBe(link);
    await page
      .locator('#invitation-rows li', { hasText: 'se-arrepintio@example.com' })
      .locator('[data-invitation-action="revoke"]')
      .click();
    await page.click('dialog [data-confirm]');
    await page.waitForSelector('#members-message:has-text("Anulamos la invitación")');
    expect(await page.locator('#invitation-rows li', { hasText: 'se-arrepintio@example.com' }).count()).toBe(0);
    await context.close();

    const invitee = await browser.newContext();
    const tab = await invitee.newPage();
    await tab.goto(revokedLink);
    await expect(text(tab, '#invitation-title')).resolves.toBe('La invitación fue anulada');
    await tab.goto(link);
    await tab.click('#mode-existing');
    await tab.fill('#existing-password', 'not-the-password');
    await tab.click('#existing-account-form button[type=submit]');
    await tab.waitForSelector('#existing-account-message:has-text("no es correcta")');
    await tab.fill('#existing-password', person.password);
    await tab.click('#existing-account-form button[type=submit]');
    await tab.waitForSelector('#accept-invitation');
    await tab.screenshot({ path: `${SHOTS}/invitation-existing-1366.png` });
    await tab.click('#accept-invitation');
    // Now an admin of Ferretería Norte too, working there; the header switch lists both companies.
    await tab.waitForURL(`${base}/inicio`);
    await expect(tab.locator('#company-switch option:checked').textContent()).resolves.toContain('Ferretería Norte');
    await expect(tab.locator('#company-switch option').count()).resolves.toBe(2);
    await invitee.close();
  });
});
