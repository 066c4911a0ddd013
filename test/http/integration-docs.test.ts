import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { Validator } from '@seriousme/openapi-schema-validator';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deposits, invoices, products, sales } from '../../src/db/schema/index.ts';
import { hmacSha256Hex } from '../../src/lib/secrets.ts';
import { SUPPORTED_EVENTS } from '../../src/modules/integration/events.schemas.ts';
import { validateEnvelope } from '../../src/modules/integration/integration.validation.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct } from '../factories.ts';
import { poll, sendEvent } from '../integration-helpers.ts';

const run = promisify(execFile);
const guide = readFileSync(new URL('../../docs/integraciones.md', import.meta.url), 'utf8');
const catalogue = readFileSync(new URL('../../docs/integraciones-eventos.md', import.meta.url), 'utf8');

function codeBlocks(markdown: string, language: string): string[] {
  return [...markdown.matchAll(/```(\w*)\n([\s\S]*?)```/g)].filter((m) => m[1] === language).map((m) => m[2]!);
}

type Envelope = { event: string; data: Record<string, Record<string, unknown>> };
const examples = codeBlocks(catalogue, 'json').map((text) => JSON.parse(text) as Envelope);

async function hasCommand(command: string) {
  try {
    await run('sh', ['-c', `command -v ${command}`]);
    return true;
  } catch {
    return false;
  }
}

const HAS_PYTHON = await hasCommand('python3');
const HAS_CURL = (await hasCommand('curl')) && (await hasCommand('openssl'));

