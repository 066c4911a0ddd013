import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { securityHeaders } from './http/security-headers.ts';
import { buildApp } from './app.ts';
import type { App } from './http/app.types.ts';
import type { Config } from './config.ts';
import type { Container } from './container.ts';
import { migrate } from './db/migrate.ts';
import { pgErrorCode } from './db/pg-errors.ts';
import { registerErrorHandling, registerNotFound } from './http/error-handler.ts';
import { registerHealthRoutes } from './http/health.routes.ts';
import type { Logger } from './logger.ts';
import { registerMetricsRoutes } from './metrics/metrics.routes.ts';
import { type DemoResult, seedDemoIfEmpty } from './modules/demo/demo.service.ts';

// Any constant shared by every process of the service (the migration lock is 727_001).
const STARTUP_LOCK_KEY = 727_002;
const START_ATTEMPTS = 5;

export interface RunningService {
  /** The HTTP application (ROLE=web or all). */
  app: App | null;
  /** A worker's /healthz, /readyz and /metrics on WORKER_PORT (ROLE=worker). */
  workerServer: FastifyInstance | null;
  workerUrl: string | null;
  /** The demo seeded by this start (printed once by main). */
  demo: DemoResult | null;
}

/**
 * Starts the roles of this process. Everything that creates shared state (migrations, pg-boss's
 * schema and queues, the demo) runs under one session advisory lock, so processes starting at once
 * on an empty database take turns; a deadlock against a process already running is retried.
 */
export async function startService(container: Container): Promise<RunningService> {
  const { config, logger } = container;
  const serveHttp = config.role !== 'worker';
  const runJobs = config.role !== 'web';
  if (!runJobs && config.db.kind === 'pglite') {
    logger.warn('ROLE=web on the embedded database: nobody runs background jobs (use ROLE=all)');
  }

  const demo = await retryOnDeadlock(logger, () =>
    withStartupLock(config, async () => {
      const applied = await migrate(container.db);
      if (applied.length > 0) logger.info({ migrations: applied }, 'database migrated');
      await container.jobs.start({ work: runJobs });
      return config.demo.seedOnEmpty && serveHttp ? seedDemoIfEmpty(container) : null;
    }),
  );

  if (runJobs) {
    await container.webhooks.dispatcher.start();
    await container.exchange.requestRefresh();
    container.readiness.checks.set('job queue', () => container.jobs.check());
    container.readiness.checks.set('webhook listener', () => container.webhooks.dispatcher.checkListening());
  }

  const app = serveHttp ? await buildApp(container) : null;
  if (app) await app.listen({ port: config.http.port, host: config.http.host });

  let workerServer: FastifyInstance | null = null;
  let workerUrl: string | null = null;
  if (config.role === 'worker') {
    workerServer = Fastify({ logger: false, return503OnClosing: true, forceCloseConnections: true });
    const security = securityHeaders(config.http);
    workerServer.addHook('onRequest', async (_request, reply) => {
      reply.headers(security);
      // While draining, every answer closes its connection (as the application's, src/http/request-context.ts).
      if (container.readiness.draining) reply.header('connection', 'close');
    });
    registerErrorHandling(workerServer);
    await registerNotFound(workerServer);
    registerHealthRoutes(workerServer, container);
    registerMetricsRoutes(workerServer, container);
    workerUrl = await workerServer.listen({ port: config.workerPort, host: config.http.host });
    logger.info({ url: workerUrl }, 'worker health server listening');
  }
  return { app, workerServer, workerUrl, demo };
}

/**
 * Stops on SIGTERM (orchestrators) and SIGINT (a terminal). On SIGTERM a web process first drains:
 * /readyz answers 503 for SHUTDOWN_DRAIN_MS while requests are still served (those arriving then with
 * `Connection: close`), so load balancers take it out before the port closes. Then it stops
 * accepting, finishes requests in flight, stops the worker (claims released), and exits, all within
 * SHUTDOWN_TIMEOUT_MS + 1 s. SIGINT skips the drain: nobody balances a terminal's process.
 */
export function stopOnSignals(container: Container, running: RunningService) {
  const { config, logger } = container;
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    container.readiness.draining = true;
    logger.info({ signal }, 'shutting down');
    // Whatever happens below, the process is gone before an orchestrator's usual 10 s grace period.
    setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs + 1000).unref();
    try {
      if (running.app && signal === 'SIGTERM' && config.shutdownDrainMs > 0) {
        logger.info({ ms: config.shutdownDrainMs }, 'draining: /readyz answers 503, requests are still served');
        await new Promise((resolve) => setTimeout(resolve, config.shutdownDrainMs));
      }
      if (running.app) await running.app.close(); // stops accepting, waits for in-flight requests
      await container.close(); // stops claiming, finishes or releases held work, closes the database
      if (running.workerServer) await running.workerServer.close();
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

/** Runs `fn` holding the start-up advisory lock on a connection of its own (PostgreSQL); PGlite has one process. */
async function withStartupLock<T>(config: Config, fn: () => Promise<T>): Promise<T> {
  if (config.db.kind !== 'postgres') return fn();
  const client = new pg.Client({ connectionString: config.db.url!, application_name: 'mostrador-startup' });
  client.on('error', () => {}); // a lost connection fails the query below; the lock dies with it
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [STARTUP_LOCK_KEY]);
    return await fn();
  } finally {
    await client.end().catch(() => {}); // ending the session releases the lock
  }
}

async function retryOnDeadlock<T>(logger: Logger, fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (pgErrorCode(err) !== '40P01' || attempt >= START_ATTEMPTS) throw err;
      logger.warn({ attempt, error: describeError(err) }, 'deadlock during start; trying again');
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt + Math.random() * 200));
    }
  }
}

/**
 * An error with every cause under it and PostgreSQL's code, detail and constraint: a failed
 * Drizzle query says only "Failed query: …"; the reason is in its cause.
 */
export function describeError(err: unknown): string {
  const parts: string[] = [];
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current; depth++) {
    if (!(current instanceof Error)) {
      parts.push(String(current));
      break;
    }
    const pgError = current as Error & { code?: string; detail?: string; constraint?: string };
    const extra = [
      typeof pgError.code === 'string' ? `code ${pgError.code}` : null,
      pgError.constraint ? `constraint ${pgError.constraint}` : null,
      pgError.detail ? pgError.detail : null,
    ].filter(Boolean);
    parts.push(`${current.message.split('\n')[0]}${extra.length > 0 ? ` (${extra.join('; ')})` : ''}`);
    current = current.cause;
  }
  return parts.join('\n  caused by: ');
}
