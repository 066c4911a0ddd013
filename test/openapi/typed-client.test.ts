import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../app.ts';

// Issue 26: a client generated from each document (openapi-typescript) type-checks a full flow
// written against it, with no casts: defaults are optional, the import body is text/csv, errors
// have the error body. A flow with a mistake must not type-check (the test can fail).

/** Helpers over the generated `operations`: a request's JSON body, query and a status's JSON answer. */
const HELPERS = `
type Op<K extends keyof operations> = operations[K];
type Body<K extends keyof operations> = Op<K> extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : Op<K> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type Query<K extends keyof operations> = Op<K>['parameters'] extends { query?: infer Q } ? Q : never;
type Answer<K extends keyof operations, S extends keyof Op<K>['responses']> = Op<K>['responses'][S] extends {
  content: { 'application/json': infer R };
}
  ? R
  : never;
declare function send<K extends keyof operations, S extends keyof Op<K>['responses']>(
  operation: K,
  status: S,
  input: { body?: Body<K>; query?: Query<K>; id?: number },
): Promise<Answer<K, S>>;
`;

const MERCHANT_FLOW = `
import type { operations } from './merchant';
${HELPERS}
export async function flow(): Promise<string> {
  const { category } = await send('postApiV1Categories', 201, { body: { name: 'Almacén' } });
  const { deposit } = await send('postApiV1Deposits', 201, { body: { name: 'Depósito central' } });
  const { box } = await send('postApiV1Boxes', 201, { body: { name: 'Caja 1', deposit_id: deposit.id } });
  const { product } = await send('postApiV1Products', 201, {
    body: { name: 'Yerba mate 1 kg', base_price: 4890.5, category_id: category.id },
  });
  await send('postApiV1Movements', 201, { body: { type: 'IN', product_id: product.id, deposit_id: deposit.id, amount: 12 } });
  const { session } = await send('postApiV1BoxSessions', 201, { body: { box_id: box.id, opening_cash: 0 } });
  const { sale } = await send('postApiV1Sales', 201, { body: { box_id: box.id, items: [{ product_id: product.id, quantity: 2 }] } });
  await send('postApiV1SalesByIdPay', 200, { id: sale.id, body: { payments: [{ method: 'efectivo', amount: sale.total }] } });
  // limit has a default: a generated client need not send it.
  const page = await send('getApiV1Sales', 200, { query: { from: '2025-01-01' } });
  const sessions = await send('getApiV1BoxSessions', 200, { query: {} });
  const csv: Op<'postApiV1ProductsImport'>['requestBody']['content']['text/csv'] = 'nombre;precio\\nPan;10\\n';
  const imported = await send('postApiV1ProductsImport', 200, { query: { dry_run: true } });
  const missing = await send('getApiV1ProductsById', 404, { id: 999 });
  const refused = await send('postApiV1Products', 422, { body: { name: 'x', base_price: 1 } });
  const unauthenticated = await send('getApiV1Stock', 401, {});
  return [session.id, page.sales.length, sessions, csv, imported.created, missing.code, refused.error, unauthenticated.code].join();
}
`;

const CONTRACT_FLOW = `
import type { operations } from './contract';
${HELPERS}
export async function flow(): Promise<string> {
  await send('sendIntegrationEvent', 200, {
    body: { event: 'product.upserted', data: { product: { id: 1, name: 'Yerba', base_price: 10 } } },
  });
  const polled = await send('pollIntegrationEvents', 200, { query: {} });
  const scanned = await send('scanProduct', 200, { query: { token: 'mos_scanner_token', query: '7790001000019' } });
  const rate = await send('getExchangeRate', 200, {});
  const refused = await send('scanProduct', 400, { query: { token: 'mos_scanner_token', query: 'x' } });
  return [polled.events.length, scanned.product.base_price, rate.rate, refused.code].join();
}
`;

/** The compiler's complaints about the files (strict, no emit). */
function typeErrors(files: string[]): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    skipLibCheck: false,
    types: [],
    lib: ['lib.es2022.d.ts'],
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('typed clients generated from both OpenAPI documents (issue 26)', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    t = await buildTestApp();
    dir = mkdtempSync(join(tmpdir(), 'mostrador-client-'));
    for (const [name, url] of [
      ['contract', '/openapi.json'],
      ['merchant', '/docs/openapi-comercio.json'],
    ] as const) {
      const document = (await t.app.inject({ url })).json();
      writeFileSync(join(dir, `${name}.d.ts`), astToString(await openapiTS(document)));
    }
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  it('the merchant API: a full flow type-checks with no casts', () => {
    const file = join(dir, 'merchant-flow.ts');
    writeFileSync(file, MERCHANT_FLOW);
    expect(MERCHANT_FLOW).not.toMatch(/\bas\b|<any>|: any/);
    expect(typeErrors([file])).toEqual([]);
  }, 60_000);

  it('the contract: integration, polling, scanner and exchange type-check with no casts', () => {
    const file = join(dir, 'contract-flow.ts');
    writeFileSync(file, CONTRACT_FLOW);
    expect(CONTRACT_FLOW).not.toMatch(/\bas\b|<any>|: any/);
    expect(typeErrors([file])).toEqual([]);
  }, 60_000);

  it('a flow with a mistake does not type-check (a price as text, an undeclared status)', () => {
    const file = join(dir, 'wrong-flow.ts');
    writeFileSync(
      file,
      MERCHANT_FLOW.replace('base_price: 4890.5', "base_price: '4890.5'").replace("'getApiV1Stock', 401", "'getApiV1Stock', 418"),
    );
    expect(typeErrors([file]).length).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
