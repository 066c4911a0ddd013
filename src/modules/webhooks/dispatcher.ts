import { randomUUID } from 'node:crypto';
import type { Database } from '../../db/client.ts';
import type { Clock } from '../../lib/time.ts';
import type { Logger } from '../../logger.ts';
import { type ClaimedDelivery, claimDeliveries, relayOutbox } from './deliveries.repo.ts';
import type { DeliveryRunner } from './delivery-runner.ts';
import { DELIVERY_TIMEOUT_MS } from './retry-policy.ts';
import { listenForWork } from './work-listener.ts';

export interface DispatcherOptions {
  /** Endpoint lanes (sequential sends to one endpoint) running at once in this process. */
  concurrency: number;
  /** Fallback poll for due retries and missed notifications. */
  pollIntervalMs?: number;
  relayBatchSize?: number;
  /** Upper bound of one attempt (the sender's timeout); sizes the leases. */
  attemptTimeoutMs?: number;
}

export interface DispatcherDeps {
  db: Database;
  clock: Clock;
  runner: DeliveryRunner;
  logger: Logger;
  options: DispatcherOptions;
}

export type Dispatcher = ReturnType<typeof createDispatcher>;

/** Margin of a lease beyond the attempts it covers (settling, scheduling). */
const LEASE_MARGIN_MS = 30_000;

/**
 * The delivery worker of one process. Woken by commits (LISTEN) and a short poll, it relays new
 * outbox events into deliveries, then claims due deliveries and sends them: deliveries of one
 * endpoint claimed together go one after the other in event order (so a change's events usually
 * arrive in order), different endpoints in parallel, at most `concurrency` lanes at once.
 */
export function createDispatcher({ db, clock, runner, logger, options }: DispatcherDeps) {
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const relayBatchSize = options.relayBatchSize ?? 500;
  const perAttemptMs = (options.attemptTimeoutMs ?? DELIVERY_TIMEOUT_MS) + 2000;
  const lanes = new Set<Promise<void>>();
  let pumping: Promise<void> | null = null;
  let again = false;
  let running = false;
  let poll: NodeJS.Timeout | null = null;
  let unlisten: (() => Promise<void>) | null = null;

  async function relayAll() {
    for (;;) {
      // One statement: atomic without an explicit transaction, and one round trip.
      const { events } = await relayOutbox(db.orm, clock.now(), relayBatchSize);
      if (events < relayBatchSize) return;
    }
  }

  function startLane(deliveries: ClaimedDelivery[], token: string) {
    const lane = (async () => {
      for (const delivery of deliveries) {
        try {
          const report = await runner.run(delivery, token);
          // The endpoint is gone or was disabled: its other claimed deliveries were failed with it.
          if (report.disabled) return;
        } catch (err) {
          // The lease expires and the delivery is tried again; nothing is lost.
          logger.error({ err, delivery: delivery.id }, 'webhook delivery attempt could not be settled');
        }
      }
    })();
    lanes.add(lane);
    void lane.finally(() => {
      lanes.delete(lane);
      if (running) void pump();
    });
  }

  async function pumpOnce() {
    do {
      again = false;
      await relayAll();
      while (lanes.size < options.concurrency) {
        const token = randomUUID();
        const claimed = await claimDeliveries(db.orm, {
          now: clock.now(),
          limit: options.concurrency - lanes.size,
          token,
          leaseMs: perAttemptMs + LEASE_MARGIN_MS,
          perAttemptMs,
        });
        if (claimed.length === 0) break;
        for (const group of groupByEndpoint(claimed)) startLane(group, token);
      }
    } while (again);
  }

  /** Relays and claims until nothing more is due or every lane is busy; coalesces concurrent calls. */
  function pump(): Promise<void> {
    if (pumping) {
      again = true;
      return pumping;
    }
    pumping = pumpOnce()
      .catch((err) => logger.error({ err }, 'webhook dispatcher pass failed'))
      .finally(() => {
        pumping = null;
      });
    return pumping;
  }

  return {
    async start() {
      if (running) return;
      running = true;
      unlisten = await listenForWork(db, () => void pump(), logger);
      poll = setInterval(() => void pump(), pollIntervalMs);
      poll.unref();
      void pump();
    },
    /** Stops taking work and waits (up to `timeoutMs`) for attempts in flight; unfinished ones are retried after their lease. */
    async stop(timeoutMs = 15_000) {
      if (!running) return;
      running = false;
      if (poll) clearInterval(poll);
      await unlisten?.();
      await pumping;
      await Promise.race([Promise.allSettled([...lanes]), new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
    },
    /** One full pass for tests and tools: relay, then send everything due now, and wait for it. */
    async drain() {
      for (;;) {
        await pump();
        if (lanes.size === 0) return;
        await Promise.allSettled([...lanes]);
      }
    },
    get running() {
      return running;
    },
  };
}

function groupByEndpoint(deliveries: ClaimedDelivery[]): ClaimedDelivery[][] {
  const groups = new Map<string, ClaimedDelivery[]>();
  for (const delivery of deliveries) {
    const group = groups.get(delivery.endpointId);
    if (group) group.push(delivery);
    else groups.set(delivery.endpointId, [delivery]);
  }
  return [...groups.values()];
}
