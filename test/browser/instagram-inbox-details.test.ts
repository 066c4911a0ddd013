import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../factories.ts';
import { buildInstagramApp, type InstagramTestApp, syncNow } from '../instagram/helpers.ts';
import { launchChromium } from '../setup/browser.ts';
import { logIn, problemsOf, VIEWPORTS, watch, watchedContext } from './page-checks.ts';

const SHOTS = '/tmp/shots-issue-31';
const RAW_ERROR = 'Instagram did not answer GET /v25.0/17841400774391234/conversations within 8000 ms';

/** The inbox's small promises: an empty state that does not ask to reload, "Vos:" previews, no raw English sync error. */
describe('the Instagram inbox details, in a real browser', () => {
  let browser: Browser;
  let t: InstagramTestApp;
  let base: string;
  let superadmin: { email: string; password: string };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    browser = await launchChromium();
    t = await buildInstagramApp({ env: { INSTAGRAM_SEND_ENABLED: 'true' } });
    const connected = await t.connect();
    if (connected.status !== 200) throw new Error(`connect failed: ${connected.body}`);
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    superadmin = await makeUser(t.container, { superadmin: true });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('the empty state says the list refreshes itself, not to reload the page', async () => {
    const context = await watchedContext(browser, VIEWPORTS.desktop);
    const page = watch(await context.newPage());
    await logIn(page, base, superadmin.email, superadmin.password, '/superadmin/instagram');
    const empty = (await page.locator('[data-empty-state]').textContent()) ?? '';
    expect(empty).toContain('esta lista se actualiza sola');
    expect(empty.toLowerCase()).not.toContain('volvé a cargar');
    expect(empty.toLowerCase()).not.toContain('recargá');
    await context.close();
  }, 60_000);

  it.each(Object.entries(VIEWPORTS))(
    'marks our last message with "Vos:" and words a failed sync in Spanish (%s)',
    async (name, viewport) => {
      const service = t.container.instagram.service;
      if ((await service.storedConversations()).length === 0) {
        t.fake.addConversation({ participantId: '7100000000000009', username: 'cliente_curioso', text: '¿Qué planes tienen?' });
        // The first test's page scheduled background syncs; one of them may still hold the claim.
        await syncNow(service);
        const [conversation] = await service.storedConversations();
        expect(conversation, 'the synced thread is stored').toBeDefined();
        await service.send({ conversation_id: conversation!.id, text: 'Te paso los planes' });
        await service.idle();
      }
      // The last sync failed with the client's English message: the card must not show it.
      await t.container.db.query('UPDATE instagram_channel SET last_sync_error = $1', [RAW_ERROR]);
      t.fake.knobs.failures.push({ match: /conversations/, status: 500, body: { error: { message: 'boom', code: 2 } } });

      const context = await watchedContext(browser, viewport);
      const page = watch(await context.newPage());
      await logIn(page, base, superadmin.email, superadmin.password, '/superadmin/instagram');
      await page.waitForSelector('[data-thread]');
      const preview = await page
        .locator('[data-thread]', { hasText: '@cliente_curioso' })
        .locator('[data-preview]')
        .textContent();
      expect(preview).toBe('Vos: Te paso los planes');
      const card = (await page.locator('#connection').textContent()) ?? '';
      expect(card).toContain('La última sincronización con Instagram falló; se vuelve a intentar cada minuto.');
      expect(card).not.toContain('Cuenta conectada y funcionando');
      const shown = (await page.locator('#app').textContent()) ?? ''; // the screen, not the page data
      expect(shown).not.toContain('did not answer');
      expect(shown).not.toContain('boom');
      await page.screenshot({ path: `${SHOTS}/inbox-details-${name}.png`, fullPage: true });
      expect((await problemsOf(page)).overflow).toBe(0);
      await context.close();
    },
    90_000,
  );
});
