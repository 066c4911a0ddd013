import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../lib/errors.ts';
import type { App } from './app.types.ts';

/**
 * Browser assets: the page entries of src/web/entries bundled by esbuild (TypeScript + Preact),
 * the shared stylesheet, and the static files of the kiosk and the docs. Each is served at a
 * content-hashed URL (/assets/<name>-<hash>.<ext>) that never changes meaning, so browsers keep
 * it a year. `npm start` bundles in memory when the server starts; `npm run build` writes the same
 * files and a manifest to dist/assets, which a built server uses instead of bundling again.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const WEB_DIR = join(ROOT, 'src', 'web');
const ENTRIES_DIR = join(WEB_DIR, 'entries');
/** Where `npm run build` leaves the bundles; next to dist/src, so a built server finds them. */
const BUILT_DIR = join(ROOT, 'assets');
export const DIST_ASSETS_DIR = join(ROOT, 'dist', 'assets');

const require = createRequire(import.meta.url);
/** Static files served as they are (several are joined in order), under a logical name the pages ask for. */
const STATIC_FILES: Record<string, () => string[]> = {
  'kiosk.js': () => [join(ROOT, 'src/modules/scanner/public/kiosk.js')],
  'kiosk.css': () => [join(ROOT, 'src/modules/scanner/public/kiosk.css')],
  'factura.js': () => [join(ROOT, 'src/modules/invoicing/public/factura.js')],
  'factura.css': () => [join(ROOT, 'src/modules/invoicing/public/factura.css')],
  'estado-de-cuenta.css': () => [
    join(ROOT, 'src/modules/invoicing/public/factura.css'),
    join(ROOT, 'src/modules/accounts/public/statement.css'),
  ],
  'docs.css': () => [join(ROOT, 'src/modules/docs/public/docs.css'), require.resolve('highlight.js/styles/github.min.css')],
  'favicon.svg': () => [join(ROOT, 'src/web/favicon.svg')],
};

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json',
};

export interface Asset {
  /** Logical name the pages use: "settings-integrations.js", "app.css", "kiosk.js". */
  name: string;
  /** The content-hashed file name, served at /assets/<file>. */
  file: string;
  body: Buffer;
  contentType: string;
}

export interface AssetCatalog {
  /** The URL of a logical asset; throws for a name that does not exist (a typo is a bug, not a 404). */
  url(name: string): string;
  byFile(file: string): Asset | undefined;
  list(): Asset[];
}

function hashed(name: string, body: Buffer): string {
  const ext = extname(name);
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return `${basename(name, ext)}-${hash}${ext}`;
}

function toAsset(name: string, body: Buffer): Asset {
  return { name, file: hashed(name, body), body, contentType: CONTENT_TYPES[extname(name)] ?? 'application/octet-stream' };
}

/** The page entries: one bundle per file in src/web/entries. */
export function pageEntries(): string[] {
  return readdirSync(ENTRIES_DIR)
    .filter((f) => f.endsWith('.tsx'))
    .sort();
}

/** Bundles every entry and the stylesheet with esbuild, in memory. */
export async function bundleAssets(): Promise<Asset[]> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [...pageEntries().map((f) => join(ENTRIES_DIR, f)), join(WEB_DIR, 'ui', 'app.css')],
    bundle: true,
    write: false,
    outdir: '/out',
    format: 'esm',
    splitting: false,
    minify: true,
    target: 'es2020',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    logLevel: 'silent',
    absWorkingDir: ROOT,
    tsconfig: join(WEB_DIR, 'tsconfig.json'),
  });
  const bundles = result.outputFiles.map((f) => toAsset(basename(f.path), Buffer.from(f.contents)));
  const statics = Object.entries(STATIC_FILES).map(([name, paths]) =>
    toAsset(name, Buffer.concat(paths().map((path) => readFileSync(path)))),
  );
  return [...bundles, ...statics];
}

function catalogOf(assets: Asset[]): AssetCatalog {
  const byName = new Map(assets.map((a) => [a.name, a]));
  const byFile = new Map(assets.map((a) => [a.file, a]));
  return {
    url(name) {
      const asset = byName.get(name);
      if (!asset) throw new Error(`unknown asset "${name}"`);
      return `/assets/${asset.file}`;
    },
    byFile: (file) => byFile.get(file),
    list: () => assets,
  };
}

function readBuilt(dir: string): Asset[] | null {
  const manifestPath = join(dir, 'manifest.json');
  if (!existsSync(manifestPath)) return null;
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, string>;
  return Object.entries(manifest).map(([name, file]) => ({
    name,
    file,
    body: readFileSync(join(dir, file)),
    contentType: CONTENT_TYPES[extname(name)] ?? 'application/octet-stream',
  }));
}

let loading: Promise<AssetCatalog> | null = null;

/** Once per process: the built files when this is a built server, else a bundle made now. */
export function loadAssets(): Promise<AssetCatalog> {
  loading ??= (async () => catalogOf(readBuilt(BUILT_DIR) ?? (await bundleAssets())))();
  return loading;
}

/** `npm run build`: writes the bundles and their manifest (logical name → hashed file). */
export async function writeAssets(dir = DIST_ASSETS_DIR): Promise<Asset[]> {
  const assets = await bundleAssets();
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const asset of assets) writeFileSync(join(dir, asset.file), asset.body);
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(Object.fromEntries(assets.map((a) => [a.name, a.file])), null, 2));
  return assets;
}

/** Gzipped size of an asset, for the budget test and the build report. */
export function gzippedSize(asset: Asset): number {
  return gzipSync(asset.body).length;
}

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** GET /assets/:file, and /favicon.ico for browsers that ask for it before reading the page. */
export function registerAssetRoutes(app: App, assets: AssetCatalog) {
  app.get(
    '/assets/:file',
    { schema: { hide: true, params: Type.Object({ file: Type.String({ maxLength: 200 }) }) } },
    (request: FastifyRequest<{ Params: { file: string } }>, reply: FastifyReply) => {
      const asset = assets.byFile(request.params.file);
      if (!asset) throw new AppError('not_found', `asset ${request.params.file} not found`);
      return reply
        .header('cache-control', IMMUTABLE)
        .header('x-content-type-options', 'nosniff')
        .type(asset.contentType)
        .send(asset.body);
    },
  );
  app.get('/favicon.ico', { schema: { hide: true } }, (_request, reply) => reply.redirect(assets.url('favicon.svg'), 301));
}
