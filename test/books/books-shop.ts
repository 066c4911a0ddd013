import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { cuitCheckDigit } from '../../src/lib/cuit.ts';
import type { FakeArca } from '../../src/modules/arca/fake/fake-arca.ts';
import type { BooksCheck } from '../../src/modules/books/books.service.ts';
import type { Container } from '../../src/container.ts';
import type { TestApp, TestAppOptions } from '../app.ts';
import { buildArcaTestApp } from '../arca-app.ts';
import { runCliOn } from '../cli/run-cli.ts';
import { makeCompany, makeProduct, makeUser } from '../factories.ts';
import { sendEvent } from '../integration-helpers.ts';
import { login, SAME_ORIGIN } from '../sessions.ts';

export type Headers = Record<string, string>;

export interface BooksApp {
  t: TestApp;
  fake: FakeArca;
  call(method: string, url: string, headers: Headers, payload?: unknown): Promise<Awaited<ReturnType<TestApp['app']['inject']>>>;
  close(): Promise<void>;
}

/** The whole app on its own database, invoicing against the in-process fake ARCA (as the invoicing tests do). */
export async function startBooksApp(options: { overrides?: TestAppOptions['overrides'] } = {}): Promise<BooksApp> {
  const { t, fake } = await buildArcaTestApp({
    timeoutMs: 5000,
    env: { AUTH_LOGIN_LIMIT_PER_CLIENT: '10000' },
    ...(options.overrides ? { overrides: options.overrides } : {}),
  });
  const call = (method: string, url: string, headers: Headers, payload?: unknown) =>
    t.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) });
  return {
    t,
    fake,
    call,
    async close() {
      await t.close();
      await fake.close();
    },
  };
}

let cuitSeed = 0;
/** A valid CUIT of its own per company (the fake numbers receipts per CUIT). */
function freshCuit(prefix: '30' | '20'): string {
  for (;;) {
    const body = `${prefix}${String((process.pid * 7919 + ++cuitSeed * 104_729) % 100_000_000).padStart(8, '0')}`;
    const check = cuitCheckDigit(body);
    if (check >= 0) return `${body}${check}`;
  }
}

export interface Shop {
  companyId: number;
  integrationKey: string;
  asAdmin: Headers;
  asCashier: Headers;
  /** 21 % by the unit, 10.5 % by the unit, exempt, and one sold by weight. */
  products: { p21: number; p105: number; exempt: number; kg: number };
  deposits: { main: number; back: number };
}

/** A company ready to sell and invoice: admin and cashier sessions, a second deposit, products with stock through the ledger. */
export async function makeShop(
  b: BooksApp,
  iva: 'responsable_inscripto' | 'monotributo' = 'responsable_inscripto',
): Promise<Shop> {
  const { t, call } = b;
  const company = await makeCompany(t.container);
  const admin = await makeUser(t.container, { companyId: company.id, role: 'admin' });
  const cashier = await makeUser(t.container, { companyId: company.id, role: 'cashier' });
  const asAdmin = { cookie: (await login(t.app, admin.email, admin.password)).cookie, ...SAME_ORIGIN };
  const asCashier = { cookie: (await login(t.app, cashier.email, cashier.password)).cookie, ...SAME_ORIGIN };
  const fiscal = await call('PUT', '/api/v1/fiscal', asAdmin, {
    cuit: freshCuit(iva === 'monotributo' ? '20' : '30'),
    iva_condition: iva,
    legal_name: 'Almacén Libros S.R.L.',
    address: 'Av. Siempreviva 742',
    gross_income: '901-000000-1',
    activity_start: '2020-01-02',
    auth_mode: 'delegation',
    environment: 'homologacion',
    points_of_sale: [1, 2],
    default_point_of_sale: 1,
  });
  expect(fiscal.statusCode, fiscal.body).toBe(200);
  const product = (name: string, basePrice: number, extra: Record<string, unknown> = {}) =>
    makeProduct(t.container, company.id, { name, basePrice, ...extra }).then((p) => p.id);
  const products = {
    p21: await product('Yerba', 3917.36),
    p105: await product('Pan', 1105.5, { ivaRate: '10.5' }),
    exempt: await product('Libro', 5000, { ivaRate: 'exento' }),
    kg: await product('Queso', 9000, { unit: 'kg' }),
  };
  const deposits = (await call('GET', '/api/v1/deposits', asAdmin)).json().deposits as { id: number; is_default: boolean }[];
  const main = deposits.find((d) => d.is_default)!.id;
  const back = (await call('POST', '/api/v1/deposits', asAdmin, { name: 'Trastienda' })).json().deposit.id as number;
  for (const id of Object.values(products)) {
    const res = await call('POST', '/api/v1/movements', asAdmin, { type: 'IN', deposit_id: main, product_id: id, amount: 500 });
    expect(res.statusCode, res.body).toBe(201);
  }
  return {
    companyId: company.id,
    integrationKey: company.integrationKey,
    asAdmin,
    asCashier,
    products,
    deposits: { main, back },
  };
}

export interface Item {
  product_id: number;
  quantity: number;
}
export interface Payment {
  method: string;
  amount: number;
}

/** A register sale at box 1 (its session must be open). */
export async function sell(b: BooksApp, s: Shop, items: Item[], payments: Payment[]) {
  const res = await b.call(
    'POST',
    '/api/v1/sales',
    { ...s.asCashier, 'x-idempotency-key': randomUUID() },
    { box_id: 1, items, payments },
  );
  expect(res.statusCode, res.body).toBe(201);
  return res.json().sale as { id: number; total: number; status: string };
}

export async function openBox(b: BooksApp, s: Shop, openingCash = 1000) {
  const res = await b.call('POST', '/api/v1/box-sessions', s.asCashier, { box_id: 1, opening_cash: openingCash });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().session.id as number;
}

export async function closeBox(b: BooksApp, s: Shop, sessionId: number) {
  const res = await b.call('POST', `/api/v1/box-sessions/${sessionId}/close`, s.asCashier, { counted: { efectivo: 0 } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

export async function sendIntegration(b: BooksApp, s: Shop, envelope: unknown) {
  const res = await sendEvent(b.t.app, s.integrationKey, envelope);
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res;
}

export interface VerifyJson {
  ok: boolean;
  checks: BooksCheck[];
}

/** `books verify --company ID --json` through the CLI, in-process on the test's container. */
export async function verifyBooks(b: BooksApp, companyId: number): Promise<{ code: number; report: VerifyJson }> {
  return verifyBooksOn(b.t.container, companyId);
}

/** `books verify --company ID --json` through the CLI, in-process on `container`. */
export async function verifyBooksOn(container: Container, companyId: number): Promise<{ code: number; report: VerifyJson }> {
  const { code, out, err } = await runCliOn(container, ['books', 'verify', '--company', String(companyId), '--json']);
  expect(err).toBe('');
  return { code, report: JSON.parse(out) as VerifyJson };
}

/** Every check of `books verify` passes for the company (the failing ones shown with their detail). */
export async function expectBooksClean(container: Container, companyId: number) {
  const { code, report } = await verifyBooksOn(container, companyId);
  expect(report.checks.filter((c) => !c.ok)).toEqual([]);
  expect(code).toBe(0);
}

/** The names of the checks that failed. */
export const failing = (report: VerifyJson) => report.checks.filter((c) => !c.ok).map((c) => c.name);
export const checkOf = (report: VerifyJson, name: string) => report.checks.find((c) => c.name === name)!;
