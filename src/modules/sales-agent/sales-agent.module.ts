import type { Config } from '../../config.ts';
import type { Database } from '../../db/client.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/time.ts';
import type { Logger } from '../../logger.ts';
import { loadPriceList } from '../docs/price-list.ts';
import type { InstagramModule } from '../instagram/instagram.module.ts';
import type { WhatsappModule } from '../whatsapp/whatsapp.module.ts';
import type { Brain } from './brain.ts';
import { createLlmBrain } from './llm-brain.ts';
import { createRulesBrain } from './rules-brain.ts';
import { createSalesAgentService, type SalesAgentService } from './sales-agent.service.ts';

export interface SalesAgentModule {
  service: SalesAgentService;
}

/** Only what the module uses (never the whole container: no import circle through container.ts). */
export interface SalesAgentModuleDeps {
  config: Pick<Config, 'salesAgent'>;
  db: Database;
  clock: Clock;
  logger: Logger;
  jobs: JobQueue;
  instagram: InstagramModule;
  whatsapp: WhatsappModule;
  /** Tests: a pinned delay picker. */
  random?: (min: number, max: number) => number;
}

export const SALES_AGENT_JOB = 'sales-agent-replies';

/** The brain the configuration asks for: the model when LLM_BASE_URL is set, else the fixed rules. */
export function brainFor(config: Pick<Config, 'salesAgent'>): Brain {
  const prices = loadPriceList();
  return config.salesAgent.llm ? createLlmBrain(prices, config.salesAgent.llm) : createRulesBrain(prices);
}

/**
 * The automatic sales-reply agent (issue 18). The claim hangs on the operator inbox's message
 * insert (every path); the minute job decides and sends the due replies.
 */
export function createSalesAgentModule(deps: SalesAgentModuleDeps): SalesAgentModule {
  const { config, db, clock, logger, jobs, instagram, whatsapp } = deps;
  const service = createSalesAgentService({
    db,
    config: config.salesAgent,
    clock,
    logger,
    instagram: instagram.service,
    whatsapp: whatsapp.service,
    brain: brainFor(config),
    prices: loadPriceList(),
    ...(deps.random ? { random: deps.random } : {}),
  });
  instagram.hooks.onNewMessage = service.claim;
  whatsapp.hooks.onNewMessage = service.claimWhatsapp;
  jobs.define({
    name: SALES_AGENT_JOB,
    schedule: '* * * * *',
    retryLimit: 0,
    expireInSeconds: 300,
    handler: async () => {
      const report = await service.tick();
      if (report.taken > 0 || report.cancelled > 0) logger.info({ salesAgent: report }, 'sales agent run');
    },
  });
  return { service };
}
