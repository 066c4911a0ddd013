import cookie from '@fastify/cookie';
import type { App } from '../../app.ts';
import type { Container } from '../../container.ts';
import { registerAuthGuard } from '../../http/auth-guard.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { registerSettingsRoutes } from '../settings/settings.routes.ts';
import { registerSuperadminRoutes } from '../superadmin/superadmin.routes.ts';
import { registerAuthRoutes } from './auth.routes.ts';
import type { AuthService } from './auth.service.ts';

/** People and access: cookies, the session guard, login/logout, merchant settings, operator pages. */
export async function registerAccess(app: App, container: Container) {
  await app.register(cookie);
  registerAuthGuard(app, container);
  registerAuthRoutes(app, container);
  registerSettingsRoutes(app, container);
  registerSuperadminRoutes(app, container);
}

/** Daily removal of sessions that ended or expired more than 30 days ago (the audit log keeps the history). */
export function defineAuthJobs(jobs: JobQueue, auth: AuthService) {
  jobs.define({
    name: 'auth-sessions-cleanup',
    schedule: '23 4 * * *',
    handler: async () => {
      await auth.deleteStaleSessions(30);
    },
  });
}