describe('integrator docs are truthful', () => {
  let t: TestApp;
  let baseUrl: string;
  beforeAll(async () => {
    t = await buildTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => t.close());

  it.each([
    ['integraciones.md', guide],
    ['integraciones-eventos.md', catalogue],
  ])('%s has its front matter', (_name, text) => {
    expect(text).toMatch(/^---\ntitle: .+\ndescription: .+\norder: \d+\n---\n/);
  });

  it('has a full example of every supported event, each valid against its schema', () => {
    expect(new Set(examples.map((e) => e.event))).toEqual(new Set(SUPPORTED_EVENTS));
    for (const example of examples) expect(() => validateEnvelope(example, 1, new Date())).not.toThrow();
  });

  it('applies every example, in the order of the page, to a new company', async () => {
    const company = await makeCompany(t.container);
    await t.container.db.orm.insert(deposits).values({ companyId: company.id, id: 2, name: 'Sucursal' });
    const saleExample = examples.find((e) => e.event === 'sales.created')!;
    for (const example of examples) {
      if (example.event === 'sales.cancelled') {
        // The page says this one cancels another pending sale: create it the same way.
        const other = structuredClone(saleExample);
        other.data['sale']!['id'] = example.data['sale']!['id'];
        expect((await sendEvent(t.app, company.integrationKey, other)).statusCode).toBe(200);
      }
      const res = await sendEvent(t.app, company.integrationKey, example);
      expect({ event: example.event, status: res.statusCode, body: res.json() }).toEqual({
        event: example.event,
        status: 200,
        body: { status: 'ok' },
      });
    }
    const where = (table: typeof sales | typeof products, id: number) => and(eq(table.companyId, company.id), eq(table.id, id));
    const [product] = await t.container.db.orm.select().from(products).where(where(products, 101));
    expect(product!.stock).toBe('40.000'); // 24 → 30 → 28, +12 in, transfer keeps the total
    const [paid] = await t.container.db.orm.select().from(sales).where(where(sales, 9001));
    const [cancelled] = await t.container.db.orm.select().from(sales).where(where(sales, 9002));
    expect([paid!.status, cancelled!.status]).toEqual(['paid', 'cancelled']);
    expect(await t.container.db.orm.select().from(invoices).where(eq(invoices.companyId, company.id))).toHaveLength(1);
  });

  it('gives a signing example whose signature is right', () => {
    const body = '{"event":"sales.paid","data":{"sale":{"id":9001}}}';
    expect(guide).toContain(body);
    expect(guide).toContain('`mos_int_ejemplo`');
    expect(guide).toContain(hmacSha256Hex('mos_int_ejemplo', body));
  });

  it('shows the real error body for a sale with bad data', async () => {
    const company = await makeCompany(t.container);
    const documented = codeBlocks(guide, 'json')
      .map((text) => JSON.parse(text))
      .find((body) => body.code === 'validation_failed');
    const res = await sendEvent(t.app, company.integrationKey, {
      event: 'sales.created',
      data: { sale: { id: 1, total: -1, items: [{ product_id: 101, quantity: 1 }] } },
    });
    expect(res.json()).toEqual(documented);
  });

  it('shows a polling answer with the real shape', async () => {
    const company = await makeCompany(t.container);
    await sendEvent(t.app, company.integrationKey, examples[0]);
    const documented = codeBlocks(guide, 'json')
      .map((text) => JSON.parse(text))
      .find((body) => body.events !== undefined);
    const real = (await poll(t.app, company.integrationKey)).json();
    expect(Object.keys(documented.meta).sort()).toEqual(Object.keys(real.meta).sort());
    expect(Object.keys(documented.events[0]).sort()).toEqual(Object.keys(real.events[0]).sort());
  });

  describe('the sending examples work as written', () => {
    async function companyWithProduct() {
      const company = await makeCompany(t.container);
      await makeProduct(t.container, company.id, { id: 101, name: 'Yerba mate 1 kg' });
      const env = { ...process.env, MOSTRADOR_URL: baseUrl, MOSTRADOR_KEY: company.integrationKey };
      const stock = async () =>
        (
          await t.container.db.orm
            .select()
            .from(products)
            .where(and(eq(products.companyId, company.id), eq(products.id, 101)))
        )[0]!.stock;
      return { company, env, stock };
    }

    it('Node.js', async () => {
      const { env, stock } = await companyWithProduct();
      const [code] = codeBlocks(guide, 'js');
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', code!], { env, timeout: 20_000 });
      expect(stdout.trim()).toBe("{ status: 'ok' }");
      expect(await stock()).toBe('30.000');
    });

    it.runIf(HAS_PYTHON)('Python', async () => {
      const { env, stock } = await companyWithProduct();
      const [code] = codeBlocks(guide, 'python');
      const { stdout } = await run('python3', ['-c', code!], { env, timeout: 20_000 });
      expect(stdout.trim()).toBe("{'status': 'ok'}");
      expect(await stock()).toBe('30.000');
    });

    it.runIf(HAS_CURL)('curl', async () => {
      const { company, env } = await companyWithProduct();
      await sendEvent(
        t.app,
        company.integrationKey,
        examples.find((e) => e.event === 'sales.created'),
      );
      const [code] = codeBlocks(guide, 'sh');
      const { stdout } = await run('bash', ['-c', code!], { env, timeout: 20_000 });
      expect(JSON.parse(stdout)).toEqual({ status: 'ok' });
      const events = (await poll(t.app, company.integrationKey)).json().events;
      expect(events.at(-1)).toMatchObject({ event: 'sales.paid', idempotency_key: 'pago-9001', signature_valid: true });
    });
  });

  it('publishes a valid OpenAPI 3.1 document with the Integration tag and bearer security', async () => {
    const spec = t.app.swagger() as unknown as {
      openapi: string;
      tags: { name: string }[];
      components: { securitySchemes: Record<string, unknown> };
      paths: Record<string, Record<string, { tags: string[]; security: unknown[] }>>;
    };
    const result = await new Validator().validate(structuredClone(spec) as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(spec.openapi).toBe('3.1.0');
    expect(spec.tags.map((tag) => tag.name)).toContain('Integration');
    expect(spec.components.securitySchemes['integrationKey']).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const method of ['get', 'post']) {
      expect(spec.paths['/api/integration/in']![method]).toMatchObject({
        tags: ['Integration'],
        security: [{ integrationKey: [] }],
      });
    }
  });
});
