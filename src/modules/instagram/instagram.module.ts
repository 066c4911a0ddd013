import type { Config } from '../../config.ts';
import type { Database } from '../../db/client.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Cipher } from '../../lib/secrets.ts';
import type { Clock } from '../../lib/time.ts';
import type { Logger } from '../../logger.ts';
import { createGraphClient, type GraphClientOptions } from './graph.client.ts';
import type { NewMessageHook } from './instagram.repo.ts';
import { createInstagramService, type InstagramService } from './instagram.service.ts';

export interface InstagramModule {
  service: InstagramService;
  /** Set by the sales agent: runs in the transaction that inserts a new message row. */
  hooks: { onNewMessage?: NewMessageHook };
  close(): Promise<void>;
}

/** Only what the module uses (never the whole container: no import circle through container.ts). */
export interface InstagramModuleDeps {
  config: Pick<Config, 'instagram' | 'http'>;
  db: Database;
  cipher: Cipher;
  clock: Clock;
  logger: Logger;
  jobs: JobQueue;
  /** Tests: a shorter Graph timeout, a faster read spacing. */
  tuning?: Pick<GraphClientOptions, 'timeoutMs' | 'readIntervalMs'>;
}

export const SYNC_JOB = 'instagram-inbox-sync';

/** The operator channel: the service's own Instagram account (issue 16). */
export function createInstagramModule(deps: InstagramModuleDeps): InstagramModule {
  const { config, logger, jobs } = deps;
  const graph = createGraphClient({ apiUrl: config.instagram.apiUrl, graphUrl: config.instagram.graphUrl, ...deps.tuning });
  const hooks: InstagramModule['hooks'] = {};
  const service = createInstagramService({
    ...deps,
    hooks,
    config: config.instagram,
    publicBaseUrl: config.http.publicBaseUrl,
    graph,
  });
  // The minute backup poll in worker processes. pg-boss runs a schedule once per minute across
  // instances; the claim on the channel row (instagram.repo claimSync) makes a run exclusive even
  // when a slow run overlaps the next one, and one per minute with the external cron route.
  jobs.define({
    name: SYNC_JOB,
    schedule: '* * * * *',
    retryLimit: 0,
    expireInSeconds: 120,
    handler: async () => {
      const report = await service.sync({ scheduled: true });
      if (report.ran || report.reason === 'failed') logger.info({ sync: report }, 'instagram backup sync');
    },
  });
  return {
    service,
    hooks,
    async close() {
      await service.idle();
    },
  };
}
