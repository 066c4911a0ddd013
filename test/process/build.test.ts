import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listeningUrl, startProcess } from './processes.ts';

describe('the build output', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mostrador-dist-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts with plain node (no tsx): migrations, static files, docs and content are copied', async () => {
    execFileSync('npm', ['run', 'build'], { stdio: 'pipe', timeout: 240_000 });
    for (const file of [
      'dist/src/main.js',
      'dist/src/db/migrations/0001_foundation.sql',
      'dist/docs/index.md',
      'dist/content/llms.md',
      'dist/assets/manifest.json',
    ]) {
      expect(existsSync(file), file).toBe(true);
    }
    const service = startProcess({ DATA_DIR: dataDir, DEMO_SEED: 'true', SHUTDOWN_DRAIN_MS: '0' }, ['dist/src/main.js']);
    try {
      const url = await listeningUrl(service);
      // Off a terminal the demo credentials go to DATA_DIR/demo-credentials.txt once the start is over,
      // just after the port opens; the log names the file.
      const credentials = join(dataDir, 'demo-credentials.txt');
      const readBanner = () => (existsSync(credentials) ? readFileSync(credentials, 'utf8') : '');
      const deadline = Date.now() + 30_000;
      while (!readBanner().includes('Almacén Don Tito') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(readBanner()).toContain('Almacén Don Tito');
      expect(service.stdout.join('')).not.toContain('Token del escáner');
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      for (const path of ['/docs', '/scanner/kiosk.js', '/llms.txt', '/login']) {
        expect((await fetch(`${url}${path}`)).status, path).toBe(200);
      }
      // The built server serves the bundles npm run build wrote (dist/assets), at their hashed addresses.
      const manifest = JSON.parse(readFileSync('dist/assets/manifest.json', 'utf8')) as Record<string, string>;
      const login = await (await fetch(`${url}/login`)).text();
      expect(login).toContain(`/assets/${manifest['login.js']}`);
      const docs = await (await fetch(`${url}/docs`)).text();
      expect(docs).toContain(`/assets/${manifest['docs.css']}`);
      for (const name of ['login.js', 'app.css', 'docs.css']) {
        const res = await fetch(`${url}/assets/${manifest[name]}`);
        expect([name, res.status, res.headers.get('cache-control')]).toEqual([name, 200, 'public, max-age=31536000, immutable']);
      }
      expect(await (await fetch(`${url}/metrics`)).text()).toContain('mostrador_http_requests_total');
    } finally {
      service.child.kill('SIGTERM');
    }
    expect((await service.exit).code).toBe(0);
  }, 300_000);
});
