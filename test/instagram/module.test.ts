import { describe, expect, it } from 'vitest';
import type { JobDefinition, JobQueue } from '../../src/jobs/queue.ts';
import { createInstagramModule, SYNC_JOB } from '../../src/modules/instagram/instagram.module.ts';
import { captureLogs, testConfig } from '../app.ts';
import { startFakeInstagram } from '../fakes/instagram.fake.ts';
import { buildInstagramApp, CRON_SECRET } from './helpers.ts';

describe('instagram module', () => {
  it('defines the minute backup poll as a scheduled job that runs a scheduled sync', async () => {
    const defined: JobDefinition[] = [];
    const jobs = { define: (d: JobDefinition) => void defined.push(d) } as unknown as JobQueue;
    const config = testConfig();
    createInstagramModule({
      config,
      db: {} as never,
      cipher: {} as never,
      clock: { now: () => new Date() },
      logger: captureLogs().logger,
      jobs,
    });
    expect(defined).toHaveLength(1);
    expect(defined[0]).toMatchObject({ name: SYNC_JOB, schedule: '* * * * *', retryLimit: 0 });
  });

  it('never writes a token or a secret to the logs', async () => {
    const fake = await startFakeInstagram();
    const { lines, logger } = captureLogs();
    const t = await buildInstagramApp({ fake, env: { LOG_LEVEL: 'trace', INSTAGRAM_SEND_ENABLED: 'true' }, logger });
    try {
      let code = '';
      const connected = await t.connect({
        mangle: (url) => {
          code = url.searchParams.get('code')!;
        },
      });
      expect(connected.status).toBe(200);
      fake.addConversation({ participantId: '42', username: 'c' });
      await t.app.inject({
        method: 'POST',
        url: '/api/cron/instagram-inbox-sync',
        headers: { authorization: `Bearer ${CRON_SECRET}` },
      });
      fake.validTokens.clear();
      await t.app.inject({ url: '/api/superadmin/instagram/conversations', headers: { cookie: t.superadmin } });
      await t.container.instagram.service.idle();
      const text = lines.join('\n');
      expect(lines.length).toBeGreaterThan(0);
      expect(text).not.toMatch(/IGAA/);
      expect(text).not.toContain(fake.appSecret);
      expect(text).not.toContain(CRON_SECRET);
      expect(text).toContain('/superadmin/instagram/callback');
      expect(text).not.toContain(code);
    } finally {
      await t.close();
      await fake.close();
    }
  });
});
