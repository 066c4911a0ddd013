import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gzippedSize, loadAssets, pageEntries, writeAssets } from '../../src/http/assets.ts';
import { buildTestApp, type TestApp } from '../app.ts';

/** Every page entry stays small enough for a shop's phone on a slow line. */
const ENTRY_BUDGET_GZIP_BYTES = 60 * 1024;

describe('browser assets', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  it('bundles one script per page entry, each within the 60 KB gzip budget', async () => {
    const assets = await loadAssets();
    const entries = pageEntries().map((f) => f.replace(/\.tsx$/, '.js'));
    expect(entries.length).toBeGreaterThanOrEqual(7);
    const sizes = entries.map((name) => {
      const asset = assets.list().find((a) => a.name === name);
      expect(asset, name).toBeDefined();
      return [name, gzippedSize(asset!)] as const;
    });
    process.stdout.write(`bundle sizes (gzip): ${sizes.map(([n, s]) => `${n} ${(s / 1024).toFixed(1)} KB`).join(', ')}\n`);
    for (const [name, size] of sizes) expect([name, size <= ENTRY_BUDGET_GZIP_BYTES]).toEqual([name, true]);
  });

  it('serves assets at content-hashed URLs, cached for a year, and 404s anything else', async () => {
    const assets = await loadAssets();
    const url = assets.url('login.js');
    expect(url).toMatch(/^\/assets\/login-[0-9a-f]{12}\.js$/);
    const res = await t.app.inject({ url });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const css = await t.app.inject({ url: assets.url('app.css') });
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    const missing = await t.app.inject({ url: '/assets/login-000000000000.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'not_found' });
    expect((await t.app.inject({ url: '/favicon.ico' })).headers.location).toBe(assets.url('favicon.svg'));
  });

  it('serves pages under a strict CSP that allows no inline script, pointing at the hashed files', async () => {
    const assets = await loadAssets();
    const res = await t.app.inject({ url: '/login' });
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|nonce-/);
    expect(res.body).toContain(`<script type="module" src="${assets.url('login.js')}"></script>`);
    expect(res.body).toContain(`href="${assets.url('app.css')}"`);
    // The only other script element is the inert page data.
    expect(res.body.match(/<script\b[^>]*>/g)).toEqual([
      expect.stringContaining('type="module"'),
      '<script type="application/json" id="page-data">',
    ]);
    const docs = await t.app.inject({ url: '/docs' });
    expect(docs.headers['content-security-policy']).toBe(csp);
    expect(docs.body).toContain(`href="${assets.url('docs.css')}"`);
  });

  it('writes the same files with a manifest for npm run build', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mostrador-assets-'));
    try {
      const written = await writeAssets(dir);
      const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Record<string, string>;
      const served = await loadAssets();
      for (const asset of written) {
        expect(manifest[asset.name]).toBe(asset.file);
        expect(served.url(asset.name)).toBe(`/assets/${asset.file}`);
        expect(readFileSync(join(dir, asset.file)).equals(asset.body)).toBe(true);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
