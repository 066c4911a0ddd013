import { mkdirSync } from 'node:fs';
import type { Browser, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../factories.ts';
import { launchChromium } from '../setup/browser.ts';
import { buildWhatsappApp, type WhatsappTestApp } from '../whatsapp/helpers.ts';
import { logIn, problemsOf, VIEWPORTS, watch, watchedContext } from './page-checks.ts';

const SHOTS = '/tmp/shots-issue-31';
const MARTA = '5491155550001';
const OLD = '5491166660002';
/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

interface Running {
  t: WhatsappTestApp;
  base: string;
  superadmin: { email: string; password: string };
  image: string;
}

/** The fake's number set up, two contacts: Marta (window open, media of every kind) and one whose window closed. */
async function start(env: Record<string, string>): Promise<Running> {
  const t = await buildWhatsappApp({ env });
  await t.setup();
  const image = t.fake.addMedia('image/png', PNG).id;
  const audio = t.fake.addMedia('audio/ogg', Buffer.from(Array.from({ length: 64 }, (_, i) => i))).id;
  const doc = t.fake.addMedia('application/pdf', Buffer.from('%PDF-1.4 fake')).id;
  const old = new Date(Date.now() - 3 * 24 * 3600 * 1000);
  const deliveries = [
    t.fake.inbound(
      OLD,
      { type: 'text', text: { body: 'Hace unos días pregunté por el plan Comercio' } },
      { profileName: 'Jorge', at: old },
    ),
    t.fake.inbound(MARTA, { type: 'text', text: { body: 'Hola! tienen planes para kioscos?' } }, { profileName: 'Marta Gómez' }),
    t.fake.inbound(
      MARTA,
      { type: 'image', image: { id: image, mime_type: 'image/png', caption: 'Mi mostrador' } },
      { profileName: 'Marta Gómez' },
    ),
    t.fake.inbound(
      MARTA,
      { type: 'audio', audio: { id: audio, mime_type: 'audio/ogg', voice: true } },
      { profileName: 'Marta Gómez' },
    ),
    t.fake.inbound(
      MARTA,
      { type: 'document', document: { id: doc, mime_type: 'application/pdf', filename: 'lista-de-precios.pdf' } },
      { profileName: 'Marta Gómez' },
    ),
    t.fake.inbound(
      MARTA,
      {
        type: 'location',
        location: { latitude: -34.6037, longitude: -58.3816, name: 'Kiosco Marta', address: 'Av. Corrientes 1234' },
      },
      { profileName: 'Marta Gómez' },
    ),
  ];
  for (const d of deliveries) {
    const res = await t.post(d.body);
    if (res.statusCode !== 200) throw new Error(`webhook answered ${res.statusCode}: ${res.body}`);
  }
  const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const superadmin = await makeUser(t.container, { superadmin: true });
  return { t, base, superadmin, image };
}

function recordRequests(page: import('playwright-core').Page): Request[] {
  const seen: Request[] = [];
  page.on('request', (request) => seen.push(request));
  return seen;
}

describe('the WhatsApp tab of the operator inbox (/superadmin/whatsapp), in a real browser', () => {
  let browser: Browser;
  let running: Running;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    browser = await launchChromium();
    running = await start({ WHATSAPP_SEND_ENABLED: 'true' });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await running?.t.close();
  });

  it.each(Object.entries(VIEWPORTS))(
    'lists contacts by name, shows media through the proxy, replies with ticks, templates outside the window (%s)',
    async (name, viewport) => {
      const { t, base, superadmin, image } = running;
      const context = await watchedContext(browser, viewport);
      const page = watch(await context.newPage());
      const requests = recordRequests(page);
      await logIn(page, base, superadmin.email, superadmin.password, '/superadmin/whatsapp');
      await page.waitForSelector('[data-thread]');
      // Both channels side by side: a tab each, this one current.
      await expect(page.locator('[data-channel-tab=whatsapp]').getAttribute('aria-current')).resolves.toBe('page');
      await expect(page.locator('[data-channel-tab=instagram]').getAttribute('href')).resolves.toBe('/superadmin/instagram');
      await expect(page.locator('#connection h2').textContent()).resolves.toBe(`Conectado: ${t.fake.displayPhoneNumber}`);
      // On a phone the channel details start folded so the conversations come first.
      await expect(page.locator('[data-connection-more]').evaluate((d) => (d as HTMLDetailsElement).open)).resolves.toBe(
        name === 'desktop',
      );
      const list = await page.locator('#threads').textContent();
      expect(list).toContain(`Marta Gómez · +${MARTA}`);
      expect(list).toContain(`Jorge · +${OLD}`);
      // The preview marks our own last message; the first run (desktop) sees Marta's location last.
      expect(list).toContain(name === 'desktop' ? 'Kiosco Marta' : 'Vos: Hola Marta, te paso los planes (desktop)');
      await page.screenshot({ path: `${SHOTS}/wa-inbox-${name}.png`, fullPage: true });

      await page.locator('[data-thread]', { hasText: 'Marta Gómez' }).click();
      await page.waitForSelector('.message[data-type=location]');
      await expect(page.locator('.message[data-direction=inbound] [data-author]').first().textContent()).resolves.toBe(
        'Marta Gómez',
      );
      const img = page.locator('img[data-media=image]');
      await expect(img.getAttribute('src')).resolves.toBe(`/api/superadmin/whatsapp/media?id=${image}`);
      await page.waitForFunction(() => {
        const el = document.querySelector<HTMLImageElement>('img[data-media=image]');
        return el?.complete && el.naturalWidth === 1;
      });
      await expect(page.locator('audio[data-media=audio]').count()).resolves.toBe(1);
      await expect(page.locator('a[data-media=document]').textContent()).resolves.toContain('lista-de-precios.pdf');
      await expect(page.locator('[data-location]').textContent()).resolves.toContain('Av. Corrientes 1234');

      // A reply inside the window: pending, then stored with its tick; a "read" status turns it blue.
      const text = `Hola Marta, te paso los planes (${name})`;
      await page.fill('#reply-text', text);
      await page.click('[data-reply] button[type=submit]');
      const sent = page.locator('.message[data-direction=outbound]', { hasText: text });
      await sent.waitFor();
      await expect(sent.locator('[data-author]').textContent()).resolves.toBe(t.fake.displayPhoneNumber);
      const stored = await t.container.db.query<{ wamid: string }>(
        "SELECT wamid FROM whatsapp_messages WHERE direction = 'outbound' AND text = $1",
        [text],
      );
      expect(stored).toHaveLength(1);
      // Out of order: read before delivered; the tick stays at read.
      await t.post(t.fake.status(stored[0]!.wamid, 'read'));
      await t.post(t.fake.status(stored[0]!.wamid, 'delivered'));
      await sent.locator('[data-ticks=read]').waitFor();
      await page.screenshot({ path: `${SHOTS}/wa-thread-${name}.png`, fullPage: true });

      if (!t.fake.templates.some((x) => x.name === 'pedido_listo')) {
        t.fake.templates.push({
          name: 'pedido_listo',
          language: 'es_AR',
          status: 'APPROVED',
          category: 'UTILITY',
          body: 'Tu pedido {{2}} está listo, {{1}}. Gracias {{1}}!',
        });
      }
      // Jorge wrote three days ago: only an approved template, with its parameters.
      if (name === 'phone') await page.click('.back-to-list');
      await page.locator('[data-thread]', { hasText: 'Jorge' }).click();
      await page.waitForSelector('[data-template-picker] select');
      await expect(page.locator('#reply-text').count()).resolves.toBe(0);
      const options = await page.locator('#wa-template option').allTextContents();
      expect(options).toContain('seguimiento_consulta (es_AR)');
      expect(options.join()).not.toContain('promo_pendiente');
      // The preview fills {{1}} with «Valor 1» wherever it appears, as Meta does.
      await page.selectOption('#wa-template', 'pedido_listo|es_AR');
      await page.fill('#wa-param-0', 'Ana');
      await expect(page.locator('[data-template-preview]').textContent()).resolves.toContain(
        'Tu pedido [valor 2] está listo, Ana. Gracias Ana!',
      );
      await page.fill('#wa-param-1', '123');
      await expect(page.locator('[data-template-preview]').textContent()).resolves.toContain(
        'Tu pedido 123 está listo, Ana. Gracias Ana!',
      );
      await page.selectOption('#wa-template', 'seguimiento_consulta|es_AR');
      await page.fill('#wa-param-0', `Jorge (${name})`);
      await page.fill('#wa-param-1', 'el plan Comercio');
      await expect(page.locator('[data-template-preview]').textContent()).resolves.toContain(
        `Hola Jorge (${name}), te escribimos de Mostrador por tu consulta sobre el plan Comercio.`,
      );
      await page.screenshot({ path: `${SHOTS}/wa-template-${name}.png`, fullPage: true });
      await page.click('[data-template-picker] button[type=submit]');
      await page.locator('.message[data-type=template]', { hasText: `Hola Jorge (${name})` }).waitFor();

      // The token never reaches the browser: not in a URL, a header or a body.
      for (const request of requests) {
        const seen = `${request.url()} ${JSON.stringify(await request.allHeaders())} ${request.postData() ?? ''}`;
        expect(seen).not.toContain(t.fake.token);
      }
      const bodies = await Promise.all(
        requests.filter((r) => r.url().startsWith(base)).map(async (r) => (await r.response())?.text().catch(() => '') ?? ''),
      );
      for (const body of bodies) expect(body).not.toContain(t.fake.token);
      expect(await problemsOf(page)).toEqual({ console: [], csp: [], errors: [], overflow: 0 });

      // The Instagram tab is one click away, with the same tabs.
      await page.click('[data-channel-tab=instagram]');
      await page.waitForURL('**/superadmin/instagram');
      await expect(page.locator('[data-channel-tab=instagram]').getAttribute('aria-current')).resolves.toBe('page');
      await page.screenshot({ path: `${SHOTS}/ig-tab-${name}.png`, fullPage: true });
      await context.close();
    },
  );

  it('says in Spanish what to do when Meta refuses a reply', async () => {
    const { t, base, superadmin } = running;
    t.fake.failures.push({
      match: /^POST .*\/messages$/,
      status: 400,
      body: { error: { code: 131026, message: 'Message undeliverable' } },
    });
    try {
      const context = await watchedContext(browser, VIEWPORTS.desktop);
      const page = watch(await context.newPage());
      await logIn(page, base, superadmin.email, superadmin.password, '/superadmin/whatsapp');
      await page.locator('[data-thread]', { hasText: 'Marta Gómez' }).click();
      await page.fill('#reply-text', '¿Seguís ahí?');
      await page.click('[data-reply] button[type=submit]');
      await page.waitForSelector('[data-outgoing=error]');
      await expect(page.locator('[data-outgoing=error]').textContent()).resolves.toContain(
        'WhatsApp no encuentra este número o no acepta mensajes: probá por otro medio.',
      );
      await context.close();
    } finally {
      t.fake.failures.length = 0;
    }
  });

  it('shows a number change as a WhatsApp notice, and a refused token as a reconnect alert, in Spanish', async () => {
    const { t, base, superadmin } = running;
    await t.post(
      t.fake.inbound('5491188889999', { type: 'text', text: { body: 'Hola, soy Lucía' } }, { profileName: 'Lucía' }).body,
    );
    const notice = t.fake.inbound('5491188889999', {
      type: 'system',
      system: { body: 'Lucía changed from 5491188889999 to 5491188880000', wa_id: '5491188880000', type: 'user_changed_number' },
    });
    await t.post(notice.body);
    await t.container.db.query("UPDATE whatsapp_channel SET reconnect_required = true, reconnect_reason = 'token expired'");
    try {
      const context = await watchedContext(browser, VIEWPORTS.desktop);
      const page = watch(await context.newPage());
      await logIn(page, base, superadmin.email, superadmin.password, '/superadmin/whatsapp');
      await expect(page.locator('[data-state=reconnect-required]').textContent()).resolves.toContain(
        'WhatsApp rechazó el token del canal',
      );
      await page.locator('[data-thread]', { hasText: 'Lucía · +5491188880000' }).click();
      await expect(page.locator('[data-system]').textContent()).resolves.toContain(
        'la persona cambió su número a +5491188880000',
      );
      expect(await problemsOf(page)).toEqual({ console: [], csp: [], errors: [], overflow: 0 });
      await context.close();
    } finally {
      await t.setup();
    }
  });
});
