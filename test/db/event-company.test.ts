import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../setup/db.ts';

/**
 * The event logs check their company per statement instead of by a foreign key per row
 * (0287_event_company_check.sql): an event of a company that does not exist is refused as the key
 * refused it (23503, nothing written), and deleting a company deletes its events as the key did.
 */
describe('the company of outbox and inbound events', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(() => database.dispose());

  const query = <T = Record<string, unknown>>(text: string, params?: unknown[]) => database.db.query<T>(text, params);

  async function company(name: string): Promise<number> {
    const [row] = await query<{ id: number }>(`INSERT INTO companies (name) VALUES ($1) RETURNING id`, [name]);
    return row!.id;
  }

  function outbox(rows: { id: string; companyId: number }[]) {
    return query(
      `INSERT INTO outbox_events (id, company_id, event, payload)
        SELECT r.id, r.company_id, 'sales.paid', '{"event":"sales.paid","data":{"sale":{"id":1}}}'::jsonb
        FROM unnest($1::uuid[], $2::int[]) AS r(id, company_id)`,
      [rows.map((r) => r.id), rows.map((r) => r.companyId)],
    );
  }

  function inbound(id: string, companyId: number) {
    return query(
      `INSERT INTO inbound_events (id, company_id, event, idempotency_key, payload, body_sha256, signature_valid, received_at, tx_id)
        VALUES ($1, $2, 'sales.paid', $3, '{"event":"sales.paid","data":{"sale":{"id":1}}}', repeat('0', 64), true, now(), pg_current_xact_id())`,
      [id, companyId, id],
    );
  }

  const count = async (table: string, ids: string[]) =>
    Number((await query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE id = ANY($1::uuid[])`, [ids]))[0]!.n);

  it('refuses a statement with an event of a company that does not exist, writing none of its events', async () => {
    const known = await company('Conocida');
    const ids = [randomUUID(), randomUUID()];
    await expect(
      outbox([
        { id: ids[0]!, companyId: known },
        { id: ids[1]!, companyId: 987_654 },
      ]),
    ).rejects.toMatchObject({ code: '23503' });
    expect(await count('outbox_events', ids)).toBe(0);

    const inboundId = randomUUID();
    await expect(inbound(inboundId, 987_654)).rejects.toMatchObject({ code: '23503' });
    expect(await count('inbound_events', [inboundId])).toBe(0);
  });

  it('writes the events of companies that exist', async () => {
    const known = await company('Existente');
    const ids = [randomUUID(), randomUUID()];
    await outbox(ids.map((id) => ({ id, companyId: known })));
    const inboundId = randomUUID();
    await inbound(inboundId, known);
    expect(await count('outbox_events', ids)).toBe(2);
    expect(await count('inbound_events', [inboundId])).toBe(1);
  });

  it('refuses moving an event to a company that does not exist; marking it dispatched is not checked', async () => {
    const known = await company('Movida');
    const id = randomUUID();
    await outbox([{ id, companyId: known }]);
    await expect(query(`UPDATE outbox_events SET company_id = 987654 WHERE id = $1`, [id])).rejects.toMatchObject({
      code: '23503',
    });
    await query(`UPDATE outbox_events SET dispatched_at = now() WHERE id = $1`, [id]);
    const [row] = await query<{ company_id: number; dispatched: boolean }>(
      `SELECT company_id, dispatched_at IS NOT NULL AS dispatched FROM outbox_events WHERE id = $1`,
      [id],
    );
    expect(row).toEqual({ company_id: known, dispatched: true });

    const inboundId = randomUUID();
    await inbound(inboundId, known);
    await expect(query(`UPDATE inbound_events SET company_id = 987654 WHERE id = $1`, [inboundId])).rejects.toMatchObject({
      code: '23503',
    });
  });

  it('deletes a deleted company’s events with it, and no other company’s', async () => {
    const gone = await company('Se va');
    const stays = await company('Se queda');
    const goneIds = [randomUUID(), randomUUID()];
    const staysIds = [randomUUID()];
    await outbox([...goneIds.map((id) => ({ id, companyId: gone })), { id: staysIds[0]!, companyId: stays }]);
    const goneInbound = randomUUID();
    const staysInbound = randomUUID();
    await inbound(goneInbound, gone);
    await inbound(staysInbound, stays);

    await query(`DELETE FROM companies WHERE id = $1`, [gone]);

    expect(await count('outbox_events', goneIds)).toBe(0);
    expect(await count('inbound_events', [goneInbound])).toBe(0);
    expect(await count('outbox_events', staysIds)).toBe(1);
    expect(await count('inbound_events', [staysInbound])).toBe(1);
  });
});
