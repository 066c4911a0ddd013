import type { Config } from '../../config.ts';
import type { Database } from '../../db/client.ts';
import type { Cipher } from '../../lib/secrets.ts';
import type { Clock } from '../../lib/time.ts';
import type { Logger } from '../../logger.ts';
import { createCloudClient } from './cloud.client.ts';
import { createWhatsappService, type WhatsappService, type WhatsappServiceDeps } from './whatsapp.service.ts';

export interface WhatsappModule {
  service: WhatsappService;
  /** Set by the sales agent: runs in the transaction that inserts a new inbound message. */
  hooks: WhatsappServiceDeps['hooks'];
}

export interface WhatsappModuleDeps {
  config: Pick<Config, 'whatsapp'>;
  db: Database;
  cipher: Cipher;
  clock: Clock;
  logger: Logger;
  /** Tests: a shorter Graph abort. */
  tuning?: { timeoutMs?: number };
}

/** The operator channel on WhatsApp: the service's own number on the Cloud API (issue 31). */
export function createWhatsappModule(deps: WhatsappModuleDeps): WhatsappModule {
  const hooks: WhatsappModule['hooks'] = {};
  const cloud = createCloudClient({
    graphUrl: deps.config.whatsapp.graphUrl,
    ...(deps.tuning?.timeoutMs ? { timeoutMs: deps.tuning.timeoutMs } : {}),
  });
  const service = createWhatsappService({ ...deps, config: deps.config.whatsapp, cloud, hooks });
  return { service, hooks };
}
