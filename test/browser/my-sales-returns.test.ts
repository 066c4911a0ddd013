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
import { problemsOf, VIEWPORTS, watchedContext, wrappedAmounts, signedInPage } from './page-checks.ts';

const SHOTS = '/tmp/shots-issue-29-my-sales-returns';

/**
 * Mis ventas → Devolver in a real browser at 1366 and 390 px: a cashier gives one line of an
 * invoiced sale back in cash, an admin approves on the spot (a wrong password first), the credit note.
 */
describe("a cashier's return from Mis ventas in a real browser", { timeout: 120_000 }, () => {
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

  /** A shop with its fiscal setup, a cashier's open shift and an invoiced sale of theirs (bread × 2, alfajor × 1). */
  async function shop(name: string, cuit: string) {
    const company = await makeCompany(t.container, { name });
    const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
    const cashier = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
    const asAdmin = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
    const asCashier = { cookie: (await login(t.app, cashier.email, cashier.password)).cookie, ...SAME_ORIGIN };
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
    expect((await call('POST', '/api/v1/box-sessions', asCashier, { box_id: 1, opening_cash: 100_000 })).statusCode).toBe(201);
    const res = await call(
      'POST',
      '/api/v1/sales',
      { ...asCashier, 'x-idempotency-key': randomUUID() },
      {
        box_id: 1,
        items: [
          { product_id: pan.id, quantity: 2 },
          { product_id: alfajor.id, quantity: 1 },
        ],
        payments: [{ method: 'efectivo', amount: 6101.5 }],
      },
    );
    expect(res.statusCode, res.body).toBe(201);
    const sale = res.json().sale as { id: number };
    const invoiced = await call('POST', `/api/v1/sales/${sale.id}/invoice`, asCashier, {});
    expect(invoiced.statusCode, invoiced.body).toBe(201);
    return { company, admin, cashier, sale };
  }

  const signIn = (context: BrowserContext, user: { email: string; password: string }, next = '/') =>
    signedInPage(context, base, user, next);

  /** The page's problems; the refusals this test provokes on purpose (403: approval needed, then refused) are not. */
  async function problems(page: Page) {
    const found = await problemsOf(page);
    return { ...found, console: found.console.filter((line) => !line.includes('status of 403')) };
  }

  const cuits = { desktop: '30500010912', phone: '20123456786' } as const;

  for (const [label, viewport] of Object.entries(VIEWPORTS) as [
    keyof typeof VIEWPORTS,
    (typeof VIEWPORTS)[keyof typeof VIEWPORTS],
  ][]) {
    it(`at ${viewport.width} px: a cashier returns one line from Mis ventas with an admin's approval (confirmed first), credit note`, async () => {
      const s = await shop(`Mis devoluciones ${label}`, cuits[label]);
      const context = await watchedContext(browser, viewport);
      const page = await signIn(context, s.cashier, '/mis-ventas');
      const row = page.locator(`#my-sales [data-sale="${s.sale.id}"]`);
      await row.waitFor();
      await row.locator('[data-action="return"]').click();
      await page.waitForSelector('dialog.return-dialog[open]');
      // The alfajor back in cash: the confirmation says how much and how.
      await page.fill('[data-return-line] >> nth=1 >> input', '1');
      await page.fill('#return-reason', 'alfajor roto');
      await expect(page.locator('[data-return-total]').textContent()).resolves.toContain('$\u00a01.200,00');
      await page.click('[data-return-submit]');
      await page.waitForSelector('dialog.confirm[open]');
      await expect(page.locator('dialog.confirm p').textContent()).resolves.toContain('¿Devolver $\u00a01.200,00 en efectivo?');
      await page.click('dialog.confirm [data-confirm]');

      // The server asks for an admin: the approval dialog, over the return dialog.
      await page.waitForSelector('dialog.approval-dialog[open]');
      await expect(page.locator('dialog.approval-dialog').textContent()).resolves.toContain(
        'Devolver $\u00a01.200,00 en efectivo',
      );
      await page.fill('#approval-email', s.admin.email);
      await page.fill('#approval-password', 'no-es-esta');
      await page.click('#approval-confirm');
      await page.waitForSelector('dialog.approval-dialog #approval-error');
      await expect(page.locator('#approval-error').textContent()).resolves.toContain('No se pudo aprobar');
      expect(await wrappedAmounts(page)).toEqual([]);
      expect((await problemsOf(page)).overflow).toBeLessThanOrEqual(0);
      await page.screenshot({ path: `${SHOTS}/01-approval-refused-${label}.png`, fullPage: true });
      const [refused] = await t.container.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM audit_log WHERE company_id = $1 AND action = 'sale.refund_approval_failed'",
        [s.company.id],
      );
      expect(refused!.n).toBe(1);

      await page.fill('#approval-password', s.admin.password);
      await page.click('#approval-confirm');
      await page.waitForSelector('[data-my-sales-done]');
      await expect(page.locator('[data-my-sales-done]').textContent()).resolves.toContain(
        'Devolución registrada: $\u00a01.200,00',
      );
      await expect(page.locator('[data-my-sales-done]').textContent()).resolves.toContain('Nota de crédito NC B 0001-00000001');
      expect(await page.locator('dialog[open]').count()).toBe(0);
      // The sale's row says what went back.
      await page.waitForSelector(`#my-sales [data-sale="${s.sale.id}"] [data-returned]`);
      await expect(page.locator(`#my-sales [data-sale="${s.sale.id}"] [data-returned]`).textContent()).resolves.toBe(
        'Devuelto $\u00a01.200,00',
      );
      expect(await wrappedAmounts(page)).toEqual([]);
      await page.screenshot({ path: `${SHOTS}/02-return-done-${label}.png`, fullPage: true });
      expect(fake.control.receipts().filter((r) => r.type === 8 && r.cuit === cuits[label])).toHaveLength(1);
      const [approved] = await t.container.db.query<{ actor_email: string; details: { approved_by: string } }>(
        "SELECT actor_email, details FROM audit_log WHERE company_id = $1 AND action = 'sale.refund_approved'",
        [s.company.id],
      );
      expect(approved).toMatchObject({ actor_email: s.cashier.email, details: { approved_by: s.admin.email } });
      expect(await problems(page)).toMatchObject({ overflow: 0, console: [], csp: [], errors: [] });
      await context.close();
    });
  }
});
