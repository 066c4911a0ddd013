import type { Container } from '../../container.ts';
import { loadPriceList } from '../docs/price-list.ts';
import type { InstagramModule } from '../instagram/instagram.module.ts';
import type { Brain } from './brain.ts';
import { createLlmBrain } from './llm-brain.ts';
import { createRulesBrain } from './rules-brain.ts';
import { createSalesAgentService, type SalesAgentService } from './sales-agent.service.ts';

export interface SalesAgentModule {
  service: SalesAgentService;
}

export type SalesAgentModuleDeps = Pick<Container, 'config' | 'db' | 'clock' | 'logger' | 'jobs'> & {
  instagram: InstagramModule;
  /** Tests: a pinned delay picker. */
  random?: (min: number, max: number) => number;
};

export const SALES_AGENT_JOB = 'sales-agent-replies';

/** The brain the configuration asks for: the model when LLM_BASE_URL is set, else the fixed rules. */
export function brainFor(config: Container['config']): Brain {
  const prices = loadPriceList();
  return config.salesAgent.llm ? createLlmBrain(prices, config.salesAgent.llm) : createRulesBrain(prices);
}

/**
 * The automatic sales-reply agent (issue 18). The claim hangs on the operator inbox's message
 * insert (every path); the minute job decides and sends the due replies.
 */
export function createSalesAgentModule(deps: SalesAgentModuleDeps): SalesAgentModule {
  const { config, db, clock, logger, jobs, instagram } = deps;
  const service = createSalesAgentService({
    db,
    config: config.salesAgent,
    clock,
    logger,
    instagram: instagram.service,
    brain: brainFor(config),
    prices: loadPriceList(),
    ...(deps.random ? { random: deps.random } : {}),
  });
  instagram.hooks.onNewMessage = service.claim;
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
