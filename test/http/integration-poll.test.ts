import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertInboundEvent } from '../../src/modules/integration/integration.repo.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeProduct } from '../factories.ts';
import { poll, saleCreated, sendEvent } from '../integration-helpers.ts';
import { isPostgresRun } from '../setup/db.ts';
import { signal } from '../signal.ts';

const WIRE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
/** A cheap event: a product created. */
const stockEvent = (n: number) => ({ event: 'product.upserted', data: { product: { id: n, name: `Producto ${n}` } } });

interface Polled {
  id: string;
  received_at: string;
  event: string;
  idempotency_key: string;
  payload: unknown;
  signature_valid: boolean;
}

describe('GET /api/integration/in: polling', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  async function companyWithEvents(count: number) {
    const company = await makeCompany(t.container);
    const ids: string[] = [];
    for (let n = 1; n <= count; n++) {
      const res = await sendEvent(t.app, company.integrationKey, stockEvent(n), { idempotencyKey: `k-${n}` });
      expect(res.statusCode).toBe(200);
      ids.push(res.headers['x-event-id'] as string);
    }
    await waitUntilVisible(company.integrationKey, count);
    return { key: company.integrationKey, ids };
  }

  /** On PostgreSQL an event is served once every inbound transaction older than it has finished. */
  async function waitUntilVisible(key: string, count: number) {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const seen = (await poll(t.app, key, { limit: 200 })).json().events.length;
      if (seen >= count) return;
      if (Date.now() > deadline) throw new Error(`only ${seen} of ${count} events became visible`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async function pollAll(key: string, limit: number) {
    const seen: Polled[] = [];
    let since: string | null = null;
    for (let page = 0; page < 100; page++) {
      const res = await poll(t.app, key, { limit, ...(since ? { since } : {}) });
      expect(res.statusCode).toBe(200);
      const body = res.json() as { events: Polled[]; meta: { has_more: boolean; next_since: string | null } };
      seen.push(...body.events);
      since = body.meta.next_since;
      if (!body.meta.has_more) return seen;
    }
    throw new Error('polling did not finish');
  }

  it('returns the stored events oldest first, with the default page of 50', async () => {
    const { key, ids } = await companyWithEvents(3);
    const res = await poll(t.app, key);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.events.map((e: Polled) => e.id)).toEqual(ids);
    expect(body.meta).toEqual({ limit: 50, since: null, has_more: false, next_since: body.events[2].received_at });
    expect(body.events[0]).toEqual({
      id: ids[0],
      received_at: expect.stringMatching(WIRE_TIME),
      event: 'product.upserted',
      idempotency_key: 'k-1',
      payload: stockEvent(1),
      signature_valid: true,
    });
  });

  it('pages with has_more and next_since, never repeating or skipping an event', async () => {
    const { key, ids } = await companyWithEvents(11);
    const seen = await pollAll(key, 4);
    expect(seen.map((e) => e.id)).toEqual(ids);
    const times = seen.map((e) => e.received_at);
    expect([...times].sort()).toEqual(times);
    expect(new Set(times).size).toBe(times.length);
  });

  it('treats since as exclusive and keeps it when nothing is new', async () => {
    const { key } = await companyWithEvents(2);
    const first = (await poll(t.app, key, { limit: 1 })).json();
    expect(first.meta.has_more).toBe(true);
    const rest = (await poll(t.app, key, { since: first.meta.next_since })).json();
    expect(rest.events).toHaveLength(1);
    const empty = (await poll(t.app, key, { since: rest.meta.next_since })).json();
    expect(empty).toEqual({
      events: [],
      meta: { limit: 50, since: rest.meta.next_since, has_more: false, next_since: rest.meta.next_since },
    });
  });

  it('accepts since in any offset and with more than six decimals, cutting them', async () => {
    const { key } = await companyWithEvents(2);
    const [a, b] = (await poll(t.app, key)).json().events as Polled[];
    const inBuenosAires = new Date(Date.parse(a!.received_at) - 3 * 3600_000).toISOString().replace('Z', '-03:00');
    const precise = a!.received_at.replace('Z', '999Z');
    for (const since of [a!.received_at, precise]) {
      expect((await poll(t.app, key, { since })).json().events.map((e: Polled) => e.id)).toEqual([b!.id]);
    }
    const res = await poll(t.app, key, { since: inBuenosAires });
    expect(res.statusCode).toBe(200);
  });

  it('clamps limit above 200 and reports it', async () => {
    const { key } = await companyWithEvents(1);
    const res = await poll(t.app, key, { limit: 5000 });
    expect(res.statusCode).toBe(200);
    expect(res.json().meta.limit).toBe(200);
  });

  it.each([
    ['limit=0', { limit: 0 }],
    ['limit=-3', { limit: -3 }],
    ['limit=1.5', { limit: '1.5' }],
    ['limit=abc', { limit: 'abc' }],
    ['limit=0x10 (hexadecimal)', { limit: '0x10' }],
    ['limit=1e2 (exponent)', { limit: '1e2' }],
    ['limit=" 1" (a space)', { limit: ' 1' }],
    ['limit=20.0', { limit: '20.0' }],
    ['limit of 20 digits', { limit: '12345678901234567890' }],
    ['since without offset', { since: '2026-03-10T10:00:00' }],
    ['since that is not a date', { since: 'ayer' }],
    ['since on a day that does not exist', { since: '2026-02-30T10:00:00Z' }],
  ])('refuses %s with 400', async (_name, query) => {
    const { key } = await companyWithEvents(0);
    const res = await poll(t.app, key, query);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'bad_request', error: expect.any(String) });
  });

  it('refuses a missing or unknown key with 401', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/integration/in' })).statusCode).toBe(401);
    expect((await poll(t.app, 'mos_int_nope')).statusCode).toBe(401);
  });

  it('returns exactly the envelope that was sent: keys in order, numbers and text as sent', async () => {
    const company = await makeCompany(t.container);
    const raw =
      '{"data":{"product":{"updated_at":"2026-03-10T10:00:00.123456-03:00","name":"Café “Don Pedro” ñandú 🧉",' +
      '"id":31,"base_price":1234.5,"extra":{"z":1,"a":[true,null,"x"]}}},"event":"product.upserted","note":"kept"}';
    const res = await sendEvent(t.app, company.integrationKey, null, { raw });
    expect(res.statusCode).toBe(200);
    await waitUntilVisible(company.integrationKey, 1);
    const polled = await t.app.inject({
      method: 'GET',
      url: '/api/integration/in',
      headers: { authorization: `Bearer ${company.integrationKey}` },
    });
    const text = polled.body;
    expect(text).toContain(`"payload":${raw}`);
    expect(JSON.stringify(polled.json().events[0].payload)).toBe(raw);
  });

  it('never shows another company’s events', async () => {
    const a = await companyWithEvents(2);
    const b = await companyWithEvents(1);
    await waitUntilVisible(a.key, 2);
    const seenByB = (await poll(t.app, b.key)).json().events.map((e: Polled) => e.id);
    expect(seenByB).toEqual(b.ids);
    expect(seenByB).not.toContain(a.ids[0]);
  });

  describe.runIf(isPostgresRun())('on PostgreSQL, with concurrent writers', () => {
    it('does not serve an event while an older transaction is still open, so a late commit is not skipped', async () => {
      const company = await makeCompany(t.container);
      const { fired: gate, fire: release } = signal();
      let heldStamp = '';
      const held = t.container.db.orm.transaction(async (tx) => {
        const stored = await insertInboundEvent(tx, {
          id: randomUUID(),
          companyId: company.id,
          event: 'product.upserted',
          idempotencyKey: 'held',
          payloadText: JSON.stringify(stockEvent(1)),
          bodySha256: '0'.repeat(64),
          signatureValid: false,
        });
        heldStamp = stored!.receivedAt;
        await gate;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const later = await sendEvent(t.app, company.integrationKey, stockEvent(2), { idempotencyKey: 'later' });
      expect(later.statusCode).toBe(200);

      const whileOpen = (await poll(t.app, company.integrationKey)).json();
      expect(whileOpen.events).toEqual([]);
      expect(whileOpen.meta.next_since).toBeNull();

      release();
      await held;
      await waitUntilVisible(company.integrationKey, 2);
      const after = (await poll(t.app, company.integrationKey)).json();
      expect(after.events.map((e: Polled) => e.idempotency_key)).toEqual(['held', 'later']);
      expect(after.events[0].received_at).toBe(heldStamp);
    });

    it('is not held back by an unrelated transaction that stays open', async () => {
      const company = await makeCompany(t.container);
      const { fired: gate, fire: release } = signal();
      const { fired: isOpen, fire: opened } = signal();
      const unrelated = t.container.db.orm.transaction(async (tx) => {
        await tx.execute(sql`UPDATE companies SET settings = settings WHERE id = ${company.id}`);
        await tx.execute(sql`SELECT pg_current_xact_id()`);
        opened();
        await gate;
      });
      await isOpen;
      try {
        const res = await sendEvent(t.app, company.integrationKey, stockEvent(1));
        expect(res.statusCode).toBe(200);
        const polled = (await poll(t.app, company.integrationKey)).json();
        expect(polled.events.map((e: Polled) => e.id)).toEqual([res.headers['x-event-id']]);
      } finally {
        release();
        await unrelated;
      }
    });

    it('lets a poller loop with next_since see every event exactly once while writers keep committing', async () => {
      const company = await makeCompany(t.container);
      const product = await makeProduct(t.container, company.id);
      const writers = 6;
      const perWriter = 25;
      const sent = new Set<string>();
      let writing = true;
      const write = async (w: number) => {
        for (let n = 0; n < perWriter; n++) {
          const key = `w${w}-${n}`;
          // Sales arriving together are stored in shared transactions (several events per stamp), products one by one.
          const id = w * 1000 + n + 1;
          const envelope = n % 2 === 0 ? saleCreated(id, product.id) : stockEvent(id);
          const res = await sendEvent(t.app, company.integrationKey, envelope, { idempotencyKey: key });
          expect(res.statusCode).toBe(200);
          sent.add(key);
          if (Math.random() < 0.3) await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
        }
      };
      const seen: string[] = [];
      const times: string[] = [];
      const poller = async () => {
        let since: string | null = null;
        const deadline = Date.now() + 20_000;
        while (Date.now() < deadline) {
          const res = await poll(t.app, company.integrationKey, { limit: 7, ...(since ? { since } : {}) });
          const body = res.json() as { events: Polled[]; meta: { has_more: boolean; next_since: string | null } };
          for (const e of body.events) {
            seen.push(e.idempotency_key);
            times.push(e.received_at);
          }
          since = body.meta.next_since;
          if (!writing && !body.meta.has_more && seen.length >= writers * perWriter) return;
          if (!body.meta.has_more) await new Promise((resolve) => setTimeout(resolve, 2));
        }
      };
      const polling = poller();
      await Promise.all(Array.from({ length: writers }, (_, w) => write(w)));
      writing = false;
      await polling;
      expect(seen).toHaveLength(writers * perWriter);
      expect(new Set(seen)).toEqual(sent);
      expect([...times].sort()).toEqual(times);
    });
  });
});
