import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
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
    ]) {
      expect(existsSync(file), file).toBe(true);
    }
    const service = startProcess({ DATA_DIR: dataDir, DEMO_SEED: 'true', SHUTDOWN_DRAIN_MS: '0' }, ['dist/src/main.js']);
    try {
      const url = await listeningUrl(service);
      expect(service.stdout.join('')).toContain('Almacén Don Tito');
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      for (const path of ['/docs', '/docs/assets/docs.css', '/scanner/kiosk.js', '/llms.txt']) {
        expect((await fetch(`${url}${path}`)).status, path).toBe(200);
      }
      expect(await (await fetch(`${url}/metrics`)).text()).toContain('mostrador_http_requests_total');
    } finally {
      service.child.kill('SIGTERM');
    }
    expect((await service.exit).code).toBe(0);
  }, 300_000);
});
