import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/client.ts';
import { AppError } from '../lib/errors.ts';

const READY_TIMEOUT_MS = 2000;

/** What /readyz answers from: the database, the checks a role adds, and the drain flag. */
export interface Readiness {
  /** Set on SIGTERM: /readyz answers 503 so load balancers stop sending traffic, while requests are still served. */
  draining: boolean;
  /** Checks beyond the database, by name (a worker's job queue and LISTEN connection); each throws when down. */
  readonly checks: Map<string, () => Promise<void> | void>;
}

export function createReadiness(): Readiness {
  return { draining: false, checks: new Map() };
}

async function withinTimeout(check: () => Promise<void> | void, what: string) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer in time`)), READY_TIMEOUT_MS);
  });
  try {
    await Promise.race([check(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// Probes hit these every few seconds: logged only when something is wrong (warn and up).
export function registerHealthRoutes(app: FastifyInstance, { db, readiness }: { db: Database; readiness: Readiness }) {
  const Status = Type.Object({ status: Type.String() });

  app.get('/healthz', { logLevel: 'warn', schema: { hide: true, response: { 200: Status } } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { logLevel: 'warn', schema: { hide: true, response: { 200: Status } } }, async () => {
    if (readiness.draining) throw new AppError('unavailable', 'shutting down');
    try {
      await withinTimeout(async () => void (await db.query('SELECT 1')), 'database');
    } catch (err) {
      throw new AppError('unavailable', 'database is not reachable', { cause: err });
    }
    for (const [name, check] of readiness.checks) {
      try {
        await withinTimeout(check, name);
      } catch (err) {
        throw new AppError('unavailable', `${name} is down`, { cause: err });
      }
    }
    return { status: 'ready' };
  });
}
