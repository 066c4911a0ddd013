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
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto(`${base}/settings/integrations`);
    await page.fill('#email', user.email);
    await page.fill('#password', user.password);
    await page.click('#login-form button[type=submit]');
    await page.waitForURL(`${base}/settings/integrations`);
    return { company, page, context };
  }

  const text = (page: Page, selector: string) => page.locator(selector).first().textContent();

  it('an admin adds an endpoint, sees its secret once, tests it, reads and replays deliveries, rotates, disables and removes it', async () => {
    const { company, page, context } = await openAs('admin');
    await page.waitForSelector('#webhooks-empty:not([hidden])');
    await expect(text(page, '#webhooks-empty')).resolves.toContain('Todavía no agregaste');

    // A refused target: the server's reason is shown, nothing is created.
    await page.fill('#webhook-url', 'ftp://tienda.example.com/x');
    await page.click('#webhook-form button[type=submit]');
    await page.waitForSelector('#webhook-form-error:not([hidden])');
    await expect(text(page, '#webhook-form-error')).resolves.toContain('url: must use http or https');
    expect(await t.container.webhooks.endpoints.listEndpoints(company.id)).toEqual([]);

    await page.fill('#webhook-url', `${receiver.url}/tienda`);
    await page.fill('#webhook-description', 'Tienda online');
    await page.check('input[name="webhook-event"][value="product.upserted"]');
    await page.fill('#webhook-headers', 'X-Tienda: centro');
    await page.click('#webhook-form button[type=submit]');
    await page.waitForSelector('#webhook-secret:not([hidden])');
    const secret = (await text(page, '#webhook-secret-value'))!;
    expect(secret).toMatch(/^mos_whs_/);
    const row = page.locator('#webhook-rows tr').first();
    await expect(row.locator('td').nth(0).textContent()).resolves.toContain(`${receiver.url}/tienda`);
    await expect(row.locator('td').nth(1).textContent()).resolves.toBe('product.upserted');
    await expect(row.locator('td').nth(2).textContent()).resolves.toBe('Activo');

    // The shown secret is the one that signs.
    await makeProduct(t.container, company.id, { name: 'Fideos moñito 500 g' });
    await t.container.webhooks.dispatcher.drain();
    const delivered = receiver.requests.at(-1)!;
    expect(delivered.headers['x-signature']).toBe(hmacHex(secret, delivered.body));
    expect(delivered.headers['x-tienda']).toBe('centro');

    await page.click('[data-webhook-action="test"]');
    await page.waitForSelector('#webhook-message:has-text("Evento de prueba entregado: HTTP 200")');

    await page.click('[data-webhook-action="deliveries"]');
    await page.waitForSelector('#webhook-deliveries:not([hidden])');
    const productRow = page.locator('#delivery-rows tr', { hasText: 'product.upserted' });
    await expect(productRow.locator('td').nth(2).textContent()).resolves.toBe('Entregado');
    await productRow.locator('[data-webhook-action="attempts"]').click();
    await page.waitForSelector('#delivery-detail:not([hidden])');
    await expect(text(page, '#attempt-rows td:nth-child(3)')).resolves.toBe('Entregado');
    await expect(text(page, '#detail-payload')).resolves.toContain('Fideos moñito 500 g');

    const before = receiver.requests.length;
    await productRow.locator('[data-webhook-action="redeliver"]').click();
    await page.waitForSelector('#webhook-message:has-text("mismo x-idempotency-key")');
    await t.container.webhooks.dispatcher.drain();
    expect(receiver.requests).toHaveLength(before + 1);
    expect(receiver.requests.at(-1)!.headers['x-idempotency-key']).toBe(delivered.headers['x-idempotency-key']);

    // An event the endpoint never had, by its id; and an unknown id is reported.
    const [older] = await t.container.db.query<{ id: string }>(
      `SELECT id FROM outbox_events WHERE company_id = $1 AND event = 'webhook.test'`,
      [company.id],
    );
    await page.fill('#redeliver-event-id', '00000000-0000-4000-8000-000000000000');
    await page.click('#redeliver-by-id');
    await page.waitForSelector(
      '#webhook-message:has-text("No se pudo reenviar: event 00000000-0000-4000-8000-000000000000 not found")',
    );
    await page.fill('#redeliver-event-id', older!.id);
    await page.click('#redeliver-by-id');
    await page.waitForSelector('#webhook-message:has-text("mismo x-idempotency-key")');
    await t.container.webhooks.dispatcher.drain();
    expect(receiver.requests.at(-1)!.headers['x-event-id']).toBe(older!.id);

    await page.click('[data-webhook-action="rotate"]');
    await page.waitForSelector('#webhook-message:has-text("Secreto rotado")');
    const rotated = await text(page, '#webhook-secret-value');
    expect(rotated).toMatch(/^mos_whs_/);
    expect(rotated).not.toBe(secret);
    await expect(row.locator('td').nth(2).textContent()).resolves.toContain('secreto anterior válido hasta');

    await page.click('[data-webhook-action="disable"]');
    await page.waitForSelector('#webhook-rows td:has-text("Desactivado a mano")');
    await page.click('[data-webhook-action="enable"]');
    await page.waitForSelector('[data-webhook-action="disable"]');
    await expect(row.locator('td').nth(2).textContent()).resolves.toMatch(/^Activo · secreto anterior/);

    // Nothing secret is in the page when it is loaded again.
    await page.reload();
    const content = await page.content();
    expect(content).not.toContain(secret);
    expect(content).not.toContain(rotated!);

    await page.click('[data-webhook-action="remove"]');
    await page.waitForSelector('#webhooks-empty:not([hidden])');
    expect(await t.container.webhooks.endpoints.listEndpoints(company.id)).toEqual([]);
    await context.close();
  });

  it('a cashier does not get the webhooks section', async () => {
    const { page, context } = await openAs('cashier');
    expect(await page.locator('#webhooks').count()).toBe(0);
    await expect(text(page, 'main')).resolves.toContain('tu rol es caja');
    await context.close();
  });
});
