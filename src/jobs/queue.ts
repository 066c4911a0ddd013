import PgBoss from 'pg-boss';
import type { Database } from '../db/client.ts';
import type { Logger } from '../logger.ts';

export interface JobDefinition<T extends object = object> {
  name: string;
  handler: (data: T) => Promise<void>;
  /** Cron (UTC). pg-boss runs a schedule once across every worker process. */
  schedule?: string;
  retryLimit?: number;
  retryDelaySeconds?: number;
  retryBackoff?: boolean;
  expireInSeconds?: number;
  /** How many jobs one worker process runs at once. */
  concurrency?: number;
  pollingIntervalSeconds?: number;
}

export interface SendOptions {
  startAfterSeconds?: number;
  /** With singletonSeconds: at most one job of this key per time slot, across every process. */
  singletonKey?: string;
  /** The slot length; a standard pg-boss queue ignores singletonKey without it. */
  singletonSeconds?: number;
}

/** The one queue for background work and schedules; modules define jobs, roles decide who works them. */
export interface JobQueue {
  define<T extends object>(definition: JobDefinition<T>): void;
  send<T extends object>(name: string, data: T, options?: SendOptions): Promise<string | null>;
  /** Opens the queue (creating its tables); with `work`, also runs handlers and schedules. */
  start(options: { work: boolean }): Promise<void>;
  /** Stops taking jobs and waits for running handlers up to the timeout. */
  stop(timeoutMs: number): Promise<void>;
  readonly started: boolean;
  /** Throws when the queue is stopped or its database does not answer (a worker's /readyz). */
  check(): Promise<void>;
  /** Jobs waiting (created or retrying) per defined job, for /metrics. */
  depths(): Promise<Record<string, number>>;
}

export function createJobQueue(database: Database, logger: Logger): JobQueue {
  const definitions = new Map<string, JobDefinition>();
  let boss: PgBoss | null = null;

  return {
    get started() {
      return boss !== null;
    },
    define(definition) {
      if (definitions.has(definition.name)) throw new Error(`job ${definition.name} is defined twice`);
      definitions.set(definition.name, definition as unknown as JobDefinition);
    },
    async send(name, data, options = {}) {
      if (!boss) throw new Error('job queue is not started');
      if (!definitions.has(name)) throw new Error(`unknown job ${name}`);
      return boss.send(name, data, {
        ...(options.startAfterSeconds !== undefined ? { startAfter: options.startAfterSeconds } : {}),
        ...(options.singletonKey !== undefined ? { singletonKey: options.singletonKey } : {}),
        ...(options.singletonSeconds !== undefined ? { singletonSeconds: options.singletonSeconds } : {}),
      });
    },
    async check() {
      if (!boss) throw new Error('job queue is not running');
      await database.executeSql('SELECT version FROM pgboss.version');
    },
    async depths() {
      if (!boss) return {};
      const current = boss;
      const entries = await Promise.all(
        [...definitions.keys()].map(async (name) => [name, await current.getQueueSize(name, { before: 'active' })] as const),
      );
      return Object.fromEntries(entries);
    },
    async start({ work }) {
      if (boss) return;
      const instance = new PgBoss({
        db: { executeSql: (text, values) => database.executeSql(text, values) },
        schedule: work,
        supervise: work,
        migrate: true,
      });
      instance.on('error', (err) => logger.error({ err }, 'job queue error'));
      try {
        await openQueue(instance, work);
      } catch (err) {
        // A failed start (a deadlock retried by the caller) must not leave timers of a half-started instance.
        await instance.stop({ graceful: false, wait: true, close: false }).catch(() => {});
        throw err;
      }
      boss = instance;
    },
    async stop(timeoutMs) {
      if (!boss) return;
      const current = boss;
      boss = null;
      await current.stop({ graceful: true, wait: true, timeout: timeoutMs, close: false });
    },
  };

  /** Creates pg-boss's schema and every queue; with `work`, registers handlers and schedules. */
  async function openQueue(instance: PgBoss, work: boolean) {
    await instance.start();
    for (const def of definitions.values()) {
      await instance.createQueue(def.name, {
        name: def.name,
        retryLimit: def.retryLimit ?? 5,
        retryDelay: def.retryDelaySeconds ?? 10,
        retryBackoff: def.retryBackoff ?? true,
        expireInSeconds: def.expireInSeconds ?? 15 * 60,
      });
    }
    if (!work) return;
    for (const def of definitions.values()) {
      await instance.work(
        def.name,
        { batchSize: def.concurrency ?? 1, pollingIntervalSeconds: def.pollingIntervalSeconds ?? 2 },
        async (jobs) => {
          for (const job of jobs) await def.handler(job.data as object);
        },
      );
      if (def.schedule) await instance.schedule(def.name, def.schedule, {}, { tz: 'UTC' });
    }
  }
}
