import type { JobQueue } from '../../jobs/queue.ts';
import type { AuthService } from './auth.service.ts';

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
