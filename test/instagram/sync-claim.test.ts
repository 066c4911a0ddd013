import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildInstagramApp, type InstagramTestApp, syncNow } from './helpers.ts';

/**
 * A sync asked while another run holds the channel's claim stores nothing and says so (busy); the
 * tests' syncNow waits for that run and claims again. This is the race that made the inbox browser
 * tests flaky: a page's list request had scheduled a background run that read the Graph before the
 * test added its thread, and `sync()` then `idle()` left the store empty.
 */
describe('a sync while a background run holds the claim', () => {
  let t: InstagramTestApp;
  beforeAll(async () => {
    t = await buildInstagramApp();
    expect((await t.connect()).status).toBe(200);
  });
  afterAll(async () => t?.close());

  /** A page's list request: its background run has read the (still empty) Graph list and is receiving it slowly. */
  async function backgroundRunHoldingTheClaim() {
    t.fake.knobs.stalls.push({ match: /conversations$/, bodyStallMs: 300 });
    const before = t.fake.requests.length;
    t.container.instagram.service.scheduleSync();
    await vi.waitFor(() => expect(t.fake.requests.slice(before).some((r) => r.path.endsWith('/conversations'))).toBe(true));
    t.fake.knobs.stalls.length = 0;
  }

  it('answers busy and stores nothing: idle() waits for a run that read the Graph too early', async () => {
    const service = t.container.instagram.service;
    await backgroundRunHoldingTheClaim();
    t.fake.addConversation({ participantId: '7100000000000011', username: 'temprano', text: 'hola' });
    expect(await service.sync({ scheduled: false })).toEqual({ ran: false, reason: 'busy' });
    await service.idle();
    expect(await service.storedConversations()).toEqual([]);
  });

  it('syncNow waits for that run and syncs again, so the thread is stored', async () => {
    const service = t.container.instagram.service;
    await service.idle();
    await backgroundRunHoldingTheClaim();
    t.fake.addConversation({ participantId: '7100000000000012', username: 'a_tiempo', text: 'hola' });
    expect(await syncNow(service)).toMatchObject({ ran: true });
    expect((await service.storedConversations()).map((c) => c.participant_username)).toContain('a_tiempo');
  });
});
