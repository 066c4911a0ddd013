import { buildApp } from './app.ts';
import { ConfigError, loadConfig, loadDotEnv } from './config.ts';
import { createContainer } from './container.ts';
import { DataDirInUseError } from './db/client.ts';
import { migrate } from './db/migrate.ts';
import { restartBanner, seedDemoIfEmpty } from './modules/demo/demo.service.ts';

async function main() {
  loadDotEnv();
  const config = loadConfig();
  const container = await createContainer(config);
  const { logger } = container;
  const applied = await migrate(container.db);
  if (applied.length > 0) logger.info({ migrations: applied }, 'database migrated');

  if (config.demo.seedOnEmpty && config.role !== 'worker') {
    const demo = await seedDemoIfEmpty(container);
    process.stdout.write(demo ? demo.banner : restartBanner(config.http.publicBaseUrl));
  }

  const serveHttp = config.role !== 'worker';
  const runJobs = config.role !== 'web';
  if (!runJobs && config.db.kind === 'pglite') {
    logger.warn('ROLE=web on the embedded database: nobody runs background jobs (use ROLE=all)');
  }
  await container.jobs.start({ work: runJobs });
  if (runJobs) await container.webhooks.dispatcher.start();
  if (runJobs) await container.exchange.requestRefresh();

  const app = serveHttp ? await buildApp(container) : null;
  if (app) await app.listen({ port: config.http.port, host: config.http.host });
  logger.info({ role: config.role, db: config.db.kind, url: config.http.publicBaseUrl }, 'mostrador started');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // Whatever happens below, the process is gone before an orchestrator's usual 10 s grace period.
    setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs + 1000).unref();
    try {
      if (app) await app.close(); // stops accepting, waits for in-flight requests
      await container.close(); // finishes running jobs, then closes the database
      logger.info('stopped');
      process.exit(0);
    } catch (err) {
      logger.error({ err }, 'error while shutting down');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof DataDirInUseError) {
    process.stderr.write(`mostrador: ${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`mostrador: failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
