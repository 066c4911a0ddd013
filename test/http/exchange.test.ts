import { asc } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { exchangeRates } from '../../src/db/schema/index.ts';
import { fetchDolarApiQuote, UpstreamError } from '../../src/modules/exchange/dolarapi.client.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { type FakeDolarApi, startFakeDolarApi } from '../fakes/dolarapi.fake.ts';

describe('GET /api/exchange with a DolarAPI upstream', () => {
  let fake: FakeDolarApi;
  let t: TestApp;
  const get = () => t.app.inject({ method: 'GET', url: '/api/exchange' });
  const history = () => t.container.db.orm.select().from(exchangeRates).orderBy(asc(exchangeRates.id));

  beforeAll(async () => {
    fake = await startFakeDolarApi();
    t = await buildTestApp({ env: { EXCHANGE_SOURCE_URL: `${fake.url}/v1/dolares/oficial` } });
  });
  beforeEach(async () => {
    await t.container.db.query('DELETE FROM exchange_rates');
  });
  afterAll(async () => {
    await t.close();
    await fake.close();
  });

  it('answers 503 rate_unavailable while no rate was ever known', async () => {
    const res = await get();
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ error: expect.any(String), code: 'rate_unavailable' });
    expect(res.headers['retry-after']).toBe('60');
  });

  it('serves what the refresh stored, with the source timestamp, open to any origin', async () => {
    fake.quote(1160.5, '2026-11-20T15:04:00.000Z', 1110);
    await expect(t.container.exchange.refresh()).resolves.toEqual({ action: 'accept', note: null });
    expect(fake.requests.at(-1)).toBe('/v1/dolares/oficial');
    const res = await get();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      rate: 1160.5,
      source: `${new URL(fake.url).host}:oficial`,
      updated_at: '2026-11-20T15:04:00.000Z',
    });
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const [row] = await history();
    expect(row).toMatchObject({ status: 'accepted', rate: '1160.5000', buy: '1110.0000' });
  });

  it('keeps one history row for an unchanged quote and a new one for each change', async () => {
    fake.quote(1000, '2026-11-20T12:00:00Z');
    await t.container.exchange.refresh();
    expect(await t.container.exchange.refresh()).toEqual({ action: 'unchanged' });
    fake.quote(1010, '2026-11-20T13:00:00Z');
    await t.container.exchange.refresh();
    expect((await history()).map((r) => [r.rate, r.status])).toEqual([
      ['1000.0000', 'accepted'],
      ['1010.0000', 'accepted'],
    ]);
    expect((await get()).json()).toMatchObject({ rate: 1010, updated_at: '2026-11-20T13:00:00.000Z' });
  });

  it.each([0, -5])('refuses a non-positive rate (%d) and keeps serving the last one', async (venta) => {
    fake.quote(1000, '2026-11-20T12:00:00Z');
    await t.container.exchange.refresh();
    fake.quote(venta, '2026-11-20T13:00:00Z');
    expect(await t.container.exchange.refresh()).toMatchObject({ action: 'reject' });
    expect((await get()).json()).toMatchObject({ rate: 1000 });
    expect(await history()).toHaveLength(1);
  });

  it('holds a jump over 20 % until the next fetch confirms it', async () => {
    fake.quote(1000, '2026-11-20T12:00:00Z');
    await t.container.exchange.refresh();
    fake.quote(1300, '2026-11-20T12:15:00Z');
    expect(await t.container.exchange.refresh()).toMatchObject({ action: 'hold' });
    expect((await get()).json()).toMatchObject({ rate: 1000 });
    fake.quote(1310, '2026-11-20T12:30:00Z');
    expect(await t.container.exchange.refresh()).toMatchObject({ action: 'accept', note: expect.stringContaining('confirmed') });
    expect((await get()).json()).toMatchObject({ rate: 1310, updated_at: '2026-11-20T12:30:00.000Z' });
    expect((await history()).map((r) => r.status)).toEqual(['accepted', 'held', 'accepted']);
  });

  it('drops a one-off glitch: the jump is never served when the next fetch is back to normal', async () => {
    fake.quote(1000, '2026-11-20T12:00:00Z');
    await t.container.exchange.refresh();
    fake.quote(100, '2026-11-20T12:15:00Z');
    expect(await t.container.exchange.refresh()).toMatchObject({ action: 'hold' });
    fake.quote(1005, '2026-11-20T12:30:00Z');
    expect(await t.container.exchange.refresh()).toMatchObject({ action: 'accept' });
    expect((await get()).json()).toMatchObject({ rate: 1005 });
  });

  it.each([
    [{ status: 500, body: { error: 'down' } }, 'HTTP 500'],
    [{ body: 'not json' }, 'exchange upstream failed'],
    [{ body: [{ casa: 'oficial', venta: 1 }] }, 'not one quote object'],
    [{ body: { casa: 'oficial', venta: 'mucho', fechaActualizacion: '2026-11-20T12:00:00Z' } }, '"venta" is not a number'],
    [{ body: { casa: 'oficial', venta: 1000, fechaActualizacion: 'ayer' } }, '"fechaActualizacion" is not a date'],
  ])('fails the refresh on a bad upstream answer (%j) and keeps the last rate', async (answer, message) => {
    fake.quote(1000, '2026-11-20T12:00:00Z');
    await t.container.exchange.refresh();
    fake.answer(answer);
    await expect(t.container.exchange.refresh()).rejects.toThrow(message);
    expect((await get()).json()).toMatchObject({ rate: 1000 });
  });

  it('refreshes through the job queue when a worker starts', async () => {
    fake.quote(1234.56, '2026-11-20T18:00:00Z');
    await t.container.jobs.start({ work: true });
    await t.container.exchange.requestRefresh();
    let res = await get();
    for (let i = 0; i < 100 && res.statusCode !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      res = await get();
    }
    expect(res.json()).toMatchObject({ rate: 1234.56 });
  });
});

