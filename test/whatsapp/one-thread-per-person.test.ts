import { afterEach, describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../src/db/migrate.ts';
import { openEmpty } from '../setup/db.ts';

/**
 * An Argentine mobile is one person written 549… (as Meta sends it) or 54… (without the mobile 9):
 * one thread, kept by the database, and threads split before that are merged by migration 0310.
 */
const MERGE = '0310_whatsapp_one_thread_per_person.sql';
const NUMBER = '106540352242922';

describe('one WhatsApp thread per person', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const fn of cleanups.splice(0)) await fn();
  });

  it('the migration merges a person split in two threads (549… and 54…) into the older one, with everything it had', async () => {
    const empty = await openEmpty();
    cleanups.push(empty.dispose);
    const db = await empty.open();
    const all = readMigrations();
    expect(all.map((f) => f.name)).toContain(MERGE);
    await migrate(
      db,
      all.filter((f) => f.name < MERGE),
    );
    const older = '00000000-0000-4000-8000-000000000001';
    const newer = '00000000-0000-4000-8000-000000000002';
    const other = '00000000-0000-4000-8000-000000000003';
    const t = (minute: number) => new Date(Date.UTC(2026, 10, 1, 12, minute));
    const conversation = (id: string, waId: string, at: Date, extra: { text: string; dir: string; inbound: Date | null }) =>
      db.query(
        `INSERT INTO whatsapp_conversations (id, phone_number_id, wa_id, profile_name, last_message_text, last_message_direction,
           last_message_at, last_inbound_at, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)`,
        [id, NUMBER, waId, `Marta ${waId}`, extra.text, extra.dir, at, extra.inbound, at],
      );
    const message = (wamid: string, conversationId: string, direction: string, text: string, at: Date) =>
      db.query(
        `INSERT INTO whatsapp_messages (wamid, conversation_id, direction, type, text, sent_at, source, stored_at)
         VALUES ($1, $2, $3, 'text', $4, $5, 'webhook', $5)`,
        [wamid, conversationId, direction, text, at],
      );
    // Marta wrote first as 549…; later a thread with her number without the 9 got our template.
    await conversation(older, '5491155550001', t(0), { text: 'Hola', dir: 'inbound', inbound: t(0) });
    await message('wamid.a', older, 'inbound', 'Hola', t(0));
    await conversation(newer, '541155550001', t(5), { text: 'Te escribimos', dir: 'outbound', inbound: null });
    await message('wamid.b', newer, 'outbound', 'Te escribimos', t(5));
    await db.query(`UPDATE whatsapp_conversations SET send_to = '541155550001' WHERE id = $1`, [newer]);
    await db.query(
      `INSERT INTO sales_agent_turns (inbound_mid, conversation_id, account_id, sender_id, claimed_by, status, received_at,
         claimed_at, updated_at, channel) VALUES ('wamid.a', $1, $2, '5491155550001', 'webhook', 'cancelled', $3, $3, $3, 'whatsapp')`,
      [newer, NUMBER, t(6)],
    );
    await db.query(
      `INSERT INTO sales_agent_handoffs (conversation_id, inbound_mid, reason, created_at, channel)
       VALUES ($1, 'wamid.a', 'human_replied', $2, 'whatsapp')`,
      [newer, t(6)],
    );
    // Another person (another number): untouched.
    await conversation(other, '5491166660002', t(1), { text: 'Otra', dir: 'inbound', inbound: t(1) });

    expect(await migrate(db)).toContain(MERGE);

    const threads = await db.query<Record<string, unknown>>(
      `SELECT id, wa_id, profile_name, last_message_text, last_message_direction, last_message_at, last_inbound_at, send_to
       FROM whatsapp_conversations ORDER BY created_at`,
    );
    expect(threads.map((r) => r['id'])).toEqual([older, other]);
    expect(threads[0]).toMatchObject({
      wa_id: '5491155550001',
      profile_name: 'Marta 541155550001',
      last_message_text: 'Te escribimos',
      last_message_direction: 'outbound',
      send_to: '541155550001',
    });
    expect(new Date(threads[0]!['last_message_at'] as string)).toEqual(t(5));
    expect(new Date(threads[0]!['last_inbound_at'] as string)).toEqual(t(0));
    expect(await db.query('SELECT wamid, conversation_id FROM whatsapp_messages ORDER BY wamid')).toEqual([
      { wamid: 'wamid.a', conversation_id: older },
      { wamid: 'wamid.b', conversation_id: older },
    ]);
    expect(await db.query('SELECT conversation_id FROM sales_agent_turns')).toEqual([{ conversation_id: older }]);
    expect(await db.query('SELECT conversation_id FROM sales_agent_handoffs')).toEqual([{ conversation_id: older }]);

    // From now on the database itself refuses a second thread for the other spelling.
    await expect(
      db.query(
        `INSERT INTO whatsapp_conversations (id, phone_number_id, wa_id, created_at, updated_at)
         VALUES ('00000000-0000-4000-8000-000000000004', $1, '541155550001', now(), now())`,
        [NUMBER],
      ),
    ).rejects.toThrow(/whatsapp_conversations_person|duplicate key/);
  });
});
