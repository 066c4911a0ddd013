import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeUser } from '../factories.ts';
import { launchChromium } from '../setup/browser.ts';
import { logIn, problemsOf, VIEWPORTS, watch, watchedContext } from './page-checks.ts';

const SHOTS = '/tmp/shots-tenancy';

/** Mi cuenta (issue 25): picking the company after login, and closing the other sessions. */
describe('Mi cuenta in a real browser', () => {
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

  it.each(Object.entries(VIEWPORTS))(
    'a person with two companies picks one and closes the other sessions (%s)',
    async (name, viewport) => {
      const kiosco = await makeCompany(t.container, { name: 'Kiosco El Rayo' });
      const almacen = await makeCompany(t.container, { name: 'Almacén Doña Rosa' });
      const person = await makeUser(t.container, { companyId: kiosco.id, role: 'cashier' });
      await t.container.db.query("INSERT INTO memberships (company_id, user_id, role) VALUES ($1, $2, 'admin')", [
        almacen.id,
        person.id,
      ]);
      const elsewhere = await browser.newContext();
      await logIn(await elsewhere.newPage(), base, person.email, person.password);

      const context = await watchedContext(browser, viewport);
      const page = watch(await context.newPage());
      await logIn(page, base, person.email, person.password);
      expect(new URL(page.url()).pathname).toBe('/cuenta');
      await page.waitForSelector('#company-choices button');
      await expect(page.locator('#company-choices button').allTextContents()).resolves.toEqual([
        'Almacén Doña Rosa (administración)',
        'Kiosco El Rayo (caja)',
      ]);
      await page.screenshot({ path: `${SHOTS}/cuenta-elegir-${name}.png`, fullPage: true });

      await page.click('#end-other-sessions');
      await page.waitForSelector('#sessions-message:has-text("Cerramos tu otra sesión abierta.")');
      await page.screenshot({ path: `${SHOTS}/cuenta-sesiones-${name}.png`, fullPage: true });
      const other = await (await elsewhere.newPage()).goto(`${base}/api/auth/me`);
      expect(other?.status()).toBe(401);

      await page.locator('#company-choices button', { hasText: 'Kiosco El Rayo' }).click();
      await page.waitForURL(`${base}/caja`);
      const found = await problemsOf(page);
      expect(found.errors).toEqual([]);
      expect(found.csp).toEqual([]);
      await context.close();
      await elsewhere.close();
    },
  );

  it('the account page fits a 390 px phone without horizontal scroll', async () => {
    const company = await makeCompany(t.container);
    const person = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const context = await watchedContext(browser, VIEWPORTS.phone);
    const page = watch(await context.newPage());
    await logIn(page, base, person.email, person.password, '/cuenta');
    await page.waitForSelector('#end-other-sessions');
    const found = await problemsOf(page);
    expect(found.overflow).toBeLessThanOrEqual(0);
    expect(found.console).toEqual([]);
    await context.close();
  });
});
