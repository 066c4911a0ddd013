import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobQueue, type JobQueue } from '../../src/jobs/queue.ts';
import { createLogger } from '../../src/logger.ts';
import { openTestDatabase, type TestDatabase } from '../setup/db.ts';

describe('job queue (pg-boss on this backend)', () => {
  let database: TestDatabase;
  let queue: JobQueue;
  const seen: { n: number }[] = [];
  let failuresLeft = 1;

  beforeAll(async () => {
    database = await openTestDatabase();
    queue = createJobQueue(database.db, createLogger('silent'));
    queue.define<{ n: number }>({
      name: 'test-echo',
      pollingIntervalSeconds: 0.5,
      handler: async (data) => void seen.push(data),
    });
    queue.define<{ n: number }>({
      name: 'test-flaky',
      pollingIntervalSeconds: 0.5,
      retryDelaySeconds: 1,
      retryBackoff: false,
      handler: async (data) => {
        if (failuresLeft-- > 0) throw new Error('first attempt fails');
        seen.push(data);
      },
    });
    await queue.start({ work: true });
  });
  afterAll(async () => {
    await queue.stop(5000);
    await database.dispose();
  });

  async function waitFor(predicate: () => boolean, timeoutMs = 15_000) {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error('timed out waiting for the job');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('runs a sent job', async () => {
    await queue.send('test-echo', { n: 1 });
    await waitFor(() => seen.some((d) => d.n === 1));
  });

  it('retries a failed job until it succeeds', async () => {
    await queue.send('test-flaky', { n: 2 });
    await waitFor(() => seen.some((d) => d.n === 2));
    expect(failuresLeft).toBeLessThan(0);
  });

  it('refuses unknown job names and double definitions', async () => {
    await expect(queue.send('nope', {})).rejects.toThrow('unknown job nope');
    expect(() => queue.define({ name: 'test-echo', handler: async () => {} })).toThrow('defined twice');
  });

  it('queues one job per singletonKey and slot, from any number of queue instances (workers starting at once)', async () => {
    const other = createJobQueue(database.db, createLogger('silent'));
    other.define({ name: 'test-once', handler: async () => {} });
    queue.define({ name: 'test-once', handler: async () => {} });
    await other.start({ work: false });
    const options = { singletonKey: 'startup', singletonSeconds: 300, startAfterSeconds: 600 };
    const ids = await Promise.all([queue, other, queue, other].map((q) => q.send('test-once', {}, options)));
    expect(ids.filter((id) => id !== null)).toHaveLength(1);
    expect((await other.depths())['test-once']).toBe(1);
    await other.check();
    await other.stop(1000);
    await expect(other.check()).rejects.toThrow('not running');
  });
});
