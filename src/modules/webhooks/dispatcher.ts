import { randomUUID } from 'node:crypto';
import type { Database } from '../../db/client.ts';
import type { Clock } from '../../lib/time.ts';
import type { Logger } from '../../logger.ts';
import { type ClaimedDelivery, claimDeliveries, relayOutbox, releaseClaims, renewLeases } from './deliveries.repo.ts';
import type { DeliveryRunner } from './delivery-runner.ts';
import { DELIVERY_TIMEOUT_MS } from './retry-policy.ts';
import { listenForWork, type WorkListener } from './work-listener.ts';

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

/** Margin of a lease beyond the attempt it covers (settling, scheduling). */
const LEASE_MARGIN_MS = 30_000;
/**
 * A lane renews the leases of what it still holds before an attempt once this long has passed since
 * the last renewal: an attempt started by then ends within the lease (perAttempt + margin), and a
 * fast lane pays no extra statement.
 */
const RENEW_AFTER_MS = LEASE_MARGIN_MS / 2;

/** The claims of one lane not settled yet, released if the worker stops before sending them. */
interface LaneHold {
  token: string;
  held: Map<string, { started: boolean }>;
}

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
  const leaseMs = perAttemptMs + LEASE_MARGIN_MS;
  const lanes = new Map<Promise<void>, LaneHold>();
  let stopping = false;
  let pumping: Promise<void> | null = null;
  let again = false;
  let running = false;
  let poll: NodeJS.Timeout | null = null;
  let listener: WorkListener | null = null;

  async function relayAll() {
    for (;;) {
      // One statement: atomic without an explicit transaction, and one round trip.
      const { events } = await relayOutbox(db.orm, clock.now(), relayBatchSize);
      if (events < relayBatchSize) return;
    }
  }

  function startLane(deliveries: ClaimedDelivery[], token: string) {
    const hold: LaneHold = { token, held: new Map(deliveries.map((d) => [d.id, { started: false }])) };
    const lane = (async () => {
      let renewedAt = Date.now();
      for (const delivery of deliveries) {
        if (stopping) break;
        if (Date.now() - renewedAt >= RENEW_AFTER_MS) {
          renewedAt = Date.now();
          const still = await renewLeases(db.orm, [...hold.held.keys()], token, clock.now(), leaseMs);
          for (const id of hold.held.keys()) if (!still.has(id)) hold.held.delete(id);
          if (!hold.held.has(delivery.id)) continue; // its lease ran out and another worker has it
        }
        hold.held.get(delivery.id)!.started = true;
        try {
          const report = await runner.run(delivery, token);
          hold.held.delete(delivery.id);
          // The endpoint is gone or was disabled: its other claimed deliveries were failed with it.
          if (report.disabled) {
            hold.held.clear();
            return;
          }
        } catch (err) {
          hold.held.delete(delivery.id);
          // The lease expires and the delivery is tried again; nothing is lost.
          logger.error({ err, delivery: delivery.id }, 'webhook delivery attempt could not be settled');
        }
      }
      await release(hold);
    })();
    lanes.set(lane, hold);
    void lane.finally(() => {
      lanes.delete(lane);
      if (running) void pump();
    });
  }

  /** Gives back what a lane still holds (a clean stop): due at once for the other workers. */
  async function release(hold: LaneHold) {
    const released = [...hold.held].map(([id, { started }]) => ({ id, started }));
    hold.held.clear();
    if (released.length === 0) return;
    try {
      await releaseClaims(db.orm, hold.token, clock.now(), released);
    } catch (err) {
      logger.warn(
        { err, deliveries: released.length },
        'could not release claimed deliveries; they are retried after their lease',
      );
    }
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
          leaseMs,
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
      stopping = false;
      listener = await listenForWork(db, () => void pump(), logger);
      poll = setInterval(() => void pump(), pollIntervalMs);
      poll.unref();
      void pump();
    },
    /**
     * Stops claiming, lets each lane finish the attempt it is in (up to `timeoutMs`) and releases the
     * rest at once; an attempt still running at the timeout is released too (the receiver may get it
     * twice: delivery is at least once).
     */
    async stop(timeoutMs = 15_000) {
      if (!running) return;
      running = false;
      stopping = true;
      if (poll) clearInterval(poll);
      await listener?.stop();
      listener = null;
      await pumping;
      await Promise.race([
        Promise.allSettled([...lanes.keys()]),
        new Promise((resolve) => setTimeout(resolve, timeoutMs).unref()),
      ]);
      await Promise.all([...lanes.values()].map(release));
    },
    /** Throws when the LISTEN connection is down (a worker's /readyz); the poll still runs meanwhile. */
    checkListening() {
      if (!running) throw new Error('the dispatcher is stopped');
      if (!listener?.connected) throw new Error('the LISTEN connection is down');
    },
    /** One full pass for tests and tools: relay, then send everything due now, and wait for it. */
    async drain() {
      for (;;) {
        await pump();
        if (lanes.size === 0) return;
        await Promise.allSettled([...lanes.keys()]);
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
