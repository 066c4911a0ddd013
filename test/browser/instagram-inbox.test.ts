import { mkdirSync } from 'node:fs';
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../app.ts';
import { makeUser } from '../factories.ts';
import { buildInstagramApp, type InstagramTestApp, syncNow } from '../instagram/helpers.ts';
import { launchChromium } from '../setup/browser.ts';
import { logIn, problemsOf, VIEWPORTS, watch, watchedContext } from './page-checks.ts';

const SHOTS = '/tmp/shots-issue-17';
const LIST = '**/api/superadmin/instagram/conversations';
const CUSTOMER = '7100000000000001';

interface Running {
  t: InstagramTestApp;
  base: string;
  superadmin: { email: string; password: string };
}

/** An app with the fake Instagram connected; `threads` fills the store through a sync. */
async function start(env: Record<string, string>, threads: boolean): Promise<Running> {
  const t = await buildInstagramApp({ env });
  const connected = await t.connect();
  if (connected.status !== 200) throw new Error(`connect failed: ${connected.body}`);
  if (threads) {
    const audio = Buffer.from(Array.from({ length: 64 }, (_, i) => i));
    t.fake.addConversation({
      participantId: CUSTOMER,
      username: 'cliente_del_barrio',
      text: '',
      attachments: [{ id: '990001', mime_type: 'audio/mp4', name: 'nota-de-voz.mp4', size: audio.length, bytes: audio }],
    });
    t.fake.addConversation({
      participantId: '7100000000000002',
      username: 'otra_persona',
      text: 'Hola, ¿tienen planes para kioscos?',
    });
    await syncNow(t.container.instagram.service);
  }
  const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const superadmin = await makeUser(t.container, { superadmin: true });
  return { t, base, superadmin };
}

/** Every URL and header value the page sent: none may carry the channel's access token. */
function recordRequests(page: Page): Request[] {
  const seen: Request[] = [];
  page.on('request', (request) => seen.push(request));
  return seen;
}

/**
 * A paused fake clock: only runFor moves it, so a busy machine cannot spend part of a timeout
 * between a request and the first runFor (real time flowed in a CI run and broke these tests).
 */
async function pausedClock(page: Page) {
  await page.clock.install({ time: new Date('2026-11-27T12:00:00-03:00') });
  await page.clock.pauseAt(new Date('2026-11-27T13:00:00-03:00'));
}

