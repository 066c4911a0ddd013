import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../setup/browser.ts';
import type { TestApp } from '../app.ts';
import { type Receiver, startReceiver } from '../fakes/webhook-receiver.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { buildWebhookApp, hmacHex, type TestClock } from '../webhooks/helpers.ts';

describe('webhooks on the settings page, in a real browser', () => {
  let t: TestApp & { clock: TestClock };
  let browser: Browser;
  let base: string;
  let receiver: Receiver;
  beforeAll(async () => {
    t = await buildWebhookApp();
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await t?.close();
  });

  async function openAs(role: 'admin' | 'cashier') {
    const company = await makeCompany(t.container, { name: 'Almacén La Esquina' });
    const user = await makeUser(t.container, { companyId: company.id, role });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/settings/integrations`);
    await page.fill('#email', user.email);
    await page.fill('#password', user.password);
    await page.click('#login-form button[type=submit]');
    await page.waitForURL(`${base}/settings/integrations`);
    await page.waitForSelector('main h1');
    return { company, page, context };
  }

  const text = (page: Page, selector: string) => page.locator(selector).first().textContent();

  it('an admin adds an endpoint, sees its secret once, tests it, reads and replays deliveries, rotates, disables and removes it', async () => {
    const { company, page, context } = await openAs('admin');
    await page.waitForSelector('#webhooks-empty');
    await expect(text(page, '#webhooks-empty')).resolves.toContain('Todavía no agregaste');

    // A refused target: the reason is said in Spanish, nothing is created.
    await page.fill('#webhook-url', 'ftp://tienda.example.com/x');
    await page.click('#webhook-form button[type=submit]');
    await page.waitForSelector('#webhook-form-error');
    await expect(text(page, '#webhook-form-error')).resolves.toBe(
      'No se pudo agregar: La dirección tiene que empezar con https:// o http://.',
    );
    expect(await t.container.webhooks.endpoints.listEndpoints(company.id)).toEqual([]);

    // Event names come with what they mean, and the checkboxes sit beside their labels.
    const box = page.locator('input[name="webhook-event"][value="product.upserted"]');
    await expect(page.locator('label.check', { has: box }).textContent()).resolves.toBe(
      'Producto creado o modificado product.upserted',
    );
    const width = await box.evaluate((el) => el.getBoundingClientRect().width);
    expect(width).toBeLessThan(30);

    await page.fill('#webhook-url', `${receiver.url}/tienda`);
    await page.fill('#webhook-description', 'Tienda online');
    await box.check();
    await page.fill('#webhook-headers', 'X-Tienda: centro');
    await page.click('#webhook-form button[type=submit]');
    await page.waitForSelector('#webhook-secret');
    const secret = (await text(page, '#webhook-secret-value'))!;
    expect(secret).toMatch(/^mos_whs_/);
    const item = page.locator('#webhook-rows li').first();
    await expect(item.locator('.endpoint-url').textContent()).resolves.toContain(`${receiver.url}/tienda`);
    await expect(item.locator('.endpoint-events').textContent()).resolves.toBe('Eventos: Producto creado o modificado');
    await expect(item.locator('.endpoint-status').textContent()).resolves.toBe('Activo');

    // The shown secret is the one that signs.
    await makeProduct(t.container, company.id, { name: 'Fideos moñito 500 g' });
    await t.container.webhooks.dispatcher.drain();
    const delivered = receiver.requests.at(-1)!;
    expect(delivered.headers['x-signature']).toBe(hmacHex(secret, delivered.body));
    expect(delivered.headers['x-tienda']).toBe('centro');

    await page.click('[data-webhook-action="test"]');
    await page.waitForSelector('#webhook-message:has-text("Evento de prueba entregado: HTTP 200")');
    // One notice at a time: the new one replaced the previous.
    expect(await page.locator('#webhook-message').count()).toBe(1);

    // The deliveries open right under their endpoint.
    await page.click('[data-webhook-action="deliveries"]');
    await page.waitForSelector('li[data-endpoint-id] #webhook-deliveries');
    const productRow = page.locator('#delivery-rows tr', { hasText: 'product.upserted' });
    await expect(productRow.locator('td').nth(2).textContent()).resolves.toBe('Entregado');
    await productRow.locator('[data-webhook-action="attempts"]').click();
    await page.waitForSelector('#delivery-detail');
    await expect(text(page, '#attempt-rows td:nth-child(3)')).resolves.toBe('Entregado');
    await expect(text(page, '#detail-payload')).resolves.toContain('Fideos moñito 500 g');

    const before = receiver.requests.length;
    await productRow.locator('[data-webhook-action="redeliver"]').click();
    await page.waitForSelector('#webhook-message:has-text("mismo x-idempotency-key")');
    await t.container.webhooks.dispatcher.drain();
    expect(receiver.requests).toHaveLength(before + 1);
    expect(receiver.requests.at(-1)!.headers['x-idempotency-key']).toBe(delivered.headers['x-idempotency-key']);

    // An event the endpoint never had, by its id; and an unknown id is reported in Spanish.
    const [older] = await t.container.db.query<{ id: string }>(
      `SELECT id FROM outbox_events WHERE company_id = $1 AND event = 'webhook.test'`,
      [company.id],
    );
    await page.fill('#redeliver-event-id', '00000000-0000-4000-8000-000000000000');
    await page.click('#redeliver-by-id');
    await page.waitForSelector(
      '#webhook-message:has-text("No se pudo reenviar: No hay ningún evento con ese id en esta empresa.")',
    );
    await page.fill('#redeliver-event-id', older!.id);
    await page.click('#redeliver-by-id');
    await page.waitForSelector('#webhook-message:has-text("mismo x-idempotency-key")');
    await t.container.webhooks.dispatcher.drain();
    expect(receiver.requests.at(-1)!.headers['x-event-id']).toBe(older!.id);

    await page.click('[data-webhook-action="rotate"]');
    await page.click('dialog [data-confirm]');
    await page.waitForSelector('#webhook-message:has-text("Secreto rotado")');
    const rotated = await text(page, '#webhook-secret-value');
    expect(rotated).toMatch(/^mos_whs_/);
    expect(rotated).not.toBe(secret);
    // The list reloads after the notice: wait for the new state rather than reading it at once.
    await page.waitForSelector('.endpoint-status:has-text("secreto anterior válido hasta")');

    await page.click('[data-webhook-action="disable"]');
    await page.waitForSelector('.endpoint-status:has-text("Desactivado a mano")');
    await page.waitForSelector('#audit-rows td:has-text("Webhook desactivado")');
    await page.click('[data-webhook-action="enable"]');
    await page.waitForSelector('[data-webhook-action="disable"]');
    await expect(item.locator('.endpoint-status').textContent()).resolves.toMatch(/^Activo · secreto anterior/);
    await page.waitForSelector('#audit-rows td:has-text("Webhook activado")');

    // Nothing secret is in the page when it is loaded again.
    await page.reload();
    await page.waitForSelector('#webhook-rows');
    const content = await page.content();
    expect(content).not.toContain(secret);
    expect(content).not.toContain(rotated!);

    await page.click('[data-webhook-action="remove"]');
    await page.click('dialog [data-confirm]');
    await page.waitForSelector('#webhooks-empty');
    expect(await t.container.webhooks.endpoints.listEndpoints(company.id)).toEqual([]);
    await context.close();
  });

  it('explains a failed test delivery in Spanish, with what to do', async () => {
    const { page, context } = await openAs('admin');
    await page.fill('#webhook-url', `${receiver.url}/caido`);
    await page.click('#webhook-form button[type=submit]');
    await page.waitForSelector('#webhook-secret');
    receiver.set({ kind: 'status', status: 503 });
    await page.click('[data-webhook-action="test"]');
    await page.waitForSelector('#webhook-message:has-text("Tu servidor falló al recibirlo (HTTP 503)")');
    receiver.set({ kind: 'status', status: 200 });
    await context.close();
  });

  it('a cashier does not get the webhooks section', async () => {
    const { page, context } = await openAs('cashier');
    await page.waitForSelector('main h1');
    expect(await page.locator('#webhooks').count()).toBe(0);
    await expect(text(page, 'main')).resolves.toContain('tu rol es caja');
    await context.close();
  });
});
