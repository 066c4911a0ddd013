import { ConfigError, loadConfig, loadDotEnv } from './config.ts';
import { createContainer } from './container.ts';
import { DataDirInUseError } from './db/client.ts';
import { describeError, startService, stopOnSignals } from './lifecycle.ts';
import { deliverDemoBanner } from './modules/demo/demo-credentials.ts';
import { restartBanner } from './modules/demo/demo.service.ts';

async function main() {
  loadDotEnv();
  const config = loadConfig();
  const container = await createContainer(config);
  const { logger } = container;
  const running = await startService(container);
  if (running.demo) deliverDemoBanner(running.demo.banner, process.stdout, config.db.dataDir, logger);
  else if (config.demo.seedOnEmpty && config.role !== 'worker') process.stdout.write(restartBanner(config.http.publicBaseUrl));
  logger.info({ role: config.role, db: config.db.kind, url: config.http.publicBaseUrl }, 'mostrador started');
  stopOnSignals(container, running);
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof DataDirInUseError) {
    process.stderr.write(`mostrador: ${err.message}\n`);
    process.exit(2);
  }
  const stack = err instanceof Error && err.stack ? `\n${err.stack}` : '';
  process.stderr.write(`mostrador: failed to start: ${describeError(err)}${stack}\n`);
  process.exit(1);
});
