/**
 * Natural batching: work submitted while `maxInFlight` batches are already running waits, and
 * the next free slot takes everything waiting (up to `maxBatch` items and `maxWeight`, though
 * never fewer than one item) as one batch, oldest first. Nothing is
 * ever held back on a timer: on a quiet system every item runs at once, alone; under load the
 * items that pile up during one round trip share the next one.
 */
export interface BatcherOptions<T, R> {
  /** Runs one batch; answers one result per item, in the same order. */
  run(items: T[]): Promise<R[]>;
  maxBatch: number;
  maxInFlight: number;
  /** With `maxWeight`: how much an item counts towards it (such as its size in bytes). */
  weigh?: (item: T) => number;
  maxWeight?: number;
  /** Slots shared with other batchers (maxInFlight still bounds this one's own). */
  gate?: Gate;
}

/**
 * In-flight slots shared by several batchers (the steps of one pipeline): a freed slot goes to the
 * latest-made batcher with work waiting, so that later steps finish what earlier ones started.
 */
export interface Gate {
  max: number;
  inFlight: number;
  pumps: (() => void)[];
  /** Called when a batch ends and nothing is left running or waiting in the gate's batchers. */
  onIdle?: () => void;
}

export function createGate(max: number, onIdle?: () => void): Gate {
  return { max, inFlight: 0, pumps: [], ...(onIdle ? { onIdle } : {}) };
}

export interface Batcher<T, R> {
  submit(item: T): Promise<R>;
}

interface Waiting<T, R> {
  item: T;
  resolve(result: R): void;
  reject(err: unknown): void;
}

export function createBatcher<T, R>({
  run,
  maxBatch,
  maxInFlight,
  weigh = () => 0,
  maxWeight = Number.POSITIVE_INFINITY,
  gate,
}: BatcherOptions<T, R>): Batcher<T, R> {
  if (!(maxBatch >= 1 && maxInFlight >= 1)) throw new Error('a batcher needs maxBatch and maxInFlight of at least 1');
  const queue: Waiting<T, R>[] = [];
  let inFlight = 0;

  function pump() {
    while (inFlight < maxInFlight && queue.length > 0 && (!gate || gate.inFlight < gate.max)) {
      const batch = queue.splice(0, batchLength());
      inFlight++;
      if (gate) gate.inFlight++;
      void runBatch(batch).finally(() => {
        inFlight--;
        if (gate) {
          gate.inFlight--;
          for (let k = gate.pumps.length - 1; k >= 0; k--) gate.pumps[k]!();
          // A batcher with work waiting has just taken the free slot: none running means none waiting.
          if (gate.inFlight === 0) gate.onIdle?.();
        } else pump();
      });
    }
  }
  gate?.pumps.push(pump);

  /** How many of the oldest waiting items make the next batch. */
  function batchLength() {
    let weight = weigh(queue[0]!.item);
    let length = 1;
    while (length < Math.min(maxBatch, queue.length)) {
      weight += weigh(queue[length]!.item);
      if (weight > maxWeight) break;
      length++;
    }
    return length;
  }

  async function runBatch(batch: Waiting<T, R>[]) {
    try {
      const results = await run(batch.map((w) => w.item));
      if (results.length !== batch.length) throw new Error(`a batch of ${batch.length} answered ${results.length} results`);
      for (const [n, w] of batch.entries()) w.resolve(results[n]!);
    } catch (err) {
      for (const w of batch) w.reject(err);
    }
  }

  return {
    submit(item) {
      return new Promise<R>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        pump();
      });
    },
  };
}

/**
 * A batch's `run` that runs `runGroup` once per group of its items (those with the same key, such
 * as one company's), in the order the groups first appear, and answers every item in its place.
 */
export function perGroup<T, R>(keyOf: (item: T) => string | number, runGroup: (items: T[]) => Promise<R[]>) {
  return async (items: T[]): Promise<R[]> => {
    const groups = new Map<string | number, number[]>();
    for (const [n, item] of items.entries()) {
      const key = keyOf(item);
      const group = groups.get(key);
      if (group) group.push(n);
      else groups.set(key, [n]);
    }
    const results: R[] = [];
    for (const indexes of groups.values()) {
      const answers = await runGroup(indexes.map((n) => items[n]!));
      for (const [k, n] of indexes.entries()) results[n] = answers[k]!;
    }
    return results;
  };
}
