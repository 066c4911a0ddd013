import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CONVERSATION_READS_PER_SECOND,
  createGraphClient,
  GRAPH_TIMEOUT_MS,
  GraphError,
  parseGraphJson,
  parseGraphTime,
} from '../../src/modules/instagram/graph.client.ts';
import { type FakeInstagram, startFakeInstagram } from '../fakes/instagram.fake.ts';

describe('instagram Graph client against the fake', () => {
  let fake: FakeInstagram;
  let token = '';
  const account = () => fake.account.userId;
  const client = (options: { timeoutMs?: number; readIntervalMs?: number } = {}) =>
    createGraphClient({ apiUrl: fake.url, graphUrl: fake.url, readIntervalMs: 0, ...options });

  beforeAll(async () => {
    fake = await startFakeInstagram();
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.reset();
    token = fake.issueToken();
  });

  it('aborts after 8 s by default (rule 2), and the limit is injectable', () => {
    expect(GRAPH_TIMEOUT_MS).toBe(8000);
    expect(createGraphClient({ apiUrl: fake.url, graphUrl: fake.url }).timeoutMs).toBe(8000);
    expect(client({ timeoutMs: 150 }).timeoutMs).toBe(150);
  });

  it('aborts a server that sends the headers and then stalls the body, with a typed timeout', async () => {
    fake.knobs.stalls.push({ match: /^GET \/v\d+\.\d+\/me$/, bodyStallMs: 5_000 });
    const started = Date.now();
    const err = await client({ timeoutMs: 300 })
      .me(token)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GraphError);
    expect((err as GraphError).kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('aborts a pagination follow-up that stalls too', async () => {
    for (let i = 0; i < 3; i++) fake.addConversation({ participantId: `10${i}`, username: `c${i}` });
    fake.knobs.stalls.push({ match: /conversations$/, headerDelayMs: 0, bodyStallMs: 0 });
    let calls = 0;
    const counting: typeof fetch = async (input, init) => {
      calls += 1;
      if (calls === 2) fake.knobs.stalls[0]!.bodyStallMs = 5_000;
      return fetch(input, init);
    };
    const c = createGraphClient({ apiUrl: fake.url, graphUrl: fake.url, readIntervalMs: 0, timeoutMs: 300, fetchImpl: counting });
    const err = await c.listConversations(account(), token, { pageSize: 1 }).catch((e: unknown) => e);
    expect((err as GraphError).kind).toBe('timeout');
  });

  it('sends the token in the Authorization header only, never in a URL', async () => {
    await client().me(token);
    fake.addConversation({ participantId: '42' });
    await client().listConversations(account(), token);
    for (const r of fake.requests) {
      expect(r.authorization).toBe(`Bearer ${token}`);
      expect(r.search).not.toContain('access_token');
      expect(r.search).not.toContain(token);
    }
  });

  it('follows pages by cursor (an empty page with next, then the last page without next), never the next URL', async () => {
    for (let i = 0; i < 5; i++) fake.addConversation({ participantId: `20${i}`, username: i === 2 ? undefined : `c${i}` });
    fake.knobs.emptyFirstPage = true;
    const list = await client().listConversations(account(), token, { pageSize: 2 });
    expect(list).toHaveLength(5);
    expect(fake.requests.filter((r) => r.path.endsWith('/conversations'))).toHaveLength(4);
    // The other participant, never our own account; a missing username is null.
    expect(list.map((c) => c.participantId).sort()).toEqual(['200', '201', '202', '203', '204']);
    expect(list.find((c) => c.participantId === '202')?.participantUsername).toBeNull();
    expect(list[0]?.last?.text).toBe('Hola, ¿precio?');
  });

  it('answers an empty list', async () => {
    expect(await client().listConversations(account(), token)).toEqual([]);
  });

  it('keeps conversation reads of one account to at most 2 per second', async () => {
    expect(CONVERSATION_READS_PER_SECOND).toBe(2);
    const c = createGraphClient({ apiUrl: fake.url, graphUrl: fake.url });
    await Promise.all(Array.from({ length: 5 }, () => c.findConversation(account(), token, '1')));
    const times = fake.requests.map((r) => r.at).sort((a, b) => a - b);
    // The client spaces its sends a second apart; arrival at the fake can shift by scheduling jitter on
    // a loaded machine (it failed once at load average 8), so allow 50 ms of it.
    for (let i = 2; i < times.length; i++) expect(times[i]! - times[i - 2]!).toBeGreaterThanOrEqual(950);
  });

  it.each([
    [
      400,
      { error: { message: 'Session has expired', type: 'OAuthException', code: 190, error_subcode: 463 } },
      'reconnect_required',
    ],
    [400, { error: { message: 'Application request limit reached', code: 4 } }, 'rate_limited'],
    [400, { error: { message: 'User request limit reached', code: 17 } }, 'rate_limited'],
    [400, { error: { message: 'limit', code: 32 } }, 'rate_limited'],
    [400, { error: { message: 'Calls to this api have exceeded the rate limit.', code: 613 } }, 'rate_limited'],
    [429, { error: { message: 'Too many', code: 1 } }, 'rate_limited'],
    [
      403,
      { error: { message: 'This message is sent outside of allowed window.', code: 10, error_subcode: 2534022 } },
      'window_closed',
    ],
    [400, { error: { message: 'The requested user cannot be found.', code: 100 } }, 'not_found'],
  ] as const)('maps HTTP %i %j to %s', async (status, body, kind) => {
    fake.addConversation({ participantId: '42' });
    fake.knobs.failures.push({ match: /./, status, body });
    const err = await client()
      .send(account(), token, '42', 'hola')
      .catch((e: unknown) => e);
    expect((err as GraphError).kind).toBe(kind);
    expect((err as Error).message).not.toContain(token);
  });

  it('refuses further reads locally for a while after a rate-limit answer', async () => {
    const c = client();
    fake.knobs.failures.push({ match: /conversations/, status: 400, body: { error: { message: 'limit', code: 613 } } });
    await expect(c.findConversation(account(), token, '1')).rejects.toMatchObject({ kind: 'rate_limited' });
    const before = fake.requests.length;
    await expect(c.findConversation(account(), token, '1')).rejects.toMatchObject({ kind: 'rate_limited' });
    expect(fake.requests.length).toBe(before);
  });

  it('reads a thread with the attachment fields id, mime_type, name, size', async () => {
    const bytes = Buffer.from('audio');
    const conversation = fake.addConversation({
      participantId: '42',
      text: '',
      attachments: [{ id: '555', mime_type: 'audio/mp4', name: 'clip.mp4', size: 5, bytes }],
    });
    const messages = await client().threadMessages(account(), token, conversation.id);
    const fields = fake.requests.at(-1)!.query.get('fields');
    expect(fields).toContain('attachments{id,mime_type,name,size}');
    expect(messages[0]?.attachments).toEqual([{ id: '555', mimeType: 'audio/mp4', name: 'clip.mp4', size: 5 }]);
  });
});

describe('Graph parsing', () => {
  it('keeps every digit of ids beyond 2^53 and leaves strings alone', () => {
    const parsed = parseGraphJson(
      '{"user_id":17841400774391299,"n":12,"s":"17841400774391299 x","a":[9007199254740993]}',
    ) as Record<string, unknown>;
    expect(parsed['user_id']).toBe('17841400774391299');
    expect(parsed['n']).toBe(12);
    expect(parsed['s']).toBe('17841400774391299 x');
    expect(parsed['a']).toEqual(['9007199254740993']);
    expect(parseGraphJson('{"q":"say \\"12345678901234567\\" ok"}')).toEqual({ q: 'say "12345678901234567" ok' });
  });

  it('reads ISO times with +0000, unix seconds and milliseconds', () => {
    const expected = new Date('2022-07-12T19:11:07Z').getTime();
    expect(parseGraphTime('2022-07-12T19:11:07+0000')?.getTime()).toBe(expected);
    expect(parseGraphTime(expected / 1000)?.getTime()).toBe(expected);
    expect(parseGraphTime(expected)?.getTime()).toBe(expected);
    expect(parseGraphTime(String(expected))?.getTime()).toBe(expected);
    expect(parseGraphTime('nope')).toBeNull();
  });
});
