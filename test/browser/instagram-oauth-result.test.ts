import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../factories.ts';
import { buildInstagramApp, type InstagramTestApp } from '../instagram/helpers.ts';
import { launchChromium } from '../setup/browser.ts';
import { logIn, problemsOf, VIEWPORTS, watch, watchedContext } from './page-checks.ts';

const SHOTS = '/tmp/shots-issue-31';

describe('the Instagram OAuth result page, inside the app layout', () => {
  let browser: Browser;
  let t: InstagramTestApp;
  let base: string;
  let superadmin: { email: string; password: string };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    browser = await launchChromium();
    t = await buildInstagramApp();
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    superadmin = await makeUser(t.container, { superadmin: true });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it.each(Object.entries(VIEWPORTS))(
    'a refused callback reads in Spanish with a way back to the inbox (%s)',
    async (name, viewport) => {
      const context = await watchedContext(browser, viewport);
      const page = watch(await context.newPage());
      await logIn(page, base, superadmin.email, superadmin.password, '/superadmin/instagram/callback?code=abc&state=not-ours');
      await page.waitForSelector('[data-result]');
      await expect(page.locator('h1').textContent()).resolves.toBe('No se pudo conectar Instagram');
      await expect(page.locator('[data-result]').getAttribute('data-result')).resolves.toBe('state_invalid');
      await expect(page.locator('[data-result]').textContent()).resolves.toContain('El enlace de conexión venció');
      // The app's own header and navigation are there; the way back is the inbox, not /superadmin.
      await expect(page.locator('.shell-nav a[href="/superadmin/instagram"]').count()).resolves.toBe(1);
      const back = page.locator('main a', { hasText: 'Volver a la bandeja' });
      await expect(back.getAttribute('href')).resolves.toBe('/superadmin/instagram');
      await page.screenshot({ path: `${SHOTS}/oauth-result-${name}.png`, fullPage: true });
      const problems = await problemsOf(page);
      expect(problems.overflow).toBe(0);
      expect(problems.errors).toEqual([]);
      expect(problems.csp).toEqual([]);
      await context.close();
    },
    60_000,
  );
});
