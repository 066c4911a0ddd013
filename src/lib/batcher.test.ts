import { describe, expect, it } from 'vitest';
import { createBatcher, createGate, perGroup } from './batcher.ts';

/** A batch runner whose batches finish only when the test says so. */
function controlledRunner() {
  const batches: { items: string[]; finish(): void; fail(err: Error): void }[] = [];
  const run = (items: string[]) =>
    new Promise<string[]>((resolve, reject) => {
      batches.push({ items, finish: () => resolve(items.map((i) => i.toUpperCase())), fail: reject });
    });
  return { batches, run };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('batcher', () => {
  it('runs an item at once, alone, when nothing is in flight', async () => {
    const { batches, run } = controlledRunner();
    const batcher = createBatcher({ run, maxBatch: 10, maxInFlight: 1 });
    const a = batcher.submit('a');
    expect(batches.map((b) => b.items)).toEqual([['a']]);
    batches[0]!.finish();
    expect(await a).toBe('A');
  });

  it('gathers what arrives while the slots are busy into the next batch, oldest first, each getting its own result', async () => {
    const { batches, run } = controlledRunner();
    const batcher = createBatcher({ run, maxBatch: 10, maxInFlight: 2 });
    const results = ['a', 'b', 'c', 'd', 'e'].map((item) => batcher.submit(item));
    expect(batches.map((b) => b.items)).toEqual([['a'], ['b']]);
    batches[1]!.finish();
    await settle();
    expect(batches.map((b) => b.items)).toEqual([['a'], ['b'], ['c', 'd', 'e']]);
    batches[0]!.finish();
    batches[2]!.finish();
    expect(await Promise.all(results)).toEqual(['A', 'B', 'C', 'D', 'E']);
  });

  it('keeps a batch within maxBatch items and maxWeight, but always takes at least one item', async () => {
    const { batches, run } = controlledRunner();
    const batcher = createBatcher({ run, maxBatch: 3, maxInFlight: 1, weigh: (item: string) => item.length, maxWeight: 4 });
    const results = ['first', 'a', 'b', 'c', 'd', 'toolong', 'ee', 'ff', 'g'].map((item) => batcher.submit(item));
    const sizes: string[][] = [];
    while (sizes.flat().length < results.length) {
      await settle();
      const batch = batches[sizes.length]!;
      sizes.push(batch.items);
      batch.finish();
    }
    expect(sizes).toEqual([['first'], ['a', 'b', 'c'], ['d'], ['toolong'], ['ee', 'ff'], ['g']]);
    expect(await Promise.all(results)).toEqual(['FIRST', 'A', 'B', 'C', 'D', 'TOOLONG', 'EE', 'FF', 'G']);
  });

  it('fails only the items of a batch that failed, and goes on with the next', async () => {
    const { batches, run } = controlledRunner();
    const batcher = createBatcher({ run, maxBatch: 10, maxInFlight: 1 });
    const a = batcher.submit('a');
    const b = batcher.submit('b');
    const c = batcher.submit('c');
    batches[0]!.fail(new Error('database went away'));
    await expect(a).rejects.toThrow('database went away');
    await settle();
    expect(batches[1]!.items).toEqual(['b', 'c']);
    batches[1]!.finish();
    expect(await Promise.all([b, c])).toEqual(['B', 'C']);
  });

  it('refuses a runner that answers a different number of results', async () => {
    const batcher = createBatcher({ run: async () => ['only one'], maxBatch: 10, maxInFlight: 1 });
    const first = batcher.submit('x');
    const pair = [batcher.submit('y'), batcher.submit('z')];
    expect(await first).toBe('only one');
    for (const p of pair) await expect(p).rejects.toThrow('a batch of 2 answered 1 results');
  });

  it('batchers sharing a gate keep to its slots together, and a freed slot goes to the latest-made one waiting', async () => {
    let idle = 0;
    const gate = createGate(1, () => idle++);
    const first = controlledRunner();
    const second = controlledRunner();
    const read = createBatcher({ run: first.run, maxBatch: 10, maxInFlight: 2, gate });
    const write = createBatcher({ run: second.run, maxBatch: 10, maxInFlight: 2, gate });
    const a = read.submit('a');
    const b = read.submit('b');
    const x = write.submit('x');
    // One slot for both: only 'a' runs; 'b' and 'x' wait although each batcher has room for two.
    expect(first.batches.map((batch) => batch.items)).toEqual([['a']]);
    expect(second.batches).toEqual([]);
    const y = write.submit('y');
    first.batches[0]!.finish();
    await settle();
    // The freed slot goes to the later step, with both of its waiting items; the read still waits.
    expect(second.batches.map((batch) => batch.items)).toEqual([['x', 'y']]);
    expect(first.batches).toHaveLength(1);
    second.batches[0]!.finish();
    await settle();
    expect(first.batches.map((batch) => batch.items)).toEqual([['a'], ['b']]);
    // Idle only when nothing runs or waits: not after 'a' nor after 'x, y', only after 'b'.
    expect(idle).toBe(0);
    first.batches[1]!.finish();
    expect(await Promise.all([a, b, x, y])).toEqual(['A', 'B', 'X', 'Y']);
    await settle();
    expect(gate.inFlight).toBe(0);
    expect(idle).toBe(1);
  });
  it('needs at least one item per batch and one batch in flight', () => {
    expect(() => createBatcher({ run: async () => [], maxBatch: 0, maxInFlight: 1 })).toThrow('at least 1');
    expect(() => createBatcher({ run: async () => [], maxBatch: 1, maxInFlight: 0 })).toThrow('at least 1');
  });
});

describe('perGroup', () => {
  it('runs each group once, in the order groups first appear, and answers every item in its place', async () => {
    const calls: string[][] = [];
    const run = perGroup(
      (item: string) => item[0]!,
      async (items: string[]) => {
        calls.push(items);
        return items.map((i) => i.toUpperCase());
      },
    );
    expect(await run(['a1', 'b1', 'a2', 'c1', 'b2'])).toEqual(['A1', 'B1', 'A2', 'C1', 'B2']);
    expect(calls).toEqual([['a1', 'a2'], ['b1', 'b2'], ['c1']]);
  });
});