describe('the DolarAPI client', () => {
  let fake: FakeDolarApi;
  beforeAll(async () => {
    fake = await startFakeDolarApi();
  });
  afterAll(() => fake.close());

  it('gives up when the headers do not arrive in time', async () => {
    fake.answer({ delayMs: 1000, body: { venta: 1 } });
    await expect(fetchDolarApiQuote(`${fake.url}/v1/dolares/oficial`, { timeoutMs: 150 })).rejects.toThrow(
      new UpstreamError('exchange upstream failed: no answer within 150 ms'),
    );
  });

  it('gives up when the body does not arrive in time', async () => {
    fake.answer({ bodyDelayMs: 1000, body: { casa: 'oficial', venta: 1, fechaActualizacion: '2026-11-20T12:00:00Z' } });
    await expect(fetchDolarApiQuote(`${fake.url}/v1/dolares/oficial`, { timeoutMs: 150 })).rejects.toThrow(
      'no answer within 150 ms',
    );
  });

  it('names the network error when nothing listens', async () => {
    const closed = await startFakeDolarApi();
    const url = `${closed.url}/v1/dolares/oficial`;
    await closed.close();
    await expect(fetchDolarApiQuote(url)).rejects.toThrow(/exchange upstream failed: .*ECONNREFUSED/);
  });

  it("reads a time without a zone as Argentina's, not the server's", async () => {
    fake.quote(1160, '2025-05-16T12:04:00', 1110);
    const quote = await fetchDolarApiQuote(`${fake.url}/v1/dolares/oficial`);
    expect(quote.updatedAt.toISOString()).toBe('2025-05-16T15:04:00.000Z');
  });

  it('refuses an answer larger than a quote can be without reading it all', async () => {
    fake.answer({ body: { casa: 'oficial', venta: 1160, fechaActualizacion: '2025-05-16T15:04:00Z', pad: 'x'.repeat(100_000) } });
    await expect(fetchDolarApiQuote(`${fake.url}/v1/dolares/oficial`)).rejects.toThrow(
      new UpstreamError('exchange upstream answer is larger than 65536 bytes'),
    );
  });

  it('refuses a rate no stored rate can hold, and drops such a buy rate', async () => {
    for (const venta of [1e12, 0.00001]) {
      fake.quote(venta, '2025-05-16T15:04:00.000Z', 1110);
      await expect(fetchDolarApiQuote(`${fake.url}/v1/dolares/oficial`)).rejects.toThrow(
        `exchange upstream "venta" is out of range: ${venta}`,
      );
    }
    fake.quote(1160, '2025-05-16T15:04:00.000Z', 1e12);
    await expect(fetchDolarApiQuote(`${fake.url}/v1/dolares/oficial`)).resolves.toMatchObject({ rate: 1160, buy: null });
  });

  it('reads the DolarAPI wire format', async () => {
    fake.quote(1160, '2025-05-16T15:04:00.000Z', 1110);
    await expect(fetchDolarApiQuote(`${fake.url}/v1/dolares/oficial`)).resolves.toEqual({
      rate: 1160,
      buy: 1110,
      kind: 'oficial',
      updatedAt: new Date('2025-05-16T15:04:00.000Z'),
    });
  });
});

describe('GET /api/exchange when the store fails', () => {
  it('answers 500 with a generic body', async () => {
    const t = await buildTestApp();
    try {
      await t.container.db.query('ALTER TABLE exchange_rates RENAME TO exchange_rates_gone');
      const res = await t.app.inject({ method: 'GET', url: '/api/exchange' });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ error: 'internal error', code: 'internal' });
      expect(res.headers['cache-control']).toBe('no-store');
    } finally {
      await t.close();
    }
  });
});

describe('EXCHANGE_RATE_FIXED', () => {
  it('serves the configured rate with source fixed and never calls the upstream', async () => {
    const fake = await startFakeDolarApi();
    const t = await buildTestApp({ env: { EXCHANGE_RATE_FIXED: '1200.50', EXCHANGE_SOURCE_URL: fake.url } });
    try {
      const res = await t.app.inject({ method: 'GET', url: '/api/exchange' });
      expect(res.json()).toEqual({ rate: 1200.5, source: 'fixed', updated_at: expect.any(String) });
      expect(await t.container.exchange.refresh()).toEqual({ action: 'fixed' });
      expect(fake.requests).toEqual([]);
    } finally {
      await t.close();
      await fake.close();
    }
  });
});
