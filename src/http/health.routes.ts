import { Type } from 'typebox';
import type { App } from './app.types.ts';
import type { Database } from '../db/client.ts';
import { AppError } from '../lib/errors.ts';

const READY_TIMEOUT_MS = 2000;

// Probes hit these every few seconds: logged only when something is wrong (warn and up).
export function registerHealthRoutes(app: App, { db }: { db: Database }) {
  const Status = Type.Object({ status: Type.String() });

  app.get('/healthz', { logLevel: 'warn', schema: { hide: true, response: { 200: Status } } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { logLevel: 'warn', schema: { hide: true, response: { 200: Status } } }, async () => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('database did not answer in time')), READY_TIMEOUT_MS);
    });
    try {
      await Promise.race([db.query('SELECT 1'), timeout]);
    } catch (err) {
      throw new AppError('unavailable', 'database is not reachable', { cause: err });
    } finally {
      clearTimeout(timer);
    }
    return { status: 'ready' };
  });
}
