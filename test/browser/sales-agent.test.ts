import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../factories.ts';
import { type FakeInstagram, startFakeInstagram } from '../fakes/instagram.fake.ts';
import { type AgentApp, buildAgentApp, CUSTOMER_3, STRANGER } from '../sales-agent/helpers.ts';
import { launchChromium } from '../setup/browser.ts';
import { logIn, problemsOf, VIEWPORTS, watch, watchedContext } from './page-checks.ts';

const SHOTS = '/tmp/shots-issue-18';

describe('the sales agent page, in a real browser', () => {
  let fake: FakeInstagram;
  let t: AgentApp;
  let browser: Browser;
  let base: string;
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    fake = await startFakeInstagram();
    t = await buildAgentApp(fake, { SALES_AGENT_ENABLED: 'true', INSTAGRAM_SEND_ENABLED: 'false' });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
    await t.webhook('aWdfbrowser1', 'Hola! ¿Cuánto sale el plan Comercio? ¿Hace factura electrónica?');
    await t.webhook('aWdfbrowser2', 'Necesito hablar con una persona, ¿me llaman?', { from: '7100000000000002' });
    await t.webhook('aWdfbrowser3', '¿Precio?', { from: STRANGER });
    t.clock.advance(301_000);
    await t.container.salesAgent.service.tick();
    // One more, still waiting for its delay: the next run plans its reply for the log.
    await t.webhook('aWdfbrowser4', '¿Maneja stock?', { from: CUSTOMER_3 });
    await t.container.salesAgent.service.tick();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await fake?.close();
  });

  it.each(Object.entries(VIEWPORTS))(
    'lists the turns with filters and gives a handed-off conversation back (%s)',
    async (name, viewport) => {
      const user = await makeUser(t.container, { superadmin: true });
      const context = await watchedContext(browser, viewport);
      const page = watch(await context.newPage());
      await logIn(page, base, user.email, user.password, '/superadmin/instagram/agent');
      await page.waitForSelector('#agent-turns');
      const status = await page.locator('#agent-status').textContent();
      expect(status).toContain('Agente: encendido');
      expect(status).toContain('apagado (solo registro)');
      const turns = page.locator('#agent-turns > li');
      await expect(turns.count()).resolves.toBe(4);
      // The waiting turn shows the reply it plans to send.
      await expect(page.locator('[data-mid="aWdfbrowser4"] [data-reply]').textContent()).resolves.toContain(
        'Respuesta prevista (todavía no se mandó): Sí, llevás el control de stock',
      );
      await expect(page.locator('[data-mid="aWdfbrowser1"]').textContent()).resolves.toContain('$\u00a024.900');
      await expect(page.locator('[data-mid="aWdfbrowser2"]').textContent()).resolves.toContain('pidió hablar con una persona');
      await expect(page.locator('[data-mid="aWdfbrowser3"]').textContent()).resolves.toContain('no es una persona designada');
      await page.screenshot({ path: `${SHOTS}/agent-${name}.png`, fullPage: true });
      const found = await problemsOf(page);
      expect(found).toEqual({ console: [], csp: [], errors: [], overflow: 0 });

      // Filter: only handoffs.
      await page.selectOption('select[name=decision]', 'handoff');
      await page.click('#agent-filters button[type=submit]');
      await page.waitForURL(/decision=handoff/);
      await expect(page.locator('#agent-turns > li').count()).resolves.toBe(1);
      // Each turn links to its thread in the inbox, where it opens.
      const link = page.locator('[data-mid="aWdfbrowser2"] [data-thread-link]');
      await expect(link.getAttribute('href')).resolves.toMatch(/^\/superadmin\/instagram\?thread=[0-9a-f-]{36}$/);
      // As the inbox names them: @username once Instagram told it, until then «Usuario <id>».
      await expect(link.textContent()).resolves.toBe('Usuario 7100000000000002');
      if (name === 'desktop') {
        await link.click();
        await page.waitForURL(/\/superadmin\/instagram\?thread=/);
        await page.locator('.message[data-direction=inbound]', { hasText: 'Necesito hablar con una persona' }).waitFor();
      }
      if (name === 'phone') {
        await page.click('[data-mid="aWdfbrowser2"] button');
        await page.waitForSelector('#agent-message');
        await expect(page.locator('#agent-message').textContent()).resolves.toContain('vuelve a atender');
      }
      await context.close();
    },
  );
});
