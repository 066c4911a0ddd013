import { vi } from 'vitest';
import type { Logger } from '../../src/logger.ts';
import type { InstagramService, SyncReport } from '../../src/modules/instagram/instagram.service.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { makeCompany, makeUser } from '../factories.ts';
import { type FakeInstagram, startFakeInstagram } from '../fakes/instagram.fake.ts';
import { login } from '../sessions.ts';

export const VERIFY_TOKEN = 'verify-token-123';
export const META_SECRET = 'meta-app-secret-456';
export const HUB_SECRET = 'hub-consumer-secret-789';
export const CRON_SECRET = 'cron-secret-abcdefghijklmnop';

export interface InstagramTestApp extends TestApp {
  fake: FakeInstagram;
  superadmin: string;
  cookies: { cashier: string; admin: string; otherSuperadmin: string };
  /** Runs the whole OAuth dance (connect → fake authorize → callback); returns the callback answer. */
  connect(options?: {
    cookie?: string;
    replace?: boolean;
    mangle?: (callbackUrl: URL) => void;
  }): Promise<{ status: number; body: string }>;
}

export function instagramEnv(fake: FakeInstagram, env: Record<string, string> = {}): Record<string, string> {
  return {
    INSTAGRAM_APP_ID: fake.appId,
    INSTAGRAM_APP_SECRET: fake.appSecret,
    META_APP_SECRET: META_SECRET,
    INSTAGRAM_VERIFY_TOKEN: VERIFY_TOKEN,
    CHANNELS_CONSUMER_SECRET: HUB_SECRET,
    CRON_SECRET,
    INSTAGRAM_AUTHORIZE_URL: `${fake.url}/oauth/authorize`,
    INSTAGRAM_API_URL: fake.url,
    INSTAGRAM_GRAPH_URL: fake.url,
    AUTH_LOGIN_LIMIT_PER_CLIENT: '1000',
    ...env,
  };
}

export async function buildInstagramApp(
  options: {
    env?: Record<string, string>;
    readIntervalMs?: number;
    timeoutMs?: number;
    fake?: FakeInstagram;
    logger?: Logger;
  } = {},
): Promise<InstagramTestApp> {
  const fake = options.fake ?? (await startFakeInstagram());
  const t = await buildTestApp({
    env: instagramEnv(fake, options.env),
    overrides: {
      ...(options.logger ? { logger: options.logger } : {}),
      instagramTuning: {
        readIntervalMs: options.readIntervalMs ?? 0,
        ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      },
    },
  });
  const company = await makeCompany(t.container);
  const users = {
    superadmin: await makeUser(t.container, { superadmin: true }),
    other: await makeUser(t.container, { superadmin: true }),
    cashier: await makeUser(t.container, { companyId: company.id, role: 'cashier' }),
    admin: await makeUser(t.container, { companyId: company.id, role: 'admin' }),
  };
  const superadmin = (await login(t.app, users.superadmin.email, users.superadmin.password)).cookie;
  const cookies = {
    cashier: (await login(t.app, users.cashier.email, users.cashier.password)).cookie,
    admin: (await login(t.app, users.admin.email, users.admin.password)).cookie,
    otherSuperadmin: (await login(t.app, users.other.email, users.other.password)).cookie,
  };
  return {
    ...t,
    fake,
    superadmin,
    cookies,
    async connect({ cookie = superadmin, replace = false, mangle } = {}) {
      const start = await t.app.inject({
        url: `/superadmin/instagram/connect${replace ? '?replace=1' : ''}`,
        headers: { cookie },
      });
      if (start.statusCode !== 302) throw new Error(`connect answered ${start.statusCode}: ${start.body}`);
      const authorize = await fetch(start.headers.location as string, { redirect: 'manual' });
      const callback = new URL((authorize.headers.get('location') ?? '').replace(/#_$/, ''));
      mangle?.(callback);
      const res = await t.app.inject({ url: `${callback.pathname}${callback.search}`, headers: { cookie } });
      return { status: res.statusCode, body: res.body };
    },
    async close() {
      await t.close();
      if (!options.fake) await fake.close();
    },
  };
}

/**
 * A sync that has read the fake's current data, or an error saying why not. `sync()` answers
 * `busy` without reading anything while another run holds the channel's claim, and in these tests
 * that run is usually a background sync scheduled by a page's list request (GET conversations),
 * which may have read the Graph before the test added its thread. `idle()` waits only for that
 * run, so "sync() then idle()" is not "stored". This waits for the holder and claims again until
 * a run of its own has gone through; a run that failed is an error, not a reason to retry.
 */
export async function syncNow(service: InstagramService): Promise<SyncReport> {
  const report = await vi.waitFor(
    async () => {
      const attempt = await service.sync({ scheduled: false });
      if (attempt.reason === 'busy') {
        await service.idle();
        throw new Error('another Instagram sync still holds the claim');
      }
      return attempt;
    },
    { timeout: 30_000, interval: 20 },
  );
  if (!report.ran || report.error !== undefined)
    throw new Error(`the Instagram sync did not go through: ${JSON.stringify(report)}`);
  return report;
}
