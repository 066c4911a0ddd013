import type { Config } from '../../config.ts';
import type { Database } from '../../db/client.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Cipher } from '../../lib/secrets.ts';
import type { Clock } from '../../lib/time.ts';
import type { Logger } from '../../logger.ts';
import { createDeliveryService, type DeliveryService } from './deliveries.service.ts';
import { createDeliveryRunner } from './delivery-runner.ts';
import { createDispatcher, type Dispatcher, type DispatcherOptions } from './dispatcher.ts';
import { createEndpointService, type EndpointService } from './endpoints.service.ts';
import { createWebhookSender, type WebhookSender } from './webhook-sender.ts';

export interface WebhooksModule {
  endpoints: EndpointService;
  deliveries: DeliveryService;
  /** Sends deliveries; started only in processes that run jobs (ROLE=worker or all). */
  dispatcher: Dispatcher;
  close(): Promise<void>;
}

export interface WebhooksModuleDeps {
  config: Config;
  db: Database;
  cipher: Cipher;
  clock: Clock;
  logger: Logger;
  jobs: JobQueue;
  /** Tests: a shorter attempt timeout, a faster poll, a fixed jitter. */
  tuning?: Partial<DispatcherOptions> & { timeoutMs?: number; random?: () => number };
}

export const PRUNE_JOB = 'webhooks-prune';

export function createWebhooksModule({
  config,
  db,
  cipher,
  clock,
  logger,
  jobs,
  tuning = {},
}: WebhooksModuleDeps): WebhooksModule {
  const sender: WebhookSender = createWebhookSender({
    allowPrivateTargets: config.webhooks.allowPrivateTargets,
    ...(tuning.timeoutMs !== undefined ? { timeoutMs: tuning.timeoutMs } : {}),
  });
  const runner = createDeliveryRunner({ db, cipher, clock, sender, logger, ...(tuning.random ? { random: tuning.random } : {}) });
  const endpoints = createEndpointService({
    db,
    cipher,
    clock,
    rules: { allowPrivateTargets: config.webhooks.allowPrivateTargets },
  });
  const deliveries = createDeliveryService({ db, clock, endpoints, runner });
  const dispatcher = createDispatcher({
    db,
    clock,
    runner,
    logger,
    options: {
      concurrency: tuning.concurrency ?? config.webhooks.concurrency,
      ...(tuning.pollIntervalMs !== undefined ? { pollIntervalMs: tuning.pollIntervalMs } : {}),
      ...(tuning.relayBatchSize !== undefined ? { relayBatchSize: tuning.relayBatchSize } : {}),
      ...(tuning.timeoutMs !== undefined ? { attemptTimeoutMs: tuning.timeoutMs } : {}),
    },
  });
  jobs.define({
    name: PRUNE_JOB,
    schedule: '17 3 * * *',
    retryLimit: 2,
    handler: async () => {
      const pruned = await deliveries.prune();
      logger.info({ pruned }, 'webhook log pruned');
    },
  });
  return {
    endpoints,
    deliveries,
    dispatcher,
    async close() {
      // Half the shutdown budget: the job queue needs the rest. An attempt cut short is retried after its lease.
      await dispatcher.stop(Math.floor(config.shutdownTimeoutMs / 2));
      sender.close();
    },
  };
}