describe('the operator inbox panel (/superadmin/instagram), in a real browser', () => {
  let browser: Browser;
  let sending: Running;
  let readOnly: Running;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    browser = await launchChromium();
    sending = await start({ INSTAGRAM_SEND_ENABLED: 'true' }, true);
    readOnly = await start({ INSTAGRAM_SEND_ENABLED: 'false' }, false);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await sending?.t.close();
    await readOnly?.t.close();
  });

  it.each(Object.entries(VIEWPORTS))(
    'lists the threads, labels both sides, plays audio through the proxy and replies (%s)',
    async (name, viewport) => {
      const { t, base, superadmin } = sending;
      const context = await watchedContext(browser, viewport);
      const page = watch(await context.newPage());
      const requests = recordRequests(page);
      await logIn(page, base, superadmin.email, superadmin.password, '/superadmin/instagram');
      await page.waitForSelector('[data-thread]');
      const connection = await page.locator('#connection').textContent();
      expect(connection).toContain(`Conectado: @${t.fake.account.username}`);
      expect(connection).toContain('Envío encendido');
      const list = await page.locator('#threads').textContent();
      expect(list).toContain('@cliente_del_barrio');
      expect(list).toContain('@otra_persona');
      expect(list).toContain('Hola, ¿tienen planes para kioscos?');
      await page.screenshot({ path: `${SHOTS}/inbox-${name}.png`, fullPage: true });

      // The thread with a voice note: inbound labelled with the participant, audio via the proxy.
      await page.locator('[data-thread]', { hasText: '@cliente_del_barrio' }).click();
      await page.waitForSelector('.message[data-direction=inbound]');
      await expect(page.locator('.message[data-direction=inbound] [data-author]').first().textContent()).resolves.toBe(
        '@cliente_del_barrio',
      );
      const src = await page.locator('audio').getAttribute('src');
      expect(src).toBe('/api/superadmin/instagram/attachments?id=990001');
      await expect(page.locator('[data-attachment-name]').textContent()).resolves.toContain('nota-de-voz.mp4');
      const proxied = page.waitForResponse((r) => r.url().includes('/api/superadmin/instagram/attachments?id=990001'));
      await page.evaluate(() => {
        const audio = document.querySelector('audio')!;
        audio.preload = 'auto';
        audio.load();
      });
      expect((await proxied).status()).toBeLessThan(300);

      // The byte counter stops a reply over 1,000 bytes before it is sent.
      await page.fill('#reply-text', 'ñ'.repeat(501));
      await expect(page.locator('[data-bytes]').textContent()).resolves.toContain('1.002 / 1.000 bytes: demasiado largo');
      await expect(page.locator('[data-reply] button[type=submit]').isDisabled()).resolves.toBe(true);

      // A reply: pending at once, then sent and labelled with the connected handle.
      const text = `Hola, te paso los planes (${name})`;
      await page.fill('#reply-text', text);
      await page.click('[data-reply] button[type=submit]');
      const sent = page.locator('.message[data-direction=outbound]', { hasText: text });
      await sent.waitFor();
      await expect(sent.locator('[data-author]').textContent()).resolves.toBe(`@${t.fake.account.username}`);
      await expect(page.locator('[data-outgoing]').count()).resolves.toBe(0);
      await page.screenshot({ path: `${SHOTS}/thread-${name}.png`, fullPage: true });
      if (name === 'phone') {
        // One view at a time on a phone: the list is back with the button.
        await page.click('.back-to-list');
        await page.waitForSelector('#threads', { state: 'visible' });
      }

      const tokens = [...t.fake.validTokens];
      expect(tokens.length).toBeGreaterThan(0);
      for (const request of requests) {
        const seen = `${request.url()} ${JSON.stringify(await request.allHeaders())} ${request.postData() ?? ''}`;
        for (const token of tokens) expect(seen).not.toContain(token);
      }
      expect(await problemsOf(page)).toEqual({ console: [], csp: [], errors: [], overflow: 0 });
      await context.close();
    },
  );

  it('says in Spanish why a reply did not go out (the 24-hour window)', async () => {
    const { t, base, superadmin } = sending;
    t.fake.knobs.windowClosed = true;
    try {
      const context = await watchedContext(browser, VIEWPORTS.desktop);
      const page = watch(await context.newPage());
      await logIn(page, base, superadmin.email, superadmin.password, '/superadmin/instagram');
      await page.locator('[data-thread]', { hasText: '@otra_persona' }).click();
      await page.waitForSelector('.message[data-direction=inbound]');
      await page.fill('#reply-text', 'Hola, ¿seguís ahí?');
      await page.click('[data-reply] button[type=submit]');
      await page.waitForSelector('[data-outgoing=error]');
      await expect(page.locator('[data-outgoing=error]').textContent()).resolves.toContain('pasaron más de 24 horas');
      await context.close();
    } finally {
      t.fake.knobs.windowClosed = false;
    }
  });

  it('keeps the reply box disabled with the reason when sending is off', async () => {
    const { t, base, superadmin } = readOnly;
    t.fake.addConversation({ participantId: CUSTOMER, username: 'solo_lectura', text: 'Hola' });
    await syncNow(t.container.instagram.service);
    const context = await watchedContext(browser, VIEWPORTS.phone);
    const page = watch(await context.newPage());
    await logIn(page, base, superadmin.email, superadmin.password, '/superadmin/instagram');
    await expect(page.locator('[data-send-flag]').getAttribute('data-send-flag')).resolves.toBe('off');
    await page.locator('[data-thread]', { hasText: '@solo_lectura' }).click();
    await page.waitForSelector('[data-reply-disabled]');
    await expect(page.locator('#reply-text').isDisabled()).resolves.toBe(true);
    await expect(page.locator('[data-reply-disabled]').textContent()).resolves.toContain('Solo lectura');
    await page.screenshot({ path: `${SHOTS}/read-only-phone.png`, fullPage: true });
    expect(t.fake.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/messages'))).toEqual([]);
    await context.close();
    await t.container.db.query('DELETE FROM instagram_messages');
    await t.container.db.query('DELETE FROM instagram_conversations');
  });

  it('retries the list exactly once when the first answer is empty', async () => {
    const { base, superadmin } = sending;
    const context = await watchedContext(browser, VIEWPORTS.desktop);
    const page = watch(await context.newPage());
    let asked = 0;
    await page.route(LIST, async (route) => {
      asked += 1;
      if (asked === 1) return route.fulfill({ json: { conversations: [] } });
      return route.continue();
    });
    // No stored threads in the first paint, so what shows comes from the retry.
    await page.route('**/superadmin/instagram', async (route) => {
      const response = await route.fetch();
      const body = (await response.text()).replace(/"conversations":\[[^\]]*\]/, '"conversations":[]');
      await route.fulfill({ response, body });
    });
    await logIn(page, base, superadmin.email, superadmin.password, '/superadmin/instagram');
    await page.waitForSelector('[data-thread]');
    expect(asked).toBe(2);
    await context.close();
  });

  it('gives up on a list slower than 15 s: stored threads stay, or the empty state says what to do', async () => {
    for (const [running, stored] of [
      [sending, true],
      [readOnly, false],
    ] as const) {
      const { base, superadmin } = running;
      const context = await watchedContext(browser, VIEWPORTS.desktop);
      const page = watch(await context.newPage());
      await logIn(page, base, superadmin.email, superadmin.password, '/cuenta');
      await pausedClock(page);
      let asked = 0;
      await page.route(LIST, async () => {
        asked += 1; // never answered: the page has to give up on its own
      });
      await page.goto(`${base}/superadmin/instagram`);
      await page.waitForSelector('[data-list-loading]');
      const timeout = await page.evaluate(
        () => JSON.parse(document.querySelector('script[type="application/json"]')!.textContent!).list_timeout_ms,
      );
      expect(timeout).toBe(15_000);
      // Effects run after the next frame: 200 ms of fake time asks for the list, 15 s from then.
      await page.clock.runFor(200);
      await expect.poll(() => asked).toBe(1);
      await page.clock.runFor(13_800);
      await expect(page.locator('[data-list-problem]').count()).resolves.toBe(0);
      // The 5-second poll waits for the first list: no request piles up behind the slow one.
      expect(asked).toBe(1);
      await page.clock.runFor(1_500);
      await page.waitForSelector('[data-list-problem]');
      const problem = await page.locator('[data-list-problem]').textContent();
      expect(problem).toContain('más de 15 segundos');
      if (stored) {
        expect(problem).toContain('Mostramos las conversaciones guardadas');
        await expect(page.locator('[data-thread]').count()).resolves.toBeGreaterThan(0);
      } else {
        await expect(page.locator('[data-empty-state]').textContent()).resolves.toContain('No hay conversaciones guardadas');
        await page.screenshot({ path: `${SHOTS}/empty-after-timeout.png`, fullPage: true });
      }
      await context.close();
    }
  });

  it('polls only while the page is visible, one round at a time', async () => {
    const { base, superadmin } = sending;
    const context = await watchedContext(browser, VIEWPORTS.desktop);
    const page = watch(await context.newPage());
    await logIn(page, base, superadmin.email, superadmin.password, '/cuenta');
    await pausedClock(page);
    let asked = 0;
    await page.route(LIST, async (route) => {
      asked += 1;
      return route.continue();
    });
    const setVisibility = (state: 'hidden' | 'visible') =>
      page.evaluate((value) => {
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => value });
        document.dispatchEvent(new Event('visibilitychange'));
      }, state);
    await page.goto(`${base}/superadmin/instagram`);
    await page.waitForSelector('[data-thread]');
    await page.clock.runFor(200); // effects run after the next frame: the first list
    await page.waitForSelector('[data-list-loading]', { state: 'detached' });
    expect(asked).toBe(1);
    await page.clock.runFor(200); // the poll starts once the first list settled
    expect(asked).toBe(1);
    const polled = page.waitForResponse((r) => r.url().endsWith('/api/superadmin/instagram/status'));
    await page.clock.runFor(5_100);
    await polled;
    expect(asked).toBe(2);
    await page.waitForTimeout(200);
    await setVisibility('hidden');
    await page.clock.runFor(30_000);
    await page.waitForTimeout(200);
    expect(asked).toBe(2);
    // Shown again: it asks at once, without waiting for the next tick.
    await setVisibility('visible');
    await expect.poll(() => asked).toBe(3);
    await context.close();
  });

  it('shows the reconnect reason with the button, the connect button when not connected, and the missing settings of an unconfigured server', async () => {
    const { t, base, superadmin } = readOnly;
    await t.container.db.query(
      "UPDATE instagram_channel SET reconnect_required = true, reconnect_reason = 'Error validating access token: Session has expired'",
    );
    try {
      for (const [name, viewport] of Object.entries(VIEWPORTS)) {
        const context = await watchedContext(browser, viewport);
        const page = watch(await context.newPage());
        await logIn(page, base, superadmin.email, superadmin.password, '/superadmin/instagram');
        const alert = page.locator('[data-state=reconnect-required]');
        await alert.waitFor();
        await expect(alert.textContent()).resolves.toContain('Session has expired');
        await expect(page.locator('#connection h2, #connection h3').first().textContent()).resolves.toContain('Desconectado: @');
        await expect(alert.locator('a.button').getAttribute('href')).resolves.toBe('/superadmin/instagram/connect');
        await page.screenshot({ path: `${SHOTS}/reconnect-${name}.png`, fullPage: true });
        expect(await problemsOf(page)).toEqual({ console: [], csp: [], errors: [], overflow: 0 });
        await context.close();
      }
    } finally {
      await t.container.db.query('UPDATE instagram_channel SET reconnect_required = false, reconnect_reason = NULL');
    }

    // Configured but never connected: the button to connect, the send flag, and no list to ask for.
    const unconnected = await buildInstagramApp();
    try {
      const unconnectedBase = await unconnected.app.listen({ port: 0, host: '127.0.0.1' });
      const operator = await makeUser(unconnected.container, { superadmin: true });
      const context = await watchedContext(browser, VIEWPORTS.desktop);
      const page = watch(await context.newPage());
      await logIn(page, unconnectedBase, operator.email, operator.password, '/superadmin/instagram');
      await page.locator('[data-state=not-connected]').waitFor();
      await expect(page.getByRole('link', { name: 'Conectar Instagram' }).getAttribute('href')).resolves.toBe(
        '/superadmin/instagram/connect',
      );
      await expect(page.locator('[data-send-flag]').getAttribute('data-send-flag')).resolves.toBe('off');
      await expect(page.locator('#threads').count()).resolves.toBe(0);
      await page.screenshot({ path: `${SHOTS}/not-connected-desktop.png`, fullPage: true });
      expect(await problemsOf(page)).toEqual({ console: [], csp: [], errors: [], overflow: 0 });
      await context.close();
    } finally {
      await unconnected.close();
    }

    const bare = await buildTestApp({ env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '1000' } });
    try {
      const bareBase = await bare.app.listen({ port: 0, host: '127.0.0.1' });
      const operator = await makeUser(bare.container, { superadmin: true });
      const context = await watchedContext(browser, VIEWPORTS.phone);
      const page = watch(await context.newPage());
      let asked = 0;
      await page.route(LIST, async (route) => {
        asked += 1;
        return route.continue();
      });
      await logIn(page, bareBase, operator.email, operator.password, '/superadmin/instagram');
      const card = page.locator('[data-state=not-configured]');
      await card.waitFor();
      const text = await page.locator('#connection').textContent();
      expect(text).toContain('INSTAGRAM_APP_ID');
      expect(text).toContain('INSTAGRAM_APP_SECRET');
      await page.screenshot({ path: `${SHOTS}/not-configured-phone.png`, fullPage: true });
      expect(asked).toBe(0); // nothing to list without a channel
      await context.close();
    } finally {
      await bare.close();
    }
  }, 120_000);

  it('redirects admins and cashiers away; merchant pages never link the inbox', async () => {
    const { t, base } = sending;
    const company = (await t.container.db.query<{ id: number }>('SELECT id FROM companies ORDER BY id LIMIT 1'))[0]!;
    for (const role of ['admin', 'cashier'] as const) {
      const person = await makeUser(t.container, { companyId: company.id, role });
      const context = await watchedContext(browser, VIEWPORTS.desktop);
      const page = watch(await context.newPage());
      await logIn(page, base, person.email, person.password, '/cuenta');
      await page.goto(`${base}/superadmin/instagram`);
      expect(new URL(page.url()).pathname.startsWith('/superadmin')).toBe(false);
      const pages =
        role === 'admin'
          ? ['/settings/integrations', '/settings/people', '/ventas', '/caja', '/docs']
          : ['/caja', '/cuenta', '/docs'];
      for (const path of pages) {
        await page.goto(`${base}${path}`);
        const links = await page.locator('a[href*="instagram"]').count();
        expect(links, path).toBe(0);
        expect(await page.content(), path).not.toContain('/superadmin/instagram');
      }
      await context.close();
    }
  }, 120_000);
});
