import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import type { App } from '../../src/http/app.types.ts';
import { buildTestApp, type TestApp } from '../app.ts';
import { registerSurface } from '../../src/http/surfaces.ts';

describe('client address behind proxies', () => {
  let direct: TestApp;
  let proxied: TestApp;
  const apps: App[] = [];
  beforeAll(async () => {
    direct = await buildTestApp();
    proxied = await buildTestApp({ env: { TRUST_PROXY: 'true' } });
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await direct.close();
    await proxied.close();
  });

  async function ipSeenBy(t: TestApp) {
    const app = await buildApp(t.container);
    apps.push(app);
    await registerSurface(app, 'public', {}, (scope) => {
      scope.get('/test-ip', async (request) => ({ ip: request.ip }));
    });
    const res = await app.inject({
      method: 'GET',
      url: '/test-ip',
      headers: { 'x-forwarded-for': '203.0.113.7' },
      remoteAddress: '198.51.100.1',
    });
    return res.json().ip;
  }

  it('ignores a forged X-Forwarded-For unless a proxy is trusted', async () => {
    expect(await ipSeenBy(direct)).toBe('198.51.100.1');
    expect(await ipSeenBy(proxied)).toBe('203.0.113.7');
  });
});
