import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeArca } from '../../src/modules/arca/fake/fake-arca.ts';
import type { TestApp } from '../app.ts';
import { buildArcaTestApp } from '../arca-app.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';
import { launchChromium } from '../setup/browser.ts';
import { problemsOf, VIEWPORTS, watchedContext, signedInPage } from './page-checks.ts';

const SHOTS = '/tmp/shots-issue-29-returns';

/** Ventas → Devolver and Cambiar in a real browser at 1366 and 390 px: a partial return with its credit note, an exchange. */
describe('returns and exchanges in a real browser', { timeout: 120_000 }, () => {
  let t: TestApp;
  let fake: FakeArca;
  let browser: Browser;
  let base: string;
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    ({ t, fake } = await buildArcaTestApp());
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await fake?.close();
  });

  const call = (method: string, url: string, headers: Record<string, string>, payload?: unknown) =>
    t.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });

  /** A shop with its fiscal setup, an open shift, an invoiced sale (bread × 2, alfajor × 1) and a plain one (yerba). */
  async function shop(name: string, cuit: string) {
    const company = await makeCompany(t.container, { name });
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const asAdmin = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
    const fiscal = await call('PUT', '/api/v1/fiscal', asAdmin, {
      cuit,
      iva_condition: 'responsable_inscripto',
      legal_name: 'Almacén Prueba S.R.L.',
      address: 'Av. Siempreviva 742',
      gross_income: '901-000000-1',
      activity_start: '2020-01-02',
      auth_mode: 'delegation',
      environment: 'homologacion',
      points_of_sale: [1],
      default_point_of_sale: 1,
    });
    expect(fiscal.statusCode, fiscal.body).toBe(200);
    const pan = await makeProduct(t.container, company.id, {
      name: 'Pan francés 1 kg',
      bc: '7790001000011',
      basePrice: 2450.75,
      stock: 40,
    });
    const alfajor = await makeProduct(t.container, company.id, {
      name: 'Alfajor triple',
      bc: '7790001000028',
      basePrice: 1200,
      stock: 40,
    });
    await makeProduct(t.container, company.id, { name: 'Yerba mate 1 kg', bc: '7790001000035', basePrice: 80_239.7, stock: 40 });
    expect((await call('POST', '/api/v1/box-sessions', asAdmin, { box_id: 1, opening_cash: 100_000 })).statusCode).toBe(201);
    const sell = async (items: { product_id: number; quantity: number }[], amount: number) => {
      const res = await call(
        'POST',
        '/api/v1/sales',
        { ...asAdmin, 'x-idempotency-key': randomUUID() },
        { box_id: 1, items, payments: [{ method: 'efectivo', amount }] },
      );
      expect(res.statusCode, res.body).toBe(201);
      return res.json().sale as { id: number };
    };
    const invoiced = await sell(
      [
        { product_id: pan.id, quantity: 2 },
        { product_id: alfajor.id, quantity: 1 },
      ],
      6101.5,
    );
    expect((await call('POST', `/api/v1/sales/${invoiced.id}/invoice`, asAdmin, {})).statusCode).toBe(201);
    const plain = await sell([{ product_id: alfajor.id, quantity: 2 }], 2400);
    return { company, admin, invoiced, plain };
  }

  const signIn = (context: BrowserContext, user: { email: string; password: string }, next = '/') =>
    signedInPage(context, base, user, next);

  /** Every amount in the dialog or detail sits on one line (no "$" / "80.239,70" split). */
  async function wrappedAmounts(page: Page): Promise<string[]> {
    return page.evaluate(() =>
      Array.from(document.querySelectorAll('.money'))
        .filter((el) => {
          const rects = Array.from(el.getClientRects()).filter((r) => r.width > 0);
          const lines = new Set(rects.map((r) => Math.round(r.top)));
          const height = el.getBoundingClientRect().height;
          const line = Number.parseFloat(getComputedStyle(el).lineHeight) || 24;
          return lines.size > 1 || height > line * 1.5;
        })
        .map((el) => el.textContent ?? ''),
    );
  }

  /** The page's problems; the one refusal this test provokes on purpose (beyond what was sold, 422) is not one. */
  async function problems(page: Page) {
    const found = await problemsOf(page);
    return { ...found, console: found.console.filter((line) => !line.includes('status of 422')) };
  }

  async function openSale(page: Page, saleId: number) {
    await page.goto(`${base}/ventas`);
    await page.waitForSelector('#sales tbody tr');
    await page.click(`#sales button.link:text-is("N.º ${saleId}")`);
    await page.waitForSelector(`#sale-detail:has-text("Venta N.º ${saleId}")`);
  }

  const cuits = { desktop: '30500010912', phone: '20123456786' } as const;

  for (const [label, viewport] of Object.entries(VIEWPORTS) as [
    keyof typeof VIEWPORTS,
    (typeof VIEWPORTS)[keyof typeof VIEWPORTS],
  ][]) {
    it(`at ${viewport.width} px: a partial return with its credit note (confirmed first, errors beside the control), then an exchange`, async () => {
      const s = await shop(`Devoluciones ${label}`, cuits[label]);
      const context = await watchedContext(browser, viewport);
      const page = await signIn(context, s.admin, '/ventas');
      await openSale(page, s.invoiced.id);

      // Devolver: one alfajor back in cash.
      await page.click('[data-open-return]');
      await page.waitForSelector('dialog.return-dialog[open]');
      // Nothing chosen: the error sits under the lines, not at the top of the page.
      await page.fill('#return-reason', 'alfajor roto');
      await page.click('[data-return-submit]');
      await page.waitForSelector('[data-error="lines"]');
      // Beyond what was sold: the server's refusal shows under that line's quantity.
      await page.fill('[data-return-line] >> nth=1 >> input', '3');
      await page.click('[data-return-submit]');
      await page.waitForSelector('dialog.confirm[open]');
      await page.click('dialog.confirm [data-confirm]');
      const beyond = page.locator('[data-return-line] >> nth=1 >> [data-error]');
      await beyond.waitFor();
      await expect(beyond.textContent()).resolves.toContain('No podés devolver más de lo que se vendió');
      await page.screenshot({ path: `${SHOTS}/01-return-error-${label}.png`, fullPage: true });
      expect((await problemsOf(page)).overflow).toBeLessThanOrEqual(0);

      await page.fill('[data-return-line] >> nth=1 >> input', '1');
      await expect(page.locator('[data-return-total]').textContent()).resolves.toContain('$\u00a01.200,00');
      await page.click('[data-return-submit]');
      await page.waitForSelector('dialog.confirm[open]');
      await expect(page.locator('dialog.confirm p').textContent()).resolves.toContain('¿Devolver $\u00a01.200,00 en efectivo?');
      await page.screenshot({ path: `${SHOTS}/02-return-confirm-${label}.png`, fullPage: true });
      // Cancelling the confirmation changes nothing.
      await page.click('dialog.confirm button:text("Cancelar")');
      await page.click('[data-return-submit]');
      await page.click('dialog.confirm [data-confirm]');
      await page.waitForSelector('[data-sale-done]');
      await expect(page.locator('[data-sale-done]').textContent()).resolves.toContain('Nota de crédito NC B 0001-00000001');
      await page.waitForSelector('#sale-returns [data-return="1"]');
      await expect(page.locator('#sale-returns').textContent()).resolves.toContain('Nota de crédito NC B 0001-00000001');
      expect(await wrappedAmounts(page)).toEqual([]);
      // The detail adds up: its total (2 × 2.450,75 + 1.200), what went back and what is left.
      await page.waitForSelector('[data-sale-returned]');
      await expect(page.locator('[data-sale-total]').textContent()).resolves.toBe('Total$\u00a06.101,50');
      await expect(page.locator('[data-sale-returned]').textContent()).resolves.toBe('Devuelto−$\u00a01.200,00');
      await expect(page.locator('[data-sale-net]').textContent()).resolves.toBe(
        'Queda después de las devoluciones$\u00a04.901,50',
      );
      await page.screenshot({ path: `${SHOTS}/03-return-done-${label}.png`, fullPage: true });
      // The list marks the sale with what went back.
      await openSale(page, s.invoiced.id);
      const row = page.locator('#sales tbody tr', { has: page.locator(`button.link:text-is("N.º ${s.invoiced.id}")`) });
      await expect(row.locator('[data-returned]').textContent()).resolves.toBe('Devuelto $\u00a01.200,00');
      expect(fake.control.receipts().filter((r) => r.type === 8 && r.cuit === cuits[label])).toHaveLength(1);
      expect(await problems(page)).toMatchObject({ overflow: 0, console: [], csp: [], errors: [] });

      // Cambiar: the other sale's two alfajores for a yerba; the customer pays the difference.
      await openSale(page, s.plain.id);
      await page.click('[data-open-exchange]');
      await page.waitForSelector('dialog.return-dialog[open]');
      await page.waitForSelector('#exchange-product option:has-text("Yerba mate")', { state: 'attached' });
      await page.fill('[data-return-line] >> nth=0 >> input', '2');
      await page.selectOption('#exchange-product', { label: 'Yerba mate 1 kg · $\u00a080.239,70' });
      await page.click('[data-exchange-add]');
      await page.fill('#return-reason', 'prefirió yerba');
      expect(await wrappedAmounts(page)).toEqual([]);
      expect((await problemsOf(page)).overflow).toBeLessThanOrEqual(0);
      await page.screenshot({ path: `${SHOTS}/04-exchange-${label}.png`, fullPage: true });
      await page.click('[data-return-submit]');
      await expect(page.locator('dialog.confirm p').textContent()).resolves.toContain('el cliente paga $\u00a077.839,70');
      await page.click('dialog.confirm [data-confirm]');
      await page.waitForSelector('[data-sale-done]:has-text("Cambio hecho")');
      await expect(page.locator('[data-sale-done]').textContent()).resolves.toContain('El cliente pagó $\u00a077.839,70');
      // The message shows first; the sale's detail is read again right after it.
      await page.waitForSelector('#sale-detail :text("Anulada")');
      await expect(page.locator('#sale-detail').textContent()).resolves.toContain('Anulada');
      await page.screenshot({ path: `${SHOTS}/05-exchange-done-${label}.png`, fullPage: true });
      expect(await problems(page)).toMatchObject({ overflow: 0, console: [], csp: [], errors: [] });
      await context.close();
    });
  }
});
